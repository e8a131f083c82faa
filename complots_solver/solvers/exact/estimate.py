"""How large a game's exact tree is, estimated in a second before anyone tries to build it.

Knuth's estimator: a random path from the root, choosing uniformly among
each node's moves, gives ``1 + b1 + b1*b2 + ...`` (the running products of the
branching factors), an unbiased estimate of the number of nodes; the mean
over many paths is the estimate. A path whose product passes
:data:`CAP_NODES` stops there: such a tree is far beyond any memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES, S_CUR, num_distinct_actions

CAP_NODES = 1e30
BYTES_PER_NODE = 34  # compiled tree arrays per node and edge (TreeCounts.estimated_bytes)
SOLVER_FACTOR = 2.5  # peak memory of solving and exact evaluation over the tree arrays
DEFAULT_PROBES = 4000


@njit(cache=True)
def _probe_sizes(cfg, probes, seed, cap, width):
    np.random.seed(seed)
    out = np.empty(probes)
    moves = np.empty(width, dtype=np.int32)
    probs = np.empty(width)
    for i in range(probes):
        s = core.initial_state(cfg)
        product = 1.0
        total = 1.0
        while s[S_CUR] != -4:
            if s[S_CUR] == -1:
                k = core.chance_outcomes_into(s, cfg, moves, probs)
            else:
                k = core.legal_actions_into(s, cfg, moves)
            product *= k
            total += product
            if total > cap:
                break
            core.apply_action(s, cfg, moves[np.random.randint(k)])
        out[i] = total
    return out


@dataclass(frozen=True)
class TreeEstimate:
    """An estimated tree size and what exact solving would need."""

    nodes: float
    bytes_needed: float
    bytes_available: int

    @property
    def fits(self) -> bool:
        """Whether exact solving fits in this machine's memory."""
        return self.bytes_needed <= self.bytes_available


def memory_bytes() -> int:
    """Physical memory of this machine in bytes."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 16 * 2**30


def estimate_tree(config: GameConfig, probes: int = DEFAULT_PROBES, seed: int = 0) -> TreeEstimate:
    """Estimate the exact tree's nodes and the memory exact solving needs (same seed, same result)."""
    if probes < 1:
        raise ValueError(f"probes must be at least 1, got {probes}")
    cfg = config.to_array()
    width = num_distinct_actions(config.players, config.extended) + MAX_CHANCE_OUTCOMES
    sizes = _probe_sizes(cfg, probes, seed, CAP_NODES, width)
    nodes = float(min(sizes.mean(), CAP_NODES))
    return TreeEstimate(nodes, nodes * BYTES_PER_NODE * SOLVER_FACTOR, memory_bytes())


def check_exact_fits(config: GameConfig, name: str) -> TreeEstimate:
    """The estimate, or a ValueError in one line when the exact tree cannot fit in memory."""
    if config.players != 2:
        raise ValueError(f"{name}: exact solving is for 2 players; use es-mccfr or os-mccfr")
    est = estimate_tree(config)
    if not est.fits:
        nodes = "more than 1e30" if est.nodes >= CAP_NODES else f"about {est.nodes:.1e}"
        raise ValueError(
            f"{name}: the exact game tree has {nodes} nodes (needs ~{est.bytes_needed / 2**30:.3g} GB,"
            f" this machine has {est.bytes_available / 2**30:.0f} GB); exact solving cannot fit: use"
            " --algorithm auto (sampled regret matching+ of a table network at 2 players), belief (the"
            " public-belief solver) or os-mccfr, or a ladder-N preset"
        )
    return est
