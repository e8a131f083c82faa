"""One strategy against each bot: rows, intervals and verdicts."""

from __future__ import annotations

import pytest

from complots_solver.lab.play.gauntlet import gauntlet, markdown
from complots_solver.rules.presets import resolve_game

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_gauntlet_finds_a_significant_edge_and_is_consistent() -> None:
    """counter beats random significantly; wins and rates agree; the table names each opponent."""
    config, _ = resolve_game("draft-inquisitor")
    rows = gauntlet(config, "counter", ["random", "honest"], games=15, seed=0)
    by = {r["opponent"]: r for r in rows}
    assert by["random"]["games"] == 30
    assert by["random"]["verdict"] == "wins (significant)"
    assert by["random"]["win_rate"] == by["random"]["wins"] / 30
    assert by["random"]["ci_low"] <= by["random"]["win_rate"] <= by["random"]["ci_high"] + 1e-9
    assert -1.0 <= by["random"]["mean_return"] <= 1.0
    assert by["honest"]["verdict"] in (
        "wins (significant)",
        "loses (significant)",
        "no significant difference",
    )
    table = markdown(rows)
    assert "| random |" in table and "| honest |" in table
