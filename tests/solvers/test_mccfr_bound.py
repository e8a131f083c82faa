"""The sampled best-response bound with a fixed responder budget (comparable trend points)."""

from __future__ import annotations

import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.mccfr.evaluate import best_response_bound
from complots_solver.solvers.mccfr.solver import MCCFRSolver

TINY = {"players": 2, "influence": 1, "max_turns": 2}
RESPONDER_ITERATIONS = 3000
GAMES = 20000


def test_fixed_iteration_budget_is_exact_and_still_a_lower_bound() -> None:
    config = GameConfig.from_params(TINY)
    solver = MCCFRSolver(config, key="perfect", seed=3)
    solver.run(200)  # a poor strategy: clearly exploitable
    tree = compile_complots_tree(config)
    strategy, _, _ = solver.tree_strategy(tree)
    exact = exploitability(tree, strategy)
    policy = solver.policy_table()
    bound = best_response_bound(
        config, policy, 0.0, GAMES, responder_key="perfect", train_iterations=RESPONDER_ITERATIONS
    )
    assert bound.train_iterations == (RESPONDER_ITERATIONS, RESPONDER_ITERATIONS)
    assert f"{RESPONDER_ITERATIONS:,} iterations" in bound.method
    assert bound.ci95[0] <= exact
    assert bound.lower_bound > 0.0
    again = best_response_bound(
        config, policy, 0.0, GAMES, responder_key="perfect", train_iterations=RESPONDER_ITERATIONS
    )
    assert again.lower_bound == bound.lower_bound  # same seed, same budget: same number


def test_invalid_budget() -> None:
    config = GameConfig.from_params(TINY)
    policy = MCCFRSolver(config, key="perfect").policy_table()
    with pytest.raises(ValueError, match="train_iterations"):
        best_response_bound(config, policy, 0.0, 10, train_iterations=0)
