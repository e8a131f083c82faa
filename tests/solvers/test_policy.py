"""Tests for strategy <-> OpenSpiel TabularPolicy conversion."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.policy import TabularPolicy

from complots_solver.solvers.exact.cfr import normalize_per_infoset
from complots_solver.solvers.exact.policy import from_tabular_policy, to_tabular_policy
from complots_solver.solvers.exact.tree import Tree, TreeBuilder


def test_round_trip(leduc_tree: Tree, leduc_game: pyspiel.Game) -> None:
    rng = np.random.default_rng(7)
    strategy = normalize_per_infoset(rng.random(leduc_tree.num_slots), leduc_tree.action_offsets)
    tabular = to_tabular_policy(leduc_tree, strategy, leduc_game)
    np.testing.assert_array_equal(from_tabular_policy(leduc_tree, tabular), strategy)
    # Illegal actions get probability 0 and every row is a distribution.
    np.testing.assert_allclose(tabular.action_probability_array.sum(axis=1), 1.0)
    assert (tabular.action_probability_array[~tabular.legal_actions_mask.astype(bool)] == 0).all()


def test_policy_follows_infoset_keys(kuhn_tree: Tree, kuhn_game: pyspiel.Game) -> None:
    strategy = np.arange(kuhn_tree.num_slots, dtype=np.float64)
    tabular = to_tabular_policy(kuhn_tree, strategy, kuhn_game)
    for i, key in enumerate(kuhn_tree.infoset_keys):
        start, stop = kuhn_tree.action_offsets[i], kuhn_tree.action_offsets[i + 1]
        actions = kuhn_tree.legal_actions[start:stop]
        np.testing.assert_array_equal(tabular.policy_for_key(key)[actions], strategy[start:stop])


def test_uniform_policy_converts_to_uniform_strategy(
    leduc_tree: Tree, leduc_game: pyspiel.Game
) -> None:
    np.testing.assert_allclose(
        from_tabular_policy(leduc_tree, TabularPolicy(leduc_game)), leduc_tree.uniform_strategy()
    )


def test_rejects_mismatched_inputs(
    kuhn_tree: Tree, kuhn_game: pyspiel.Game, leduc_game: pyspiel.Game
) -> None:
    with pytest.raises(ValueError, match="strategy must have shape"):
        to_tabular_policy(kuhn_tree, np.ones(5), kuhn_game)
    with pytest.raises(ValueError, match="lacks"):
        from_tabular_policy(kuhn_tree, TabularPolicy(leduc_game))
    builder = TreeBuilder()
    root = builder.add_decision(builder.infoset("not-a-kuhn-infoset", 0, [0]))
    builder.add_terminal(0.0, parent=root)
    with pytest.raises(ValueError, match="lacks"):
        to_tabular_policy(builder.build(), np.ones(1), kuhn_game)
