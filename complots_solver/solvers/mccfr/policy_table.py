"""A fixed keyed strategy with its own hash index (frozen opponents, sampled play, policy bots)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.infokeys import KEYS
from complots_solver.solvers.mccfr.table import (
    MAX_LOAD_DEN,
    NO_ROW,
    RI_LEN,
    RI_PLAYER,
    RI_START,
    RI_WIDTH,
    SL_KEY,
    SL_LEN,
    SL_ROW,
    SL_START,
    capacity_for,
    empty_slots,
    probe,
)
from complots_solver.solvers.mccfr.tree_keys import map_to_tree


@njit(cache=True)
def _index_rows(keys, offsets, players, slots, row_info):
    """Fill a hash index over rows given by keys and action offsets; return duplicate keys."""
    dup = 0
    for r in range(keys.shape[0]):
        i = probe(slots, keys[r])
        if slots[i, SL_ROW] != NO_ROW:
            dup += 1
            continue
        slots[i, SL_KEY] = keys[r]
        slots[i, SL_ROW] = r
        slots[i, SL_START] = offsets[r]
        slots[i, SL_LEN] = offsets[r + 1] - offsets[r]
        row_info[r, RI_START] = offsets[r]
        row_info[r, RI_LEN] = offsets[r + 1] - offsets[r]
        row_info[r, RI_PLAYER] = players[r]
    return dup


@dataclass(frozen=True)
class PolicyTable:
    """A fixed keyed strategy (per row: key, legal actions, probabilities) with a hash index."""

    key: str
    keys: np.ndarray
    players: np.ndarray
    action_offsets: np.ndarray
    legal_actions: np.ndarray
    probs: np.ndarray
    slots: np.ndarray
    row_info: np.ndarray

    @property
    def key_kind(self) -> int:
        """Numeric key scheme (infokeys.KEYS)."""
        return KEYS[self.key]

    @property
    def num_rows(self) -> int:
        """Information states in the table."""
        return int(self.keys.shape[0])

    @classmethod
    def empty(cls) -> PolicyTable:
        """A table with no rows (every lookup misses)."""
        return cls.from_arrays(
            "perfect",
            np.zeros(0, np.int64),
            np.zeros(0, np.int8),
            np.zeros(1, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0),
        )

    @classmethod
    def from_average(cls, table: dict[str, np.ndarray], key: str) -> PolicyTable:
        """Index an :meth:`MCCFRSolver.average_table` dictionary (or a keyed strategy file)."""
        return cls.from_arrays(
            key,
            table["key"],
            table["player"],
            table["action_offsets"],
            table["legal_actions"],
            table["average"],
        )

    @classmethod
    def from_arrays(
        cls,
        key: str,
        keys: np.ndarray,
        players: np.ndarray,
        action_offsets: np.ndarray,
        legal_actions: np.ndarray,
        probs: np.ndarray,
    ) -> PolicyTable:
        """Check the arrays and build the hash index."""
        if key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, got {key!r}")
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        offsets = np.ascontiguousarray(action_offsets, dtype=np.int64)
        rows = keys.shape[0]
        if offsets.shape != (rows + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) < 1):
            raise ValueError("action_offsets must start at 0 and grow by >= 1 per row")
        slots = int(offsets[-1])
        legal = np.ascontiguousarray(legal_actions, dtype=np.int32)
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        if legal.shape != (slots,) or probs.shape != (slots,):
            raise ValueError(f"legal_actions and probabilities need {slots} entries")
        cap = capacity_for(rows * MAX_LOAD_DEN + 1)
        slots = empty_slots(cap)
        row_info = np.zeros((max(rows, 1), RI_WIDTH), dtype=np.int64)
        players = np.ascontiguousarray(players, dtype=np.int8)
        if _index_rows(keys, offsets, players, slots, row_info):
            raise ValueError("duplicate information keys in the table")
        return cls(key, keys, players, offsets, legal, probs, slots, row_info)

    def greedy(self) -> PolicyTable:
        """The same table playing each row's likeliest action (the first one on ties)."""
        probs = np.zeros_like(self.probs)
        offsets = self.action_offsets
        if self.num_rows:
            lens = np.diff(offsets)
            row_max = np.maximum.reduceat(self.probs, offsets[:-1])
            is_max = self.probs == np.repeat(row_max, lens)
            ranks = np.arange(self.probs.shape[0]) - np.repeat(offsets[:-1], lens)
            first = np.minimum.reduceat(np.where(is_max, ranks, lens.max()), offsets[:-1])
            probs[offsets[:-1] + first] = 1.0
        return PolicyTable.from_arrays(
            self.key, self.keys, self.players, offsets, self.legal_actions, probs
        )

    def row_of(self, key: int) -> int:
        """Row of ``key``, or -1 when the table lacks it."""
        return int(self.slots[probe(self.slots, np.int64(key)), SL_ROW])

    def tree_strategy(self, config: GameConfig, tree: Tree) -> tuple[np.ndarray, int, int]:
        """This table mapped onto a compiled tree of ``config``; (strategy, found, missing)."""
        return map_to_tree(
            config, self.key, self.slots, self.legal_actions, self.probs, tree
        )  # fmt: skip
