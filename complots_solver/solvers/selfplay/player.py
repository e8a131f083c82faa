"""One seat playing a table network in a real game: the record kept move by move, one evaluation a decision."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, S_CUR
from complots_solver.solvers.knowledge.table_features import (
    TableMemory,
    absolute_action,
    memory_of,
)
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.tables import MAX_MOVES


class TablePlayer:
    """Follows a game's move history (chance moves included) and plays a table network.

    Given more networks (``mixture``), it plays the **mixture** of all of them: one member drawn
    for the whole game, as a behavioural strategy. Each member is weighted by the probability it
    gives to the moves its seat has made so far in this game (Kuhn's theorem), so a mixture
    follows one named ``seat``.
    """

    def __init__(
        self,
        cfg: np.ndarray,
        net: TableNet,
        mixture: Sequence[TableNet] = (),
        seat: int | None = None,
    ) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.players = int(self.cfg[C_PLAYERS])
        self.extended = bool(self.cfg[C_EXTENDED])
        self.members = [net, *mixture]
        self.remembered = memory_of(net.num_features, self.cfg)
        for m in self.members:
            if m.num_features != net.num_features:
                raise ValueError(
                    f"mixture: a member reads {m.num_features} features, the first "
                    f"{net.num_features}"
                )
        if len(self.members) > 1 and seat is None:
            raise ValueError("seat: a mixture follows one seat's own moves")
        self.net = net
        self.seat = seat
        self._moves = np.empty(MAX_MOVES, dtype=np.int32)
        self.restart()

    def restart(self) -> None:
        """Back to the initial state."""
        self.state = core.initial_state(self.cfg)
        self.memory = TableMemory(self.cfg)
        self.seen = 0
        self.log_weights = np.zeros(len(self.members))

    def observe(self, history: Sequence[int]) -> None:
        """Catch up with the game's move history."""
        if len(history) < self.seen:
            raise ValueError("history: shorter than what was already seen; call restart()")
        for a in history[self.seen :]:
            if len(self.members) > 1 and int(self.state[S_CUR]) == self.seat:
                rows = self._member_probabilities()
                # a member that could not have made the move is ruled out
                taken = np.array([r.get(int(a), 0.0) for r in rows])
                self.log_weights += np.log(np.maximum(taken, 1e-300))
            before = self.state.copy()
            core.apply_action(self.state, self.cfg, int(a))
            self.memory.observe(before, int(a), self.state)
        self.seen = len(history)

    def _member_probabilities(self) -> list[dict[int, float]]:
        """Each member's probabilities for the legal actions of the seat to move."""
        s = self.state
        me = int(s[S_CUR])
        if me < 0:
            raise RuntimeError("no seat is to move")
        first = self.members[0]
        x = np.empty((1, first.num_features), dtype=np.float32)
        legal = np.empty((1, first.num_actions), dtype=np.float32)
        self.memory.row(s, me, self.remembered, x[0], legal[0], self._moves)
        rows = np.flatnonzero(legal[0] > 0)
        acts = [int(absolute_action(int(r), me, self.players, self.extended)) for r in rows]
        out = []
        for net in self.members:
            probs, _ = net.policy_value(x, legal)
            out.append({a: float(probs[0, r]) for a, r in zip(acts, rows, strict=True)})
        return out

    def probabilities(self) -> dict[int, float]:
        """The network's (or mixture's) probabilities for the legal actions of the seat to move."""
        rows = self._member_probabilities()
        if len(rows) == 1:
            return rows[0]
        if int(self.state[S_CUR]) != self.seat:
            raise RuntimeError(f"seat {int(self.state[S_CUR])} is to move, not {self.seat}")
        w = np.exp(self.log_weights - self.log_weights.max())
        w /= w.sum()
        return {a: float(sum(wk * r[a] for wk, r in zip(w, rows, strict=True))) for a in rows[0]}
