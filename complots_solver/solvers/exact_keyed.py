"""Exact (tree-aligned) strategies as keyed policy tables, for fast sampled play in numba.

An exact strategy file holds one row per information set of the compiled tree
(:func:`~complots_solver.solvers.complots_tree.compile_complots_tree`), whose
information sets are the players' perfect-recall observation sequences. The
``perfect`` information key of :mod:`~complots_solver.solvers.infokeys` hashes
exactly that sequence, so every tree information set has one perfect key.
:func:`infoset_perfect_keys` computes them in one numba walk of the tree and
:func:`exact_policy_table` builds a :class:`~complots_solver.solvers.mccfr.PolicyTable`
from the strategy's average, which
:func:`~complots_solver.solvers.mccfr_eval.play_games` then samples without a
Python call per decision. Both check what they rely on: every node of an
information set gives the same key, and no two information sets share one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import C_PLAYERS, MAX_CHANCE_OUTCOMES, S_CUR, STATE_SIZE
from complots_solver.solvers.infokeys import KEY_PERFECT, init_keys, key_of, step_keys
from complots_solver.solvers.mccfr import PolicyTable
from complots_solver.solvers.strategy_file import StrategyFile
from complots_solver.solvers.tree import NodeKind, Tree

ERR_NONE = 0
ERR_PLAYER = 1
ERR_ACTIONS = 2
ERR_KEY = 3
ERR_CHANCE = 4
_ERRORS = {
    ERR_PLAYER: "the tree's acting player differs from the rules core's",
    ERR_ACTIONS: "the tree's legal actions differ from the rules core's",
    ERR_KEY: "two nodes of one information set have different perfect keys",
    ERR_CHANCE: "the tree's chance outcomes differ from the rules core's",
}


@njit(cache=True)
def _infoset_keys(
    cfg, max_depth, width, kind, player, infoset, child_offsets, children, action_offsets,
    legal_actions, keys, seen,
):  # fmt: skip
    """Write the perfect key of every tree infoset into ``keys``; return an error code."""
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
                if k != child_offsets[nd + 1] - child_offsets[nd]:
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
                key = key_of(s, cfg, KEY_PERFECT, hashes[d], memory[d])
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
        step_keys(s, cfg, a, KEY_PERFECT, hashes[d], memory[d], hashes[d + 1], memory[d + 1])
        states[d + 1, :] = s
        core.apply_action(states[d + 1], cfg, a)
        node[d + 1] = children[e]
        d += 1
        entering = True


def infoset_perfect_keys(config: GameConfig, tree: Tree) -> np.ndarray:
    """The ``perfect`` information key of every infoset of ``tree`` (a tree of ``config``)."""
    num = tree.action_offsets.shape[0] - 1
    keys = np.zeros(num, dtype=np.int64)
    seen = np.zeros(num, dtype=np.bool_)
    err = _infoset_keys(
        config.to_array(), config.max_game_length(), config.num_distinct_actions(),
        tree.kind, tree.player, tree.infoset, tree.child_offsets, tree.children,
        tree.action_offsets, tree.legal_actions, keys, seen,
    )  # fmt: skip
    if err != ERR_NONE:
        raise ValueError(f"tree does not match {config.game_string()}: {_ERRORS[err]}")
    if not seen.all():
        raise ValueError(f"{int((~seen).sum())} infosets of the tree were never reached")
    return keys


def average_probabilities(average: np.ndarray, action_offsets: np.ndarray) -> np.ndarray:
    """Each row of ``average`` normalised (negative weights as 0; uniform if a row sums to 0)."""
    weights = np.maximum(np.asarray(average, dtype=np.float64), 0.0)
    lens = np.diff(action_offsets)
    if weights.size == 0:
        return weights
    totals = np.add.reduceat(weights, action_offsets[:-1])
    per_slot = np.repeat(totals, lens)
    uniform = np.repeat(1.0 / lens, lens)
    return np.where(per_slot > 0, weights / np.where(per_slot > 0, per_slot, 1.0), uniform)


def exact_policy_table(strategy: StrategyFile, tree: Tree, config: GameConfig) -> PolicyTable:
    """``strategy``'s average as a ``perfect``-key table (plays like :class:`PolicyBot`)."""
    strategy.check_matches(tree.action_offsets, tree.legal_actions, tree.infoset_player)
    keys = infoset_perfect_keys(config, tree)
    probs = average_probabilities(strategy.average, strategy.action_offsets)
    return PolicyTable.from_arrays(
        "perfect",
        keys,
        strategy.infoset_player,
        strategy.action_offsets,
        strategy.legal_actions,
        probs,
    )
