"""The exact value targets of a ladder rung, and the network error measured against them."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.belief.value_check import turn_start_examples, value_errors
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.belief_features import NUM_FEATURES, NUM_OUTPUTS
from complots_solver.solvers.nets.valuenet import ValueNet

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

HALF = NUM_OUTPUTS // 2


@pytest.fixture(scope="module")
def examples() -> tuple:
    """Every reached turn start of ladder-1-ambassador under 300 CFR+ iterations."""
    config, _ = resolve_game("ladder-1-ambassador")
    return turn_start_examples(config, 300)


def test_targets_are_zero_sum_under_the_belief(examples: tuple) -> None:
    """At every node the mover's belief-weighted value is minus the other player's."""
    feats, targets, masks, weights, turns, expl = examples
    assert expl < 1e-3 and len(feats) > 1 and (weights > 0).all()
    me = (feats[:, -2 * HALF : -HALF] * targets[:, :HALF]).sum(axis=1)
    opp = (feats[:, -HALF:] * targets[:, HALF:]).sum(axis=1)
    np.testing.assert_allclose(me, -opp, atol=1e-9)
    assert np.allclose(feats[:, -2 * HALF : -HALF].sum(axis=1), 1.0, atol=1e-5)
    assert (
        (masks == 1) == (np.concatenate([feats[:, -2 * HALF : -HALF], feats[:, -HALF:]], 1) > 0)
    ).all()
    assert set(turns) == {0, 1}  # a 2-turn cap: turn starts 0 and 1 only
    game_value = (weights[turns == 0][:, None] * feats[turns == 0, -2 * HALF : -HALF]
                  * targets[turns == 0, :HALF]).sum()  # fmt: skip
    assert abs(game_value) <= 1.0


def test_errors_of_a_network_that_always_says_zero(examples: tuple) -> None:
    """A network with zero output weights errs by exactly the targets' weighted size."""
    feats, targets, masks, weights, _, _ = examples
    net = ValueNet.create([NUM_FEATURES, 8, NUM_OUTPUTS], seed=1)
    net.weights[-1][:] = 0.0
    err = value_errors(net, feats, targets, masks, weights)
    assert err["mae"] == pytest.approx(err["mae_zero"]) and err["mae_zero"] > 0.0
    net.biases[-1][:] = np.float32(np.arctanh(0.5))
    shifted = value_errors(net, feats, targets, masks, weights)
    assert shifted["bias"] == pytest.approx(err["bias"] + 0.5, abs=1e-6)


def test_counterfactual_targets_cover_hands_the_belief_rules_out() -> None:
    """Counterfactual weighting keeps every hand the belief holds, weighs per output, and gives
    the hands the belief almost rules out the weight a deviation gives them."""
    config, _ = resolve_game("ladder-2-ambassador")
    joint = turn_start_examples(config, 200)
    cf = turn_start_examples(config, 200, counterfactual=True)
    feats, targets, masks, weights, _, _ = cf
    assert np.array_equal(feats, joint[0])
    assert weights.shape == targets.shape and (weights[masks == 0] == 0).all()
    assert (weights[masks == 1] > 0).all()
    assert (masks >= joint[2]).all()
    beliefs = np.concatenate([feats[:, -2 * HALF : -HALF], feats[:, -HALF:]], axis=1)
    # hands the belief almost rules out weigh next to nothing there, and a quarter here
    rare = (beliefs < 0.01) & (masks == 1)
    by_belief = joint[3][:, None] * beliefs * joint[2]
    assert by_belief[rare].sum() < 1e-3 * by_belief.sum()
    assert (weights * masks)[rare].sum() > 0.1 * (weights * masks).sum()
    zero = ValueNet.create([NUM_FEATURES, 8, NUM_OUTPUTS], seed=1)
    zero.weights[-1][:] = 0.0
    err = value_errors(zero, feats, targets, masks, weights)
    assert err["mae"] == pytest.approx(err["mae_zero"])
    want = (weights * masks * np.abs(targets)).sum() / (weights * masks).sum()
    assert err["mae_zero"] == pytest.approx(want)
