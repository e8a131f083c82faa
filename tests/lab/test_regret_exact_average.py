"""The exact linear average of sampled regret matching+'s current strategies on a ladder rung
(lab.regret.exact_average): uniform first, then regret matching, each weighted t times its
own reach."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.regret.exact_average import ExactAverage, current_strategy
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings
from complots_solver.solvers.selfplay.exact import own_reach

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

SMALL = RegretSettings(games=60, steps=10, average_steps=10, width=32, average=20_000)


def test_the_exact_average_is_uniform_then_regret_matching_weighted_by_t():
    config = resolve_game("ladder-1-ambassador")[0]
    tree = compile_complots_tree(config)
    run = RegretSampler(config, SMALL, seed=2)
    exact = ExactAverage(config, tree)
    exact.before(run)  # iteration 1 plays uniformly
    uniform = exact.last.copy()
    counts = np.diff(tree.action_offsets)
    np.testing.assert_allclose(uniform, np.repeat(1.0 / counts, counts))
    run.step()
    exact.before(run)  # iteration 2 plays regret matching on the fitted network
    matched = exact.last.copy()
    np.testing.assert_array_equal(matched, current_strategy(config, run, tree))
    assert not np.allclose(matched, uniform)
    sums = np.add.reduceat(matched, tree.action_offsets[:-1])
    np.testing.assert_allclose(sums, 1.0)
    both = (own_reach(tree, uniform) == 1.0) & (own_reach(tree, matched) == 1.0)
    got = exact.strategy()
    for i in np.flatnonzero(both):
        lo, hi = tree.action_offsets[i], tree.action_offsets[i + 1]
        np.testing.assert_allclose(got[lo:hi], (uniform[lo:hi] + 2.0 * matched[lo:hi]) / 3.0)
