"""The search-size measurement behind the multiplayer section (10) of the full-game journal,
docs/lab/2026-full-game-journal.md."""

from __future__ import annotations

import pytest

from complots_solver.lab.belief.sizes import turn_sizes

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

TWO = "complots(players=2,lineup=inquisitor,influence=1,max_turns=2)"
THREE = "complots(players=3,lineup=inquisitor,influence=1,max_turns=2)"


def test_a_third_seat_multiplies_the_first_turns_search() -> None:
    """The first turn start's tree holds at least every hypothesis, and grows with a third seat."""
    two = turn_sizes(TWO, seeds=1, turns=1)[0]
    three = turn_sizes(THREE, seeds=1, turns=1)[0]
    assert two.turn == three.turn == 0
    assert two.rows is not None and three.rows is not None
    assert two.rows >= two.hypotheses and three.rows >= three.hypotheses
    assert three.hypotheses > two.hypotheses and three.rows > two.rows


def test_a_tree_over_the_cap_is_reported_not_raised() -> None:
    """A tree over max_hyps gives rows None instead of an error."""
    (size,) = turn_sizes(THREE, seeds=1, turns=1, max_hyps=10)
    assert size.rows is None and size.public_nodes is None and size.hypotheses > 0
