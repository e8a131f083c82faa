"""A 2-player table network (league self-play) as a bound strategy, so LBR and the trained
responder can measure it.

The network reads, at a seat's decision, the rules state, that seat's certain knowledge and
draft clans, and the table's public record (claims, counters, challenges, what each seat was
shown: ``knowledge.table_features``).

- **Live rows** (hypotheses of a real game): the state, knowledge and draft clans are the
  row's own; the record is the real game's, kept move by move exactly as the playing bot keeps
  it. The record is the same for every hypothesis: everything in it is public or was shown to
  the responder itself (cards the responder showed to an Inquisitor).
- **Rollouts** (:meth:`TableStrategy.rollout_after`): every row carries its own record from the
  real game's node onward and updates it with the same ``observe_move`` as the bot, so rollouts
  play the strategy itself, not an approximation.
- ``matrix(rows, live=False)`` (asked by callers other than the rollouts) uses the record frozen
  at the last :meth:`freeze`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, S_CUR
from complots_solver.solvers.knowledge.hypotheses import Memory
from complots_solver.solvers.knowledge.table_features import (
    MAX_MEMORY,
    NO_TOKEN,
    TableMemory,
    absolute_action,
    decision_row_memory,
    memory_of,
    observe_move,
    push_tokens,
)
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.rows.batch import NO_MOVE, TERMINAL, Rows, returns_of, sample_moves


@njit(cache=True)
def table_rows_features(
    states, knows, drafts, records, seens, which, cfg, extended, feats, legal, rings, memory
):  # fmt: skip
    """Each row's decision features for the seat to move; ``which[i]`` picks its record; with
    ``memory`` > 0, the seat's last observations from row ``i``'s own ``rings[i]``."""
    moves = np.empty(legal.shape[1] + 32, dtype=np.int32)
    for i in range(states.shape[0]):
        m = which[i]
        decision_row_memory(
            states[i], cfg, states[i, S_CUR], records[m], seens[m], knows[i], drafts[i],
            rings[i], memory, feats[i], legal[i], moves, extended,
        )  # fmt: skip


@njit(cache=True)
def absolute_probabilities(states, rel, cfg, extended, out):
    """Seat-relative probabilities to action ids of the seat to move."""
    n = cfg[C_PLAYERS]
    for i in range(states.shape[0]):
        me = states[i, S_CUR]
        for r in range(rel.shape[1]):
            if rel[i, r] > 0.0:
                out[i, absolute_action(r, me, n, extended)] = rel[i, r]


@njit(cache=True)
def step_table_rows(states, moves, cfg, records, seens, knows, drafts, rings):
    """Apply one move per row (NO_MOVE or terminal: unchanged) and keep each row's record and
    its seats' last observations (``rings[i]``: seats x remembered moves, possibly none)."""
    before = np.empty(states.shape[1], dtype=np.int32)
    for i in range(states.shape[0]):
        a = moves[i]
        if states[i, S_CUR] == TERMINAL or a == NO_MOVE:
            continue
        for j in range(states.shape[1]):
            before[j] = states[i, j]
        push_tokens(before, a, cfg, rings[i])
        core.apply_action(states[i], cfg, a)
        observe_move(before, a, states[i], cfg, records[i], seens[i], knows[i], drafts[i])


def no_rings(rows: int, cfg: np.ndarray, memory: int = 0) -> np.ndarray:
    """Per row, each seat's last observations: empty (``memory`` 0) or none yet (``NO_TOKEN``)."""
    width = MAX_MEMORY if memory > 0 else 0
    return np.full((rows, int(cfg[C_PLAYERS]), width), NO_TOKEN, dtype=np.int64)


