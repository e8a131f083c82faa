"""Duplicate-format tournaments: every rotation of a table replays the same deals."""

from __future__ import annotations

import pyspiel
import pytest
from click.testing import CliRunner

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.cli.main import cli
from complots_solver.play.tournament import (
    GameRecord,
    TournamentResult,
    game_rngs,
    play_game_bots,
    read_records,
    run_tournament,
    tables_of,
)
from complots_solver.rules import view
from complots_solver.rules.presets import resolve_game

THREE = "complots-inquisitor-3"
BOTS = ["honest", "counter", "bluffer", "random"]


def _first_hands(game: pyspiel.Game, specs, rngs) -> list[tuple[int, ...]]:
    """Every seat's face-down hand at the game's first decision."""
    seen: list[list[tuple[int, ...]]] = []

    def note(state, bot, action):
        if not seen:
            seen.append([tuple(view.hand(state.s, p)) for p in range(game.num_players())])

    play_game_bots(game, specs, rngs, on_decision=note)
    return seen[0]


def test_tables_group_the_rotations_of_one_set_of_bots() -> None:
    """Seatings with the same bots share a table index; others do not."""
    table = [("a", "b", "c"), ("b", "c", "a"), ("a", "b", "d"), ("c", "a", "b")]
    assert tables_of(table) == [0, 0, 1, 0]


def test_a_deal_is_shared_by_rotations_but_bots_draw_their_own_randomness() -> None:
    """Same deal and game: identical chance stream; bots' streams and other games differ."""
    a = game_rngs(7, 0, 3, 3, deal=2)
    b = game_rngs(7, 5, 3, 3, deal=2)
    assert a[0].random() == b[0].random()
    assert a[1].random() != b[1].random()
    assert game_rngs(7, 0, 4, 3, deal=2)[0].random() != game_rngs(7, 0, 3, 3, deal=2)[0].random()
    assert game_rngs(7, 0, 3, 3)[0].random() != game_rngs(7, 0, 3, 3, deal=0)[0].random()


def test_duplicate_tournament_replays_each_deal_in_every_rotation() -> None:
    """Each record replays from its table's deal stream; rotations start with the same hands."""
    config, _ = resolve_game(THREE)
    game = pyspiel.load_game(config.game_string())
    result = run_tournament(config, BOTS[:3], 4, seed=11, workers=1, duplicate=True)
    assert result.duplicate and {r.deal for r in result.records} == {0}
    hands: dict[int, set[tuple]] = {}
    for r in result.records:
        rngs = game_rngs(11, r.seating, r.game, 3, r.deal)
        winner, turns, _ = play_game_bots(game, r.seats, rngs)
        assert (winner, turns) == (r.winner, r.turns)
        first = _first_hands(game, r.seats, game_rngs(11, r.seating, r.game, 3, r.deal))
        hands.setdefault(r.game, set()).add(tuple(first))
    assert all(len(v) == 1 for v in hands.values())  # one deal per game index
    assert len({next(iter(v)) for v in hands.values()}) > 1  # and the deals differ
    plain = run_tournament(config, BOTS[:3], 4, seed=11, workers=1)
    firsts = {
        tuple(_first_hands(game, r.seats, game_rngs(11, r.seating, r.game, 3)))
        for r in plain.records
        if r.game == 0
    }
    assert len(firsts) > 1  # without duplicate, rotations deal afresh


def test_duplicate_results_do_not_depend_on_worker_count(tmp_path) -> None:
    """Same seed: identical records on 1 and 2 workers, and through the CSV."""
    config, _ = resolve_game(THREE)
    one = run_tournament(config, BOTS, 3, seed=5, workers=1, duplicate=True)
    two = run_tournament(config, BOTS, 3, seed=5, workers=2, duplicate=True)
    assert one.records == two.records
    one.write_csv(tmp_path / "games.csv")
    assert read_records(tmp_path / "games.csv") == one.records


def _result(wins_by_rotation: list[list[int]], duplicate: bool) -> TournamentResult:
    """Three bots at one 3-player table; ``wins_by_rotation[g][m]``: winning seat."""
    config, _ = resolve_game(THREE)
    table = [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    records = [
        GameRecord(m, g, table[m], winner, 10, deal=0 if duplicate else -1)
        for g, row in enumerate(wins_by_rotation)
        for m, winner in enumerate(row)
    ]
    return TournamentResult(
        config, ["a", "b", "c"], table, len(wins_by_rotation), 0, records, duplicate
    )


def test_table_shares_against_the_fair_share() -> None:
    """A bot that wins every deal is above 1/3 in every seat; the others are below."""
    # seat of "a" in rotation m: a,b,c / b,c,a / c,a,b -> 0, 2, 1
    rows = _result([[0, 2, 1]] * 40, duplicate=True).table_shares().set_index("bot")
    assert rows.loc["a", "share"] == 1.0 and rows.loc["a", "verdict"] == "above"
    assert [rows.loc["a", f"seat{p}"] for p in range(3)] == [1.0, 1.0, 1.0]
    assert rows.loc["b", "verdict"] == "below" and rows.loc["b", "ci_high"] < 1 / 3
    assert rows.loc["a", "opponents"] == "b, c"


def test_duplicate_intervals_count_deals_not_games() -> None:
    """Seat luck that repeats in every deal: the per-deal shares do not vary, the interval is
    narrower than over independent games; a bot that wins whole deals or none gets a wider one."""
    seat0 = [[0, 0, 0]] * 30  # seat 0 always wins: each bot wins one rotation of each deal
    dup = _result(seat0, True).table_shares().set_index("bot")
    ind = _result(seat0, False).table_shares().set_index("bot")
    assert dup.loc["a", "share"] == pytest.approx(1 / 3)
    assert (
        dup.loc["a", "ci_high"] - dup.loc["a", "ci_low"]
        < ind.loc["a", "ci_high"] - ind.loc["a", "ci_low"]
    )
    assert dup.loc["a", "seat0"] == 1.0 and dup.loc["a", "seat1"] == 0.0
    # "a" wins all three rotations of a third of the deals: games within a deal move together
    clumped = [[0, 2, 1]] * 10 + [[1, 1, 2]] * 20
    dup = _result(clumped, True).table_shares().set_index("bot")
    ind = _result(clumped, False).table_shares().set_index("bot")
    assert dup.loc["a", "share"] == pytest.approx(1 / 3)
    assert (
        dup.loc["a", "ci_high"] - dup.loc["a", "ci_low"]
        > ind.loc["a", "ci_high"] - ind.loc["a", "ci_low"]
    )


def test_evaluate_defaults_to_duplicate_deals_at_three_players() -> None:
    """The command says it plays duplicate deals at 3 players and prints the table shares."""
    runner = CliRunner()
    out = runner.invoke(
        cli, ["evaluate", THREE, "--bots", "honest,counter,random", "-n", "2", "--workers", "1"]
    )
    assert out.exit_code == 0, out.output
    assert "duplicate deals" in out.output and "fair share 1/3" in out.output
    out = runner.invoke(
        cli,
        [
            "evaluate",
            THREE,
            "--bots",
            "honest,counter,random",
            "-n",
            "2",
            "--workers",
            "1",
            "--no-duplicate",
        ],
    )
    assert out.exit_code == 0 and "duplicate deals)" not in out.output.split("seed")[0]
    two = runner.invoke(
        cli,
        ["evaluate", "draft-inquisitor", "--bots", "honest,random", "-n", "2", "--workers", "1"],
    )
    assert two.exit_code == 0 and "fair share" not in two.output
