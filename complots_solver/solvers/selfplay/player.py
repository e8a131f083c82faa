"""One seat playing a table network in a real game: the record kept move by move, one evaluation a decision."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, S_CUR
from complots_solver.solvers.selfplay.features import (
    TableMemory,
    absolute_action,
    config_features,
    decision_row,
)
from complots_solver.solvers.selfplay.net import TableNet
from complots_solver.solvers.selfplay.tables import MAX_MOVES


class TablePlayer:
    """Follows a game's move history (chance moves included) and plays a table network."""

    def __init__(self, cfg: np.ndarray, net: TableNet) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.players = int(self.cfg[C_PLAYERS])
        self.extended = bool(self.cfg[C_EXTENDED])
        if net.num_features != config_features(self.cfg):
            raise ValueError(
                f"net: reads {net.num_features} features, this game's seats read "
                f"{config_features(self.cfg)}"
            )
        self.net = net
        self._moves = np.empty(MAX_MOVES, dtype=np.int32)
        self.restart()

    def restart(self) -> None:
        """Back to the initial state."""
        self.state = core.initial_state(self.cfg)
        self.memory = TableMemory(self.cfg)
        self.seen = 0

    def observe(self, history: Sequence[int]) -> None:
        """Catch up with the game's move history."""
        if len(history) < self.seen:
            raise ValueError("history: shorter than what was already seen; call restart()")
        for a in history[self.seen :]:
            before = self.state.copy()
            core.apply_action(self.state, self.cfg, int(a))
            self.memory.observe(before, int(a), self.state)
        self.seen = len(history)

    def probabilities(self) -> dict[int, float]:
        """The network's probabilities for the legal actions of the seat to move now."""
        s = self.state
        me = int(s[S_CUR])
        if me < 0:
            raise RuntimeError("no seat is to move")
        x = np.empty((1, self.net.num_features), dtype=np.float32)
        legal = np.empty((1, self.net.num_actions), dtype=np.float32)
        m = self.memory
        decision_row(
            s,
            self.cfg,
            me,
            m.record,
            m.seen,
            m.know,
            m.draft,
            x[0],
            legal[0],
            self._moves,
            self.extended,
        )
        probs, _ = self.net.policy_value(x, legal)
        out = {}
        for r in np.flatnonzero(legal[0] > 0):
            out[int(absolute_action(int(r), me, self.players, self.extended))] = float(probs[0, r])
        return out
