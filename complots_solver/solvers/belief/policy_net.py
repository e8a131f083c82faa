"""A fast policy: a network distilled from solved subgames, and the decision features it reads.

Search plays well but solves a subgame every turn. The policy network
learns the solved strategies themselves: at every decision of every solved
subgame (weighted by how likely it is reached), the features of the
decision (the public position and pending action, the public belief over
both hands at that moment, and the acting player's own cards and certain
knowledge) and the solved action probabilities. Playing it is one small
network evaluation per decision. It is a fixed strategy, so best responses
and local best responses measure it directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import (
    NUM_MULTISETS,
    S_ACT,
    S_ACTOR,
    S_CLAIM,
    S_CLAIM_TRUE,
    S_COINS,
    S_COUNTER_CLAN,
    S_CUR,
    S_HIDDEN,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TURN,
    STATE_SIZE,
)
from complots_solver.solvers.belief.public_tree import PublicTree
from complots_solver.solvers.knowledge.belief_features import COIN_SCALE, hand_index, turn_scale
from complots_solver.solvers.knowledge.hypotheses import KNOW_SIZE, update_knowledge
from complots_solver.solvers.nets.valuenet import Adam, ValueNet

NUM_STAGES = 21  # Stage values (Complots 2 included)
NUM_KINDS = 15  # ActionKind values
D_SEAT = 0
D_STAGE = D_SEAT + 2
D_ROLE = D_STAGE + NUM_STAGES  # actor of the turn, target of the action
D_COINS = D_ROLE + 2
D_ALIVE = D_COINS + 2
D_FACEUP = D_ALIVE + 2
D_TURN = D_FACEUP + 2 * NUM_CLANS
D_KIND = D_TURN + 1
D_CLAIM = D_KIND + NUM_KINDS + 1
D_COUNTER = D_CLAIM + NUM_CLANS + 1
D_TRUE = D_COUNTER + NUM_CLANS + 1
D_SHOWN = D_TRUE + 3
D_BELIEF = D_SHOWN + NUM_CLANS + 1
D_HAND = D_BELIEF + 2 * NUM_MULTISETS
D_KNOW = D_HAND + NUM_MULTISETS + NUM_CLANS
NUM_DECISION_FEATURES = D_KNOW + KNOW_SIZE


@njit(cache=True)
def decision_features(s, marg_me, marg_opp, know, out, turn_scale):
    """Features of the decision of the player to move in state ``s`` (see D_* offsets)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    me = s[S_CUR]
    opp = 1 - me
    out[D_SEAT + me] = 1.0
    out[D_STAGE + s[S_STAGE]] = 1.0
    out[D_ROLE] = 1.0 if s[S_ACTOR] == me else 0.0
    out[D_ROLE + 1] = 1.0 if s[S_TARGET] == me else 0.0
    out[D_COINS] = s[S_COINS + me] / COIN_SCALE
    out[D_COINS + 1] = s[S_COINS + opp] / COIN_SCALE
    alive_me = 0
    alive_opp = 0
    for c in range(NUM_CLANS):
        alive_me += s[S_HIDDEN + me * NUM_CLANS + c]
        alive_opp += s[S_HIDDEN + opp * NUM_CLANS + c]
        out[D_FACEUP + c] = s[S_REVEALED + me * NUM_CLANS + c]
        out[D_FACEUP + NUM_CLANS + c] = s[S_REVEALED + opp * NUM_CLANS + c]
        out[D_HAND + NUM_MULTISETS + c] = s[S_HIDDEN + me * NUM_CLANS + c]
    out[D_ALIVE] = 1.0 if alive_me >= 2 else 0.0
    out[D_ALIVE + 1] = 1.0 if alive_opp >= 2 else 0.0
    out[D_TURN] = s[S_TURN] / turn_scale
    kind = s[S_ACT]
    out[D_KIND + (kind if kind >= 0 else NUM_KINDS)] = 1.0
    claim = s[S_CLAIM]
    out[D_CLAIM + (claim if claim >= 0 else NUM_CLANS)] = 1.0
    counter = s[S_COUNTER_CLAN] if s[S_STAGE] == Stage.COUNTER_CHALLENGE else -1
    out[D_COUNTER + (counter if counter >= 0 else NUM_CLANS)] = 1.0
    out[D_TRUE + s[S_CLAIM_TRUE] + 1] = 1.0
    shown = s[S_SHOWN]
    out[D_SHOWN + (shown if shown >= 0 else NUM_CLANS)] = 1.0
    for m in range(NUM_MULTISETS):
        out[D_BELIEF + m] = marg_me[m]
        out[D_BELIEF + NUM_MULTISETS + m] = marg_opp[m]
    h = hand_index(s, me)
    if h >= 0:
        out[D_HAND + h] = 1.0
    for k in range(KNOW_SIZE):
        out[D_KNOW + k] = know[me, k]


