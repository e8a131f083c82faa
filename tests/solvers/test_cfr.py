"""Tests for the numba CFR-family solvers against OpenSpiel's Python solvers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, discounted_cfr

from complots_solver.solvers.exact.best_response import exploitability, exploitability_report
from complots_solver.solvers.exact.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.exact.policy import from_tabular_policy
from complots_solver.solvers.exact.tree import Tree

KUHN_VALUE = -1.0 / 18.0
LEDUC_CFR_1000_EXPLOITABILITY = 0.0118178  # OpenSpiel CFR on Leduc, 1000 iterations
MATCH_ITERATIONS = 20
MATCH_TOLERANCE = 1e-9


def _simultaneous_cfr(game: pyspiel.Game) -> cfr._CFRSolver:
    """OpenSpiel's vanilla CFR with simultaneous updates."""
    return cfr._CFRSolver(
        game, alternating_updates=False, linear_averaging=False, regret_matching_plus=False
    )


def _custom_dcfr(game: pyspiel.Game) -> discounted_cfr.DCFRSolver:
    """OpenSpiel DCFR with non-default parameters."""
    return discounted_cfr.DCFRSolver(game, alpha=2.0, beta=0.5, gamma=3.0)


# (our solver kwargs, OpenSpiel reference constructor)
REFERENCES: dict[str, tuple[dict, Callable[[pyspiel.Game], object]]] = {
    "cfr": ({"algorithm": "cfr"}, cfr.CFRSolver),
    "cfr-simultaneous": ({"algorithm": "cfr", "alternating": False}, _simultaneous_cfr),
    "cfr+": ({"algorithm": "cfr+"}, cfr.CFRPlusSolver),
    "lcfr": ({"algorithm": "lcfr"}, discounted_cfr.LCFRSolver),
    "dcfr": ({"algorithm": "dcfr"}, discounted_cfr.DCFRSolver),
    "dcfr-custom": ({"algorithm": "dcfr", "alpha": 2.0, "beta": 0.5, "gamma": 3.0}, _custom_dcfr),
}


def _compare_with_openspiel(tree: Tree, game: pyspiel.Game, name: str, iterations: int) -> None:
    """Run ours and OpenSpiel's solver; compare average and current policies per infoset."""
    kwargs, reference_cls = REFERENCES[name]
    solver = TreeSolver(tree, **kwargs)
    solver.run(iterations)
    reference = reference_cls(game)
    for _ in range(iterations):
        reference.evaluate_and_update_policy()
    expected_average = from_tabular_policy(tree, reference.average_policy())
    expected_current = from_tabular_policy(tree, reference.current_policy())
    np.testing.assert_allclose(
        solver.average_strategy(), expected_average, rtol=0, atol=MATCH_TOLERANCE
    )
    np.testing.assert_allclose(
        solver.current_strategy(), expected_current, rtol=0, atol=MATCH_TOLERANCE
    )
    # Guard against trivially passing: policies must have moved away from uniform.
    assert np.abs(expected_average - tree.uniform_strategy()).max() > 1e-2


@pytest.mark.parametrize("name", list(REFERENCES))
def test_kuhn_matches_openspiel(kuhn_tree: Tree, kuhn_game: pyspiel.Game, name: str) -> None:
    _compare_with_openspiel(kuhn_tree, kuhn_game, name, iterations=50)


@pytest.mark.parametrize("name", list(REFERENCES))
def test_leduc_matches_openspiel(leduc_tree: Tree, leduc_game: pyspiel.Game, name: str) -> None:
    _compare_with_openspiel(leduc_tree, leduc_game, name, iterations=MATCH_ITERATIONS)


def test_kuhn_cfr_plus_solves_game(kuhn_tree: Tree) -> None:
    solver = TreeSolver(kuhn_tree, "cfr+")
    solver.run(1000)
    report = exploitability_report(kuhn_tree, solver.average_strategy())
    assert report.game_value == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert report.exploitability < 1e-3


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("alternating", [True, False])
def test_all_variants_converge_on_kuhn(kuhn_tree: Tree, algorithm: str, alternating: bool) -> None:
    solver = TreeSolver(kuhn_tree, algorithm, alternating=alternating)
    solver.run(2000)
    assert exploitability(kuhn_tree, solver.average_strategy()) < 1e-2


