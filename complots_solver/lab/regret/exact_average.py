"""The exact average of sampled regret matching+'s current strategies on a ladder rung.

The average network is fitted to a reservoir of sampled decisions; on a small game the average
it stands for can be computed exactly instead: each iteration's current strategy (regret
matching on the regret network, uniform at the first iteration) read on every information
set of the tree, averaged with weight ``t`` times its player's own reach (the linear average of
regret matching+). The gap between the two tells how much of the average network's
exploitability is its fitting and sampling, and how much the regret network's
(``scripts/regret_check.py --exact-average``).
"""

from __future__ import annotations

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.regret.sampler import RegretSampler, matched
from complots_solver.solvers.selfplay.exact import ReachAverage, table_tree_strategy


class RegretMatched:
    """A regret network read as its regret matching (the current strategy), in the shape
    ``table_tree_strategy`` reads a table network."""

    def __init__(self, net: TableNet) -> None:
        """``net``: the regret network."""
        self.net = net

    @property
    def num_features(self) -> int:
        """Inputs the network reads."""
        return self.net.num_features

    @property
    def num_actions(self) -> int:
        """Action ids the network scores."""
        return self.net.num_actions

    def policy_value(self, x: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Regret matching on the outputs over each row's legal actions, and the value output."""
        out = self.net.outputs(x)
        return matched(out[:, :-1].astype(np.float64), legal), out[:, -1]


def current_strategy(config: GameConfig, sampler: RegretSampler, tree: object) -> np.ndarray:
    """The strategy the sampler's next iteration plays, on every information set of ``tree``."""
    if sampler.iteration == 0:  # the first iteration plays uniformly (the network is untrained)
        counts = np.diff(tree.action_offsets)
        return np.repeat(1.0 / counts, counts)
    return table_tree_strategy(config, RegretMatched(sampler.net), tree)  # type: ignore[arg-type]


class ExactAverage:
    """The linear, reach-weighted average of the current strategies, iteration by iteration."""

    def __init__(self, config: GameConfig, tree: object) -> None:
        """``tree``: the rung's compiled tree."""
        self.config = config
        self.tree = tree
        self.average = ReachAverage(tree)
        self.last: np.ndarray | None = None

    def before(self, sampler: RegretSampler) -> None:
        """Add the strategy iteration ``t`` = ``sampler.iteration + 1`` plays, with weight ``t``
        (as the reservoir weighs that iteration's decisions)."""
        self.last = current_strategy(self.config, sampler, self.tree)
        self.average.add(self.last, weight=float(sampler.iteration + 1))

    def strategy(self) -> np.ndarray:
        """The average so far (the last current strategy where none reached)."""
        if self.last is None:
            raise ValueError("no iteration added yet")
        return self.average.strategy(self.last)
