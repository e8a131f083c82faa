"""Sampled regret matching+ on rows of real games: rollouts value the tree's exact value, regrets
are centred on the strategy, it learns on ladder-1, and same seed or resume gives the same run."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.layout import S_CUR, S_WINNER
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.nets.average import AveragePolicy
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.regret.run import RegretRun
from complots_solver.solvers.regret.sampler import (
    RegretSampler,
    RegretSettings,
    Table,
    matched,
    rollout_groups,
    running_target,
)
from complots_solver.solvers.rows.batch import TERMINAL, owners_returns
from complots_solver.solvers.selfplay.exact import table_exploitability

SMALL = RegretSettings(games=100, steps=20, average_steps=40, width=32, average=50_000)


@pytest.fixture(scope="module")
def ladder1():
    config = resolve_game("ladder-1-ambassador")[0]
    return config, compile_complots_tree(config)


def test_rollouts_of_uniform_play_average_to_the_trees_value(ladder1):
    config, tree = ladder1
    run = RegretSampler(config, SMALL)  # iteration 0 plays uniformly
    rng = np.random.default_rng(3)
    n = 40_000
    returns = run.play_out(Table.initial(run.cfg, n), 0, rng)
    exact = game_value(tree, tree.uniform_strategy())
    half_width = 1.96 * returns.std() / np.sqrt(n)
    assert abs(returns.mean() - exact) < max(half_width, 1e-3)
    # seat 1's returns are the other side of the same games
    assert set(np.unique(returns)) <= {-1.0, 0.0, 1.0}


def test_regrets_are_centred_on_the_strategy_and_zero_off_the_legal_actions(ladder1):
    config, _ = ladder1
    run = RegretSampler(config, SMALL)
    x, legal, regret, ax, alegal, aprobs = run._traverse(np.random.default_rng(0))
    assert len(x) > 0 and len(ax) > 0
    assert np.all(regret[legal == 0] == 0.0)
    uniform = legal / legal.sum(axis=1, keepdims=True)  # the first iteration's strategy
    np.testing.assert_allclose((uniform * regret).sum(axis=1), 0.0, atol=1e-9)
    assert np.abs(regret).max() <= 2.0 + 1e-12  # returns lie in [-1, 1]
    np.testing.assert_allclose(aprobs.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(aprobs[alegal == 0] == 0.0)


def test_regret_matching_normalises_positive_outputs_else_uniform():
    out = np.array([[1.0, -2.0, 3.0, 5.0], [-1.0, -1.0, 0.0, 2.0]])
    legal = np.array([[1, 1, 1, 0], [1, 1, 1, 0]], dtype=np.float32)
    got = matched(out, legal)
    np.testing.assert_allclose(got[0], [0.25, 0.0, 0.75, 0.0])
    np.testing.assert_allclose(got[1], [1 / 3, 1 / 3, 1 / 3, 0.0])


@pytest.mark.parametrize("memory", [0, 8])
def test_it_learns_on_ladder_1(ladder1, memory):
    """Measured exactly, with the features alone and with the seat's last 8 moves (issue 50)."""
    config, tree = ladder1
    settings = RegretSettings(games=300, steps=60, average_steps=100, width=64, memory=memory)
    run = RegretSampler(config, settings, seed=1)
    run.step(1)
    first = table_exploitability(config, run.policy(), tree)["exploitability"]
    run.step(11)
    last = table_exploitability(config, run.policy(), tree)["exploitability"]
    assert last < 0.15
    assert last < 0.5 * first


