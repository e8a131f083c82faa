"""A table network as a bound strategy: it answers what the playing bot answers, its rollouts play
the network itself, and LBR finds most of its exact gain on a ladder rung and never more.

Expected values come from the bot (``TablePlayer``) and from the exact best response on the
compiled tree, never from the adapter under test.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.bounds.belief import ResponderBelief
from complots_solver.solvers.bounds.measure import lbr_bound
from complots_solver.solvers.exact.best_response import best_response, game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.table_features import config_features
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.rows.batch import TERMINAL, Rows, sample_moves
from complots_solver.solvers.rows.table import TableStrategy
from complots_solver.solvers.selfplay.exact import table_tree_strategy
from complots_solver.solvers.selfplay.player import TablePlayer

LADDER = "ladder-1-ambassador"
LBR_FRACTION = 0.5  # as for the tabular strategy (test_bounds.py)


def _net(config, seed: int, hidden: tuple[int, ...] = (32,)) -> TableNet:
    cfg = config.to_array()
    return TableNet.create(config_features(cfg), config.num_distinct_actions(), hidden, seed=seed)


@cache
def _ladder():
    config, _ = resolve_game(LADDER)
    tree = compile_complots_tree(config)
    net = _net(config, seed=5)
    # sharpen the random network so that it is far from uniform: a real strategy to exploit
    net.net.weights[-1][...] *= 8.0
    return config, tree, net, table_tree_strategy(config, net, tree)


@pytest.mark.parametrize("game", ["draft-inquisitor", "draft-c2-expert"])
@pytest.mark.parametrize("seat", [0, 1])
def test_every_hypothesis_reads_its_own_draft_and_the_truth_is_what_the_bot_plays(game, seat):
    """Along random games of the full draft, the belief keeps the true state with its true draft
    clans, and the adapter's probabilities there equal TablePlayer's after the true history."""
    config, _ = resolve_game(game)
    cfg = config.to_array()
    actions = config.num_distinct_actions()
    net = _net(config, seed=seat + 1)
    strategy = TableStrategy(cfg, net, actions)
    strategy.start(1)
    belief = ResponderBelief(cfg, seat, strategy)
    rows = Rows.initial(cfg, 1, seat)
    rng = np.random.default_rng(7 + seat)
    history: list[int] = []
    compared = 0
    dealt_differs = False
    while int(rows.current[0]) != TERMINAL and len(history) < 120:
        cur = int(rows.current[0])
        probs = np.zeros((1, actions))
        if cur >= 0:
            player = TablePlayer(cfg, net)
            player.observe(history)
            want = player.probabilities()
            probs = strategy.matrix(rows, live=True)
            got = {a: float(probs[0, a]) for a in np.flatnonzero(probs[0])}
            assert got.keys() == want.keys()
            assert all(abs(got[a] - want[a]) < 1e-6 for a in want)
            if cur != seat:
                # the same row inside the belief (state and draft clans) answers the same
                hit = np.flatnonzero(
                    (belief.rows.states == rows.states[0]).all(axis=1)
                    & (belief.rows.drafts == rows.drafts[0]).all(axis=(1, 2))
                )
                assert len(hit) >= 1
                inside = strategy.matrix(belief.rows.take(hit[:1]), live=True)
                assert np.allclose(inside[0], probs[0], atol=1e-6)
                compared += 1
        move = np.empty(1, dtype=np.int32)
        sample_moves(rows.states, cfg, probs, rng.random(1), move)
        belief.observe(rows.states[0], int(move[0]))
        strategy.advance(np.zeros(1, dtype=np.int64), rows.states, move)
        rows.step(move, cfg, strategy.memory, seat)
        history.append(int(move[0]))
        assert belief.weight_of(rows.states[0]) > 0.0
        other = belief.rows.drafts[:, 1 - seat]
        dealt_differs |= bool((other != rows.drafts[0, 1 - seat]).any())
    assert compared > 3
    assert (rows.drafts[0] >= 0).all()  # both seats were dealt and picked a clan
    assert dealt_differs  # the belief held other draft clans for the strategy's seat too


def test_rollouts_play_the_network_itself() -> None:
    """Rollouts from the start of ladder-1 average to the network's exact value on the tree."""
    config, tree, net, strategy_array = _ladder()
    cfg = config.to_array()
    strategy = TableStrategy(cfg, net, config.num_distinct_actions())
    strategy.start(1)
    strategy.freeze(0)
    rows = Rows.initial(cfg, 1, 0)
    # the first move is chance's: take its outcomes by their probabilities, one rollout each
    outcomes = np.empty(64, dtype=np.int32)
    weights = np.empty(64)
    k = core.chance_outcomes_into(rows.states[0], cfg, outcomes, weights)
    assert int(rows.current[0]) == -1 and k > 0
    n = 6000
    rng = np.random.default_rng(3)
    first = rng.choice(outcomes[:k], size=n, p=weights[:k] / weights[:k].sum())
    returns = strategy.rollout_after(rows.take(np.zeros(n, dtype=np.int64)), first, 0, rng)
    want = game_value(tree, strategy_array)
    stderr = float(np.std(returns)) / np.sqrt(n)
    assert abs(float(np.mean(returns)) - want) < 4 * stderr + 1e-9


def test_lbr_finds_most_of_the_exact_gain_against_a_table_network_and_never_more() -> None:
    """LBR against a sharpened random network on ladder-1: each seat's gain is at least half the
    exact best response's, and its interval does not sit above it."""
    config, tree, net, strategy_array = _ladder()
    cfg = config.to_array()
    v0 = game_value(tree, strategy_array)
    exact = (
        best_response(tree, strategy_array, 0)[0] - v0,
        best_response(tree, strategy_array, 1)[0] + v0,
    )
    assert min(exact) > 0.05  # the network is exploitable: the check can fail
    strategy = TableStrategy(cfg, net, config.num_distinct_actions())
    bound = lbr_bound(cfg, strategy, games=200, seed=1, rollouts=16, value_games=2000)
    for seat in (0, 1):
        gain = bound.seats[seat]
        assert gain.ci95[0] <= exact[seat]
        assert gain.gain >= LBR_FRACTION * exact[seat]


def test_bad_input() -> None:
    """A network of another game, or a table of more than two seats, is refused by name."""
    config, _ = resolve_game(LADDER)
    cfg = config.to_array()
    other, _ = resolve_game("complots-inquisitor")
    with pytest.raises(ValueError, match="net"):
        TableStrategy(cfg, _net(other, 0), config.num_distinct_actions())
    three, _ = resolve_game("complots-inquisitor-3")
    with pytest.raises(ValueError, match="cfg"):
        TableStrategy(three.to_array(), _net(three, 0), three.num_distinct_actions())
