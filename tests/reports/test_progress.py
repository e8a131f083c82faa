"""Reports tell their progress by phase (reading, tables, each format by section)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from complots_solver.cli import main as cli_main
from complots_solver.cli.report_cmds import report_progress
from complots_solver.reports.api import write_comparison, write_report
from complots_solver.reports.document import Report, Section
from complots_solver.reports.pdf import write_pdf
from complots_solver.reports.tables import TABLES

Event = tuple[str, int, int | None]


def phases(events: list[Event]) -> dict[str, list[int]]:
    """The steps each phase reported, in order, by phase (in the order the phases began)."""
    out: dict[str, list[int]] = {}
    for phase, done, _ in events:
        out.setdefault(phase, []).append(done)
    return out


def check_counts(events: list[Event]) -> None:
    """Every phase starts at 0, counts up by one and ends at its total (1 when unknown)."""
    totals = {phase: total for phase, _, total in events}
    for phase, steps in phases(events).items():
        end = totals[phase] if totals[phase] is not None else 1
        assert steps == list(range(end + 1)), phase


def test_a_report_tells_each_phase(runs: dict[str, Path], tmp_path: Path) -> None:
    """Reading the run, every table, then every section of the HTML."""
    events: list[Event] = []
    write_report(runs["ambassador"], tmp_path / "r", ["html"], progress=lambda *e: events.append(e))
    run = str(runs["ambassador"])
    assert list(phases(events)) == [f"reading {run}", "tables", "html"]
    check_counts(events)
    totals = {phase: total for phase, _, total in events}
    assert totals["tables"] == len(TABLES)
    html = (tmp_path / "r.html").read_text()
    assert totals["html"] == html.count("<section")


def test_a_comparison_tells_each_phase(runs: dict[str, Path], tmp_path: Path) -> None:
    """Reading both runs, comparing, then every section of the HTML."""
    events: list[Event] = []
    a, b = runs["ambassador"], runs["inquisitor"]
    write_comparison(a, b, tmp_path / "c", ["html"], progress=lambda *e: events.append(e))
    assert list(phases(events)) == [f"reading {a}", f"reading {b}", "comparing", "html"]
    check_counts(events)


def test_the_pdf_tells_each_section(tmp_path: Path) -> None:
    """write_pdf reports the sections done, one by one."""
    sections = [Section(f"s{k}", f"Section {k}", ["text"], []) for k in range(3)]
    done: list[int] = []
    write_pdf(Report("progress", [], sections), tmp_path / "p.pdf", done.append)
    assert done == [1, 2, 3]


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_shows_on_a_terminal_only(terminal: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's phase lines and the tree-build spinner draw on terminals, not into pipes."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=terminal, width=100)
    with report_progress(console) as progress:
        progress("tables", 0, 3)
        progress("tables", 3, 3)
    monkeypatch.setattr(cli_main, "console", Console(file=buf, force_terminal=terminal))
    with cli_main.waiting("building the exact tree"):
        time.sleep(0.3)
    text = buf.getvalue()
    if terminal:
        assert "3/3" in text and "building the exact tree" in text
    else:
        assert text == ""
