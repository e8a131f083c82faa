"""Conversion between slot-aligned strategy arrays and OpenSpiel ``TabularPolicy``."""

from __future__ import annotations

import numpy as np
from open_spiel.python.policy import TabularPolicy

from complots_solver.solvers.exact.tree import Tree


def _rows(tree: Tree, tabular_policy: TabularPolicy) -> np.ndarray:
    """Row of each of the tree's infosets in ``tabular_policy``; raise if missing."""
    lookup = tabular_policy.state_lookup
    missing = [key for key in tree.infoset_keys if key not in lookup]
    if missing:
        raise ValueError(
            f"tabular_policy lacks {len(missing)} infosets of the tree, e.g. {missing[0]!r}"
        )
    return np.fromiter(
        (lookup[key] for key in tree.infoset_keys), dtype=np.int64, count=tree.num_infosets
    )


def to_tabular_policy(tree: Tree, strategy: np.ndarray, game: object) -> TabularPolicy:
    """Return a ``TabularPolicy`` for ``game`` holding ``strategy`` (slot-aligned)."""
    values = np.asarray(strategy, dtype=np.float64)
    if values.shape != (tree.num_slots,):
        raise ValueError(f"strategy must have shape ({tree.num_slots},), got {values.shape}")
    tabular = TabularPolicy(game)
    rows = _rows(tree, tabular)
    slot_rows = np.repeat(rows, tree.num_actions)
    tabular.action_probability_array[rows, :] = 0.0
    tabular.action_probability_array[slot_rows, tree.legal_actions] = values
    return tabular


def from_tabular_policy(tree: Tree, tabular_policy: TabularPolicy) -> np.ndarray:
    """Return the slot-aligned strategy array stored in ``tabular_policy``."""
    rows = np.repeat(_rows(tree, tabular_policy), tree.num_actions)
    return tabular_policy.action_probability_array[rows, tree.legal_actions].astype(np.float64)
