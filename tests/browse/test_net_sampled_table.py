"""The sampled browser at a table of 3: the shipped table network plays every seat, each record
holds what its seat knows, and every decision is counted once."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.browse import net_sampled
from complots_solver.browse.decode import F_COINS, F_HAND
from complots_solver.browse.net_sampled import NetSampledBrowser
from complots_solver.play.search_bot import load_net_bot
from complots_solver.rules import view
from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import action_to_string

STRATEGIES = Path(__file__).resolve().parents[2] / "games" / "strategies"
SHIPPED = STRATEGIES / "complots-ambassador-3"
GAMES = 12


@pytest.fixture(scope="module")
def recorded() -> tuple:
    """Two games of the shipped 3-player network, with every (seat, history) it was asked at."""
    config, _ = resolve_game("complots-ambassador-3")
    seen: list[tuple[int, list[int]]] = []
    real = net_sampled._TableSeat.action_probabilities

    def spy(self, history):  # type: ignore[no-untyped-def]
        seen.append((self.player.seat, list(history)))
        return real(self, history)

    net_sampled._TableSeat.action_probabilities = spy  # type: ignore[method-assign]
    try:
        samples = net_sampled.record_net_games(config, SHIPPED / "policy-net.npz", 2, seed=5)
    finally:
        net_sampled._TableSeat.action_probabilities = real  # type: ignore[method-assign]
    return config, samples, seen


def test_each_record_is_the_seat_to_move_and_what_it_knows(recorded: tuple) -> None:
    """Replayed through the play layer's table bot, every record's seat, distribution and move
    agree, and its decoded hand is its own seat's (not another seat's, which often differs)."""
    config, samples, seen = recorded
    assert config.players == 3
    assert samples.count == len(seen) > 30  # each decision recorded once
    game = pyspiel.load_game(config.game_string())
    bot = load_net_bot(SHIPPED, config, np.random.default_rng(0), "solved")
    other_hands_differ = 0
    for r, (seat, history) in enumerate(seen):
        state = game.new_initial_state()
        for a in history:
            state.apply_action(a)
        assert state.current_player() == seat == samples.seat[r]
        want = bot.action_probabilities(state)
        got = samples.probabilities(r)
        assert sorted(got) == sorted(want)
        assert all(got[a] == pytest.approx(want[a], abs=1e-6) for a in want)
        nxt = seen[r + 1][1] if r + 1 < len(seen) and len(seen[r + 1][1]) > len(history) else None
        if nxt is not None:
            played = int(samples.slot_action[samples.slot[r] + samples.choice[r]])
            assert nxt[len(history)] == played
        hands = [[view.hidden(state.s, p, c) for c in range(NUM_CLANS)] for p in range(3)]
        assert list(samples.fields[r, F_HAND : F_HAND + NUM_CLANS]) == hands[seat]
        other_hands_differ += sum(hands[p] != hands[seat] for p in range(3) if p != seat)
        coins = [view.coins(state.s, p) for p in range(3)]
        assert list(samples.fields[r, F_COINS : F_COINS + 3]) == coins
    assert other_hands_differ > len(seen)  # the check could tell the seats' hands apart
    assert set(samples.seat.tolist()) == {0, 1, 2}
    wins = (samples.returns == 1.0).sum(axis=1)
    assert list(wins) == [1, 1]  # one winner a game, the others -1/2
    np.testing.assert_allclose(samples.returns.sum(axis=1), 0.0, atol=1e-12)


def test_no_seat_is_offered_an_action_on_itself(recorded: tuple) -> None:
    """The network's seat-relative actions come back as the game's: no targeted action a seat
    could play names that seat (the rules forbid it), and every seat is targeted by someone."""
    config, samples, _ = recorded
    targeted = set()
    for r in range(samples.count):
        seat = int(samples.seat[r])
        for a in samples.probabilities(r):
            m = re.search(r"P(\d)$", action_to_string(config, a))
            if m:
                assert int(m.group(1)) != seat, action_to_string(config, a)
                targeted.add(int(m.group(1)))
    assert targeted == {0, 1, 2}


@pytest.fixture(scope="module")
def browser() -> NetSampledBrowser:
    """The 3-player shipped strategy read from GAMES games."""
    return NetSampledBrowser(SHIPPED, games=GAMES, seed=0)


def test_every_decision_is_counted_once(browser: NetSampledBrowser) -> None:
    """Situation visits add up to the decisions; seat 0 opens every game (its first-turn visits
    are the games); the other seats open at most once a game."""
    assert browser.config.players == 3
    assert int(browser.situations["visits"].sum()) == browser.samples.count
    by_stage = browser.aggregate(["seat"])
    assert int(by_stage["visits"].sum()) == browser.samples.count
    opening = browser.aggregate(["seat"], stage="ACTION", own_turns=0).set_index("seat")
    assert int(opening.loc[0, "visits"]) == GAMES
    assert all(int(opening.loc[p, "visits"]) <= GAMES for p in (1, 2))
    starts = browser.starting_hands()
    assert list(starts.columns[:4]) == ["game", "hand0", "hand1", "hand2"]
    wins = sum((starts[f"value{p}"] == 1.0).sum() for p in range(3))
    draws = int(browser.samples.capped.sum())
    assert wins + draws == GAMES


def test_a_belief_network_is_refused_at_three_players(tmp_path: Path) -> None:
    """A 3-player game read from the 2-player belief network: a one-line error, no game played."""
    config, _ = resolve_game("complots-ambassador-3")
    belief = STRATEGIES / "belief" / "draft-ambassador" / "policy-net.npz"
    with pytest.raises(ValueError, match="table network only"):
        net_sampled.record_net_games(config, belief, 1, seed=0)
