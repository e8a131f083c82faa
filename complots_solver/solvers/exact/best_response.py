"""Exact best responses, NashConv and exploitability on a compiled :class:`Tree`.

The best response of player ``b`` is computed with linear passes (numba):

1. a forward sweep computes every node's counterfactual reach for ``b`` (the
   opponent's and chance's reach probability) and its *level*, the number of
   ``b``'s own decisions above it (constant across an infoset under perfect
   recall);
2. nodes are bucketed by level (counting sort); for levels from deepest to
   shallowest, ``b``'s infosets on that level choose the action maximising the
   counterfactual-reach-weighted sum of child values over the infoset's
   histories, then the level's nodes are evaluated in reverse id order.

NashConv = BR value of player 0 + BR value of player 1 (zero-sum), and
exploitability = NashConv / 2, OpenSpiel's convention for two players.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.solvers.exact.cfr import slot_base
from complots_solver.solvers.exact.tree import NUM_PLAYERS, NodeKind, Tree

TERMINAL = NodeKind.TERMINAL
CHANCE = NodeKind.CHANCE
UNRESOLVED = -1
IMPERFECT_RECALL = -1


@dataclass(frozen=True)
class ExploitabilityReport:
    """Best-response statistics of a strategy profile."""

    nash_conv: float
    exploitability: float
    best_response_values: tuple[float, float]  # value of BR of player p vs the profile
    game_value: float  # value of the profile for player 0


@njit(cache=True)
def _profile_value(
    kind: np.ndarray,
    slot_base: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    utility: np.ndarray,
    strategy: np.ndarray,
) -> float:
    """Expected player-0 utility when both players follow ``strategy``."""
    num_nodes = kind.shape[0]
    value = np.empty(num_nodes)
    for n in range(num_nodes - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            value[n] = utility[n]
            continue
        v = 0.0
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if k == CHANCE:
            for e in range(e0, e1):
                v += chance_prob[e] * value[children[e]]
        else:
            base = slot_base[n]
            for e in range(e0, e1):
                v += strategy[base + e] * value[children[e]]
        value[n] = v
    return value[0]


@njit(cache=True)
def _best_response(
    kind: np.ndarray,
    player: np.ndarray,
    infoset: np.ndarray,
    slot_base: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    utility: np.ndarray,
    action_offsets: np.ndarray,
    strategy: np.ndarray,
    responder: int,
    best_slot: np.ndarray,
) -> float:
    """Best-response value for ``responder``; fills ``best_slot`` per infoset.

    Returns NaN if an infoset of ``responder`` spans several levels (imperfect recall).
    """
    num_nodes = kind.shape[0]
    reach = np.empty(num_nodes)
    level = np.zeros(num_nodes, dtype=np.int64)
    reach[0] = 1.0
    max_level = 0
    for n in range(num_nodes):
        k = kind[n]
        if k == TERMINAL:
            continue
        r = reach[n]
        lv = level[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if k == CHANCE:
            for e in range(e0, e1):
                reach[children[e]] = r * chance_prob[e]
                level[children[e]] = lv
        elif player[n] == responder:
            for e in range(e0, e1):
                reach[children[e]] = r
                level[children[e]] = lv + 1
            if lv + 1 > max_level:
                max_level = lv + 1
        else:
            base = slot_base[n]
            for e in range(e0, e1):
                reach[children[e]] = r * strategy[base + e]
                level[children[e]] = lv
    # Counting sort: levels deepest-first, ids descending within a level.
    counts = np.zeros(max_level + 2, dtype=np.int64)
    for n in range(num_nodes):
        counts[level[n]] += 1
    start = np.zeros(max_level + 2, dtype=np.int64)
    for lv in range(max_level - 1, -1, -1):
        start[lv] = start[lv + 1] + counts[lv + 1]
    fill = start.copy()
    order = np.empty(num_nodes, dtype=np.int64)
    for n in range(num_nodes - 1, -1, -1):
        lv = level[n]
        order[fill[lv]] = n
        fill[lv] += 1
    num_infosets = action_offsets.shape[0] - 1
    infoset_level = np.full(num_infosets, -1, dtype=np.int64)
    q = np.zeros(action_offsets[num_infosets])
    best_slot[:] = UNRESOLVED
    value = np.empty(num_nodes)
    sign = 1.0 if responder == 0 else -1.0
    for lv in range(max_level, -1, -1):
        lo = start[lv]
        hi = lo + counts[lv]
        # Accumulate reach-weighted action values of the responder's infosets.
        for j in range(lo, hi):
            n = order[j]
            if kind[n] == TERMINAL or kind[n] == CHANCE or player[n] != responder:
                continue
            i = infoset[n]
            if infoset_level[i] == -1:
                infoset_level[i] = lv
            elif infoset_level[i] != lv:
                return np.nan
            base = slot_base[n]
            r = reach[n]
            for e in range(child_offsets[n], child_offsets[n + 1]):
                q[base + e] += r * value[children[e]]
        # Evaluate this level's nodes bottom-up.
        for j in range(lo, hi):
            n = order[j]
            k = kind[n]
            if k == TERMINAL:
                value[n] = sign * utility[n]
                continue
            e0 = child_offsets[n]
            e1 = child_offsets[n + 1]
            if k == CHANCE:
                v = 0.0
                for e in range(e0, e1):
                    v += chance_prob[e] * value[children[e]]
                value[n] = v
            elif player[n] == responder:
                i = infoset[n]
                if best_slot[i] == UNRESOLVED:
                    a0 = action_offsets[i]
                    best = a0
                    for a in range(a0 + 1, action_offsets[i + 1]):
                        if q[a] > q[best]:
                            best = a
                    best_slot[i] = best
                value[n] = value[children[best_slot[i] - slot_base[n]]]
            else:
                base = slot_base[n]
                v = 0.0
                for e in range(e0, e1):
                    v += strategy[base + e] * value[children[e]]
                value[n] = v
    return value[0]


def _check_strategy(tree: Tree, strategy: np.ndarray) -> np.ndarray:
    """Return ``strategy`` as a contiguous float64 slot array or raise ValueError."""
    values = np.ascontiguousarray(strategy, dtype=np.float64)
    if values.shape != (tree.num_slots,):
        raise ValueError(f"strategy must have shape ({tree.num_slots},), got {values.shape}")
    if not np.isfinite(values).all() or (values < 0).any():
        raise ValueError("strategy must contain finite non-negative probabilities")
    return values


def _check_player(player: int) -> None:
    """Raise ValueError unless ``player`` is 0 or 1."""
    if player not in range(NUM_PLAYERS):
        raise ValueError(f"player must be in {list(range(NUM_PLAYERS))}, got {player!r}")


def best_response(tree: Tree, strategy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
    """Return (BR value for ``player``, slot-aligned pure BR strategy for ``player``'s infosets).

    The returned strategy equals ``strategy`` on the opponent's infosets.
    """
    _check_player(player)
    values = _check_strategy(tree, strategy)
    best_slot = np.empty(tree.num_infosets, dtype=np.int64)
    br_value = _best_response(
        tree.kind, tree.player, tree.infoset, slot_base(tree), tree.child_offsets,
        tree.children, tree.chance_prob, tree.utility, tree.action_offsets,
        values, player, best_slot,
    )  # fmt: skip
    if np.isnan(br_value):
        raise ValueError(f"tree must have perfect recall for player {player}")
    response = values.copy()
    own = np.flatnonzero(tree.infoset_player == player)
    for i in own:
        response[tree.action_offsets[i] : tree.action_offsets[i + 1]] = 0.0
    # Infosets never reached by any history are resolved to their first action.
    chosen = best_slot[own]
    chosen = np.where(chosen == UNRESOLVED, tree.action_offsets[own], chosen)
    response[chosen] = 1.0
    return float(br_value), response


def game_value(tree: Tree, strategy: np.ndarray) -> float:
    """Expected utility of player 0 when both players follow ``strategy``."""
    values = _check_strategy(tree, strategy)
    return float(
        _profile_value(
            tree.kind,
            slot_base(tree),
            tree.child_offsets,
            tree.children,
            tree.chance_prob,
            tree.utility,
            values,
        )  # fmt: skip
    )


def exploitability_report(tree: Tree, strategy: np.ndarray) -> ExploitabilityReport:
    """NashConv, exploitability, per-player BR values and player-0 value of ``strategy``."""
    br0, _ = best_response(tree, strategy, 0)
    br1, _ = best_response(tree, strategy, 1)
    nash_conv = br0 + br1  # zero-sum: the profile values of both players cancel
    return ExploitabilityReport(
        nash_conv=nash_conv,
        exploitability=nash_conv / NUM_PLAYERS,
        best_response_values=(br0, br1),
        game_value=game_value(tree, strategy),
    )


def exploitability(tree: Tree, strategy: np.ndarray) -> float:
    """Exploitability (NashConv / 2) of ``strategy``, as OpenSpiel defines it for 2 players."""
    return exploitability_report(tree, strategy).exploitability
