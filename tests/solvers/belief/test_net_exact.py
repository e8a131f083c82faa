"""The policy network's strategy on a whole-game public tree equals what the network player plays."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.net_exact import net_exploitability, net_tree_strategy
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.knowledge.hypotheses import CHANCE, TERMINAL, Hypotheses, Memory


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
    for _ in range(20):
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
    assert compared > 50


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
    assert got["exploitability"] == pytest.approx(
        exploitability(ctree, uniform), abs=1e-6
    )  # float32 softmax


def test_subgame_strategy_matches_the_network_player_within_the_first_turn() -> None:
    from complots_solver.solvers.belief.net_exact import net_strategy_and_features
    from complots_solver.solvers.belief.public_tree import LEAF
    from complots_solver.solvers.belief.search import SearchSettings, Subgame

    config, _ = resolve_game("ladder-1-inquisitor")
    cfg = config.to_array()
    num_actions = config.num_distinct_actions()
    policy = PolicyNet.create(num_actions, hidden=(64,), seed=5)
    for w in policy.net.weights:
        w *= 4.0
    root = Hypotheses.initial(cfg)
    sub = Subgame(cfg, root, None, SearchSettings(iterations=1))
    tree = sub.tree
    strategy, feats = net_strategy_and_features(cfg, tree, policy, num_actions, root=root)
    assert feats.shape[0] == tree.num_slots
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(15):
        players = [NetPlayer(cfg, seat, policy, num_actions) for seat in range(2)]
        h = 0
        history: list[int] = []
        while int(tree.hyp_player[h]) not in (TERMINAL, LEAF):
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
    assert compared > 15


def test_own_reach_weights_put_every_root_decision_at_full_weight() -> None:
    from complots_solver.solvers.belief.search import SearchSettings, Subgame

    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()
    sub = Subgame(cfg, Hypotheses.initial(cfg), None, SearchSettings(iterations=8))
    sub.solve()
    feats, targets, legal, weights = sub.policy_examples(
        config.num_distinct_actions(), own_reach=True
    )
    assert len(weights) > 0
    assert weights.max() == pytest.approx(1.0) and (weights <= 1.0 + 1e-9).all()
    assert np.allclose(targets.sum(axis=1), 1.0) and ((targets > 0) <= (legal > 0)).all()


def test_training_on_its_own_beliefs_cuts_the_networks_exploitability() -> None:
    from complots_solver.solvers.belief.net_exact import distill_check

    rows = list(distill_check("ladder-1-ambassador", 400, 100, 64, dagger_rounds=1))
    assert rows[0]["exploitability"] < 1e-4  # the target is the equilibrium
    fit, dagger = rows[1], rows[2]
    assert dagger["rows"] == 2 * fit["rows"]
    # the first fit plays worse on its own beliefs than on the target's; one round closes it
    assert fit["closed"] > fit["open"]
    assert dagger["closed"] < 0.5 * fit["closed"]
