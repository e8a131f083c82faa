"""The balance report's second opinion: each verdict recomputed with a second set of strategies,
called robust only where both sets reach it."""

from __future__ import annotations

import csv
from pathlib import Path

from complots_solver.cli.main import main
from complots_solver.reports.balance import (
    AMBASSADOR,
    INQUISITOR,
    BalanceInputs,
    Quality,
    build_balance_reports,
    check_presets,
    second_opinion_presets,
)
from complots_solver.reports.balance_common import PAIRS
from complots_solver.reports.balance_games import GameRecord
from complots_solver.reports.balance_stats import LineupData
from complots_solver.rules.presets import load_presets
from complots_solver.solvers.common.folders import second_opinion_dir, strategies_dir


def _data(preset: str, n: int, seat0_wins: int) -> LineupData:
    """``n`` hand-made 2-player games, seat 0 winning the first ``seat0_wins``."""
    records = [
        GameRecord(game=g, winner=0 if g < seat0_wins else 1, turns=8, hands=[(0, 3), (1, 2)])
        for g in range(n)
    ]
    return LineupData(preset, load_presets()[preset].config(), records)


def _inputs(second: dict[str, LineupData]) -> BalanceInputs:
    """The Ambassador even (seat 0 wins 50%), the Inquisitor lopsided (90%): Ambassador."""
    data = {AMBASSADOR: _data(AMBASSADOR, 400, 200), INQUISITOR: _data(INQUISITOR, 400, 360)}
    quality = {
        p: Quality(p, "WEAK", None, "WEAK: test", (0.3, 0.27, 0.33), "responder") for p in data
    }
    return BalanceInputs(
        data, quality, 400, 0, "complots balance x", second=second,
        second_qualities={p: Quality(p, "WEAK", None, "WEAK: second") for p in second},
    )  # fmt: skip


def _how_sure(inputs: BalanceInputs) -> str:
    report, _ = build_balance_reports(inputs)
    assert report.front is not None
    frame = report.front.tables[0].frame
    assert frame["better balanced"][0] == "Ambassador"
    return str(frame["how sure"][0])


def test_a_verdict_both_sets_reach_is_robust() -> None:
    agree = {AMBASSADOR: _data(AMBASSADOR, 400, 205), INQUISITOR: _data(INQUISITOR, 400, 340)}
    inputs = _inputs(agree)
    assert _how_sure(inputs).endswith("; robust: the second set of strategies agrees")
    report, appendix = build_balance_reports(inputs)
    sure = " ".join(next(s for s in report.sections if s.key == "sure").paragraphs)
    assert "At 2 players the second set says Ambassador" in sure and "WEAK: second" not in sure
    # one pair in each set: 3 tests each, so the second set is corrected for 3 as well
    assert "The second set makes 3 tests; Holm's correction counts 3" in sure
    assert [t.key for t in appendix.sections[0].tables] == ["answer_second"]
    assert "answer_second" in {t.key for t in inputs.csv_tables}


def test_a_verdict_the_second_set_does_not_reach_is_not_robust() -> None:
    flipped = {AMBASSADOR: _data(AMBASSADOR, 400, 360), INQUISITOR: _data(INQUISITOR, 400, 200)}
    assert _how_sure(_inputs(flipped)).endswith(
        "; not robust: the second set of strategies says Inquisitor"
    )
    level = {AMBASSADOR: _data(AMBASSADOR, 400, 200), INQUISITOR: _data(INQUISITOR, 400, 204)}
    assert "not robust: the second set of strategies says cannot tell" in _how_sure(_inputs(level))


def test_without_a_second_set_nothing_is_called_robust() -> None:
    inputs = _inputs({})
    assert _how_sure(inputs).endswith("; not checked with a second set of strategies")
    report, appendix = build_balance_reports(inputs)
    sure = " ".join(next(s for s in report.sections if s.key == "sure").paragraphs)
    assert "no verdict is called robust" in sure
    assert "answer_second" not in {t.key for t in inputs.csv_tables}


def test_second_strategies_are_used_only_for_whole_pairs() -> None:
    """A pair is replayed only when both of its games ship a second strategy."""
    chosen = check_presets([])
    folders = second_opinion_presets(chosen)
    assert AMBASSADOR in folders and INQUISITOR in folders
    for pair in PAIRS:
        assert all(p in folders for p in pair) or not any(p in folders for p in pair)
        for p in pair:
            if p in folders:
                assert folders[p] == strategies_dir() / "second" / p
                assert (folders[p] / "meta.json").is_file()
    assert second_opinion_presets([AMBASSADOR]) == {}
    assert second_opinion_dir("complots-7") is None


def test_balance_command_plays_the_second_strategies(tmp_path: Path) -> None:
    """Thirty games a line-up, both 2-player drafts: the second set's games are other games
    (other strategies, same seed) and the page says what they conclude."""
    out = tmp_path / "b"
    main(["balance", AMBASSADOR, INQUISITOR, "--games", "30", "--workers", "2", "--format",
          "html", "--out", str(out)])  # fmt: skip
    page = (tmp_path / "b.html").read_text()
    assert "At 2 players the second set says" in page
    assert "net:games/strategies/second/draft-inquisitor" in page
    with open(tmp_path / "b-tables" / "answer_second.csv", newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    assert rows[0][0] == "players" and rows[1][0] == "2"
    main(["balance", AMBASSADOR, INQUISITOR, "--games", "30", "--workers", "2", "--format",
          "html", "--no-second", "--out", str(tmp_path / "c")])  # fmt: skip
    plain = (tmp_path / "c.html").read_text()
    assert "not checked with a second set" in plain and "--no-second" in plain
    assert not (tmp_path / "c-tables" / "answer_second.csv").exists()


def test_a_smaller_second_set_is_held_to_the_shipped_sets_standard() -> None:
    """Shipped: 2 and 3 players (6 tests); second: 2 players only (3 tests), corrected for 6."""
    three = [((0, 3), (1, 2), (4, 0))] * 300
    table = {
        p: LineupData(
            p,
            load_presets()[p].config(),
            [GameRecord(game=g, winner=g % 3, turns=9, hands=list(three[g])) for g in range(300)],
        )
        for p in PAIRS[1]
    }
    inputs = _inputs(
        {AMBASSADOR: _data(AMBASSADOR, 400, 205), INQUISITOR: _data(INQUISITOR, 400, 340)}
    )
    inputs.data.update(table)
    inputs.qualities.update({p: Quality(p, "WEAK", None, "WEAK: test") for p in table})
    report, appendix = build_balance_reports(inputs)
    sure = " ".join(next(s for s in report.sections if s.key == "sure").paragraphs)
    assert "The second set makes 3 tests; Holm's correction counts 6" in sure
    assert "Holm's correction for 6 tests" in appendix.sections[0].tables[0].description
