"""Drawing one of several strategies for a whole game equals one behaviour strategy (Kuhn)."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.exact.mixture import mix_strategies, own_reach
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.tree import Tree

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def _random(tree: Tree, rng: np.random.Generator) -> np.ndarray:
    raw = rng.random(tree.num_slots) ** 4
    sums = np.add.reduceat(raw, tree.action_offsets[:-1])
    return raw / np.repeat(sums, tree.num_actions)


def test_the_mixture_is_worth_the_weighted_mean_against_any_opponent(leduc_tree: Tree) -> None:
    """Player 0's mixed strategy, against a fixed player 1, is worth the draw-weighted mean of
    its components' values; its own reach is the weighted mean of theirs."""
    rng = np.random.default_rng(0)
    parts = [_random(leduc_tree, rng) for _ in range(3)]
    weights = [0.6, 0.1, 0.3]
    mixed = mix_strategies(leduc_tree, parts, weights)
    opponent = _random(leduc_tree, rng)
    mine = (leduc_tree.infoset_player == 0)[leduc_tree.slot_infoset]

    def profile(strategy: np.ndarray) -> np.ndarray:
        return np.where(mine, strategy, opponent)

    want = sum(w * game_value(leduc_tree, profile(s)) for w, s in zip(weights, parts, strict=True))
    assert game_value(leduc_tree, profile(mixed)) == pytest.approx(want, abs=1e-12)
    plain = np.average(parts, axis=0, weights=weights)
    assert abs(game_value(leduc_tree, profile(plain)) - want) > 1e-3  # the plain mean is not it
    reach = sum(w * own_reach(leduc_tree, s) for w, s in zip(weights, parts, strict=True))
    np.testing.assert_allclose(own_reach(leduc_tree, mixed), reach, atol=1e-12)


def test_mixing_rejects_bad_weights(leduc_tree: Tree) -> None:
    """Weights must be one non-negative number per strategy, not all zero."""
    s = leduc_tree.uniform_strategy()
    with pytest.raises(ValueError, match="weights"):
        mix_strategies(leduc_tree, [s, s], [1.0])
    with pytest.raises(ValueError, match="weights"):
        mix_strategies(leduc_tree, [s], [0.0])
    with pytest.raises(ValueError, match="strategies"):
        mix_strategies(leduc_tree, [])
