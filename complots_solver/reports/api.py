"""One-call entry points: write a run's report or a comparison as HTML and/or PDF (and CSV)."""

from __future__ import annotations

from pathlib import Path

from complots_solver.browse import StrategyBrowser
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
    run_dir: Path, out: Path, formats: list[str], csv_dir: Path | None = None
) -> dict[str, Path]:
    """Report of one run (and, with ``csv_dir``, every table as CSV)."""
    browser = StrategyBrowser(run_dir)
    tables = all_tables(browser)
    paths = write_outputs(build_report(browser, tables), out, formats)
    if csv_dir is not None:
        for table in tables.values():
            table.to_csv(Path(csv_dir))
        paths["csv"] = Path(csv_dir)
    return paths


def write_comparison(
    run_a: Path, run_b: Path, out: Path, formats: list[str], csv_dir: Path | None = None
) -> dict[str, Path]:
    """Side-by-side report of two runs (and, with ``csv_dir``, its tables as CSV)."""
    report = build_comparison(StrategyBrowser(run_a), StrategyBrowser(run_b))
    paths = write_outputs(report, out, formats)
    if csv_dir is not None:
        for table in report.tables():
            table.to_csv(Path(csv_dir))
        paths["csv"] = Path(csv_dir)
    return paths
