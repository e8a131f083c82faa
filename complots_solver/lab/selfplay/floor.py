"""The best any strategy reading the table features can do on a small 2-player game.

A table network sees an information set only through its features (the
public record summary, own cards and knowledge; :mod:`complots_solver.solvers.knowledge.table_features`), so two
information sets with equal features and equal legal actions get the same
distribution whatever the weights. On a ladder rung this merging is an
imperfect-recall **abstraction** of the exact game, and its cost can be
measured directly: CFR+ over the abstract information sets (regrets and
averages pooled over each group of merged sets) on the exact history tree,
the result expanded back onto the tree and measured by the exact best
response. CFR over an imperfect-recall abstraction need not converge, so
the figure says that a strategy reading only the features is that good
(the best one may be better), the floor CFR finds for every network on
these features. ``memory`` measures what a memory of the seat's last moves
would add; ``fit_table_net`` how close a network fitted to the result
comes to it (docs/lab/2026-full-game-journal.md section 18).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, MAX_CHANCE_OUTCOMES
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.cfr import (
    _update_regrets_and_policy,
    normalize_per_infoset,
    slot_base,
)
from complots_solver.solvers.exact.tree import NO_PLAYER, NUM_PLAYERS, Tree, with_terminals_last
from complots_solver.solvers.knowledge.table_features import config_features, relative_action
from complots_solver.solvers.nets.average import average_loss
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.nets.valuenet import Adam
from complots_solver.solvers.selfplay.exact import CHUNK, _chunk_rows


@dataclass(frozen=True)
class FeatureAbstraction:
    """Which abstract slot each tree slot pools into."""

    slot_map: np.ndarray  # tree slot -> abstract slot
    offsets: np.ndarray  # abstract information set -> its first slot (and the end)
    group: np.ndarray  # tree information set -> abstract information set
    features: np.ndarray | None = None  # per abstract information set, when kept
    legal: np.ndarray | None = None  # its seat-relative legal mask, when kept

    @property
    def num_groups(self) -> int:
        """Abstract information sets."""
        return int(self.offsets.shape[0] - 1)

    def expand(self, abstract: np.ndarray) -> np.ndarray:
        """An abstract strategy as a strategy on the tree's slots."""
        return abstract[self.slot_map]


@njit(cache=True)
def _slot_map(action_offsets, legal_actions, infoset_player, group, rank, group_offsets, n, ext):
    out = np.empty(legal_actions.shape[0], dtype=np.int64)
    for i in range(action_offsets.shape[0] - 1):
        p = infoset_player[i]
        g = group[i]
        for k in range(action_offsets[i], action_offsets[i + 1]):
            r = relative_action(legal_actions[k], p, n, ext)
            out[k] = group_offsets[g] + rank[g, r]
    return out


