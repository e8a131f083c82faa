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


class Mixture:
    """Strategies added one by one with their draw weights, mixed as :func:`mix_strategies` does.

    ``add(..., where=mask)`` adds a strategy for some slots only (one
    player's, say); each slot mixes what was added for it.
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.num = np.zeros(tree.num_slots)  # draw weight x own reach x probability
        self.den = np.zeros(tree.num_slots)  # draw weight x own reach
        self.mean = np.zeros(tree.num_slots)  # draw weight x probability
        self.drawn = np.zeros(tree.num_slots)  # draw weight

    def add(self, strategy: np.ndarray, weight: float, where: np.ndarray | None = None) -> None:
        """Mix in ``strategy`` drawn with ``weight`` (on the slots ``where`` holds, or all)."""
        values = _check_strategy(self.tree, strategy)
        reach = own_reach(self.tree, values)[self.tree.slot_infoset]
        keep = weight if where is None else weight * where
        self.num += keep * reach * values
        self.den += keep * reach
        self.mean += keep * values
        self.drawn += keep

    def strategy(self) -> np.ndarray:
        """The mixed behaviour strategy: the draw-weighted mean where no strategy reaches,
        uniform where nothing was added."""
        mean = np.where(
            self.drawn > 0.0,
            self.mean / np.where(self.drawn > 0.0, self.drawn, 1.0),
            self.tree.uniform_strategy(),
        )
        return np.where(self.den > 0.0, self.num / np.where(self.den > 0.0, self.den, 1.0), mean)


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
    mixture = Mixture(tree)
    for strategy, w in zip(strategies, drawn, strict=True):
        mixture.add(strategy, float(w))
    return mixture.strategy()
