"""The value network against exact values on a ladder rung, at the equilibrium's own beliefs.

On a rung whose whole game fits in one public tree, CFR+ gives a
near-equilibrium; at every turn start (an ACTION-stage public node) its
belief (the joint reach of the node's hypotheses) and each player's
expected utility per hand under it are exactly what a perfect value network
would return there. Comparing the network's outputs at the same features
measures its fit where the equilibrium plays, turn by turn, weighted by how
often the equilibrium reaches each node and holds each hand. Search asks the
network only from turn 1 on: the first subgame runs from the deal through
the draft to the end of turn 0, so turn 0's own starts are never its leaves.
"""

from __future__ import annotations

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import S_STAGE, S_TURN
from complots_solver.solvers.belief.policy_net import replay_tree
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.belief.vector_cfr import (
    VectorCFR,
    exploitability,
    reaches,
    values_under,
)
from complots_solver.solvers.knowledge.belief_features import (
    NUM_FEATURES,
    NUM_OUTPUTS,
    group_features,
    hand_targets,
    turn_scale,
)
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory
from complots_solver.solvers.nets.valuenet import ValueNet


def turn_start_examples(
    config: GameConfig, iterations: int = 300, counterfactual: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(features, exact per-hand targets, masks, node weights, turns, exploitability) of every
    reached turn start of the whole game solved by CFR+ (CANONICAL public tree).

    With ``counterfactual`` each player's hand values are weighted by its
    counterfactual reach (chance's and the opponent's), so they cover hands
    its own play gives no weight, and the weights are per output
    (``[N, outputs]``): each hand's counterfactual reach, the share a best
    responder's deviations put on that value.
    """
    if config.players != 2:
        raise ValueError(f"players: the value check is for 2-player games, not {config.players}")
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    tree = build_public_tree(cfg, root, Memory.CANONICAL)
    solver = VectorCFR(tree)
    solver.run(iterations)
    avg = solver.average_strategy()
    reach, own = reaches(tree, avg)
    joint = np.ascontiguousarray(reach[:, tree.players])
    values = values_under(tree, avg, tree.hyp_value, reach, own)
    seat_values = np.ascontiguousarray(np.column_stack([values, values]))
    states, _, _ = replay_tree(tree, root.states, root.knows, cfg)
    scale = turn_scale(cfg)
    feats, targets, masks, weights, turns = [], [], [], [], []
    for node in range(tree.num_nodes):
        h0, h1 = int(tree.node_hyp_start[node]), int(tree.node_hyp_start[node + 1])
        if int(states[h0, S_STAGE]) != Stage.ACTION:
            continue
        mass = float(joint[h0:h1].sum())
        if mass <= 0.0:
            continue
        f = np.empty((1, NUM_FEATURES), dtype=np.float32)
        group_features(states[h0:h1], joint[h0:h1], np.zeros(h1 - h0, np.int64), 1, f, scale)
        out = np.empty(NUM_OUTPUTS)
        mask = np.empty(NUM_OUTPUTS)
        if counterfactual:
            both = np.ascontiguousarray(reach[h0:h1, :2])
        else:
            both = np.ascontiguousarray(np.column_stack([joint[h0:h1], joint[h0:h1]]))
        sums = hand_targets(states[h0:h1], both, seat_values[h0:h1], out, mask)
        feats.append(f[0])
        targets.append(out)
        masks.append(mask)
        weights.append(sums if counterfactual else mass)
        turns.append(int(states[h0, S_TURN]))
    return (
        np.array(feats),
        np.array(targets),
        np.array(masks),
        np.array(weights),
        np.array(turns),
        exploitability(tree, avg),
    )


def value_errors(
    net: ValueNet, feats: np.ndarray, targets: np.ndarray, masks: np.ndarray, weights: np.ndarray
) -> dict[str, float]:
    """Reach- and belief-weighted mean absolute error of the network, and of predicting 0.

    ``weights``: per node (times each hand's belief), or per output (``[N, outputs]``).
    """
    pred = net.forward(feats.astype(np.float32)).astype(np.float64)
    half = NUM_OUTPUTS // 2
    if weights.ndim == 2:
        w = weights * masks
    else:
        hand_w = np.concatenate([feats[:, -2 * half : -half], feats[:, -half:]], axis=1)
        w = weights[:, None] * hand_w * masks
    total = w.sum()
    return {
        "mae": float((w * np.abs(pred - targets)).sum() / total),
        "mae_zero": float((w * np.abs(targets)).sum() / total),
        "bias": float((w * (pred - targets)).sum() / total),
    }