@njit(cache=True)
def batch_features(states, knows, marg_me, marg_opp, cfg, feats, legal):
    """decision_features and the legal-action mask of every row."""
    moves = np.empty(legal.shape[1] + 32, dtype=np.int32)
    scale = turn_scale(cfg)
    for i in range(states.shape[0]):
        decision_features(states[i], marg_me, marg_opp, knows[i], feats[i], scale)
        for a in range(legal.shape[1]):
            legal[i, a] = 0.0
        k = core.legal_actions_into(states[i], cfg, moves)
        for j in range(k):
            legal[i, moves[j]] = 1.0


@njit(cache=True)
def reconstruct(
    hyp_player, edge_start, edge_child, edge_move, root_states, root_knows, cfg, states, knows
):
    """Every hypothesis's state and knowledge, replayed from the roots along the edges."""
    players = cfg[0]
    for h in range(root_states.shape[0]):
        states[h] = root_states[h]
        knows[h] = root_knows[h]
    for h in range(hyp_player.shape[0]):
        if hyp_player[h] == -4 or hyp_player[h] == -5:
            continue
        for e in range(edge_start[h], edge_start[h + 1]):
            c = edge_child[e]
            for i in range(STATE_SIZE):
                states[c, i] = states[h, i]
            knows[c] = knows[h]
            core.apply_action(states[c], cfg, edge_move[e])
            update_knowledge(states[h], edge_move[e], states[c], players, knows[c])


