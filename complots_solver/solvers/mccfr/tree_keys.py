"""Keyed tables on compiled trees: each tree infoset's key, and a table's rows mapped onto a tree.

Used to measure a keyed strategy's exact exploitability on a 2-player game
whose tree fits in memory, and to play an exact strategy through the keyed
look-up (``policies.exact_keyed``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import C_PLAYERS, MAX_CHANCE_OUTCOMES, S_CUR, STATE_SIZE
from complots_solver.solvers.exact.tree import NodeKind, Tree
from complots_solver.solvers.mccfr.infokeys import KEYS, init_keys, key_of, step_keys
from complots_solver.solvers.mccfr.table import NO_ROW, SL_LEN, SL_ROW, SL_START, probe

ERR_NONE = 0
ERR_CHANCE = 1
ERR_ACTIONS = 2
ERR_PLAYER = 3
ERR_KEY = 4
_ERRORS = {
    ERR_CHANCE: "the tree's chance outcomes differ from the rules core's",
    ERR_ACTIONS: "the tree's legal actions differ from the rules core's",
    ERR_PLAYER: "the tree's acting player differs from the rules core's",
    ERR_KEY: "two nodes of one information set have different keys",
}
PROB_TOLERANCE = 1e-9


@njit(cache=True)
def _infoset_keys(
    cfg, key_kind, max_depth, width, kind, player, infoset, child_offsets, children,
    chance_prob, action_offsets, legal_actions, keys, seen,
):  # fmt: skip
    """Walk the tree on the rules core; write each infoset's key into ``keys``; error code.

    Checks the tree against the core (players, legal actions, chance outcomes
    and probabilities) and that every node of an infoset gives the same key.
    """
    n = cfg[C_PLAYERS]
    depth_cap = max_depth + 2
    states = np.empty((depth_cap, STATE_SIZE), dtype=np.int32)
    hashes = np.zeros((depth_cap, n), dtype=np.uint64)
    memory = np.zeros((depth_cap, n), dtype=np.int64)
    node = np.zeros(depth_cap, dtype=np.int64)
    edge = np.zeros(depth_cap, dtype=np.int64)
    outs = np.empty((depth_cap, MAX_CHANCE_OUTCOMES), dtype=np.int32)
    probs = np.empty(MAX_CHANCE_OUTCOMES)
    acts = np.empty(width, dtype=np.int32)
    core.reset_state(states[0], cfg)
    init_keys(cfg, hashes[0], memory[0])
    d = 0
    node[0] = 0
    entering = True
    while True:
        nd = node[d]
        s = states[d]
        if entering:
            entering = False
            edge[d] = 0
            if kind[nd] == NodeKind.CHANCE:
                k = core.chance_outcomes_into(s, cfg, outs[d], probs)
                e0 = child_offsets[nd]
                if k != child_offsets[nd + 1] - e0:
                    return ERR_CHANCE
                for j in range(k):
                    if abs(probs[j] - chance_prob[e0 + j]) > PROB_TOLERANCE:
                        return ERR_CHANCE
            elif kind[nd] == NodeKind.DECISION:
                if s[S_CUR] != player[nd]:
                    return ERR_PLAYER
                i = infoset[nd]
                k = core.legal_actions_into(s, cfg, acts)
                a0 = action_offsets[i]
                if k != action_offsets[i + 1] - a0:
                    return ERR_ACTIONS
                for j in range(k):
                    if acts[j] != legal_actions[a0 + j]:
                        return ERR_ACTIONS
                key = key_of(s, cfg, key_kind, hashes[d], memory[d])
                if not seen[i]:
                    seen[i] = True
                    keys[i] = key
                elif keys[i] != key:
                    return ERR_KEY
        e = child_offsets[nd] + edge[d]
        if e >= child_offsets[nd + 1]:
            if d == 0:
                return ERR_NONE
            d -= 1
            edge[d] += 1
            continue
        if kind[nd] == NodeKind.CHANCE:
            a = outs[d, edge[d]]
        else:
            a = legal_actions[action_offsets[infoset[nd]] + edge[d]]
        step_keys(s, cfg, a, key_kind, hashes[d], memory[d], hashes[d + 1], memory[d + 1])
        core.copy_state(states[d + 1], s)
        core.apply_action(states[d + 1], cfg, a)
        node[d + 1] = children[e]
        d += 1
        entering = True


def tree_infoset_keys(config: GameConfig, tree: Tree, key: str) -> np.ndarray:
    """The ``key`` information key of every infoset of ``tree`` (a tree of ``config``)."""
    num = tree.action_offsets.shape[0] - 1
    keys = np.zeros(num, dtype=np.int64)
    seen = np.zeros(num, dtype=np.bool_)
    err = _infoset_keys(
        config.to_array(), KEYS[key], config.max_game_length(), config.num_distinct_actions(),
        tree.kind, tree.player, tree.infoset, tree.child_offsets, tree.children,
        tree.chance_prob, tree.action_offsets, tree.legal_actions, keys, seen,
    )  # fmt: skip
    if err != ERR_NONE:
        raise ValueError(f"tree does not match {config.game_string()}: {_ERRORS[err]}")
    if not seen.all():
        raise ValueError(f"{int((~seen).sum())} infosets of the tree were never reached")
    return keys


@njit(cache=True)
def _rows_onto_tree(
    keys, action_offsets, legal_actions, slots, pool_action, weights, out, stats,
):  # fmt: skip
    """Normalised table rows of each tree infoset into ``out`` (uniform if missing); error code.

    stats[0] += infosets found in the table, stats[1] += infosets missing.
    """
    for i in range(keys.shape[0]):
        a0 = action_offsets[i]
        k = action_offsets[i + 1] - a0
        x = probe(slots, keys[i])
        total = 0.0
        st = 0
        if slots[x, SL_ROW] != NO_ROW and slots[x, SL_LEN] == k:
            st = slots[x, SL_START]
            for j in range(k):
                if pool_action[st + j] != legal_actions[a0 + j]:
                    return ERR_ACTIONS
                total += weights[st + j]
        if total > 0.0:
            stats[0] += 1
            for j in range(k):
                out[a0 + j] = weights[st + j] / total
        else:
            stats[1] += 1
            for j in range(k):
                out[a0 + j] = 1.0 / k
    return ERR_NONE


def map_to_tree(
    config: GameConfig,
    key: str,
    slots: np.ndarray,
    pool_action: np.ndarray,
    weights: np.ndarray,
    tree: Tree,
) -> tuple[np.ndarray, int, int]:
    """Normalised ``weights`` of every tree infoset's row; (strategy, found, missing)."""
    keys = tree_infoset_keys(config, tree, key)
    out = np.zeros(tree.num_slots)
    stats = np.zeros(2, dtype=np.int64)
    err = _rows_onto_tree(
        keys, tree.action_offsets, tree.legal_actions, slots, pool_action, weights, out, stats,
    )  # fmt: skip
    if err != ERR_NONE:
        raise ValueError(f"tree does not match {config.game_string()}: {_ERRORS[err]}")
    return out, int(stats[0]), int(stats[1])
