"""Many games stepped side by side: rows of rules states with what each player has seen.

A row is one game in progress: the rules state, each player's private-state
id (as the belief family forms it, :class:`~..knowledge.hypotheses.Memory`
``PERFECT`` or ``SUMMARY``), each player's certain knowledge, the clans each
player was dealt and picked in a 2-player draft (a table network reads them), a hash chain
of the public tokens (``pub``) and a hash chain of one chosen player's own
tokens (``own``: that player's perfect-recall information state). Real
games, rollouts from sampled worlds and hypotheses of a belief all use the
same rows, stepped by the rules core in numba.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.layout import S_CUR
from complots_solver.solvers.knowledge.hypotheses import (
    KNOW_SIZE,
    Memory,
    mix,
    note_draft,
    summary_id,
    update_knowledge,
)

CHANCE = -1
TERMINAL = -4
PUB_SEED = 0x7B0B_0000_0000_0001
OWN_SEED = 0x7B0B_0000_0000_0100
NO_MOVE = -1


@njit(cache=True)
def step_rows(states, xs, knows, drafts, pubs, owns, moves, cfg, memory, seat):
    """Apply ``moves[i]`` to every row that is not terminal; update ids, knowledge, drafts and chains."""
    players = cfg[0]
    before = np.empty(states.shape[1], dtype=np.int32)
    toks = np.empty(players, dtype=np.int64)
    for i in range(states.shape[0]):
        s = states[i]
        if s[S_CUR] == TERMINAL or moves[i] == NO_MOVE:
            continue
        a = moves[i]
        for p in range(players):
            toks[p] = core.observation_token(s, a, p)
        pub = core.observation_token(s, a, core.PUBLIC_VIEWER)
        for j in range(s.shape[0]):
            before[j] = s[j]
        core.apply_action(s, cfg, a)
        update_knowledge(before, a, s, players, knows[i])
        note_draft(before, s, cfg, drafts[i])
        for p in range(players):
            if memory == 1:
                xs[i, p] = summary_id(s, knows[i, p], p)
            elif toks[p] != pub:
                xs[i, p] = mix(xs[i, p], toks[p])
        pubs[i] = mix(pubs[i], pub)
        owns[i] = mix(owns[i], toks[seat])


@njit(cache=True)
def sample_moves(states, cfg, probs, uniforms, out):
    """One move per row: a chance outcome by its probability, a player move by ``probs[i]``.

    Terminal rows get NO_MOVE. Rows of a player whose ``probs`` row is all
    zero get NO_MOVE too (the caller fills those).
    """
    outcomes = np.empty(64, dtype=np.int32)
    weights = np.empty(64, dtype=np.float64)
    for i in range(states.shape[0]):
        s = states[i]
        cur = s[S_CUR]
        out[i] = NO_MOVE
        if cur == TERMINAL:
            continue
        if cur == CHANCE:
            k = core.chance_outcomes_into(s, cfg, outcomes, weights)
            total = 0.0
            for j in range(k):
                total += weights[j]
            r = uniforms[i] * total
            out[i] = outcomes[k - 1]
            for j in range(k):
                r -= weights[j]
                if r < 0.0:
                    out[i] = outcomes[j]
                    break
            continue
        row = probs[i]
        total = 0.0
        last = -1
        for a in range(row.shape[0]):
            if row[a] > 0.0:
                total += row[a]
                last = a
        if last < 0:
            continue
        r = uniforms[i] * total
        out[i] = last
        for a in range(row.shape[0]):
            if row[a] > 0.0:
                r -= row[a]
                if r < 0.0:
                    out[i] = a
                    break


@njit(cache=True)
def seat_tokens(states, parents, moves, seat, out):
    """The token ``seat`` sees for each (parent state, move)."""
    for i in range(parents.shape[0]):
        out[i] = core.observation_token(states[parents[i]], moves[i], seat)


@njit(cache=True)
def returns_of(states, cfg, seat, out):
    """Terminal return of ``seat`` in every row (0 for rows not finished)."""
    for i in range(states.shape[0]):
        out[i] = core.return_of(states[i], cfg, seat)


@njit(cache=True)
def owners_returns(states, cfg, owners, out):
    """Terminal return of each row's own seat ``owners[i]`` (0 for rows not finished)."""
    for i in range(states.shape[0]):
        out[i] = core.return_of(states[i], cfg, owners[i])


@njit(cache=True)
def legal_mask(states, cfg, out):
    """1 for every legal action of the player to move in each row."""
    moves = np.empty(out.shape[1] + 32, dtype=np.int32)
    for i in range(states.shape[0]):
        for a in range(out.shape[1]):
            out[i, a] = 0.0
        if states[i, S_CUR] < 0:
            continue
        k = core.legal_actions_into(states[i], cfg, moves)
        for j in range(k):
            out[i, moves[j]] = 1.0


@dataclass
class Rows:
    """Games in progress side by side (see the module note); ``game`` names each row's real game."""

    states: np.ndarray
    xs: np.ndarray
    knows: np.ndarray
    pubs: np.ndarray
    owns: np.ndarray
    game: np.ndarray
    drafts: np.ndarray | None = None  # (rows, players, 2): clan dealt, clan picked (-1: none)

    def __post_init__(self) -> None:
        if self.drafts is None:
            self.drafts = np.full((len(self.states), self.xs.shape[1], 2), -1, dtype=np.int32)

    def __len__(self) -> int:
        """Number of rows."""
        return int(self.states.shape[0])

    @classmethod
    def initial(cls, cfg: np.ndarray, n: int, seat: int) -> Rows:
        """``n`` games at the initial state; ``own`` follows ``seat``'s tokens."""
        players = int(cfg[0])
        state = core.initial_state(cfg)
        return cls(
            np.repeat(state[None, :], n, axis=0),
            np.zeros((n, players), dtype=np.int64),
            np.zeros((n, players, KNOW_SIZE), dtype=np.int32),
            np.full(n, PUB_SEED, dtype=np.int64),
            np.full(n, OWN_SEED + seat, dtype=np.int64),
            np.arange(n, dtype=np.int64),
        )

    def take(self, idx: np.ndarray) -> Rows:
        """A copy of the rows ``idx`` (in that order, repeats allowed)."""
        return Rows(
            self.states[idx].copy(),
            self.xs[idx].copy(),
            self.knows[idx].copy(),
            self.pubs[idx].copy(),
            self.owns[idx].copy(),
            self.game[idx].copy(),
            self.drafts[idx].copy(),
        )

    def step(self, moves: np.ndarray, cfg: np.ndarray, memory: Memory, seat: int) -> None:
        """Apply one move per row (NO_MOVE: unchanged)."""
        check_memory(memory)
        step_rows(
            self.states,
            self.xs,
            self.knows,
            self.drafts,
            self.pubs,
            self.owns,
            np.ascontiguousarray(moves, dtype=np.int32),
            cfg,
            int(memory),
            seat,
        )

    @property
    def current(self) -> np.ndarray:
        """Player to move in each row (CHANCE, TERMINAL or a seat)."""
        return self.states[:, S_CUR]


def check_memory(memory: Memory) -> None:
    """Rows keep PERFECT or SUMMARY ids only (CANONICAL needs a whole public node)."""
    if Memory(memory) not in (Memory.PERFECT, Memory.SUMMARY):
        raise ValueError(f"memory: PERFECT or SUMMARY, not {Memory(memory).name}")
