"""A table network's exact strategy on a ladder tree equals what the playing bot plays."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.selfplay.exact import table_exploitability, table_tree_strategy
from complots_solver.solvers.selfplay.features import config_features
from complots_solver.solvers.selfplay.net import TableNet
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
