"""Exact quantities of a strategy profile on a compiled 2-player tree (numba kernels).

:func:`walk_infosets` replays the compiled tree through the rules core once
and records, for every information set, the acting player's observation
token sequence (the information state), and for every *start node* (the
first turn's first decision, after the deal and the draft) both players'
hands. :func:`profile_quantities` sweeps the tree forwards (reach
probabilities, split into chance and each player's contribution) and
backwards (player-0 values) and aggregates them per infoset and per slot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules import core, view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, PlayerId, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_PASS,
    MAX_CHANCE_OUTCOMES,
    STATE_SIZE,
)
from complots_solver.solvers.exact.tree import NodeKind, Tree

_TERMINAL = int(NodeKind.TERMINAL)
_CHANCE = int(NodeKind.CHANCE)
_CHANCE_PLAYER = int(PlayerId.CHANCE)
_ACTION = int(Stage.ACTION)
NO_TOKEN = -1


@dataclass(frozen=True)
class InfosetWalk:
    """What one replay of the tree records (see :func:`walk_infosets`)."""

    tokens: np.ndarray  # int32[I, L]: each infoset's token sequence, NO_TOKEN padded
    lengths: np.ndarray  # int32[I]: sequence lengths
    representative: np.ndarray  # int64[I]: first node of each infoset in DFS order
    start_nodes: np.ndarray  # int64[K]: nodes where the first turn starts
    start_hands: np.ndarray  # int32[K, 2, NUM_CLANS]: both hands at each start node
    states: np.ndarray | None  # int32[I, STATE_SIZE] at representatives (check only)


@njit(cache=True)
def _walk(
    cfg: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    kind: np.ndarray,
    infoset: np.ndarray,
    num_infosets: int,
    max_len: int,
    width: int,
    keep_states: bool,
):
    """Depth-first replay of the tree; see :class:`InfosetWalk`."""
    tokens = np.full((num_infosets, max_len), NO_TOKEN, dtype=np.int32)
    lengths = np.full(num_infosets, -1, dtype=np.int32)
    rep = np.full(num_infosets, -1, dtype=np.int64)
    snap_rows = num_infosets if keep_states else 0
    snaps = np.zeros((snap_rows, STATE_SIZE), dtype=np.int32)
    depth_cap = max_len + 2
    states = np.empty((depth_cap, STATE_SIZE), dtype=np.int32)
    moves = np.empty((depth_cap, width), dtype=np.int32)
    probs = np.empty((depth_cap, width), dtype=np.float64)
    node_at = np.zeros(depth_cap, dtype=np.int64)
    next_i = np.zeros(depth_cap, dtype=np.int64)
    path = np.zeros((2, depth_cap), dtype=np.int32)  # token of each move, per player
    starts = np.zeros(16, dtype=np.int64)
    hands = np.zeros((16, 2, NUM_CLANS), dtype=np.int32)
    num_starts = 0
    core.reset_state(states[0], cfg)
    node_at[0] = 0
    next_i[0] = 0
    d = 0
    entering = True
    while True:
        if entering:
            entering = False
            n = node_at[d]
            s = states[d]
            if view.current_player(s) == _CHANCE_PLAYER:
                core.chance_outcomes_into(s, cfg, moves[d], probs[d])
            else:
                core.legal_actions_into(s, cfg, moves[d])
                i = infoset[n]
                if lengths[i] < 0:
                    p = view.current_player(s)
                    lengths[i] = d
                    rep[i] = n
                    for j in range(d):
                        tokens[i, j] = path[p, j]
                    if keep_states:
                        snaps[i, :] = s
                if (
                    d > 0
                    and view.stage(s) == _ACTION
                    and view.turn(s) == 0
                    and _is_setup(view.stage(states[d - 1]))
                ):
                    if num_starts == starts.shape[0]:
                        starts = _grow1(starts)
                        hands = _grow3(hands)
                    starts[num_starts] = n
                    for p in range(2):
                        for c in range(NUM_CLANS):
                            hands[num_starts, p, c] = view.hidden(s, p, c)
                    num_starts += 1
        n = node_at[d]
        e0 = child_offsets[n]
        i = next_i[d]
        if i < child_offsets[n + 1] - e0:
            next_i[d] = i + 1
            child = children[e0 + i]
            if kind[child] == _TERMINAL:
                continue
            a = moves[d, i]
            for p in range(2):
                path[p, d] = core.observation_token(states[d], a, p)
            states[d + 1, :] = states[d]
            core.apply_action(states[d + 1], cfg, a)
            node_at[d + 1] = child
            next_i[d + 1] = 0
            d += 1
            entering = True
        else:
            if d == 0:
                break
            d -= 1
    return tokens, lengths, rep, starts[:num_starts].copy(), hands[:num_starts].copy(), snaps


@njit(cache=True)
def _is_setup(stage: int) -> bool:
    """Whether ``stage`` belongs to the deal or the draft."""
    return stage == Stage.DEAL or stage == Stage.PICK


@njit(cache=True)
def _grow1(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` with twice the rows."""
    out = np.zeros(a.shape[0] * 2, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow3(a: np.ndarray) -> np.ndarray:
    """A copy of a 3-D ``a`` with twice the rows."""
    out = np.zeros((a.shape[0] * 2, a.shape[1], a.shape[2]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


def walk_infosets(config: GameConfig, tree: Tree, keep_states: bool = False) -> InfosetWalk:
    """Replay ``tree`` (compiled from ``config``) to get every infoset's token sequence."""
    width = max(config.num_distinct_actions(), MAX_CHANCE_OUTCOMES)
    tokens, lengths, rep, starts, hands, snaps = _walk(
        config.to_array(),
        tree.child_offsets,
        tree.children,
        tree.kind,
        tree.infoset,
        tree.num_infosets,
        config.max_game_length(),
        width,
        keep_states,
    )
    if (lengths < 0).any():
        raise ValueError("some infosets were not reached by the replay: tree and config differ")
    return InfosetWalk(tokens, lengths, rep, starts, hands, snaps if keep_states else None)


@dataclass(frozen=True)
class ProfileQuantities:
    """Exact per-node, per-infoset and per-slot quantities of a strategy profile."""

    chance_reach: np.ndarray  # float64[N]
    player_reach: np.ndarray  # float64[2, N]: each player's own contribution
    value: np.ndarray  # float64[N]: player-0 expected utility under the profile
    infoset_reach: np.ndarray  # float64[I]: probability the infoset is reached
    infoset_cf_reach: np.ndarray  # float64[I]: opponent x chance reach (summed over nodes)
    infoset_value: np.ndarray  # float64[I]: acting player's value given the infoset (cf-weighted)
    action_value: np.ndarray  # float64[S]: acting player's value of each action (cf-weighted)
    slot_reach: np.ndarray  # float64[S]: probability the action is taken there
    slot_challenged: np.ndarray  # float64[S]: ... and the next decision challenges it
    turn_cap_share: float  # probability the game ends in a draw at the turn cap

    @property
    def reach(self) -> np.ndarray:
        """Probability of reaching each node under the profile."""
        return self.chance_reach * self.player_reach[0] * self.player_reach[1]


@njit(cache=True)
def _sweeps(
    kind: np.ndarray,
    player: np.ndarray,
    infoset: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    utility: np.ndarray,
    action_offsets: np.ndarray,
    legal_actions: np.ndarray,
    strategy: np.ndarray,
):
    """Forward reach sweep, backward value sweep, then per-infoset aggregation."""
    num_nodes = kind.shape[0]
    num_infosets = action_offsets.shape[0] - 1
    chance = np.ones(num_nodes)
    own = np.ones((2, num_nodes))
    for n in range(num_nodes):
        k = kind[n]
        if k == _TERMINAL:
            continue
        e0 = child_offsets[n]
        for e in range(e0, child_offsets[n + 1]):
            c = children[e]
            own[0, c] = own[0, n]
            own[1, c] = own[1, n]
            if k == _CHANCE:
                chance[c] = chance[n] * chance_prob[e]
            else:
                chance[c] = chance[n]
                p = player[n]
                own[p, c] = own[p, n] * strategy[action_offsets[infoset[n]] + e - e0]
    value = np.zeros(num_nodes)
    for n in range(num_nodes - 1, -1, -1):
        k = kind[n]
        if k == _TERMINAL:
            value[n] = utility[n]
            continue
        e0 = child_offsets[n]
        v = 0.0
        for e in range(e0, child_offsets[n + 1]):
            if k == _CHANCE:
                v += chance_prob[e] * value[children[e]]
            else:
                v += strategy[action_offsets[infoset[n]] + e - e0] * value[children[e]]
        value[n] = v
    reach_i = np.zeros(num_infosets)
    cf_i = np.zeros(num_infosets)
    val_i = np.zeros(num_infosets)
    q = np.zeros(strategy.shape[0])
    slot_reach = np.zeros(strategy.shape[0])
    challenged = np.zeros(strategy.shape[0])
    draws = 0.0
    for n in range(num_nodes):
        if kind[n] == _TERMINAL:
            if utility[n] == 0.0:
                draws += chance[n] * own[0, n] * own[1, n]
            continue
        if kind[n] == _CHANCE:
            continue
        p = player[n]
        i = infoset[n]
        sign = 1.0 if p == 0 else -1.0
        cf = chance[n] * own[1 - p, n]
        r = cf * own[p, n]
        reach_i[i] += r
        cf_i[i] += cf
        val_i[i] += cf * sign * value[n]
        e0 = child_offsets[n]
        base = action_offsets[i] - e0
        for e in range(e0, child_offsets[n + 1]):
            c = children[e]
            q[base + e] += cf * sign * value[c]
            taken = r * strategy[base + e]
            slot_reach[base + e] += taken
            if kind[c] != _TERMINAL and kind[c] != _CHANCE:
                ic = infoset[c]
                a0 = action_offsets[ic]
                if (
                    action_offsets[ic + 1] - a0 == 2
                    and legal_actions[a0] == A_PASS
                    and legal_actions[a0 + 1] == A_CHALLENGE
                ):
                    challenged[base + e] += taken * strategy[a0 + 1]
    for i in range(num_infosets):
        if cf_i[i] > 0.0:
            val_i[i] /= cf_i[i]
            for s in range(action_offsets[i], action_offsets[i + 1]):
                q[s] /= cf_i[i]
        else:
            val_i[i] = np.nan
            for s in range(action_offsets[i], action_offsets[i + 1]):
                q[s] = np.nan
    return chance, own, value, reach_i, cf_i, val_i, q, slot_reach, challenged, draws


def profile_quantities(tree: Tree, strategy: np.ndarray) -> ProfileQuantities:
    """Exact reach probabilities and values of the profile ``strategy`` on ``tree``."""
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    if strategy.shape != (tree.num_slots,):
        raise ValueError(f"strategy must have shape ({tree.num_slots},), got {strategy.shape}")
    out = _sweeps(
        tree.kind,
        tree.player,
        tree.infoset,
        tree.child_offsets,
        tree.children,
        tree.chance_prob,
        tree.utility,
        tree.action_offsets,
        tree.legal_actions,
        strategy,
    )
    return ProfileQuantities(*out[:-1], turn_cap_share=float(out[-1]))
