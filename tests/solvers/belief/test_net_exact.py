"""The policy network's strategy on a whole-game public tree equals what the network player plays."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.hypotheses import CHANCE, TERMINAL, Hypotheses, Memory
from complots_solver.solvers.belief.net_exact import net_exploitability, net_tree_strategy
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.public_tree import build_public_tree


@pytest.mark.parametrize("name", ["ladder-1-ambassador", "ladder-1-inquisitor"])
def test_tree_strategy_matches_the_network_player_along_random_games(name: str) -> None:
    config, _ = resolve_game(name)
    cfg = config.to_array()
    num_actions = config.num_distinct_actions()
    # a random network: its moves depend strongly on the belief features
    policy = PolicyNet.create(num_actions, hidden=(64,), seed=3)
    for w in policy.net.weights:
        w *= 4.0
    tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=Memory.PERFECT)
    strategy = net_tree_strategy(cfg, tree, policy, num_actions)
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(40):
        players = [NetPlayer(cfg, seat, policy, num_actions) for seat in range(2)]
        h = 0
        history: list[int] = []
        while int(tree.hyp_player[h]) != TERMINAL:
            e0, e1 = int(tree.hyp_edge_start[h]), int(tree.hyp_edge_start[h + 1])
            actor = int(tree.hyp_player[h])
            if actor != CHANCE:
                slot = int(tree.hyp_slot[h])
                a0, a1 = int(tree.slot_action_start[slot]), int(tree.slot_action_start[slot + 1])
                mine = players[actor].action_probabilities(history)
                for a, p in zip(tree.slot_actions[a0:a1], strategy[a0:a1], strict=True):
                    assert mine[int(a)] == pytest.approx(p, abs=1e-6)
                compared += 1
            k = int(rng.integers(e1 - e0))
            history.append(int(tree.edge_move[e0 + k]))
            h = int(tree.edge_child[e0 + k])
    assert compared > 100


def test_a_uniform_network_has_the_uniform_strategys_exploitability() -> None:
    from complots_solver.solvers.exact.best_response import exploitability
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree

    config, _ = resolve_game("ladder-1-ambassador")
    policy = PolicyNet.create(config.num_distinct_actions(), hidden=(8,), seed=0)
    for w in policy.net.weights:
        w *= 0.0
    for b in policy.net.biases:
        b *= 0.0
    ctree = compile_complots_tree(config)
    counts = np.diff(ctree.action_offsets)
    uniform = np.repeat(1.0 / counts, counts)
    got = net_exploitability(config, policy)
    assert got["exploitability"] == pytest.approx(exploitability(ctree, uniform), abs=1e-9)
