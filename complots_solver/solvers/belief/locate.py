"""Find where a real game history sits in a public tree: the hypothesis it reaches."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from complots_solver.solvers.belief.public_tree import PublicTree


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