def test_same_seed_same_run_and_resume_continues_exactly(ladder1, tmp_path):
    config, _ = ladder1
    a = RegretRun(tmp_path / "a", config, SMALL, seed=4)
    a.train(iterations=3)
    b = RegretRun(tmp_path / "b", config, SMALL, seed=4)
    b.train(iterations=2)
    b.save()
    del b
    c = RegretRun(tmp_path / "b", config, SMALL, resume=True)
    assert c.trainer.iteration == 2
    c.train(iterations=3)
    for mine, other in zip(a.trainer.net.params(), c.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    for mine, other in zip(a.trainer.policy().params(), c.trainer.policy().params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    saved = TableNet.load(tmp_path / "b" / "policy-net.npz")
    assert saved.net.meta["game"] == config.game_string()
    assert json.loads((tmp_path / "b" / "meta.json").read_text())["training_iterations"] == 3


def test_a_run_saved_before_power_was_a_setting_resumes_with_the_mean_regret(ladder1, tmp_path):
    """A fresh run holds the clipped sum (power 0, the default since 2026-12-07); a run whose
    config.json has no power, saved before the setting existed, resumes holding the mean
    regret it was made with (power 1), as a run that records power 1 does."""
    config, _ = ladder1
    assert RegretRun(tmp_path / "fresh", config, SMALL, seed=4).settings.power == 0.0
    old = RegretRun(tmp_path / "old", config, replace(SMALL, power=1.0), seed=4)
    old.train(iterations=1)
    old.save()
    path = tmp_path / "old" / "config.json"
    record = json.loads(path.read_text())
    assert record["solver"].pop("power") == 1.0
    path.write_text(json.dumps(record))
    resumed = RegretRun(tmp_path / "old", config, SMALL, resume=True)
    assert resumed.settings.power == 1.0
    assert resumed.trainer.settings.power == 1.0


def _two_iterations(config, pool):
    run = RegretSampler(config, replace(SMALL, jobs=3), seed=5, pool=pool)
    run.step(2)
    return run


def test_streams_give_the_same_run_on_one_process_or_forked_workers(ladder1):
    config, _ = ladder1
    here = _two_iterations(config, None)
    with WorkerPool(2) as pool:
        there = _two_iterations(config, pool)
    for mine, other in zip(here.net.params(), there.net.params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    for mine, other in zip(here.policy().params(), there.policy().params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    # the streams are real: one stream of the same games is another run
    one = RegretSampler(config, SMALL, seed=5)
    one.step(2)
    assert not np.array_equal(one.net.params()[0], here.net.params()[0])


def test_streams_split_the_games_and_keep_the_regrets_centred(ladder1):
    config, _ = ladder1
    run = RegretSampler(config, replace(SMALL, games=101, jobs=4), seed=2)
    x, legal, regret, ax, alegal, aprobs = run._traverse(np.random.default_rng(0))
    assert len(x) == len(legal) == len(regret) and len(ax) == len(alegal) == len(aprobs)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    np.testing.assert_allclose((uniform * regret).sum(axis=1), 0.0, atol=1e-9)
    # every game opens with a traverser or an opponent decision of seat 0: 2 x 101 openings
    assert len(x) + len(ax) >= 2 * 101


@pytest.mark.slow
def test_streams_on_ray_actors_give_the_same_run(ladder1):
    pytest.importorskip("ray")
    config, _ = ladder1
    here = _two_iterations(config, None)
    with WorkerPool(2, "local") as pool:
        there = _two_iterations(config, pool)
    for mine, other in zip(here.policy().params(), there.policy().params(), strict=True):
        np.testing.assert_array_equal(mine, other)


def test_bad_settings_and_games_are_refused(ladder1, tmp_path):
    config, _ = ladder1
    with pytest.raises(ValueError, match="explore"):
        RegretSettings(explore=1.0).validate()
    with pytest.raises(ValueError, match="games"):
        RegretSettings(games=0).validate()
    with pytest.raises(ValueError, match="jobs: at most games"):
        RegretSettings(games=3, jobs=4).validate()
    with pytest.raises(ValueError, match="no sampled regret run"):
        RegretRun(tmp_path / "none", config, SMALL, resume=True)


def test_weighted_reservoir_draws_rows_by_weight():
    net = TableNet.create(3, 2, (4,), seed=0)
    avg = AveragePolicy(net, capacity=10, steps=0, minibatch=4, weighted=True)
    rng = np.random.default_rng(0)
    x = np.eye(3, dtype=np.float32)[:2]
    legal = np.ones((2, 2), dtype=np.float32)
    avg.add(x[:1], legal[:1], np.array([[1.0, 0.0]], dtype=np.float32), rng, weight=1.0)
    avg.add(x[1:], legal[1:], np.array([[0.0, 1.0]], dtype=np.float32), rng, weight=99.0)
    np.testing.assert_array_equal(avg.weight[:2], [1.0, 99.0])
    state = avg.get_state()
    other = AveragePolicy(net.copy(), capacity=10, steps=0, minibatch=4, weighted=True)
    other.set_state(state)
    np.testing.assert_array_equal(other.weight[:2], [1.0, 99.0])
    # trained, the network follows the heavy row's probabilities on a row between the two
    avg.steps = 300
    avg.train(rng)
    p = avg.net.policy_value(np.array([[0.5, 0.5, 0.0]], dtype=np.float32), legal[:1])[0]
    assert p[0, 1] > 0.8


@pytest.mark.parametrize("power", [1.0, 0.5, 0.0])
def test_the_held_value_is_the_clipped_regret_sum_over_t_to_the_power(power):
    """Fed its own clipped value back each iteration (a perfect fit), the rule holds regret
    matching+'s clipped running sum divided by t**power, for any power: the strategy (regret
    matching on the held value) does not depend on the power."""
    rng = np.random.default_rng(4)
    regrets = rng.normal(size=(12, 3))
    held = np.zeros(3)
    total = np.zeros(3)  # regret matching+: clip the running sum after each addition
    for t, r in enumerate(regrets, start=1):
        held = running_target(np.maximum(held, 0.0), r, float(t), power)
        total = np.maximum(total, 0.0) + r
        np.testing.assert_allclose(held, total / t**power, atol=1e-12)
    legal = np.ones((1, 3))
    base = matched(np.maximum(total, 0.0)[None, :], legal)
    np.testing.assert_allclose(matched(held[None, :], legal), base, atol=1e-12)


def test_a_power_outside_zero_to_one_is_refused():
    """power scales the held regrets by t**power: only [0, 1] is a valid setting."""
    with pytest.raises(ValueError, match="power"):
        replace(SMALL, power=1.5).validate()
    with pytest.raises(ValueError, match="power"):
        replace(SMALL, power=-0.1).validate()
    replace(SMALL, power=0.5).validate()


def test_a_decayed_step_is_the_constant_step_set_to_lr_over_t_to_the_decay(ladder1):
    """lr_decay d fits iteration t (1, 2, ...) with Adam's step lr * t**-d: the same networks,
    bit for bit, as a constant-step run whose lr is set to that value before each iteration,
    and not those of a run that keeps lr."""
    config, _ = ladder1
    decayed = RegretSampler(config, replace(SMALL, lr_decay=0.7), seed=3)
    by_hand = RegretSampler(config, SMALL, seed=3)
    constant = RegretSampler(config, SMALL, seed=3)
    for t in (1, 2, 3):
        decayed.step()
        by_hand.settings = replace(SMALL, lr=SMALL.lr * float(t) ** -0.7)
        by_hand.step()
        constant.step()
    assert decayed.opt.lr == pytest.approx(SMALL.lr * 3**-0.7, rel=1e-15)
    for mine, other in zip(decayed.net.params(), by_hand.net.params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    assert any(
        not np.array_equal(mine, other)
        for mine, other in zip(decayed.net.params(), constant.net.params(), strict=True)
    )
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="lr_decay"):
            replace(SMALL, lr_decay=bad).validate()


def test_each_branch_is_valued_by_its_own_traversers_return_at_three_players():
    """D-10: +1 to the winner, -1/2 to each other seat; a branch of seat s gets s's return."""
    config = resolve_game("complots-ambassador-3")[0]
    run = RegretSampler(config, replace(SMALL, games=4, width=16))
    t = Table.initial(run.cfg, 30)
    run.play_out(t, 0, np.random.default_rng(5))
    owners = np.arange(30) % 3
    got = np.empty(30)
    owners_returns(t.states, run.cfg, owners, got)
    winners = t.states[:, S_WINNER]
    decided = winners >= 0
    assert decided.sum() >= 20  # random play rarely reaches the turn cap
    np.testing.assert_array_equal(got[decided & (winners == owners)], 1.0)
    np.testing.assert_array_equal(got[decided & (winners != owners)], -0.5)
    np.testing.assert_array_equal(got[~decided], 0.0)
    assert (decided & (winners == owners)).any() and (decided & (winners != owners)).any()


def test_a_three_player_iteration_has_every_seat_traverse_and_centred_regrets():
    config = resolve_game("complots-ambassador-3")[0]
    settings = replace(SMALL, games=6, width=16, steps=2, average_steps=2)
    run = RegretSampler(config, settings)
    x, legal, regret, ax, alegal, aprobs = run._traverse(np.random.default_rng(1))
    assert len(x) > 0 and len(ax) > len(x)  # two seats of three feed the average
    uniform = legal / legal.sum(axis=1, keepdims=True)
    np.testing.assert_allclose((uniform * regret).sum(axis=1), 0.0, atol=1e-9)
    assert np.abs(regret).max() <= 1.5 + 1e-12  # returns lie in [-1/2, 1]
    run.step()
    assert run.games == 3 * settings.games


def test_challenge_decisions_are_valued_by_their_own_rollouts(ladder1, monkeypatch):
    """With ``challenge_rollouts`` 4 a challenge decision's two actions are each the mean of four
    returns in {-1, 0, 1}: at the uniform first iteration its regrets are multiples of 1/8, where
    one rollout gives multiples of 1/2; other decisions keep one rollout."""
    from complots_solver.rules.enums import Stage
    from complots_solver.rules.layout import S_STAGE
    from complots_solver.solvers.regret import sampler as module

    config, _ = ladder1
    seen: list[np.ndarray] = []
    real = module.Table.take
    # the play-outs' own takes of their unfinished rows would count too: none until the end
    monkeypatch.setattr(module, "COMPACT_BELOW", 1e12)

    def spy(self, idx):  # the stage of every decision a branch is cut from
        seen.append(self.states[idx, S_STAGE].copy())
        return real(self, idx)

    def regrets(k):
        run = RegretSampler(config, replace(SMALL, games=300, challenge_rollouts=k), seed=1)
        seen.clear()
        module.Table.take = spy
        try:
            x, legal, regret, *_ = run._traverse(np.random.default_rng(0))
        finally:
            module.Table.take = real
        return legal, regret, np.concatenate(seen)

    challenge = [Stage.CHALLENGE, Stage.COUNTER_CHALLENGE, Stage.CLAIM_CHALLENGE]
    legal0, regret0, stages0 = regrets(0)
    legal4, regret4, stages4 = regrets(4)
    two0 = regret0[legal0.sum(axis=1) == 2]
    assert np.allclose(two0 * 2, np.round(two0 * 2))  # one rollout an action
    two4 = regret4[legal4.sum(axis=1) == 2]
    assert np.allclose(two4 * 8, np.round(two4 * 8))
    assert not np.allclose(two4 * 2, np.round(two4 * 2))  # some are means of four
    # the main line draws the same numbers (branches are played out after it), so the same
    # decisions arise: four branches an action at the challenges, one elsewhere
    at0, at4 = np.isin(stages0, challenge), np.isin(stages4, challenge)
    assert at0.sum() > 0 and at4.sum() == 4 * at0.sum()
    assert (~at4).sum() == (~at0).sum() > 0
    with pytest.raises(ValueError, match="challenge_rollouts"):
        RegretSampler(config, replace(SMALL, challenge_rollouts=-1))


def test_rollout_groups_pair_the_kth_playout_of_each_action_of_a_decision():
    """Branches come decision by decision, action by action, ``per`` copies each: the k-th copy
    of every action of one decision shares a group, and no two decisions share one."""
    which = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2])
    action = np.array([2, 2, 5, 5, 0, 0, 3, 3, 1, 4])
    per = np.array([2, 2, 1])
    assert rollout_groups(which, action, per).tolist() == [0, 1, 0, 1, 2, 3, 2, 3, 4, 4]
    assert rollout_groups(which[:0], action[:0], per).size == 0


def test_common_random_numbers_play_one_groups_identical_rows_alike(ladder1):
    """Copies of one state in one group draw the same uniform at every step, chance and
    decisions alike, so they end in the same state; in groups of their own they part."""
    config, _ = ladder1
    run = RegretSampler(config, replace(SMALL, common_random=True), seed=2)
    run.step(2)  # a trained, mixed strategy
    traversal = run.traversal()
    start = Table.initial(run.cfg, 1)
    ends = {}
    for name, groups in (("shared", np.zeros(64, dtype=np.int64)), ("own", np.arange(64))):
        t = start.take(np.zeros(64, dtype=np.int64))
        traversal.play_to_end(t, np.random.default_rng(5), groups=groups)
        ends[name] = t.states
    assert (ends["shared"] == ends["shared"][0]).all()
    assert len({row.tobytes() for row in ends["own"]}) > 1


def test_common_random_numbers_keep_the_regrets_and_the_decisions(ladder1):
    """The main line draws as before (the same decisions arise) and each action's value stays
    an unbiased sample: the mean regrets of the two runs agree within their noise."""
    config, _ = ladder1
    got = {}
    for common in (False, True):
        run = RegretSampler(config, replace(SMALL, games=2000, common_random=common), seed=1)
        got[common] = run._traverse(np.random.default_rng(0))
    np.testing.assert_array_equal(got[False][0], got[True][0])
    np.testing.assert_array_equal(got[False][1], got[True][1])
    a, b = got[False][2], got[True][2]
    se = np.sqrt((a.var(axis=0) + b.var(axis=0)) / len(a)) + 1e-12
    assert (np.abs(a.mean(axis=0) - b.mean(axis=0)) < 5 * se).all()
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("common", [False, True])
def test_play_outs_step_only_unfinished_rows_and_end_as_if_they_stepped_all(monkeypatch, common):
    """Once most rows are finished the play-out steps the rest alone (the speed-up of issue
    50's fifth goal): every field of every row ends as when the whole table is stepped to the
    end, with the opponent in some rows and common random numbers in the groups."""
    config = resolve_game("draft-inquisitor")[0]
    run = RegretSampler(config, replace(SMALL, common_random=common), seed=4)
    run.step(1)  # a trained network plays the rows
    run.opponent, run.opponent_share = run.net.copy(), 0.5
    run.opponent.net.weights[0] *= -1.0  # another strategy than the current one
    traversal = run.traversal()
    start = Table.initial(run.cfg, 96)
    opposed = np.arange(96) % 3 == 0
    traverser = np.arange(96) % 2
    groups = np.arange(96) // 4
    import complots_solver.solvers.regret.sampler as sampler

    taken = []
    real_take = Table.take

    def counting_take(self, idx):
        taken.append(len(idx))
        return real_take(self, idx)

    ends = {}
    for name, below in (
        ("whole table", 1e12),
        ("compacted", sampler.COMPACT_BELOW),
        ("often", 1.01),
    ):
        monkeypatch.setattr(sampler, "COMPACT_BELOW", below)
        monkeypatch.setattr(Table, "take", counting_take)
        taken.clear()
        t = start.take(np.arange(96))
        traversal.play_to_end(
            t,
            np.random.default_rng(5),
            opposed.copy(),
            traverser.copy(),
            groups if common else None,
        )
        ends[name] = (t, list(taken))
    whole, _ = ends["whole table"]
    assert len(ends["whole table"][1]) == 2  # the copy above, then the empty table at the end
    for name in ("compacted", "often"):
        t, calls = ends[name]
        assert len(calls) > 3, name  # it did step fewer rows
        for field in ("states", "knows", "drafts", "records", "seens", "rings"):
            np.testing.assert_array_equal(getattr(t, field), getattr(whole, field), err_msg=field)
    assert (whole.states[:, S_CUR] == TERMINAL).all()