class TableStrategy:
    """A table network playing both seats of a 2-player game, asked about many rows at once."""

    memory = Memory.SUMMARY
    rollout_note = ", each rollout keeping its own public record as the playing bot does"

    def __init__(self, cfg: np.ndarray, net: TableNet, num_actions: int) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        if int(self.cfg[C_PLAYERS]) != 2:
            raise ValueError("cfg: a bound strategy plays 2-player games")
        if memory_of(net.num_features, self.cfg) > 0:
            raise ValueError(
                "net: remembers its seat's last moves, which differ between the worlds the "
                "local best response weighs; lbr and trained measure networks without memory: "
                "use --method responder"
            )
        if net.num_actions != num_actions:
            raise ValueError(f"net: scores {net.num_actions} actions, this game has {num_actions}")
        self.net = net
        self.num_actions = num_actions
        self.extended = bool(self.cfg[C_EXTENDED])
        self.memories: list[TableMemory] = []
        self.frozen = TableMemory(self.cfg)

    def start(self, games: int) -> None:
        """One public record per real game."""
        self.memories = [TableMemory(self.cfg) for _ in range(games)]

    def advance(self, game: np.ndarray, states: np.ndarray, moves: np.ndarray) -> None:
        """Each listed game's record follows its move."""
        for g, s, a in zip(game.tolist(), states, moves.tolist(), strict=True):
            after = s.copy()
            core.apply_action(after, self.cfg, int(a))
            self.memories[g].observe(s, int(a), after)

    def freeze(self, game: int) -> None:
        """Rollouts and ``live=False`` rows start from game ``game``'s record now."""
        src = self.memories[game]
        self.frozen.record[...] = src.record
        self.frozen.seen[...] = src.seen

    def _probabilities(self, states, knows, drafts, records, seens, which) -> np.ndarray:  # noqa: ANN001
        """Probabilities over action ids for each row; ``which[i]`` picks row i's record."""
        n = len(states)
        feats = np.empty((n, self.net.num_features), dtype=np.float32)
        legal = np.empty((n, self.net.num_actions), dtype=np.float32)
        table_rows_features(
            states, knows, drafts, records, seens, np.ascontiguousarray(which, dtype=np.int64),
            self.cfg, self.extended, feats, legal, no_rings(n, self.cfg), 0,
        )  # fmt: skip
        rel, _ = self.net.policy_value(feats, legal)
        out = np.zeros((n, self.num_actions))
        absolute_probabilities(states, rel.astype(np.float64), self.cfg, self.extended, out)
        return out

    def matrix(self, rows: Rows, live: bool) -> np.ndarray:
        """The network's probabilities over action ids for the seat to move in each row."""
        if len(rows) == 0:
            return np.zeros((0, self.num_actions))
        if not live:
            records, seens = self.frozen.record[None], self.frozen.seen[None]
            which = np.zeros(len(rows))
        else:
            games = np.unique(rows.game)
            records = np.stack([self.memories[g].record for g in games.tolist()])
            seens = np.stack([self.memories[g].seen for g in games.tolist()])
            which = np.searchsorted(games, rows.game)
        return self._probabilities(rows.states, rows.knows, rows.drafts, records, seens, which)

    def rollout_after(
        self, rows: Rows, moves: np.ndarray, seat: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Play ``moves[i]`` in row ``i``, then the network in both seats to the end (the record
        frozen at :meth:`freeze`, then kept per row); ``seat``'s returns."""
        n = len(rows)
        states, knows, drafts = rows.states.copy(), rows.knows.copy(), rows.drafts.copy()
        records = np.repeat(self.frozen.record[None], n, axis=0)
        seens = np.repeat(self.frozen.seen[None], n, axis=0)
        step = np.ascontiguousarray(moves, dtype=np.int32)
        rings = no_rings(n, self.cfg)
        while True:
            step_table_rows(states, step, self.cfg, records, seens, knows, drafts, rings)
            cur = states[:, S_CUR]
            active = np.flatnonzero(cur != TERMINAL)
            if len(active) == 0:
                break
            probs = np.zeros((len(active), self.num_actions))
            deciding = cur[active] >= 0
            players = active[deciding]
            if len(players):
                probs[deciding] = self._probabilities(
                    states[players], knows[players], drafts[players], records, seens, players
                )
            chosen = np.empty(len(active), dtype=np.int32)
            sample_moves(states[active], self.cfg, probs, rng.random(len(active)), chosen)
            step = np.full(n, NO_MOVE, dtype=np.int32)
            step[active] = chosen
        out = np.empty(n)
        returns_of(states, self.cfg, seat, out)
        return out

    def exact_value(self) -> float | None:
        """Not known for the full game."""
        return None