def test_leduc_cfr_1000_matches_published_exploitability(leduc_tree: Tree) -> None:
    solver = TreeSolver(leduc_tree, "cfr")
    solver.run(1000)
    assert solver.iteration == 1000
    value = exploitability(leduc_tree, solver.average_strategy())
    assert value == pytest.approx(LEDUC_CFR_1000_EXPLOITABILITY, abs=1e-6)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("alternating", [True, False])
def test_resume_is_bit_exact(leduc_tree: Tree, algorithm: str, alternating: bool) -> None:
    straight = TreeSolver(leduc_tree, algorithm, alternating=alternating)
    straight.run(20)
    first = TreeSolver(leduc_tree, algorithm, alternating=alternating)
    first.run(10)
    resumed = TreeSolver(leduc_tree, algorithm, alternating=alternating)
    resumed.set_state(first.get_state())
    resumed.run(10)
    assert resumed.iteration == straight.iteration == 20
    for key, expected in straight.get_state().items():
        np.testing.assert_array_equal(resumed.get_state()[key], expected, err_msg=key)
    np.testing.assert_array_equal(resumed.average_strategy(), straight.average_strategy())


def test_run_in_chunks_equals_run_at_once(kuhn_tree: Tree) -> None:
    chunked = TreeSolver(kuhn_tree, "dcfr")
    for _ in range(5):
        chunked.run(7)
    once = TreeSolver(kuhn_tree, "dcfr")
    once.run(35)
    np.testing.assert_array_equal(chunked.average_strategy(), once.average_strategy())


def test_get_state_returns_copies(kuhn_tree: Tree) -> None:
    solver = TreeSolver(kuhn_tree, "cfr")
    solver.run(3)
    state = solver.get_state()
    state["regret"][:] = 123.0
    assert not np.array_equal(solver.cumulative_regret(), state["regret"])


def test_set_state_rejects_mismatch(kuhn_tree: Tree, leduc_tree: Tree) -> None:
    kuhn_state = TreeSolver(kuhn_tree, "cfr").get_state()
    with pytest.raises(ValueError, match="config"):
        TreeSolver(kuhn_tree, "cfr+").set_state(kuhn_state)
    with pytest.raises(ValueError, match="config"):
        TreeSolver(leduc_tree, "cfr").set_state(kuhn_state)
    with pytest.raises(ValueError, match="keys"):
        TreeSolver(kuhn_tree, "cfr").set_state({"regret": kuhn_state["regret"]})


def test_rejects_bad_arguments(kuhn_tree: Tree) -> None:
    with pytest.raises(ValueError, match="algorithm must be one of"):
        TreeSolver(kuhn_tree, "mccfr")
    with pytest.raises(ValueError, match="alpha"):
        TreeSolver(kuhn_tree, "cfr+", alpha=2.0)
    with pytest.raises(ValueError, match="alternating"):
        TreeSolver(kuhn_tree, "cfr", alternating="yes")
    with pytest.raises(ValueError, match="gamma"):
        TreeSolver(kuhn_tree, "dcfr", gamma=float("nan"))
    with pytest.raises(ValueError, match="iterations"):
        TreeSolver(kuhn_tree, "cfr").run(-1)
    with pytest.raises(ValueError, match="iterations"):
        TreeSolver(kuhn_tree, "cfr").run(2.5)


def test_strategies_are_normalised(leduc_tree: Tree) -> None:
    solver = TreeSolver(leduc_tree, "dcfr")
    solver.run(5)
    slot_infoset = leduc_tree.slot_infoset
    for strategy in (solver.average_strategy(), solver.current_strategy()):
        sums = np.bincount(slot_infoset, weights=strategy)
        np.testing.assert_allclose(sums, 1.0, atol=1e-12)
