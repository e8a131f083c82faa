"""Tests for exact best response and exploitability against OpenSpiel."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as openspiel_exploitability
from open_spiel.python.algorithms.best_response import CPPBestResponsePolicy

from complots_solver.solvers.exact.best_response import (
    best_response,
    exploitability,
    exploitability_report,
    game_value,
)
from complots_solver.solvers.exact.cfr import TreeSolver, normalize_per_infoset
from complots_solver.solvers.exact.policy import to_tabular_policy
from complots_solver.solvers.exact.tree import Tree, TreeBuilder

TOLERANCE = 1e-9
SEED = 12345


def _strategies(tree: Tree) -> dict[str, np.ndarray]:
    """Uniform, random and CFR strategies for the tree."""
    rng = np.random.default_rng(SEED)
    random = normalize_per_infoset(rng.random(tree.num_slots), tree.action_offsets)
    solver = TreeSolver(tree, "cfr")
    solver.run(30)
    return {
        "uniform": tree.uniform_strategy(),
        "random": random,
        "cfr30": solver.average_strategy(),
    }


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_matches_openspiel(game_name: str, request: pytest.FixtureRequest) -> None:
    game: pyspiel.Game = request.getfixturevalue(game_name.split("_")[0] + "_game")
    tree: Tree = request.getfixturevalue(game_name.split("_")[0] + "_tree")
    for label, strategy in _strategies(tree).items():
        tabular = to_tabular_policy(tree, strategy, game)
        report = exploitability_report(tree, strategy)
        expected = openspiel_exploitability.exploitability(game, tabular)
        assert report.exploitability == pytest.approx(expected, abs=TOLERANCE), label
        assert report.nash_conv == pytest.approx(2 * expected, abs=TOLERANCE), label
        root = game.new_initial_state()
        for player in range(2):
            br_value = CPPBestResponsePolicy(game, player, tabular).value(root)
            assert report.best_response_values[player] == pytest.approx(br_value, abs=TOLERANCE), (
                label
            )
        values = expected_game_score.policy_value(root, [tabular, tabular])
        assert report.game_value == pytest.approx(values[0], abs=TOLERANCE), label
        assert exploitability(tree, strategy) == report.exploitability


def test_random_policy_is_exploitable(leduc_tree: Tree) -> None:
    assert exploitability(leduc_tree, _strategies(leduc_tree)["random"]) > 0.5


@pytest.mark.parametrize("player", [0, 1])
def test_best_response_strategy_attains_value(leduc_tree: Tree, player: int) -> None:
    strategy = _strategies(leduc_tree)["random"]
    value, response = best_response(leduc_tree, strategy, player)
    sign = 1.0 if player == 0 else -1.0
    assert sign * game_value(leduc_tree, response) == pytest.approx(value, abs=TOLERANCE)
    opponent = leduc_tree.slot_infoset
    opponent_slots = leduc_tree.infoset_player[opponent] != player
    np.testing.assert_array_equal(response[opponent_slots], strategy[opponent_slots])
    assert set(np.unique(response[~opponent_slots]).tolist()) <= {0.0, 1.0}


def test_kuhn_equilibrium_value(kuhn_tree: Tree) -> None:
    solver = TreeSolver(kuhn_tree, "cfr+")
    solver.run(2000)
    report = exploitability_report(kuhn_tree, solver.average_strategy())
    assert report.best_response_values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert report.best_response_values[1] == pytest.approx(1 / 18, abs=1e-3)


def test_rejects_bad_input(kuhn_tree: Tree) -> None:
    with pytest.raises(ValueError, match="strategy must have shape"):
        exploitability(kuhn_tree, np.ones(3))
    with pytest.raises(ValueError, match="player must be in"):
        best_response(kuhn_tree, kuhn_tree.uniform_strategy(), 2)
    with pytest.raises(ValueError, match="non-negative"):
        exploitability(kuhn_tree, -kuhn_tree.uniform_strategy())


def test_rejects_imperfect_recall() -> None:
    # Player 0's infoset "B" is reached after 0 or after 1 own decision.
    builder = TreeBuilder()
    info_a = builder.infoset("A", 0, [0, 1])
    info_b = builder.infoset("B", 0, [0, 1])
    root = builder.add_chance([0.5, 0.5])
    node_a = builder.add_decision(info_a, parent=root, slot=0)
    builder.add_terminal(1.0, parent=node_a, slot=0)
    node_b1 = builder.add_decision(info_b, parent=node_a, slot=1)
    node_b0 = builder.add_decision(info_b, parent=root, slot=1)
    for node in (node_b1, node_b0):
        builder.add_terminal(2.0, parent=node, slot=0)
        builder.add_terminal(-1.0, parent=node, slot=1)
    tree = builder.build()
    with pytest.raises(ValueError, match="perfect recall"):
        exploitability(tree, tree.uniform_strategy())
