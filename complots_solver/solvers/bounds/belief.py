"""The responder's exact belief: every hidden state its own observations allow, weighed by the strategy.

:class:`ResponderBelief` follows one real game from one seat's point of view.
Each move expands every hypothesis with the rules core and keeps the
children that show both the real public token and the real token the
responder saw itself (its own cards, draws, Examine results). The weights
multiply chance probabilities and, at the strategy player's moves, the
strategy's probability at that hypothesis; the responder's own moves carry
no likelihood (they are known). The normalised weights are the exact
posterior over hidden states given everything the responder has seen and
the strategy. Equal hypotheses (state, private-state ids and draft clans) are merged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.layout import S_CUR
from complots_solver.solvers.bounds.strategy import BoundStrategy
from complots_solver.solvers.knowledge.hypotheses import (
    expand,
    hashes,
    max_moves,
    mix,
    note_draft,
    step_buffers,
)
from complots_solver.solvers.rows.batch import CHANCE, Rows, check_memory, seat_tokens


@njit(cache=True)
def child_drafts(parent_states, parents, states, cfg, drafts):
    """Each child's draft clans (``drafts`` holds its parent's): what its deal or pick added."""
    for i in range(states.shape[0]):
        note_draft(parent_states[parents[i]], states[i], cfg, drafts[i])


@njit(cache=True)
def mix_drafts(keys, drafts):
    """Fold each row's draft clans into its merge key: a table network reads them."""
    for i in range(keys.shape[0]):
        for q in range(drafts.shape[1]):
            keys[i] = mix(mix(keys[i], drafts[i, q, 0] + 1), drafts[i, q, 1] + 1)


class ResponderBelief:
    """The posterior over one real game's hidden states from ``seat``'s view (module note)."""

    def __init__(self, cfg: np.ndarray, seat: int, strategy: BoundStrategy, game: int = 0) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.seat = seat
        self.strategy = strategy
        self.memory = strategy.memory
        check_memory(self.memory)
        self.players = int(self.cfg[0])
        self.width = max_moves(self.players, True)
        self.rows = Rows.initial(self.cfg, 1, seat)
        self.rows.game[:] = game
        self.weights = np.ones(1)

    def __len__(self) -> int:
        """Number of hypotheses."""
        return len(self.rows)

    def observe(self, state: np.ndarray, move: int) -> None:
        """Condition on ``move`` played from the real ``state`` (only its two tokens are read)."""
        pub = int(core.observation_token(state, int(move), core.PUBLIC_VIEWER))
        own = int(core.observation_token(state, int(move), self.seat))
        h = self.rows
        actor = int(h.states[0, S_CUR])
        buf = step_buffers(len(h), self.players, self.width)
        k = expand(h.states, h.xs, h.knows, self.cfg, int(self.memory), self.width, **buf)
        parent = buf["out_parent"][:k]
        moves = buf["out_move"][:k]
        mine = np.empty(k, dtype=np.int64)
        seat_tokens(h.states, parent, moves, self.seat, mine)
        keep = np.flatnonzero((buf["out_token"][:k] == pub) & (mine == own))
        if len(keep) == 0:
            raise ValueError(f"move: {move} is impossible under every hypothesis")
        par = parent[keep]
        weights = self.weights[par] * buf["out_prob"][:k][keep]
        if actor != CHANCE and actor != self.seat:
            uniq, inv = np.unique(par, return_inverse=True)
            table = self.strategy.matrix(h.take(uniq), live=True)
            weights = weights * table[inv.reshape(-1), moves[keep]]
        total = weights.sum()
        if not total > 0.0:
            raise ValueError("move: probability zero under the strategy at every hypothesis")
        states = buf["out_states"][:k][keep]
        xs = buf["out_xs"][:k][keep]
        drafts = h.drafts[par].copy()
        child_drafts(h.states, par, states, self.cfg, drafts)
        keys = hashes(states, xs, self.players)
        mix_drafts(keys, drafts)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        merged = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(uniq))
        order = np.argsort(first, kind="stable")
        idx = keep[first[order]]
        n = len(idx)
        self.rows = Rows(
            buf["out_states"][idx].copy(),
            buf["out_xs"][idx].copy(),
            buf["out_knows"][idx].copy(),
            np.full(n, mix(h.pubs[0], pub), dtype=np.int64),
            np.full(n, mix(h.owns[0], own), dtype=np.int64),
            np.full(n, h.game[0], dtype=np.int64),
            drafts[first[order]],
        )
        self.weights = merged[order] / merged.sum()

    def sample(self, n: int, rng: np.random.Generator) -> Rows:
        """``n`` hypotheses drawn from the posterior (with replacement)."""
        idx = rng.choice(len(self.rows), size=n, p=self.weights)
        return self.rows.take(idx)

    def weight_of(self, state: np.ndarray) -> float:
        """Posterior probability of the hypotheses whose rules state equals ``state``."""
        hit = (self.rows.states == state[None, :]).all(axis=1)
        return float(self.weights[hit].sum())
