"""Find where a real game history sits in a public tree: its public node and private-state ids."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.solvers.belief.hypotheses import KNOW_SIZE, mix, summary_id, update_knowledge
from complots_solver.solvers.belief.public_tree import PublicTree


@njit(cache=True)
def trace(cfg, memory, actions, tokens, xs):
    """Replay ``actions`` from the initial state: each step's public token and ids after it."""
    players = cfg[0]
    s = core.initial_state(cfg)
    before = s.copy()
    x = np.zeros(players, dtype=np.int64)
    know = np.zeros((players, KNOW_SIZE), dtype=np.int32)
    for i in range(actions.shape[0]):
        a = actions[i]
        pub = core.observation_token(s, a, core.PUBLIC_VIEWER)
        for p in range(players):
            tok = core.observation_token(s, a, p)
            if memory == 0 and tok != pub:
                x[p] = mix(x[p], tok)
        before[:] = s
        core.apply_action(s, cfg, a)
        update_knowledge(before, a, s, players, know)
        if memory == 1:
            for p in range(players):
                x[p] = summary_id(s, know[p], p)
        tokens[i] = pub
        for p in range(players):
            xs[i, p] = x[p]
    return s


def locate(
    tree: PublicTree, cfg: np.ndarray, memory: int, history: Sequence[int]
) -> tuple[int, np.ndarray]:
    """Public node reached by ``history`` (actions from the initial state) and the ids there."""
    actions = np.asarray(history, dtype=np.int32)
    players = int(cfg[0])
    tokens = np.empty(len(actions), dtype=np.int64)
    xs = np.zeros((max(1, len(actions)), players), dtype=np.int64)
    trace(np.ascontiguousarray(cfg, dtype=np.int32), int(memory), actions, tokens, xs)
    node = 0
    for tok in tokens:
        node = tree.child_index[(node, int(tok))]
    if len(actions) == 0:
        return node, np.zeros(players, dtype=np.int64)
    return node, xs[len(actions) - 1].copy()


def locate_hyp(tree: PublicTree, history: Sequence[int], root_hyp: int = 0) -> int:
    """The hypothesis reached from root hypothesis ``root_hyp`` by ``history`` (KeyError if none)."""
    h = root_hyp
    for a in history:
        e0, e1 = int(tree.hyp_edge_start[h]), int(tree.hyp_edge_start[h + 1])
        hit = np.flatnonzero(tree.edge_move[e0:e1] == int(a))
        if len(hit) != 1:
            raise KeyError(f"move {a} is not a unique move of hypothesis {h}")
        h = int(tree.edge_child[e0 + hit[0]])
    return h
