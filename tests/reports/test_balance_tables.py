"""The balance report at 3 and 4 players: every seat, the edge over the fair share, and pairs.

Expected values are computed here from the hand-made game records (a Wilson
interval written out below, counts read off the records), not by the code
under test.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from complots_solver.cli.main import main
from complots_solver.reports.balance import (
    AMBASSADOR,
    INQUISITOR,
    BalanceInputs,
    Quality,
    build_balance_report,
    build_balance_reports,
    comparisons,
)
from complots_solver.reports.balance_games import GameRecord
from complots_solver.reports.balance_stats import LineupData, compare_balance
from complots_solver.rules.presets import GAMES_DIR_ENV, load_presets

Z = 1.959963984540054
AMB3, INQ3 = "complots-ambassador-3", "complots-inquisitor-3"
AMB4, INQ4 = "complots-ambassador", "complots-inquisitor"
HANDS = [(0, 3), (1, 2), (2, 4), (0, 1)]  # per seat (two cards each)


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval, written out independently of the package."""
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def records(winners: list[int], players: int) -> list[GameRecord]:
    """One hand-made game per winner (-1: a turn-cap draw)."""
    return [
        GameRecord(game=g, winner=w, turns=20, hands=list(HANDS[:players]))
        for g, w in enumerate(winners)
    ]


def lineup(preset: str, winners: list[int]) -> LineupData:
    """A preset's line-up data from hand-made winners."""
    config = load_presets()[preset].config()
    return LineupData(preset, config, records(winners, config.players))


def weak(data: dict[str, LineupData]) -> dict[str, Quality]:
    """A WEAK quality for every preset."""
    return {p: Quality(p, "WEAK", None, "WEAK: test") for p in data}


def test_every_seat_and_the_edge_over_the_fair_share_at_3_players() -> None:
    """12 games: seat 0 wins 6, seat 1 wins 3, seat 2 wins 2, one draw."""
    winners = [0, 0, 1, 0, 2, 0, 1, -1, 0, 2, 1, 0]
    d = lineup(AMB3, winners)
    assert d.players == 3 and not d.has_draft
    for seat, k in enumerate((6, 3, 2)):
        e = d.seat_win(seat)
        assert e.value == pytest.approx(k / 12)
        assert (e.low, e.high) == pytest.approx(wilson(k, 12))
    assert [e.value for e in d.seat_wins()] == pytest.approx([6 / 12, 3 / 12, 2 / 12])
    assert d.draws().value == pytest.approx(1 / 12)
    edge = d.first_player_edge()  # seat 0's share minus 1/3, its Wilson interval shifted
    lo, hi = wilson(6, 12)
    assert edge.value == pytest.approx(6 / 12 - 1 / 3)
    assert (edge.low, edge.high) == pytest.approx((lo - 1 / 3, hi - 1 / 3))
    assert d.seat_over_fair(2).value == pytest.approx(2 / 12 - 1 / 3)
    assert d.seat_spread() == pytest.approx(6 / 12 - 2 / 12)
    # the draft exists only in the 2-player draft: nothing to report for a dealt game
    assert d.pick_table().empty and d.pick_given_random().empty


def test_edge_at_4_players_is_against_a_quarter() -> None:
    """40 games: seat 0 wins 16, the others 8 each; the edge is 0.4 - 0.25, significant."""
    d = lineup(AMB4, [0] * 16 + [1] * 8 + [2] * 8 + [3] * 8)
    assert d.players == 4
    edge = d.first_player_edge()
    lo, hi = wilson(16, 40)
    assert edge.value == pytest.approx(0.15)
    assert (edge.low, edge.high) == pytest.approx((lo - 0.25, hi - 0.25))
    assert edge.significant == (lo > 0.25)
    assert d.seat_win(3).value == pytest.approx(0.2)
    assert d.seat_spread() == pytest.approx(0.2)


def test_two_player_edge_is_still_seat_0_minus_seat_1() -> None:
    """10 games, 5 - 3 - 2 draws: edge 0.2 with the normal interval of a difference of shares."""
    d = lineup(AMBASSADOR, [0, 0, 0, 0, 0, 1, 1, 1, -1, -1])
    edge = d.first_player_edge()
    half = Z * math.sqrt((0.5 + 0.3 - 0.2**2) / 10)
    assert edge.value == pytest.approx(0.2)
    assert (edge.low, edge.high) == pytest.approx((0.2 - half, 0.2 + half))
    assert d.has_draft


def test_seat_spread_samples_cover_every_seat() -> None:
    """Seats 0 and 1 share the wins, seat 2 never wins: every resample's spread is >= 0.5.

    |seat 0 - seat 1| (the 2-player spread) would be near 0 here.
    """
    d = lineup(AMB3, [0, 1] * 50)
    samples = d.seat_spread_samples(np.random.default_rng(0))
    assert samples.min() >= 0.5 and samples.max() <= 1.0
    always = lineup(AMB3, [0] * 30)
    assert np.all(always.seat_spread_samples(np.random.default_rng(0)) == 1.0)


