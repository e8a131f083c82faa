"""Sampled strategy reports kept short: well-visited rows only, more tables in an appendix, and
extreme behaviour said in words."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from complots_solver.reports.api import write_browser_report
from complots_solver.reports.document import _extremes, shorten
from complots_solver.reports.tables import SAMPLED, StrategyTable


def _table(visits: list[int]) -> StrategyTable:
    """A sampled table whose rows have the given visits."""
    frame = pd.DataFrame({"hand": [f"h{k}" for k in range(len(visits))], "visits": visits})
    return StrategyTable("t", "T", "d", frame, SAMPLED, "sampled")


def test_rows_under_30_visits_are_left_out_and_said_so() -> None:
    """Visits 100, 10, 50, 29: the two rows under 30 go, the order of the rest is kept."""
    short = shorten(_table([100, 10, 50, 29]))
    assert list(short.frame["hand"]) == ["h0", "h2"]
    assert "2 row(s) with fewer than 30 sampled decisions" in short.note
    assert "t.csv keeps every row" in short.note


def test_at_most_twelve_rows_the_most_visited() -> None:
    """Twenty rows of 30 to 49 visits: the twelve most visited stay, in table order."""
    visits = [30 + (7 * k) % 20 for k in range(20)]
    short = shorten(_table(visits))
    top = sorted(range(20), key=lambda k: -visits[k])[:12]
    assert list(short.frame["hand"]) == [f"h{k}" for k in sorted(top)]
    assert "8 less visited row(s)" in short.note


def test_extreme_behaviour_is_named() -> None:
    """A claim never made, a claim bluffed 95% of the time; 50% is not extreme."""
    bluffs = pd.DataFrame(
        {
            "character": ["Duchess", "Assassin", "Countess"],
            "claims per game": [1.0, 0.0, 0.5],
            "bluff frequency": [0.5, float("nan"), 0.95],
            "bluffs challenged": [0.2, float("nan"), 0.3],
        }
    )
    assert _extremes(bluffs) == [
        "Extreme: it never claims the Assassin.",
        "Extreme: 95.0% of its Countess claims are bluffs.",
    ]


def test_an_exact_report_keeps_its_tables(browsers: dict, tmp_path: Path) -> None:
    """An exact report keeps every table: the exact ladder-1 run writes no appendix and shows
    tables beyond MAIN_TABLES itself (the sampled case: test_headline)."""
    paths = write_browser_report(browsers["ambassador"], tmp_path / "r", ["html"])
    assert "appendix" not in paths and not (tmp_path / "r-appendix.html").exists()
    page = (tmp_path / "r.html").read_text()
    assert 'data-key="reveals"' in page or 'data-key="counters"' in page
