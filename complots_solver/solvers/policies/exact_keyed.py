"""Exact (tree-aligned) strategies as keyed policy tables, for fast sampled play in numba.

An exact strategy file holds one row per information set of the compiled tree
(:func:`~complots_solver.solvers.exact.complots_tree.compile_complots_tree`), whose
information sets are the players' perfect-recall observation sequences. The
``perfect`` information key of :mod:`~complots_solver.solvers.mccfr.infokeys` hashes
exactly that sequence, so every tree information set has one perfect key.
:func:`infoset_perfect_keys` computes them in one numba walk of the tree
(:func:`~complots_solver.solvers.mccfr.tree_keys.tree_infoset_keys`) and
:func:`exact_policy_table` builds a :class:`~complots_solver.solvers.mccfr.policy_table.PolicyTable`
from the strategy's average, which
:func:`~complots_solver.solvers.mccfr.evaluate.play_games` then samples without a
Python call per decision. Both check what they rely on: every node of an
information set gives the same key, and no two information sets share one.
"""

from __future__ import annotations

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.strategy_file import StrategyFile
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.tree_keys import tree_infoset_keys


def infoset_perfect_keys(config: GameConfig, tree: Tree) -> np.ndarray:
    """The ``perfect`` information key of every infoset of ``tree`` (a tree of ``config``)."""
    return tree_infoset_keys(config, tree, "perfect")


def average_probabilities(average: np.ndarray, action_offsets: np.ndarray) -> np.ndarray:
    """Each row of ``average`` normalised (negative weights as 0; uniform if a row sums to 0)."""
    weights = np.maximum(np.asarray(average, dtype=np.float64), 0.0)
    lens = np.diff(action_offsets)
    if weights.size == 0:
        return weights
    totals = np.add.reduceat(weights, action_offsets[:-1])
    per_slot = np.repeat(totals, lens)
    uniform = np.repeat(1.0 / lens, lens)
    return np.where(per_slot > 0, weights / np.where(per_slot > 0, per_slot, 1.0), uniform)


def exact_policy_table(strategy: StrategyFile, tree: Tree, config: GameConfig) -> PolicyTable:
    """``strategy``'s average as a ``perfect``-key table (plays like :class:`PolicyBot`)."""
    strategy.check_matches(tree.action_offsets, tree.legal_actions, tree.infoset_player)
    keys = infoset_perfect_keys(config, tree)
    probs = average_probabilities(strategy.average, strategy.action_offsets)
    return PolicyTable.from_arrays(
        "perfect",
        keys,
        strategy.infoset_player,
        strategy.action_offsets,
        strategy.legal_actions,
        probs,
    )