def test_compare_balance_at_3_players_uses_every_seat() -> None:
    """Even seats (1/3 each) beat a line-up whose seat 0 wins 60%: spread 0 against 0.4."""
    even = lineup(AMB3, [0, 1, 2] * 200)
    lopsided = lineup(INQ3, [0] * 360 + [1] * 120 + [2] * 120)
    metrics = compare_balance(even, lopsided, seed=0)
    seat = metrics[0]
    assert seat.name == "seat spread (best - worst seat win rate)"
    assert seat.a.value == pytest.approx(0.0) and seat.b.value == pytest.approx(0.4)
    assert seat.difference.value == pytest.approx(-0.4)
    assert seat.better == 0
    assert seat.b.low <= 0.4 <= seat.b.high
    with pytest.raises(ValueError, match="one table size"):
        compare_balance(even, lineup(AMBASSADOR, [0, 1] * 10), seed=0)


def test_comparisons_found_at_3_and_4_players() -> None:
    """Both pairs of 3+ player games are compared; the absent 2-player pair is not."""
    data = {
        AMB3: lineup(AMB3, [0, 1, 2] * 100),
        INQ3: lineup(INQ3, [0] * 180 + [1] * 60 + [2] * 60),
        AMB4: lineup(AMB4, [0, 1, 2, 3] * 75),
        INQ4: lineup(INQ4, [0] * 150 + [1] * 50 + [2] * 50 + [3] * 50),
    }
    found = {c.players: c for c in comparisons(data, seed=0)}
    assert sorted(found) == [2, 3, 4, 5, 6]
    assert found[2].metrics is None and set(found[2].missing) == {AMBASSADOR, INQUISITOR}
    assert found[5].metrics is None and found[5].presets[1] == "complots-inquisitor-5"
    assert found[3].presets == (AMB3, INQ3) and found[4].presets == (AMB4, INQ4)
    assert found[3].metrics is not None and found[4].metrics is not None
    # seat 0 wins 60% of 3-player Inquisitor games (spread 0.4), 50% of 4-player (0.5 - 1/6)
    assert found[3].metrics[0].b.value == pytest.approx(0.6 - 0.2)
    assert found[4].metrics[0].b.value == pytest.approx(0.5 - 50 / 300)
    assert found[3].metrics[0].better == 0 and found[4].metrics[0].better == 0

    report = build_balance_report(BalanceInputs(data, weak(data), 300, 0, "complots balance"))
    assert report.front is not None
    answer = report.front.tables[0].frame.set_index("players")
    assert answer.loc[3, "better balanced"] == "Ambassador"
    assert answer.loc[4, "better balanced"] == "Ambassador"
    assert answer.loc[3, "deciding measure"] == "seat spread"
    assert (answer.loc[[2, 5, 6], "better balanced"] == "not compared").all()
    measures = next(t for t in report.tables() if t.key == "balance_measures").frame
    assert sorted(set(measures["players"])) == [3, 4]
    assert "Number of tests: 6" in " ".join(report.sections[1].paragraphs)


def test_a_pair_with_one_side_missing_says_which() -> None:
    """Only the 4-player Ambassador game: the 4-player row names the missing game."""
    data = {AMB4: lineup(AMB4, [0, 1, 2, 3] * 10)}
    found = {c.players: c for c in comparisons(data, seed=0)}
    assert found[4].metrics is None and found[4].missing == (INQ4,) and found[4].partial
    report = build_balance_report(BalanceInputs(data, weak(data), 40, 0, "complots balance"))
    answer = report.front.tables[0].frame.set_index("players")
    assert answer.loc[4, "better balanced"] == "not compared"
    assert answer.loc[4, "how sure"] == f"no strategy for {INQ4}"
    assert answer.loc[4, "first player's edge, Inquisitor"] == "no strategy"
    assert answer.loc[4, "first player's edge, Ambassador"].endswith("]")
    assert answer.loc[3, "how sure"] == f"no strategy for {AMB3}, {INQ3}"


