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


class TreeStrategyPolicy:
    """A slot-aligned strategy on a tree, playable from live states (the ``Policy`` protocol).

    A state's information set is found by its information state string, the
    key the tree records for each infoset (``tree.infoset_keys``).
    """

    def __init__(self, tree: Tree, strategy: np.ndarray) -> None:
        values = np.asarray(strategy, dtype=np.float64)
        if values.shape != (tree.num_slots,):
            raise ValueError(f"strategy must have shape ({tree.num_slots},), got {values.shape}")
        self.tree = tree
        self.strategy = values
        self._index: dict[str, int] | None = None

    def action_probabilities(self, state: object) -> dict[int, float]:
        """Probability of each legal action of the player to move at ``state``."""
        if self._index is None:  # built on first use: a large tree has millions of keys
            self._index = {key: i for i, key in enumerate(self.tree.infoset_keys)}
        key = state.information_state_string()  # type: ignore[attr-defined]
        if key not in self._index:
            raise ValueError(f"state: information state {key!r} is not in the tree")
        info = self._index[key]
        lo, hi = self.tree.action_offsets[info], self.tree.action_offsets[info + 1]
        return {
            int(a): float(p)
            for a, p in zip(self.tree.legal_actions[lo:hi], self.strategy[lo:hi], strict=True)
        }
