"""Tournaments: seatings, determinism across worker counts, draws, CSV, Bradley-Terry."""

from __future__ import annotations

import csv

import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.tournament import (
    GameRecord,
    TournamentResult,
    game_rngs,
    play_game_bots,
    run_tournament,
    seatings,
)
from complots_solver.rules.presets import resolve_game


def test_seatings_rotate_seats():
    """2 players: ordered pairs; n players: each combination in its n rotations."""
    assert seatings(["a", "b", "c"], 2) == [
        ("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "b"),
    ]  # fmt: skip
    three = seatings(["a", "b", "c", "d"], 3)
    assert len(three) == 4 * 3
    assert ("a", "b", "c") in three and ("b", "c", "a") in three and ("c", "a", "b") in three
    with pytest.raises(ValueError, match="at least 3 distinct bots"):
        seatings(["a", "b"], 3)
    with pytest.raises(ValueError, match="distinct"):
        seatings(["a", "a"], 2)


def test_results_do_not_depend_on_worker_count():
    """Same seed: identical records with 1 and 2 workers; another seed differs."""
    config, _ = resolve_game("draft-inquisitor")
    bots = ["counter", "bluffer", "random"]
    one = run_tournament(config, bots, 8, seed=42, workers=1)
    two = run_tournament(config, bots, 8, seed=42, workers=2)
    assert one.records == two.records
    assert one.standings().equals(two.standings())
    other = run_tournament(config, bots, 8, seed=43, workers=1)
    assert other.records != one.records


def test_multiplayer_tournament_and_csv(tmp_path):
    """3 players, 3 bots: 3 rotations, every bot in every game, CSV one row per game."""
    config, _ = resolve_game("complots-ambassador-3")
    result = run_tournament(config, ["honest", "counter", "random"], 5, seed=0, workers=2)
    assert len(result.records) == 15
    table = result.standings()
    assert (table.games == 15).all()
    assert (table.wins + table.draws + table.losses == table.games).all()
    assert table.wins.sum() == sum(not r.capped for r in result.records)
    path = tmp_path / "out" / "games.csv"
    result.write_csv(path)
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 15
    assert set(rows[0]) >= {
        "seat0",
        "seat1",
        "seat2",
        "winner_seat",
        "winner_bot",
        "turns",
        "capped",
    }


def test_turn_cap_draws_are_counted():
    """With a 2-turn cap most games are draws, counted for both bots."""
    config, _ = resolve_game("ladder-1-ambassador")
    result = run_tournament(config, ["random", "honest"], 30, seed=0)
    draws = sum(r.capped for r in result.records)
    assert draws > 0
    assert (result.standings().draws == draws).all()
    h2h = result.head_to_head()
    assert (h2h.wins + h2h.opponent_wins + h2h.draws == h2h.games).all()


def _result(records: list[tuple[tuple[str, ...], int]], bots: list[str]) -> TournamentResult:
    config, _ = resolve_game("draft-ambassador")
    recs = [GameRecord(0, i, seats, winner, 10) for i, (seats, winner) in enumerate(records)]
    return TournamentResult(config, bots, [], len(recs), 0, recs)


def test_bradley_terry_orders_and_balances():
    """A beats B 3:1, B beats C 3:1: ratings ordered A > B > C, mean 0; even record: equal."""
    games = [(("a", "b"), 0)] * 30 + [(("a", "b"), 1)] * 10
    games += [(("b", "c"), 0)] * 30 + [(("b", "c"), 1)] * 10
    ratings = _result(games, ["a", "b", "c"]).bradley_terry()
    assert ratings["a"] > ratings["b"] > ratings["c"]
    assert sum(ratings.values()) == pytest.approx(0.0, abs=1e-9)
    # 3:1 is log10(3) * 400 = 191 Elo points (shrunk a little by the prior)
    assert 150 < ratings["a"] - ratings["b"] < 191
    even = _result([(("a", "b"), 0), (("a", "b"), 1), (("a", "b"), -1)], ["a", "b"]).bradley_terry()
    assert even["a"] == pytest.approx(even["b"])
    never = _result([(("a", "b"), 0)] * 5, ["a", "b"]).bradley_terry()
    assert never["a"] > never["b"] and abs(never["b"]) < float("inf")


def test_bad_arguments():
    """Unknown bots, zero games, zero workers: ValueError."""
    config, _ = resolve_game("draft-ambassador")
    with pytest.raises(ValueError, match="bot must be one of"):
        run_tournament(config, ["counter", "nobody"], 1, 0)
    with pytest.raises(ValueError, match="games"):
        run_tournament(config, ["counter", "random"], 0, 0)
    with pytest.raises(ValueError, match="workers"):
        run_tournament(config, ["counter", "random"], 1, 0, workers=0)


def test_on_decision_sees_every_player_action_before_it_is_applied():
    game = pyspiel.load_game("complots(players=3,influence=1,max_turns=4)")
    seen = []

    def record(state, bot, action):
        assert action in state.legal_actions()  # not yet applied
        seen.append((state.current_player(), bot.name, action))

    specs = ("random", "honest", "counter")
    winner, turns, bots = play_game_bots(game, specs, game_rngs(3, 0, 0, 3), record)
    assert seen and {p for p, _, _ in seen} <= {0, 1, 2}
    assert all(name == bots[p].name for p, name, _ in seen)
    again, _, _ = play_game_bots(game, specs, game_rngs(3, 0, 0, 3))  # the callback changes nothing
    assert again == winner
