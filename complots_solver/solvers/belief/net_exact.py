"""The distilled policy network as an exact strategy of a small game, for exact exploitability.

On a ladder rung the whole game fits in one public tree. The network's
strategy there is exactly what :class:`.netplay.NetPlayer` plays: at each
decision it reads the public position, its own cards and certain knowledge,
and the hand marginals of the public belief under its own strategy (the
tracker's floored likelihoods). Features at a depth depend only on the
strategy above it, so evaluating level after level until nothing changes
gives that strategy on every slot; the project's exact best response then
measures it. The tree uses PERFECT memory: CANONICAL slots may merge
information states whose certain-knowledge features differ (on
ladder-1-inquisitor they do), and the network would then not play one
strategy per slot. This is how the depth-limited training loop is checked against
known answers before its full-game numbers are trusted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import NUM_MULTISETS, S_CUR, STATE_SIZE
from complots_solver.solvers.belief.exact_eval import to_tree_strategy
from complots_solver.solvers.belief.features import hand_index
from complots_solver.solvers.belief.hypotheses import KNOW_SIZE, Hypotheses, Memory
from complots_solver.solvers.belief.netplay import MOVE_FLOOR
from complots_solver.solvers.belief.policy_net import (
    NUM_DECISION_FEATURES,
    PolicyNet,
    decision_features,
    reconstruct,
)
from complots_solver.solvers.belief.public_tree import PublicTree, build_public_tree
from complots_solver.solvers.belief.vector_cfr import reaches
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree


@njit(cache=True)
def _slot_features(states, knows, joint, node_hyp_start, slot_node, first_hyp, feats):
    """Decision features of every slot, the belief marginals taken at its node."""
    num_nodes = node_hyp_start.shape[0] - 1
    m_me = np.zeros((num_nodes, NUM_MULTISETS))
    m_opp = np.zeros((num_nodes, NUM_MULTISETS))
    done = np.zeros(num_nodes, dtype=np.bool_)
    for s in range(slot_node.shape[0]):
        node = slot_node[s]
        if not done[node]:
            done[node] = True
            h0 = node_hyp_start[node]
            me = states[h0, S_CUR]
            total = 0.0
            for h in range(h0, node_hyp_start[node + 1]):
                w = joint[h]
                if w <= 0.0:
                    continue
                total += w
                a = hand_index(states[h], me)
                b = hand_index(states[h], 1 - me)
                if a >= 0:
                    m_me[node, a] += w
                if b >= 0:
                    m_opp[node, b] += w
            if total > 0.0:
                for m in range(NUM_MULTISETS):
                    m_me[node, m] /= total
                    m_opp[node, m] /= total
        h = first_hyp[s]
        decision_features(states[h], m_me[node], m_opp[node], knows[h], feats[s])


def net_tree_strategy(
    cfg: np.ndarray,
    tree: PublicTree,
    policy: PolicyNet,
    num_actions: int,
    floor: float = MOVE_FLOOR,
    max_passes: int = 500,
) -> np.ndarray:
    """The network's strategy on every slot of a whole-game public tree (see the module note)."""
    if tree.leaf_hyps.size:
        raise ValueError("tree: a whole-game public tree is needed (it has depth-limit leaves)")
    n = tree.num_hyps
    states = np.empty((n, STATE_SIZE), dtype=np.int32)
    knows = np.empty((n, tree.players, KNOW_SIZE), dtype=np.int32)
    root = Hypotheses.initial(cfg)
    reconstruct(
        tree.hyp_player,
        tree.hyp_edge_start,
        tree.edge_child,
        tree.edge_move,
        root.states,
        root.knows,
        cfg,
        states,
        knows,
    )
    first_hyp = np.full(tree.num_slots, -1, dtype=np.int64)
    idx = np.flatnonzero(tree.hyp_slot >= 0)
    first_hyp[tree.hyp_slot[idx][::-1]] = idx[::-1]
    counts = np.diff(tree.slot_action_start)
    slot_of = np.repeat(np.arange(tree.num_slots), counts)
    legal = np.zeros((tree.num_slots, num_actions), dtype=np.float32)
    legal[slot_of, tree.slot_actions] = 1.0
    strategy = np.repeat(1.0 / counts, counts)
    feats = np.empty((tree.num_slots, NUM_DECISION_FEATURES), dtype=np.float32)
    for _ in range(max_passes):
        reach, _own = reaches(tree, (1.0 - floor) * strategy + floor)
        joint = np.ascontiguousarray(reach[:, tree.players])
        _slot_features(states, knows, joint, tree.node_hyp_start, tree.slot_node, first_hyp, feats)
        probs = policy.probabilities(feats, legal)
        new = probs[slot_of, tree.slot_actions].astype(np.float64)
        if np.max(np.abs(new - strategy)) < 1e-12:
            return new
        strategy = new
    raise RuntimeError("the network's strategy did not settle; is the tree acyclic?")


def net_exploitability(config: GameConfig, policy: PolicyNet) -> dict:
    """Exact exploitability (NashConv/2) and seat-0 value of the policy network on a small game."""
    cfg = config.to_array()
    num_actions = config.num_distinct_actions()
    tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=Memory.PERFECT)
    strategy = net_tree_strategy(cfg, tree, policy, num_actions)
    ctree = compile_complots_tree(config)
    mapped = to_tree_strategy(tree, strategy, ctree)
    return {
        "exploitability": float(tree_exploitability(ctree, mapped)),
        "value": float(game_value(ctree, mapped)),
        "slots": int(tree.num_slots),
    }