def test_report_at_3_players_names_every_seat_and_the_fair_share() -> None:
    """The edge table gives seat 0's share and its edge over 1/3; the appendix every seat."""
    winners = [0] * 60 + [1] * 30 + [2] * 27 + [-1] * 3  # 120 games
    data = {AMB3: lineup(AMB3, winners)}
    report, appendix = build_balance_reports(
        BalanceInputs(data, weak(data), 120, 0, "complots balance")
    )
    lo, hi = wilson(60, 120)
    edge = (
        f"+{100 * (0.5 - 1 / 3):.1f} points [{100 * (lo - 1 / 3):+.1f}, {100 * (hi - 1 / 3):+.1f}]"
    )
    row = next(t for t in report.tables() if t.key == "first_player_edge").frame.iloc[0]
    assert row["line-up"] == "3-player Ambassador" and row["fair share"] == "33%"
    assert row["seat 0 wins"] == f"50.0% [{100 * lo:.1f}, {100 * hi:.1f}]"
    assert row["first player's edge"] == edge
    assert report.front.tables[0].frame.iloc[1]["first player's edge, Ambassador"] == edge
    seats = next(t for t in appendix.tables() if t.key == "seat_win_rates").frame
    assert list(seats["seat"]) == ["0", "1", "2", "draws"]
    assert list(seats["win share"].str.split("%").str[0]) == [
        f"{100 * k / 120:.1f}" for k in (60, 30, 27, 3)
    ]
    assert not any(t.key == "draft_picks" for t in report.tables())  # no draft at 3 players
    for table in report.tables():
        assert len(table.frame.columns) <= 7, table.key


def test_two_player_answer_with_a_table_pair_beside_it() -> None:
    """A 2-player pair with a strong first-player edge for the Inquisitor: the Ambassador is
    better balanced at 2 players whether or not a 3-player pair joins; 3 players cannot tell."""
    two = {
        AMBASSADOR: lineup(AMBASSADOR, [0, 1] * 150),
        INQUISITOR: lineup(INQUISITOR, [0] * 210 + [1] * 90),
    }
    alone = build_balance_report(BalanceInputs(two, weak(two), 300, 0, "complots balance"))
    answer = alone.front.tables[0].frame.set_index("players")
    assert answer.loc[2, "better balanced"] == "Ambassador"
    # Inquisitor: 210 - 90 of 300, edge +40.0 points; Ambassador 150 - 150: +0.0
    assert answer.loc[2, "first player's edge, Inquisitor"].startswith("+40.0 points")
    assert answer.loc[2, "first player's edge, Ambassador"].startswith("+0.0 points")

    mixed = dict(two)
    mixed[AMB3] = lineup(AMB3, [0, 1, 2] * 100)
    mixed[INQ3] = lineup(INQ3, [0, 1, 2] * 100)
    both = build_balance_report(BalanceInputs(mixed, weak(mixed), 300, 0, "complots balance"))
    answer = both.front.tables[0].frame.set_index("players")
    assert answer.loc[2, "better balanced"] == "Ambassador"
    assert answer.loc[3, "better balanced"] == "cannot tell"
    assert answer.loc[3, "how sure"].startswith("not sure")


@pytest.fixture
def table_games_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A games folder with the real presets and a tiny untrained 3-player table network."""
    from complots_solver.rules.presets import games_dir, resolve_game
    from complots_solver.solvers.knowledge.table_features import num_features
    from complots_solver.solvers.nets.tablenet import TableNet

    root = tmp_path / "games"
    folder = root / "strategies" / AMB3
    folder.mkdir(parents=True)
    (root / "presets").symlink_to(games_dir() / "presets", target_is_directory=True)
    config, _ = resolve_game(AMB3)
    net = TableNet.create(num_features(3), config.num_distinct_actions(), (16,), seed=0)
    net.save(folder / "policy-net.npz", meta={"game": config.game_string()})
    meta = {"quality": "WEAK: test", "responder_gain": {"gain": 0.1, "ci95": [0.05, 0.15]}}
    (folder / "meta.json").write_text(json.dumps(meta))
    monkeypatch.setenv(GAMES_DIR_ENV, str(root))
    load_presets.cache_clear()  # cached under the default folder
    yield root
    load_presets.cache_clear()


def test_balance_command_at_3_players_end_to_end(table_games_dir: Path, tmp_path: Path) -> None:
    """Thirty self-play games of a 3-player table network: the answer row, the strength in
    plain words, every seat in the appendix."""
    out = tmp_path / "b3"
    main(["balance", AMB3, "--games", "30", "--workers", "1", "--format", "html",
          "--out", str(out)])  # fmt: skip
    page = (tmp_path / "b3.html").read_text()
    assert 'id="answer"' in page
    assert f"no strategy for {INQ3}" in page
    # gain +0.10 over the fair share 1/3: a trained player wins about 43% of games
    assert "wins about 43% of games (fair share 33%; +10 points over the fair share" in page
    appendix = (tmp_path / "b3-appendix.html").read_text()
    shares = [
        float(x)
        for x in re.findall(
            r'<td class="text">(?:0|1|2|draws)</td><td class="text">(\d+\.\d)%', appendix
        )
    ]
    assert len(shares) == 4 and sum(shares) == pytest.approx(100.0, abs=0.2)
