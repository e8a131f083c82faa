"""The infoset keys of a compiled Complots tree, rebuilt on demand from one node each.

:class:`InfosetKeys` remembers one representative node per infoset (its first
in DFS order) and rebuilds OpenSpiel's ``information_state_string`` of the
infoset by replaying the action history of that node through the registered
pyspiel game; :func:`~complots_solver.solvers.exact.complots_tree.compile_complots_tree`
keeps no key during its walk.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import PlayerId
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES, S_CUR
from complots_solver.solvers.exact.tree import ROOT

CHANCE_PLAYER = int(PlayerId.CHANCE)


def move_width(config: GameConfig) -> int:
    """Size of the per-depth move buffer."""
    return max(config.num_distinct_actions(), MAX_CHANCE_OUTCOMES)


@njit(cache=True)
def _path_to(child_offsets: np.ndarray, children: np.ndarray, target: int, out: np.ndarray) -> int:
    """Write the edge ranks from the root down to non-terminal node ``target``; return length.

    Non-terminal nodes are in DFS pre-order, so the subtree holding ``target``
    hangs from the child with the largest id not above it (terminal children,
    numbered last or in pre-order, never exceed it wrongly).
    """
    node = ROOT
    depth = 0
    while node != target:
        start = child_offsets[node]
        best = -1
        rank = -1
        for e in range(start, child_offsets[node + 1]):
            c = children[e]
            if best < c <= target:
                best = c
                rank = e - start
        out[depth] = rank
        depth += 1
        node = best
    return depth


@njit(cache=True)
def _history_of(
    cfg: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    target: int,
    width: int,
    max_depth: int,
) -> np.ndarray:
    """OpenSpiel action ids (chance outcomes included) leading from the root to ``target``."""
    ranks = np.empty(max_depth + 1, dtype=np.int64)
    depth = _path_to(child_offsets, children, target, ranks)
    history = np.empty(depth, dtype=np.int64)
    s = core.initial_state(cfg)
    moves = np.empty(width, dtype=np.int32)
    probs = np.empty(width, dtype=np.float64)
    for i in range(depth):
        if s[S_CUR] == CHANCE_PLAYER:
            core.chance_outcomes_into(s, cfg, moves, probs)
        else:
            core.legal_actions_into(s, cfg, moves)
        a = moves[ranks[i]]
        history[i] = a
        core.apply_action(s, cfg, a)
    return history


class InfosetKeys(Sequence[str]):
    """Lazy ``information_state_string`` of every infoset of a compiled Complots tree.

    Each key is rebuilt on demand by replaying the history of the infoset's
    representative node (its first node in DFS order) through pyspiel.
    """

    def __init__(
        self,
        config: GameConfig,
        child_offsets: np.ndarray,
        children: np.ndarray,
        infoset_player: np.ndarray,
        representative: np.ndarray,
    ) -> None:
        """Keep references to the tree arrays needed to locate representatives."""
        self.config = config
        self.representative = representative
        self._cfg = config.to_array()
        self._child_offsets = child_offsets
        self._children = children
        self._infoset_player = infoset_player
        self._game: object | None = None

    def __getstate__(self) -> dict[str, object]:
        """Pickle without the loaded pyspiel game (reloaded on demand)."""
        return {**self.__dict__, "_game": None}

    def __len__(self) -> int:
        """Number of infosets."""
        return int(self.representative.shape[0])

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        """The OpenSpiel information state string of infoset ``index``."""
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.state(index).information_state_string(int(self._infoset_player[index]))

    def __iter__(self) -> Iterator[str]:
        """All keys in infoset order (slow for large trees: one replay per key)."""
        for i in range(len(self)):
            yield self[i]

    def history(self, index: int) -> list[int]:
        """Actions and chance outcomes from the root to infoset ``index``'s representative node."""
        if not -len(self) <= index < len(self):
            raise IndexError(f"infoset index must be in [0, {len(self)}), got {index}")
        node = int(self.representative[index])
        history = _history_of(
            self._cfg,
            self._child_offsets,
            self._children,
            node,
            move_width(self.config),
            self.config.max_game_length(),
        )
        return [int(a) for a in history]

    def state(self, index: int) -> object:
        """A pyspiel state at the representative node of infoset ``index``."""
        if self._game is None:
            import pyspiel

            import complots_solver.openspiel  # noqa: F401  (registers "complots")

            self._game = pyspiel.load_game(self.config.game_string())
        state = self._game.new_initial_state()
        for action in self.history(index):
            state.apply_action(action)
        return state
