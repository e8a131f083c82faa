"""An opponent network in the regret sampler's games (issue 50's exploiter in the loop): it
plays the other seat where it is seated, its decisions stay out of the average's reservoir, a
share of 0 changes nothing, and it is saved and restored with the state."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.layout import S_CUR
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.regret.sampler import (
    RegretSampler,
    RegretSettings,
    Table,
    Traversal,
    matched,
)

SMALL = RegretSettings(games=60, steps=10, average_steps=10, width=32, average=20_000)


@pytest.fixture(scope="module")
def config():
    return resolve_game("ladder-1-inquisitor")[0]


def _opponent(run: RegretSampler, seed: int = 9) -> TableNet:
    return TableNet.create(run.net.num_features, run.num_actions, (32, 32), seed=seed)


def _trained(config, seed: int = 3) -> RegretSampler:
    run = RegretSampler(config, SMALL, seed=seed)
    run.step(2)  # past the uniform first iteration: the regret network's own strategy
    return run


def test_the_opponent_decides_exactly_where_it_is_seated(config):
    run = _trained(config)
    opponent = _opponent(run)
    trav = Traversal(config, SMALL, run.net, False, opponent, 0.5)
    t = Table.initial(trav.cfg, 64)
    rng = np.random.default_rng(0)
    for _ in range(6):  # the deal, then into play
        trav._move(t, np.zeros((0, trav.num_actions)), np.zeros(0, dtype=np.int64), rng)
    deciding = np.flatnonzero(t.states[:, S_CUR] >= 0)
    assert len(deciding) >= 8
    against = np.arange(len(deciding)) % 2 == 0
    feats, legal, rel = trav._decide(t, deciding, against)
    mine = matched(run.net.outputs(feats)[:, :-1].astype(np.float64), legal)
    theirs, _ = opponent.policy_value(feats, legal)
    np.testing.assert_allclose(rel[against], theirs[against], rtol=1e-6)
    np.testing.assert_allclose(rel[~against], mine[~against])
    assert not np.allclose(theirs[against], mine[against], atol=1e-3)  # they differ


def test_a_share_of_zero_changes_nothing(config):
    run = _trained(config)
    plain = Traversal(config, SMALL, run.net, False).run(40, np.random.default_rng(5))
    seated = Traversal(config, SMALL, run.net, False, _opponent(run), 0.0)
    for a, b in zip(plain, seated.run(40, np.random.default_rng(5)), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_opponents_decisions_stay_out_of_the_reservoir(config):
    run = _trained(config)
    rng = np.random.default_rng(5)
    x, legal, regret, ax, alegal, aprobs = Traversal(
        config, SMALL, run.net, False, _opponent(run), 1.0
    ).run(40, rng)
    assert len(x) > 0 and len(ax) == len(alegal) == len(aprobs) == 0
    strategy = matched(run.net.outputs(x)[:, :-1].astype(np.float64), legal)
    np.testing.assert_allclose((strategy * regret).sum(axis=1), 0.0, atol=1e-9)
    # at half the games it keeps the unopposed half's decisions: fewer than with none seated
    half = Traversal(config, SMALL, run.net, False, _opponent(run), 0.5).run(40, rng)
    none = Traversal(config, SMALL, run.net, False).run(40, rng)
    assert 0 < len(half[3]) < len(none[3])


def test_the_regrets_are_against_the_opponent(config):
    """A traverser facing an opponent that always plays its first legal action gets other
    regrets than one facing the strategy: the opponent shapes the play-outs too."""
    run = _trained(config)
    opponent = _opponent(run)
    last = opponent.net.biases[-1]
    last[:-1] = -50.0 * np.arange(len(last) - 1)  # the lowest legal action id, surely
    a = Traversal(config, SMALL, run.net, False, opponent, 1.0).run(200, np.random.default_rng(1))
    b = Traversal(config, SMALL, run.net, False).run(200, np.random.default_rng(1))
    assert a[2].shape[1] == b[2].shape[1]
    assert abs(np.abs(a[2]).mean() - np.abs(b[2]).mean()) > 1e-3


def test_bad_shares_are_refused(config):
    run = _trained(config)
    with pytest.raises(ValueError, match="opponent_share"):
        Traversal(config, SMALL, run.net, False, None, 0.5)
    with pytest.raises(ValueError, match="opponent_share"):
        Traversal(config, SMALL, run.net, False, _opponent(run), 1.5)


def test_the_opponent_is_saved_and_restored_with_the_state(config):
    run = _trained(config)
    run.opponent, run.opponent_share = _opponent(run), 0.25
    state = run.get_state()
    other = RegretSampler(config, SMALL, seed=3)
    other.set_state(state)
    assert other.opponent_share == 0.25
    for a, b in zip(run.opponent.params(), other.opponent.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    run.step(1)
    other.step(1)
    for a, b in zip(run.net.params(), other.net.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    # a state without one clears it
    other.set_state(RegretSampler(config, replace(SMALL), seed=3).get_state())
    assert other.opponent is None and other.opponent_share == 0.0
