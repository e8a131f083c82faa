"""One-call entry points: write a run's report or a comparison as HTML and/or PDF (and CSV)."""

from __future__ import annotations

from pathlib import Path

from complots_solver.browse import DEFAULT_SEED, StrategyBrowser, load_run
from complots_solver.reports.compare import build_comparison
from complots_solver.reports.document import Report, build_report
from complots_solver.reports.html import write_html
from complots_solver.reports.pdf import write_pdf
from complots_solver.reports.tables import all_tables

FORMATS = ("html", "pdf")


def parse_formats(text: str) -> list[str]:
    """'html,pdf' -> ['html', 'pdf']; unknown formats raise ValueError."""
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ValueError(
            f"format must be a comma-separated list of {', '.join(FORMATS)}, got {text!r}"
        )
    return list(dict.fromkeys(formats))


def output_paths(out: Path, formats: list[str]) -> dict[str, Path]:
    """One path per format: OUT's stem with each format's suffix."""
    out = Path(out)
    base = out.with_suffix("") if out.suffix.lower() in (".html", ".pdf") else out
    return {f: base.with_name(base.name + "." + f) for f in formats}


def write_outputs(report: Report, out: Path, formats: list[str]) -> dict[str, Path]:
    """Render ``report`` in every format; return the written paths."""
    paths = output_paths(out, formats)
    if "html" in paths:
        write_html(report, paths["html"])
    if "pdf" in paths:
        write_pdf(report, paths["pdf"])
    return paths


def write_report(
    run_dir: Path,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
    games: int | None = None,
    seed: int | None = None,
) -> dict[str, Path]:
    """Report of one run (and, with ``csv_dir``, every table as CSV).

    Exact runs are read on their compiled tree; keyed (MCCFR) runs by
    ``games`` sampled self-play games with ``seed`` (see :func:`load_run`).
    """
    return write_browser_report(load_run(run_dir, games, seed), out, formats, csv_dir)


def write_browser_report(
    browser: StrategyBrowser, out: Path, formats: list[str], csv_dir: Path | None = None
) -> dict[str, Path]:
    """Report of an already loaded browser (exact or sampled); see :func:`write_report`."""
    tables = all_tables(browser)
    paths = write_outputs(build_report(browser, tables), out, formats)
    if csv_dir is not None:
        for table in tables.values():
            table.to_csv(Path(csv_dir))
        paths["csv"] = Path(csv_dir)
    return paths


def write_comparison(
    run_a: Path,
    run_b: Path,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
    games: int | None = None,
    seed: int | None = None,
) -> dict[str, Path]:
    """Side-by-side report of two runs (and, with ``csv_dir``, its tables as CSV).

    Keyed runs are sampled with ``games`` games each; run B uses ``seed + 1``
    so that the two samples are independent.
    """
    seed_b = (DEFAULT_SEED if seed is None else seed) + 1
    a, b = load_run(run_a, games, seed), load_run(run_b, games, seed_b)
    return write_browser_comparison(a, b, out, formats, csv_dir)


def write_browser_comparison(
    a: StrategyBrowser,
    b: StrategyBrowser,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
) -> dict[str, Path]:
    """Comparison of two already loaded browsers; see :func:`write_comparison`."""
    report = build_comparison(a, b)
    paths = write_outputs(report, out, formats)
    if csv_dir is not None:
        for table in report.tables():
            table.to_csv(Path(csv_dir))
        paths["csv"] = Path(csv_dir)
    return paths
