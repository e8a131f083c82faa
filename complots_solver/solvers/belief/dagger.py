"""On-policy distillation: decisions seen through the policy network's own beliefs, answered by search.

A policy network distilled from search self-play reads the public belief
under the *search's* strategy during training, but under *its own* strategy
when it plays; its small errors shift the beliefs it then reads, and the
errors compound (on ladder-3-ambassador, distilled from the exact solution:
exploitability 0.028 with the search's beliefs, 0.075 with its own). A
DAgger round (Ross et al. 2011) plays games with the network, tracks the
public belief under the network as the network player does, solves each
turn's subgame from that belief, and labels every decision's features (read
under the network's beliefs) with the solved strategy. Training on both
sets brought the same case to 0.026.
"""

from __future__ import annotations

import numpy as np

from complots_solver.solvers.belief.net_exact import net_strategy_and_features
from complots_solver.solvers.belief.netplay import MOVE_FLOOR
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.search import SearchSettings, Subgame
from complots_solver.solvers.knowledge.hypotheses import TERMINAL, Hypotheses
from complots_solver.solvers.nets.valuenet import ValueNet


def dagger_game(
    cfg: np.ndarray,
    net: ValueNet,
    policy: PolicyNet,
    settings: SearchSettings,
    rng: np.random.Generator,
    num_actions: int,
    own_reach: bool = False,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """One game played by ``policy`` with its own beliefs; each turn's decisions labelled by search."""
    root = Hypotheses.initial(cfg)
    row = 0
    out = []
    while True:
        sub = Subgame(cfg, root, net, settings)
        sub.solve()
        behaviour, feats = net_strategy_and_features(cfg, sub.tree, policy, num_actions, root=root)
        out.append(sub.policy_examples(num_actions, slot_features=feats, own_reach=own_reach))
        # the network moves, and the belief follows the network (floored, as the player's tracker)
        sub.strategy = (1.0 - MOVE_FLOOR) * behaviour + MOVE_FLOOR
        h = sub.sample_path(row, rng)
        if int(sub.tree.hyp_player[h]) == TERMINAL:
            return out
        root, row = sub.next_root(h)
