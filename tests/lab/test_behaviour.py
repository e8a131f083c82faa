"""The behaviour tally: truths of claims and the challenge windows, checked against bots whose
play is known by construction."""

from __future__ import annotations

import pytest

from complots_solver.lab.play.behaviour import BLUFF, TRUE, behaviour, behaviour_table
from complots_solver.rules.presets import resolve_game

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_trusting_against_skeptic_is_tallied_as_the_bots_are_built() -> None:
    """trusting never bluffs nor challenges, skeptic challenges everything; every claim one side
    makes is a window the other side decides, with the same truth."""
    config, _ = resolve_game("draft-ambassador")
    trusting, skeptic = behaviour(config, ("trusting", "skeptic"), games=20, seed=3)
    assert trusting.games == skeptic.games == 40
    assert trusting.wins == skeptic.losses and trusting.losses == skeptic.wins
    assert trusting.mean_return == pytest.approx(-skeptic.mean_return)
    assert trusting.claims[TRUE] > 0 and trusting.claims[BLUFF] == 0
    assert trusting.counters[BLUFF] == 0
    assert trusting.action_challenges == [0, 0] and trusting.counter_challenges == [0, 0]
    assert sum(trusting.action_windows) > 0
    assert skeptic.action_challenges == skeptic.action_windows
    assert skeptic.counter_challenges == skeptic.counter_claim_windows
    for mine, theirs in ((trusting, skeptic), (skeptic, trusting)):
        assert mine.claims == theirs.action_windows
        assert mine.counters == theirs.counter_claim_windows
    assert sum(trusting.actions.values()) > 0 and "Steal from P1" not in trusting.actions
    table = behaviour_table((trusting, skeptic))
    assert "| challenges a true action claim | 0.00 (0/" in table


def test_random_bluffs_and_the_same_seed_gives_the_same_tally() -> None:
    """random claims what it does not hold (so bluffs are seen at all); a fixed seed repeats."""
    config, _ = resolve_game("draft-inquisitor")
    first = behaviour(config, ("random", "honest"), games=10, seed=5)
    again = behaviour(config, ("random", "honest"), games=10, seed=5)
    assert first == again
    assert first[0].claims[BLUFF] > 0 and first[1].claims[BLUFF] == 0


def test_bad_input_is_refused() -> None:
    """Only 2-player games, and at least one game."""
    config, _ = resolve_game("draft-ambassador")
    with pytest.raises(ValueError, match="games"):
        behaviour(config, ("random", "honest"), games=0)
    table, _ = resolve_game("complots-ambassador-3")
    with pytest.raises(ValueError, match="players"):
        behaviour(table, ("random", "honest"), games=1)
