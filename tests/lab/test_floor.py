"""CFR over the table features' abstraction: it is CFR+ when nothing merges, and it ties what merges."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.selfplay.floor import (
    AbstractCFR,
    FeatureAbstraction,
    feature_abstraction,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.table_features import config_features, relative_action
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.exact import table_tree_strategy

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


@pytest.fixture(scope="module")
def game():
    config = resolve_game("ladder-2-ambassador")[0]
    tree = compile_complots_tree(config)
    return config, tree, feature_abstraction(config, tree)


def _identity(tree):
    infosets = tree.action_offsets.shape[0] - 1
    return FeatureAbstraction(
        np.arange(tree.num_slots), np.asarray(tree.action_offsets, dtype=np.int64),
        np.arange(infosets),
    )  # fmt: skip


def test_without_merging_it_is_cfr_plus(game):
    """With every information set its own group, 20 iterations equal the tree's CFR+ exactly."""
    _, tree, _ = game
    mine = AbstractCFR(tree, _identity(tree))
    mine.run(20)
    ref = TreeSolver(tree, "cfr+")
    ref.run(20)
    np.testing.assert_allclose(mine.average_strategy(), ref.average_strategy(), atol=1e-12)


def _relative(tree, strategy, i):
    a0, a1 = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
    p = int(tree.infoset_player[i])
    return {
        relative_action(int(tree.legal_actions[k]), p, 2, False): strategy[k] for k in range(a0, a1)
    }


def test_merged_information_sets_share_one_distribution(game):
    """The features merge some information sets; each group plays one distribution over
    seat-relative actions, and a table network (which reads only the features) is constant
    on every group too, so the groups are no coarser than the network's view."""
    config, tree, ab = game
    infosets = tree.action_offsets.shape[0] - 1
    assert ab.num_groups < infosets
    solver = AbstractCFR(tree, ab)
    solver.run(30)
    strategy = solver.average_strategy()
    cfg = config.to_array()
    net = TableNet.create(config_features(cfg), config.num_distinct_actions(), (16,), seed=1)
    table = table_tree_strategy(config, net, tree)
    sizes = np.bincount(ab.group)
    checked = 0
    for g in np.flatnonzero(sizes > 1)[:200]:
        members = np.flatnonzero(ab.group == g)
        first = _relative(tree, strategy, members[0])
        first_net = _relative(tree, table, members[0])
        for i in members[1:]:
            assert _relative(tree, strategy, i) == pytest.approx(first, abs=1e-12)
            assert _relative(tree, table, i) == pytest.approx(first_net, abs=1e-6)
            checked += 1
    assert checked > 50
    sums = np.add.reduceat(strategy, tree.action_offsets[:-1])
    np.testing.assert_allclose(sums, 1.0, atol=1e-9)


def test_it_converges_on_ladder_2(game):
    """Ladder-2 merges little: 300 iterations bring the pooled average under 0.001 (exact)."""
    _, tree, ab = game
    solver = AbstractCFR(tree, ab)
    solver.run(300)
    assert solver.exploitability() < 1e-3


def _walk_own_reach(tree, strategy):
    """Own-and-chance reach per information set by a plain recursive walk (the oracle)."""
    from complots_solver.solvers.exact.tree import NO_PLAYER

    weight = np.zeros(tree.num_infosets)
    base = tree.action_offsets[tree.infoset] - tree.child_offsets[:-1]

    def walk(n, reach):
        e0, e1 = tree.child_offsets[n], tree.child_offsets[n + 1]
        if e0 == e1:
            return
        actor = tree.player[n]
        if actor != NO_PLAYER:
            weight[tree.infoset[n]] += reach[actor]
        for e in range(e0, e1):
            r = list(reach)
            if actor == NO_PLAYER:
                r = [x * tree.chance_prob[e] for x in r]
            else:
                r[actor] *= strategy[base[n] + e]
            walk(tree.children[e], r)

    walk(0, [1.0, 1.0])
    return weight


def test_own_reach_weights_and_group_targets():
    """On ladder-1 the weights equal a recursive walk's; every information set's distribution
    is its group's target, read through seat-relative actions."""
    config = resolve_game("ladder-1-ambassador")[0]
    tree = compile_complots_tree(config)
    ab = feature_abstraction(config, tree, keep_rows=True)
    solver = AbstractCFR(tree, ab)
    solver.run(10)
    strategy = solver.average_strategy()
    from complots_solver.lab.selfplay.floor import group_targets, own_reach_weights

    weight = own_reach_weights(tree, strategy)
    np.testing.assert_allclose(weight, _walk_own_reach(tree, strategy), atol=1e-12)
    target, group_weight = group_targets(tree, ab, strategy)
    np.testing.assert_allclose(group_weight.sum(), weight.sum())
    for i in range(0, tree.num_infosets, 7):
        g = ab.group[i]
        for r, prob in _relative(tree, strategy, i).items():
            assert target[g, r] == pytest.approx(prob, abs=1e-6)
    np.testing.assert_allclose(target.sum(axis=1), 1.0, atol=1e-6)


def test_a_fitted_network_plays_near_its_target(game):
    """A small table network fitted to the pooled CFR+ strategy on ladder-2 is far less
    exploitable than a fresh one (uniform-ish play), and near its target."""
    from complots_solver.lab.selfplay.floor import fit_table_net, group_targets
    from complots_solver.solvers.exact.best_response import exploitability

    config, tree, _ = game
    ab = feature_abstraction(config, tree, keep_rows=True)
    solver = AbstractCFR(tree, ab)
    solver.run(100)
    target, weight = group_targets(tree, ab, solver.average_strategy())
    actions = config.num_distinct_actions()
    fresh = fit_table_net(ab, target, weight, actions, steps=0, width=64)
    fitted = fit_table_net(ab, target, weight, actions, steps=400, width=64, minibatch=512)
    before = exploitability(tree, table_tree_strategy(config, fresh, tree))
    after = exploitability(tree, table_tree_strategy(config, fitted, tree))
    assert before > 0.3
    assert after < 0.1


def test_a_memory_as_long_as_the_game_is_perfect_recall(game):
    """The seat's own observations in order are its information state: with a memory as long
    as the game nothing merges; a short memory merges less than the features alone."""
    config, tree, ab = game
    full = feature_abstraction(config, tree, memory=config.max_game_length())
    assert full.num_groups == tree.num_infosets
    some = feature_abstraction(config, tree, memory=4)
    assert ab.num_groups < some.num_groups < tree.num_infosets
    public = feature_abstraction(config, tree, memory=4, public_memory=True)
    # the seat's own view of a move is the public view or more, never less
    assert ab.num_groups <= public.num_groups < some.num_groups
    pairs = np.unique(np.column_stack([some.group, public.group]), axis=0)
    assert len(pairs) == some.num_groups  # each own-view group lies inside one public-view group
    with pytest.raises(ValueError, match="memory"):
        feature_abstraction(config, tree, memory=-1)
