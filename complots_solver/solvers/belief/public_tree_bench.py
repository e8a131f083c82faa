"""Timing the public-tree build: self-play-like subgame roots, and both builds timed on them."""

from __future__ import annotations

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import S_CUR, S_STAGE
from complots_solver.solvers.belief.public_tree_build import build_public_tree
from complots_solver.solvers.belief.public_tree_reference import _build_public_tree_reference
from complots_solver.solvers.knowledge.hypotheses import (
    CHANCE,
    TERMINAL,
    Hypotheses,
    Memory,
    max_moves,
)


def random_beliefs(cfg: np.ndarray, count: int, seed: int = 0) -> list[Hypotheses]:
    """``count`` subgame roots like self-play's: the initial state, then the exact belief at each turn start of random games (uniform play)."""
    from complots_solver.solvers.belief.tracker import BeliefTracker

    cfg = np.ascontiguousarray(cfg, dtype=np.int32)
    rng = np.random.default_rng(seed)
    moves = np.empty(max_moves(int(cfg[0]), True), dtype=np.int32)
    probs = np.empty(len(moves), dtype=np.float64)
    roots: list[Hypotheses] = []
    while len(roots) < count:
        state = core.initial_state(cfg)
        tracker = BeliefTracker(cfg)
        roots.append(Hypotheses.initial(cfg))
        while int(state[S_CUR]) != TERMINAL and len(roots) < count:
            if int(state[S_CUR]) == CHANCE:
                m = core.chance_outcomes_into(state, cfg, moves, probs)
                a = int(rng.choice(moves[:m], p=probs[:m] / probs[:m].sum()))
            else:
                m = core.legal_actions_into(state, cfg, moves)
                a = int(rng.choice(moves[:m]))
            tracker.observe_move(state, a)
            core.apply_action(state, cfg, a)
            if int(state[S_STAGE]) == Stage.ACTION and int(state[S_CUR]) >= 0:
                h = tracker.hyps
                roots.append(
                    Hypotheses(h.states.copy(), h.xs.copy(), h.knows.copy(), h.weights.copy())
                )
    return roots


def time_builds(
    cfg: np.ndarray,
    roots: list[Hypotheses],
    memory: Memory = Memory.CANONICAL,
    max_turns: int | None = 1,
    repeats: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """Seconds to build each root's tree: (compiled, reference), alternated, best of ``repeats``."""
    import time

    build_public_tree(cfg, roots[0], memory, max_turns)  # load the compiled code
    fast = np.full(len(roots), np.inf)
    reference = np.full(len(roots), np.inf)
    for _ in range(repeats):
        for i, root in enumerate(roots):
            for f, out in ((build_public_tree, fast), (_build_public_tree_reference, reference)):
                t0 = time.perf_counter()
                f(cfg, root, memory, max_turns)
                out[i] = min(out[i], time.perf_counter() - t0)
    return fast, reference
