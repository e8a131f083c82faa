"""Mixed strategies on a compiled tree: one of several strategies drawn for the whole game.

A player who draws one of several behaviour strategies before the game and
follows it throughout plays, by Kuhn's theorem (perfect recall), the
behaviour strategy whose realisation plan is the draw-weighted mean of theirs:
at each information set, their action probabilities weighted by the draw's
weight and the owner's own reach under each.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from complots_solver.solvers.exact.best_response import _check_strategy
from complots_solver.solvers.exact.cfr import slot_base
from complots_solver.solvers.exact.tree import NodeKind, Tree

_DECISION = int(NodeKind.DECISION)


@njit(cache=True)
def _own_reach(kind, player, infoset, slot_base, child_offsets, children, strategy, out):
    """Each infoset's own reach for its player (the last node's; equal on all under perfect recall)."""
    num_nodes = kind.shape[0]
    reach = np.empty((num_nodes, 2))
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    for n in range(num_nodes):
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if kind[n] == _DECISION:
            p = player[n]
            out[infoset[n]] = reach[n, p]
            base = slot_base[n]
            for e in range(e0, e1):
                c = children[e]
                reach[c, 0] = reach[n, 0]
                reach[c, 1] = reach[n, 1]
                reach[c, p] = reach[n, p] * strategy[base + e]
        else:
            for e in range(e0, e1):
                c = children[e]
                reach[c, 0] = reach[n, 0]
                reach[c, 1] = reach[n, 1]


def own_reach(tree: Tree, strategy: np.ndarray) -> np.ndarray:
    """Own reach of every infoset for the player to move there (product of its own action probabilities)."""
    values = _check_strategy(tree, strategy)
    out = np.zeros(tree.num_infosets)
    _own_reach(
        tree.kind,
        tree.player,
        tree.infoset,
        slot_base(tree),
        tree.child_offsets,
        tree.children,
        values,
        out,
    )
    return out


def mix_strategies(
    tree: Tree, strategies: Sequence[np.ndarray], weights: Sequence[float] | None = None
) -> np.ndarray:
    """The behaviour strategy of drawing one of ``strategies`` by ``weights`` (default uniform) for a whole game.

    Where no strategy reaches an infoset, their plain weighted mean.
    """
    if not strategies:
        raise ValueError("strategies: at least one needed")
    drawn = np.ones(len(strategies)) if weights is None else np.asarray(weights, np.float64)
    if drawn.shape != (len(strategies),) or drawn.min() < 0.0 or drawn.sum() <= 0.0:
        raise ValueError("weights: one non-negative weight per strategy, not all zero")
    slot_info = tree.slot_infoset
    num = np.zeros(tree.num_slots)
    den = np.zeros(tree.num_slots)
    mean = np.zeros(tree.num_slots)
    for strategy, w in zip(strategies, drawn, strict=True):
        values = _check_strategy(tree, strategy)
        reach = own_reach(tree, values)[slot_info]
        num += w * reach * values
        den += w * reach
        mean += w * values
    mean /= drawn.sum()
    return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0), mean)
