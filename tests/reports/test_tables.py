"""Strategy tables: probabilities sum to 1, match the strategy file, CSV export."""

from __future__ import annotations

import pandas as pd
import pytest

from complots_solver.browse import StrategyBrowser
from complots_solver.reports.compare import build_comparison
from complots_solver.reports.tables import EXACT, all_tables

LINEUPS = ("ambassador", "inquisitor")


@pytest.fixture(scope="module")
def tables(browsers: dict) -> dict:
    """Every table of both line-ups."""
    return {lineup: all_tables(b) for lineup, b in browsers.items()}


@pytest.mark.parametrize("lineup", LINEUPS)
def test_probability_rows_sum_to_one(tables: dict, lineup: str) -> None:
    """Each distribution table's rows sum to 1; every table is exact with its basis stated."""
    checked = 0
    for table in tables[lineup].values():
        assert table.basis == EXACT and table.exact and "exact" in table.basis_text
        if table.prob_columns and not table.frame.empty:
            sums = table.frame[table.prob_columns].sum(axis=1)
            assert sums.to_numpy() == pytest.approx(1.0, abs=1e-9), table.key
            assert (table.frame[table.prob_columns] >= 0).all().all()
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("lineup", LINEUPS)
def test_opening_moves_match_the_strategy_file(browsers: dict, tables: dict, lineup: str) -> None:
    """Seat 0's opening row for a hand is exactly that infoset's strategy (one infoset per hand)."""
    b: StrategyBrowser = browsers[lineup]
    frame = tables[lineup]["opening_moves"].frame
    seat0 = frame[frame["seat"] == 0]
    assert len(seat0) == 5  # one random card each (1 influence)
    for _, row in seat0.iterrows():
        (i,) = b.find(seat=0, turn=0, stage="ACTION", hand=row["hand"])["infoset"].tolist()
        lo, hi = b.tree.action_offsets[i], b.tree.action_offsets[i + 1]
        for action, p in zip(b.tree.legal_actions[lo:hi], b.strategy.average[lo:hi], strict=True):
            name = b.actions.loc[b.actions["action"] == action, "move"].iloc[0]
            assert row[name] == pytest.approx(p, abs=1e-12)
        assert row["reach"] == pytest.approx(0.2)


@pytest.mark.parametrize("lineup", LINEUPS)
def test_values_and_shares(browsers: dict, tables: dict, lineup: str) -> None:
    """Hand values average to the seat value; key tables hold the exact game figures."""
    b: StrategyBrowser = browsers[lineup]
    t = tables[lineup]
    hv = t["hand_values"].frame
    for seat in range(2):
        sub = hv[hv["seat"] == seat]
        assert sub["probability"].sum() == pytest.approx(1.0)
        assert (sub["probability"] * sub["value"]).sum() == pytest.approx(b.game_value()[seat])
    gv = t["game_values"].frame
    assert gv["value"].tolist() == pytest.approx(list(b.game_value()))
    assert (gv["equilibrium value >="] <= gv["value"] + 1e-12).all()
    bl = t["bluffs"].frame
    assert ((bl["bluff frequency"] >= 0) & (bl["bluff frequency"] <= 1)).all()
    assert t["draft_picks"].frame.empty and "no draft pick" in t["draft_picks"].note
    if lineup == "ambassador":
        assert t["examine_decisions"].note == "No Inquisitor in this line-up."
    else:
        ex = t["examine_decisions"].frame
        assert not ex.empty
        assert (ex["Return card"] + ex["Force swap"]).to_numpy() == pytest.approx(1.0)


def test_csv_export_round_trips(tables: dict, tmp_path) -> None:
    """Each table's CSV starts with its title and basis and reloads to the same numbers."""
    table = tables["inquisitor"]["challenges"]
    path = table.to_csv(tmp_path)
    first = path.read_text().splitlines()[0]
    assert first.startswith("# Challenge probability") and "exact" in first
    back = pd.read_csv(path, comment="#")
    assert back["Challenge"].to_numpy() == pytest.approx(table.frame["Challenge"].to_numpy())


def test_comparison_tables(browsers: dict) -> None:
    """The comparison's seat values and summary use both runs' exact values and bounds."""
    a, b = browsers["ambassador"], browsers["inquisitor"]
    report = build_comparison(a, b)
    sv = report.tables()[0].frame
    assert sv["value Ambassador"].tolist() == pytest.approx(list(a.game_value()))
    assert sv["value Inquisitor"].tolist() == pytest.approx(list(b.game_value()))
    assert (sv["difference >="] <= sv["difference"] + 1e-12).all()
    assert (sv["difference"] <= sv["difference <="] + 1e-12).all()
    text = " ".join(report.sections[0].paragraphs)
    assert "exploitability" in text and "certainly" in text