def replay_tree(
    tree: PublicTree, root_states: np.ndarray, root_knows: np.ndarray, cfg: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every hypothesis's state and knowledge, and each slot's first hypothesis."""
    n = tree.num_hyps
    states = np.empty((n, STATE_SIZE), dtype=np.int32)
    knows = np.empty((n, tree.players, KNOW_SIZE), dtype=np.int32)
    reconstruct(
        tree.hyp_player,
        tree.hyp_edge_start,
        tree.edge_child,
        tree.edge_move,
        root_states,
        root_knows,
        cfg,
        states,
        knows,
    )
    first_hyp = np.full(tree.num_slots, -1, dtype=np.int64)
    idx = np.flatnonzero(tree.hyp_slot >= 0)
    first_hyp[tree.hyp_slot[idx][::-1]] = idx[::-1]
    return states, knows, first_hyp


@njit(cache=True)
def node_marginals(states, joint, node_hyp_start, node, out_first, out_second):
    """Hand marginals of the player to move (first) and the other (second) at one node."""
    for m in range(out_first.shape[0]):
        out_first[m] = 0.0
        out_second[m] = 0.0
    h0 = node_hyp_start[node]
    h1 = node_hyp_start[node + 1]
    me = states[h0, S_CUR]
    total = 0.0
    for h in range(h0, h1):
        w = joint[h]
        if w <= 0.0:
            continue
        total += w
        a = hand_index(states[h], me)
        b = hand_index(states[h], 1 - me)
        if a >= 0:
            out_first[a] += w
        if b >= 0:
            out_second[b] += w
    if total > 0.0:
        for m in range(out_first.shape[0]):
            out_first[m] /= total
            out_second[m] /= total
    return total


@njit(cache=True)
def slots_features(
    states, knows, joint, node_hyp_start, slot_node, first_hyp, slots, feats, turn_scale
):
    """Decision features of each slot in ``slots`` (row by row), the belief marginals of its node."""
    num_nodes = node_hyp_start.shape[0] - 1
    m_me = np.zeros((num_nodes, NUM_MULTISETS))
    m_opp = np.zeros((num_nodes, NUM_MULTISETS))
    done = np.zeros(num_nodes, dtype=np.bool_)
    for row in range(slots.shape[0]):
        s = slots[row]
        node = slot_node[s]
        if not done[node]:
            done[node] = True
            node_marginals(states, joint, node_hyp_start, node, m_me[node], m_opp[node])
        h = first_hyp[s]
        decision_features(states[h], m_me[node], m_opp[node], knows[h], feats[row], turn_scale)


def decision_examples(
    tree: PublicTree,
    strategy: np.ndarray,
    joint: np.ndarray,
    root_states: np.ndarray,
    root_knows: np.ndarray,
    cfg: np.ndarray,
    num_actions: int,
    min_reach: float = 1e-4,
    own: np.ndarray | None = None,
    slot_features: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, action targets, legal masks, weights) of every slot reached at least ``min_reach``.

    Reach is the joint reach share, or with ``own`` (``[H, players]``) the
    acting player's own reach of the slot (its largest over the slot's
    hypotheses): what a best responder can steer the game into, whatever
    the opponent's reach under the strategy. ``slot_features`` gives every
    slot's features ready-made (the beliefs they read are then not
    ``joint``'s; see net_exact.net_strategy_and_features).
    """
    mass = joint[: len(tree.prior)].sum()
    if own is not None:
        idx = np.flatnonzero(tree.hyp_slot >= 0)
        slot_reach = np.zeros(tree.num_slots)
        np.maximum.at(slot_reach, tree.hyp_slot[idx], own[idx, tree.hyp_player[idx]])
        mass = 1.0
    else:
        slot_reach = np.bincount(
            np.maximum(tree.hyp_slot, 0),
            weights=joint * (tree.hyp_slot >= 0),
            minlength=tree.num_slots,
        )
    chosen = np.flatnonzero(slot_reach > min_reach * mass)
    if slot_features is not None:
        feats = np.ascontiguousarray(slot_features[chosen])
    else:
        states, knows, first_hyp = replay_tree(tree, root_states, root_knows, cfg)
        feats = np.zeros((len(chosen), NUM_DECISION_FEATURES), dtype=np.float32)
        joint = np.ascontiguousarray(joint)
        slots_features(
            states,
            knows,
            joint,
            tree.node_hyp_start,
            tree.slot_node,
            first_hyp,
            chosen,
            feats,
            turn_scale(cfg),
        )
    slot_of = np.repeat(np.arange(tree.num_slots), np.diff(tree.slot_action_start))
    row_of = np.full(tree.num_slots, -1, dtype=np.int64)
    row_of[chosen] = np.arange(len(chosen))
    pos = np.flatnonzero(row_of[slot_of] >= 0)
    rows = row_of[slot_of[pos]]
    targets = np.zeros((len(chosen), num_actions), dtype=np.float32)
    legal = np.zeros((len(chosen), num_actions), dtype=np.float32)
    targets[rows, tree.slot_actions[pos]] = strategy[pos]
    legal[rows, tree.slot_actions[pos]] = 1.0
    weights = (slot_reach[chosen] / mass).astype(np.float32)
    return feats, targets, legal, weights


class PolicyNet:
    """Action logits from decision features; probabilities masked to the legal actions."""

    def __init__(self, net: ValueNet) -> None:
        self.net = net

    @classmethod
    def create(
        cls, num_actions: int, hidden: tuple[int, ...] = (256, 256), seed: int = 0
    ) -> PolicyNet:
        """A fresh network for ``num_actions`` action ids."""
        return cls(ValueNet.create([NUM_DECISION_FEATURES, *hidden, num_actions], seed=seed))

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw outputs for a batch of decision features."""
        h = np.asarray(x, dtype=np.float32)
        net = self.net
        for w, b in zip(net.weights[:-1], net.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return h @ net.weights[-1] + net.biases[-1]

    def probabilities(self, x: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
        """Softmax over the legal actions of each row."""
        z = self.logits(x)
        z = np.where(legal_mask > 0, z, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        """Write the weights (npz, no pickle)."""
        self.net.meta["kind"] = "policy"
        self.net.save(path)

    @classmethod
    def load(cls, path: Path) -> PolicyNet:
        """Read weights written by :meth:`save`; ValueError for anything else."""
        net = ValueNet.load(path)
        if net.meta.get("kind") != "policy":
            raise ValueError(f"{path}: not a policy network")
        return cls(net)


class PolicyTrainer(Adam):
    """Adam on the cross-entropy between the network's legal softmax and solved strategies."""

    def __init__(self, policy: PolicyNet, lr: float = 1e-3) -> None:
        super().__init__(policy.net, lr=lr)
        self.policy = policy

    def step(  # type: ignore[override]
        self, x: np.ndarray, target: np.ndarray, legal: np.ndarray, weight: np.ndarray
    ) -> float:
        """One step on a batch; returns the weighted cross-entropy."""
        acts, pre, logits = self.outputs(x)
        z = np.where(legal > 0, logits, -1e9)
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        tgt = np.maximum(target, 0.0)
        w = weight / max(float(weight.sum()), 1e-12)
        loss = float(-(w[:, None] * tgt * np.log(np.maximum(p, 1e-12))).sum())
        self.update(acts, pre, (p - tgt) * w[:, None])
        return loss
