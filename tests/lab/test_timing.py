"""Per-decision timing: every decision of the timed bot is counted, and nothing else."""

import pyspiel
import pytest

from complots_solver.lab.play.timing import decision_timing
from complots_solver.play.tournament import game_rngs, play_game_bots
from complots_solver.rules.presets import resolve_game

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_decisions_counted_match_the_seat_moves():
    config, _ = resolve_game("draft-ambassador")
    game = pyspiel.load_game(config.game_string())
    moved = [0, 0]

    def count(state, bot, action):
        moved[state.current_player()] += 1

    _, _, bots = play_game_bots(game, ["honest", "random"], game_rngs(5, 0, 0, 2), count)
    assert [b.decisions for b in bots] == moved
    assert all(b.decision_seconds > 0 for b in bots)


def test_timing_sums_both_seatings():
    config, _ = resolve_game("draft-ambassador")
    t = decision_timing(config, "honest", "random", games=4, seed=2)
    game = pyspiel.load_game(config.game_string())
    expected = 0
    for g in range(4):
        seat = g % 2
        specs = ["honest", "random"] if seat == 0 else ["random", "honest"]
        _, _, bots = play_game_bots(game, specs, game_rngs(2, seat, g, 2))
        expected += bots[seat].decisions
    assert t.decisions == expected
    assert t.mean_ms == pytest.approx(1000 * t.seconds / t.decisions)


def test_timing_refuses_one_game():
    config, _ = resolve_game("draft-ambassador")
    with pytest.raises(ValueError, match="games"):
        decision_timing(config, "honest", "random", games=1)


def test_timing_turns_the_bot_round_a_table_of_three():
    """At 3 players the timed bot sits in each chair in turn, the opponent in the others."""
    config, _ = resolve_game("complots-ambassador-3")
    t = decision_timing(config, "honest", "random", games=3, seed=1)
    game = pyspiel.load_game(config.game_string())
    expected = 0
    for g in range(3):
        specs = ["random"] * 3
        specs[g] = "honest"
        _, _, bots = play_game_bots(game, specs, game_rngs(1, g, g, 3))
        expected += bots[g].decisions
    assert t.decisions == expected
    with pytest.raises(ValueError, match="at least 3"):
        decision_timing(config, "honest", "random", games=2)
