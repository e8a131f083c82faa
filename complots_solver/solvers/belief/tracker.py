"""Exact belief tracking along one real game: the hypothesis set of its public history.

:class:`BeliefTracker` starts from the initial state and, for every move of
a real game, expands its hypotheses, keeps the children that show the same
public token as the real move, and multiplies each child's weight by the
probability of its move: chance probabilities, and for player moves the
acting player's strategy at that hypothesis (a callback), so the weights are
the exact Bayesian posterior over hidden states and private-state ids given
the public history and the strategy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.layout import S_CUR
from complots_solver.solvers.knowledge.hypotheses import (
    CHANCE,
    Hypotheses,
    Memory,
    canonical_ids,
    expand,
    hashes,
    max_moves,
    state_hashes,
    step_buffers,
)

# policy(states, xs, actor, moves, knows) -> probability of each row's move for its actor
PolicyFn = Callable[[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray], np.ndarray]
# matrix(states, xs, actor, knows) -> [rows, action ids] probabilities of each distinct parent
MatrixFn = Callable[[np.ndarray, np.ndarray, int, np.ndarray], np.ndarray]


def public_token(state: np.ndarray, action: int) -> int:
    """The token everybody sees when ``action`` is applied to ``state``."""
    return int(core.observation_token(state, int(action), core.PUBLIC_VIEWER))


class BeliefTracker:
    """The exact posterior over hypotheses given a public history (see the module note)."""

    def __init__(
        self, cfg: np.ndarray, memory: Memory = Memory.CANONICAL, prune: float = 0.0
    ) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.players = int(self.cfg[0])
        self.memory = Memory(memory)
        self.prune = prune
        self.width = max_moves(self.players, True)
        self.hyps = Hypotheses.initial(self.cfg)

    def __len__(self) -> int:
        """Number of hypotheses with positive weight."""
        return len(self.hyps)

    def children(self) -> tuple[Hypotheses, np.ndarray, np.ndarray, np.ndarray]:
        """Every child of every hypothesis: (children, parent row, move, public token)."""
        h = self.hyps
        buf = step_buffers(len(h), self.players, self.width)
        raw = Memory.PERFECT if self.memory == Memory.CANONICAL else self.memory
        k = expand(h.states, h.xs, h.knows, self.cfg, int(raw), self.width, **buf)
        parent = buf["out_parent"][:k].copy()
        weights = h.weights[parent] * buf["out_prob"][:k]
        kids = Hypotheses(
            buf["out_states"][:k].copy(),
            buf["out_xs"][:k].copy(),
            buf["out_knows"][:k].copy(),
            weights,
        )
        return kids, parent, buf["out_move"][:k].copy(), buf["out_token"][:k].copy()

    def observe(
        self, token: int, policy: PolicyFn | None = None, matrix: MatrixFn | None = None
    ) -> None:
        """Condition on the next public token; ``policy`` weighs player moves (None: uniform).

        ``matrix(states, xs, actor, knows)``, if given instead, returns each
        distinct parent's probabilities over all action ids (one call per
        parent, not per child: much cheaper for a network).
        """
        actor = int(self.hyps.states[0, S_CUR])
        kids, parent, moves, tokens = self.children()
        rows = np.flatnonzero(tokens == token)
        if len(rows) == 0:
            raise ValueError(f"token: {token} is impossible under every hypothesis")
        kids = Hypotheses(kids.states[rows], kids.xs[rows], kids.knows[rows], kids.weights[rows])
        if actor != CHANCE and matrix is not None:
            par = parent[rows]
            uniq, inv = np.unique(par, return_inverse=True)
            table = matrix(self.hyps.states[uniq], self.hyps.xs[uniq], actor, self.hyps.knows[uniq])
            kids.weights = kids.weights * table[inv.reshape(-1), moves[rows]]
        elif actor != CHANCE:
            if policy is None:
                counts = np.bincount(parent, minlength=len(self.hyps))
                probs = 1.0 / counts[parent[rows]]
            else:
                probs = policy(
                    self.hyps.states[parent[rows]],
                    self.hyps.xs[parent[rows]],
                    actor,
                    moves[rows],
                    self.hyps.knows[parent[rows]],
                )
            kids.weights = kids.weights * probs
        if self.memory == Memory.CANONICAL:
            canon = np.empty_like(kids.xs)
            canonical_ids(state_hashes(kids.states), kids.knows, kids.xs, self.players, canon)
            kids.xs = canon
        self.hyps = _merge(kids, self.players, self.prune)

    def observe_move(self, state: np.ndarray, action: int, policy: PolicyFn | None = None) -> None:
        """Condition on the public view of ``action`` played in the real ``state``."""
        self.observe(public_token(state, action), policy)

    def marginal(self, player: int) -> dict[int, float]:
        """Posterior probability of each private-state id of ``player``."""
        w = self.hyps.weights / self.hyps.weights.sum()
        out: dict[int, float] = {}
        for x, p in zip(self.hyps.xs[:, player].tolist(), w.tolist(), strict=False):
            out[x] = out.get(x, 0.0) + p
        return out


def _merge(h: Hypotheses, players: int, prune: float) -> Hypotheses:
    """Sum the weights of equal hypotheses; drop those of zero weight (or below ``prune``)."""
    total = h.weights.sum()
    if total <= 0.0:
        raise ValueError("the observed move has probability zero under the strategy")
    keep = h.weights > prune * total
    h = Hypotheses(h.states[keep], h.xs[keep], h.knows[keep], h.weights[keep])
    hs = hashes(h.states, h.xs, players)
    uniq, first, inverse = np.unique(hs, return_index=True, return_inverse=True)
    weights = np.bincount(inverse, weights=h.weights, minlength=len(uniq))
    order = np.argsort(first, kind="stable")
    idx = first[order]
    return Hypotheses(h.states[idx], h.xs[idx], h.knows[idx], weights[order] / weights.sum())