def feature_abstraction(
    config: GameConfig,
    tree: Tree,
    keep_rows: bool = False,
    memory: int = 0,
    public_memory: bool = False,
) -> FeatureAbstraction:
    """Group ``tree``'s information sets by (seat to move, features, legal actions);
    ``keep_rows`` keeps each group's features and legal mask (to fit a network to them);
    ``memory`` > 0 adds the seat's last ``memory`` observations to what tells sets apart (the
    features with a bounded memory of the moves, in order; not what the networks read);
    ``public_memory``: the public view of those moves instead of the seat's own."""
    if memory < 0:
        raise ValueError(f"memory: at least 0, got {memory}")
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    if int(cfg[C_PLAYERS]) != 2:
        raise ValueError(f"config: a 2-player game, got {int(cfg[C_PLAYERS])} players")
    features = config_features(cfg)
    actions = config.num_distinct_actions()
    infosets = int(tree.action_offsets.shape[0] - 1)
    keys = tree.keys
    representative = np.ascontiguousarray(keys.representative, dtype=np.int64)
    width = max(actions, MAX_CHANCE_OUTCOMES)
    index: dict[bytes, int] = {}
    viewers = np.ascontiguousarray(tree.infoset_player, dtype=np.int64)
    if public_memory:
        viewers = np.full_like(viewers, core.PUBLIC_VIEWER)
    group = np.empty(infosets, dtype=np.int64)
    masks: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    for start in range(0, infosets, CHUNK):
        stop = min(start + CHUNK, infosets)
        feats = np.empty((stop - start, features), dtype=np.float32)
        legal = np.empty((stop - start, actions), dtype=np.float32)
        me = np.empty(stop - start, dtype=np.int32)
        suffix = np.empty((stop - start, memory), dtype=np.int64)
        _chunk_rows(
            cfg, keys._child_offsets, keys._children, representative, start, stop, width,
            config.max_game_length(), feats, legal, me, viewers, suffix,
        )  # fmt: skip
        for j in range(stop - start):
            # a 128-bit digest, not the row: millions of rows would not fit as keys
            key = hashlib.blake2b(
                me[j].tobytes() + feats[j].tobytes() + legal[j].tobytes() + suffix[j].tobytes(),
                digest_size=16,
            ).digest()
            g = index.get(key)
            if g is None:
                g = index[key] = len(masks)
                masks.append(legal[j] > 0)
                if keep_rows:
                    rows.append(feats[j].copy())
            group[start + j] = g
    mask = np.array(masks, dtype=bool)
    rank = np.cumsum(mask, axis=1) - 1
    offsets = np.zeros(len(masks) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(mask.sum(axis=1))
    slot_map = _slot_map(
        tree.action_offsets, tree.legal_actions, tree.infoset_player, group, rank, offsets,
        2, bool(cfg[C_EXTENDED]),
    )  # fmt: skip
    if not keep_rows:
        return FeatureAbstraction(slot_map, offsets, group)
    return FeatureAbstraction(
        slot_map, offsets, group, np.array(rows, dtype=np.float32), mask.astype(np.float32)
    )


@njit(cache=True)
def _traverse(
    num_internal, player, base, child_offsets, children, chance_prob, slot_map,
    sigma, regret, cumulative, own, opp, value, traverser, weight,
):  # fmt: skip
    """One CFR pass of ``traverser`` with every tree slot read and written through ``slot_map``.

    The tree solver's alternating pass with one indirection. Not that kernel plus a pooling
    step: summing a pass's increments per group afterwards changes the order of the floating
    point additions, and CFR over merged sets amplifies that (0.0044 against 0.0049 after 500
    iterations on ladder-3), so the sums keep the order the documented figures were made in."""
    own[0] = 1.0
    opp[0] = 1.0
    for n in range(num_internal):
        actor = player[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        for e in range(e0, e1):
            c = children[e]
            if actor == NO_PLAYER:
                own[c] = own[n]
                opp[c] = opp[n] * chance_prob[e]
            elif actor == traverser:
                own[c] = own[n] * sigma[slot_map[base[n] + e]]
                opp[c] = opp[n]
            else:
                own[c] = own[n]
                opp[c] = opp[n] * sigma[slot_map[base[n] + e]]
    sign = 1.0 if traverser == 0 else -1.0
    for n in range(num_internal - 1, -1, -1):
        actor = player[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if actor == traverser and own[n] != 0.0:
            for e in range(e0, e1):
                s = slot_map[base[n] + e]
                cumulative[s] += weight * own[n] * sigma[s]
        if opp[n] == 0.0:
            value[n] = 0.0
            continue
        v = 0.0
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                v += chance_prob[e] * value[children[e]]
        else:
            for e in range(e0, e1):
                v += sigma[slot_map[base[n] + e]] * value[children[e]]
            if actor == traverser:
                for e in range(e0, e1):
                    regret[slot_map[base[n] + e]] += sign * opp[n] * (value[children[e]] - v)
        value[n] = v


class AbstractCFR:
    """CFR+ (alternating, linear averaging) over a feature abstraction of a compiled tree.

    Each pass reads and writes the groups' slots through ``slot_map``; regret matching+ is the
    tree solver's, run on the groups."""

    def __init__(self, tree: Tree, abstraction: FeatureAbstraction) -> None:
        """Ready to run on ``tree`` with information sets pooled as ``abstraction`` says."""
        self.tree = tree
        self.abstraction = abstraction
        self._layout = with_terminals_last(tree)
        self._base = slot_base(self._layout)
        slots = int(abstraction.offsets[-1])
        self._owner = np.full(abstraction.num_groups, -1, dtype=np.int64)
        self._owner[abstraction.group] = tree.infoset_player
        self._regret = np.zeros(slots)
        self._cumulative = np.zeros(slots)
        self._sigma = np.zeros(slots)
        for who in range(NUM_PLAYERS):
            self._match(who)
        self._buffers = [np.zeros(tree.num_nodes) for _ in range(2)]
        self._value = self._layout.utility.copy()
        self.iteration = 0

    def _match(self, who: int) -> None:
        """Regret matching+ on ``who``'s groups."""
        _update_regrets_and_policy(
            self._owner, self.abstraction.offsets, self._regret, self._sigma, who,
            True, False, 1.0, 1.0,
        )  # fmt: skip

    def run(self, iterations: int) -> None:
        """``iterations`` more iterations."""
        t = self._layout
        own, opp = self._buffers
        for _ in range(iterations):
            self.iteration += 1
            for who in range(NUM_PLAYERS):
                _traverse(
                    t.num_internal, t.player, self._base, t.child_offsets, t.children,
                    t.chance_prob, self.abstraction.slot_map, self._sigma, self._regret,
                    self._cumulative, own, opp, self._value, who, float(self.iteration),
                )  # fmt: skip
                self._match(who)

    def average_strategy(self) -> np.ndarray:
        """The abstract average strategy expanded onto the tree's slots."""
        return self.abstraction.expand(
            normalize_per_infoset(self._cumulative, self.abstraction.offsets)
        )

    def exploitability(self) -> float:
        """Exact exploitability of the average strategy on the tree."""
        return float(tree_exploitability(self.tree, self.average_strategy()))


@njit(cache=True)
def _own_reach(num_internal, player, infoset, base, child_offsets, children, chance_prob,
               sigma, reach, weight):  # fmt: skip
    """Each information set's summed reach by chance and its own player's moves only."""
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    for n in range(num_internal):
        actor = player[n]
        if actor != NO_PLAYER:
            weight[infoset[n]] += reach[n, actor]
        for e in range(child_offsets[n], child_offsets[n + 1]):
            c = children[e]
            for p in range(2):
                r = reach[n, p]
                if actor == NO_PLAYER:
                    r *= chance_prob[e]
                elif actor == p:
                    r *= sigma[base[n] + e]
                reach[c, p] = r


def own_reach_weights(tree: Tree, strategy: np.ndarray) -> np.ndarray:
    """Per information set of ``tree``, chance's and its own player's reach under ``strategy``
    (the weight a best responder, free to steer its own moves, gives the set)."""
    t = with_terminals_last(tree)
    reach = np.zeros((t.num_nodes, 2))
    weight = np.zeros(tree.num_infosets)
    _own_reach(
        t.num_internal, t.player, t.infoset, slot_base(t), t.child_offsets, t.children,
        t.chance_prob, strategy, reach, weight,
    )  # fmt: skip
    return weight


def group_targets(
    tree: Tree, abstraction: FeatureAbstraction, strategy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per abstract set: its probabilities over seat-relative actions under ``strategy`` (a tree
    strategy constant on groups) and its own-reach weight."""
    if abstraction.legal is None:
        raise ValueError("abstraction: built without keep_rows")
    weight = np.zeros(abstraction.num_groups)
    np.add.at(weight, abstraction.group, own_reach_weights(tree, strategy))
    # abstract slots run over each group's legal seat-relative actions in order, as nonzero does
    per_slot = np.empty(int(abstraction.offsets[-1]))
    per_slot[abstraction.slot_map] = strategy  # every member of a group writes the same value
    target = np.zeros_like(abstraction.legal)
    target[np.nonzero(abstraction.legal > 0)] = per_slot
    return target, weight


def fit_table_net(
    abstraction: FeatureAbstraction,
    target: np.ndarray,
    weight: np.ndarray,
    actions: int,
    steps: int,
    width: int = 256,
    uniform_share: float = 0.1,
    minibatch: int = 2048,
    lr: float = 1e-3,
    seed: int = 0,
    net: TableNet | None = None,
) -> TableNet:
    """A table network fitted by cross-entropy to ``target`` on the abstraction's groups, drawn
    with probability ``(1 - uniform_share) * weight / sum(weight) + uniform_share / groups``."""
    if abstraction.features is None or abstraction.legal is None:
        raise ValueError("abstraction: built without keep_rows")
    if steps < 0 or not 0.0 <= uniform_share <= 1.0:
        raise ValueError("steps must be at least 0 and uniform_share in [0, 1]")
    p = weight / weight.sum()
    p = (1.0 - uniform_share) * p + uniform_share / len(p)
    if net is None:
        net = TableNet.create(abstraction.features.shape[1], actions, (width, width), seed=seed)
    opt = Adam(net.net, lr=lr)
    rng = np.random.default_rng([seed, steps])
    for _ in range(steps):
        idx = rng.choice(len(p), size=minibatch, p=p)
        acts, pre, out = opt.outputs(abstraction.features[idx])
        _, grad = average_loss(out, abstraction.legal[idx], target[idx])
        opt.update(acts, pre, grad.astype(np.float32))
    return net
