"""One-call entry points: write a run's report or a comparison as HTML and/or PDF (and CSV)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from complots_solver.browse import DEFAULT_SEED, Browser, load_run
from complots_solver.reports.compare import build_comparison
from complots_solver.reports.document import Report, build_report
from complots_solver.reports.html import write_html
from complots_solver.reports.pdf import write_pdf
from complots_solver.reports.tables import TABLES, all_tables

FORMATS = ("html", "pdf")
# told (phase, steps of the phase done, steps in the phase or None when unknown) as a report is made
ReportProgress = Callable[[str, int, int | None], None]


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


def _phase(
    progress: ReportProgress | None, phase: str, total: int | None
) -> Callable[[int], None] | None:
    """Tell ``progress`` that ``phase`` starts; return the callback its steps report to."""
    if progress is None:
        return None
    progress(phase, 0, total)
    return lambda done: progress(phase, done, total)


def _read(
    run_dir: Path, games: int | None, seed: int | None, progress: ReportProgress | None
) -> Browser:
    """load_run, told to ``progress`` as one step (exact: reach and values; keyed: sampling)."""
    done = _phase(progress, f"reading {run_dir}", None)
    browser = load_run(run_dir, games, seed)
    if done:
        done(1)
    return browser


def write_outputs(
    report: Report, out: Path, formats: list[str], progress: ReportProgress | None = None
) -> dict[str, Path]:
    """Render ``report`` in every format, told to ``progress`` by section; return the paths."""
    paths = output_paths(out, formats)
    sections = len(report.sections)
    if "html" in paths:
        write_html(report, paths["html"], _phase(progress, "html", sections))
    if "pdf" in paths:
        write_pdf(report, paths["pdf"], _phase(progress, "pdf", sections))
    return paths


def write_report(
    run_dir: Path,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
    games: int | None = None,
    seed: int | None = None,
    progress: ReportProgress | None = None,
) -> dict[str, Path]:
    """Report of one run (and, with ``csv_dir``, every table as CSV).

    Exact runs are read on their compiled tree; keyed (MCCFR) runs by
    ``games`` sampled self-play games with ``seed`` (see :func:`load_run`).
    ``progress`` is told each phase's steps: reading, tables, then each format by section.
    """
    browser = _read(run_dir, games, seed, progress)
    return write_browser_report(browser, out, formats, csv_dir, progress)


def write_browser_report(
    browser: Browser,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
    progress: ReportProgress | None = None,
) -> dict[str, Path]:
    """Report of an already loaded browser (exact or sampled); see :func:`write_report`."""
    tables = all_tables(browser, _phase(progress, "tables", len(TABLES)))
    report = build_report(browser, tables)
    out = Path(out)
    if report.appendix is not None:
        name = f"{out.name}-appendix.html"
        report.sections[0].links.append((f"Appendix: more tables ({name})", name))
        paths = write_outputs(report, out, formats, progress)
        paths["appendix"] = write_html(report.appendix, out.parent / name)
    else:
        paths = write_outputs(report, out, formats, progress)
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
    progress: ReportProgress | None = None,
) -> dict[str, Path]:
    """Side-by-side report of two runs (and, with ``csv_dir``, its tables as CSV).

    Keyed runs are sampled with ``games`` games each; run B uses ``seed + 1``
    so that the two samples are independent. ``progress``: see :func:`write_report`.
    """
    seed_b = (DEFAULT_SEED if seed is None else seed) + 1
    a = _read(run_a, games, seed, progress)
    b = _read(run_b, games, seed_b, progress)
    return write_browser_comparison(a, b, out, formats, csv_dir, progress)


def write_browser_comparison(
    a: Browser,
    b: Browser,
    out: Path,
    formats: list[str],
    csv_dir: Path | None = None,
    progress: ReportProgress | None = None,
) -> dict[str, Path]:
    """Comparison of two already loaded browsers; see :func:`write_comparison`."""
    done = _phase(progress, "comparing", None)
    report = build_comparison(a, b)
    if done:
        done(1)
    paths = write_outputs(report, out, formats, progress)
    if csv_dir is not None:
        for table in report.tables():
            table.to_csv(Path(csv_dir))
        paths["csv"] = Path(csv_dir)
    return paths
