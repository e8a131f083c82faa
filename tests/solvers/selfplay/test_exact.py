"""A table network's exact strategy on a ladder tree equals what the playing bot plays."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.table_features import config_features
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.exact import (
    ReachAverage,
    own_reach,
    table_exploitability,
    table_tree_strategy,
)
from complots_solver.solvers.selfplay.player import TablePlayer


@pytest.fixture(scope="module", params=["ladder-1-ambassador", "ladder-1-inquisitor"])
def game(request):
    config = resolve_game(request.param)[0]
    return config, compile_complots_tree(config)


def _net(config, seed):
    cfg = config.to_array()
    return TableNet.create(config_features(cfg), config.num_distinct_actions(), (32,), seed=seed)


def test_tree_strategy_is_what_the_bot_plays_at_every_sampled_infoset(game):
    """At 200 information sets, the tree strategy equals TablePlayer's answer after the history."""
    config, tree = game
    net = _net(config, seed=3)
    strategy = table_tree_strategy(config, net, tree)
    keys = tree.keys
    rng = np.random.default_rng(0)
    infosets = tree.action_offsets.shape[0] - 1
    for i in rng.choice(infosets, size=200, replace=False).tolist():
        player = TablePlayer(config.to_array(), net)
        player.observe(keys.history(i))
        got = player.probabilities()
        a0, a1 = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
        want = dict(zip(tree.legal_actions[a0:a1].tolist(), strategy[a0:a1].tolist(), strict=True))
        assert got == pytest.approx(want, abs=1e-6)


def test_a_network_that_plays_uniformly_has_the_uniform_strategys_exploitability(game):
    """Zero last-layer weights make every legal action equally likely: the figure must equal the
    exact exploitability of the uniform strategy computed directly on the tree."""
    config, tree = game
    net = _net(config, seed=1)
    net.net.weights[-1][...] = 0.0
    net.net.biases[-1][...] = 0.0
    counts = np.diff(tree.action_offsets)
    uniform = np.repeat(1.0 / counts, counts)
    want = float(exploitability(tree, uniform))
    got = table_exploitability(config, net, tree)
    assert got["exploitability"] == pytest.approx(want, abs=1e-6)  # float32 softmax
    assert got["infosets"] == len(counts)
    assert want > 0.05  # uniform play is far from equilibrium: the check can fail


def test_mixture_is_worth_the_mean_of_its_members(game):
    """Picking one of two strategies at the start, independently per seat, is worth the mean of
    the four pairings; a mixture of one strategy with itself is that strategy."""
    from complots_solver.solvers.exact.best_response import game_value
    from complots_solver.solvers.selfplay.exact import mixture_strategy

    config, tree = game
    counts = np.diff(tree.action_offsets)
    rng = np.random.default_rng(1)
    members = []
    for _ in range(2):
        raw = rng.random(int(tree.action_offsets[-1])) ** 3
        sums = np.add.reduceat(raw, tree.action_offsets[:-1])
        members.append(raw / np.repeat(sums, counts))
    mixed = mixture_strategy(tree, members)
    seat0 = np.repeat(tree.infoset_player == 0, counts)
    pairs = [np.where(seat0, a, b) for a in members for b in members]
    want = np.mean([game_value(tree, s) for s in pairs])
    assert game_value(tree, mixed) == pytest.approx(want, abs=1e-9)
    assert abs(game_value(tree, members[0]) - want) > 1e-3  # the members differ
    np.testing.assert_allclose(mixture_strategy(tree, [members[0]] * 2), members[0])


def test_a_mixture_player_plays_the_behavioural_mixture(game):
    """TablePlayer with two networks, after a history, plays what mixture_strategy computes on the
    tree from the two networks' exact strategies (members weighted by their own reach)."""
    from complots_solver.solvers.selfplay.exact import mixture_strategy

    config, tree = game
    a, b = _net(config, seed=5), _net(config, seed=6)
    mixed = mixture_strategy(
        tree, [table_tree_strategy(config, a, tree), table_tree_strategy(config, b, tree)]
    )
    keys = tree.keys
    rng = np.random.default_rng(2)
    infosets = tree.action_offsets.shape[0] - 1
    moved = 0
    for i in rng.choice(infosets, size=150, replace=False).tolist():
        seat = int(tree.infoset_player[i])
        player = TablePlayer(config.to_array(), a, [b], seat=seat)
        history = keys.history(i)
        player.observe(history)
        moved += bool(np.any(player.log_weights != 0))
        got = player.probabilities()
        a0, a1 = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
        want = dict(zip(tree.legal_actions[a0:a1].tolist(), mixed[a0:a1].tolist(), strict=True))
        assert got == pytest.approx(want, abs=1e-6)
    assert moved > 20  # most sampled information sets follow moves of their own seat


def test_the_average_curve_starts_at_the_last_network_and_measures_the_average_net():
    """One snapshot's average is that snapshot; the average network is measured once kept."""
    from complots_solver.solvers.selfplay.exact import average_curve
    from complots_solver.solvers.selfplay.train import SelfPlaySettings

    config, _ = resolve_game("ladder-1-ambassador")
    s = SelfPlaySettings(games=8, parallel=8, width=8, bot_share=0.0, self_share=1.0, average=64)
    rows = average_curve(config, s, iterations=3, every=2)
    assert [r["iteration"] for r in rows] == [2, 3]
    assert rows[0]["snapshot_average"] == pytest.approx(rows[0]["last"], abs=1e-12)
    assert all(0.0 <= r["average_network"] <= 1.0 for r in rows)
    with pytest.raises(ValueError, match="every"):
        average_curve(config, s, iterations=3, every=0)


def test_a_weighted_reach_average_weighs_each_strategy():
    tree = compile_complots_tree(resolve_game("ladder-1-ambassador")[0])
    counts = np.diff(tree.action_offsets)
    u = np.repeat(1.0 / counts, counts)
    first = np.zeros_like(u)
    first[tree.action_offsets[:-1]] = 1.0  # always the first action
    average = ReachAverage(tree)
    average.add(u, weight=1.0)
    average.add(first, weight=3.0)
    both = (own_reach(tree, u) == 1.0) & (own_reach(tree, first) == 1.0)
    assert both.sum() > 0
    got = average.strategy(u)
    for i in np.flatnonzero(both):
        lo, hi = tree.action_offsets[i], tree.action_offsets[i + 1]
        np.testing.assert_allclose(got[lo:hi], (u[lo:hi] + 3.0 * first[lo:hi]) / 4.0)
