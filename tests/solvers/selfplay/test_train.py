"""League self-play: it learns, it resumes exactly, and the responder measures what it should."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from complots_solver.play.bots import make_bot
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.selfplay.responder import measure_responder, responder_bound
from complots_solver.solvers.selfplay.tables import Seat, TableRunner
from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer

PRESET = "complots-ambassador-3"
# seed 0 trainer, rng 11, four bot-game seatings, dealt by the code before bot_one_kind existed
RECORDED_SEATING = [
    ["learner", "skeptic", "skeptic"],
    ["honest", "bluffer", "learner"],
    ["honest", "learner", "random"],
    ["skeptic", "counter", "learner"],
]


@pytest.fixture(scope="module")
def config():
    return resolve_game(PRESET)[0]


def _factory(config):
    return lambda name, rng: make_bot(name, config, rng)


def _share_against_random(config, net, games=300):
    runner = TableRunner(config, parallel=64)
    order = iter(range(games))

    def seating(rng):
        me = next(order) % 3
        seats = [Seat(bot=make_bot("random", config, rng), label="random") for _ in range(3)]
        seats[me] = Seat(net=net, learner=True, label="net")
        return seats

    _, results = runner.play(games, seating, np.random.default_rng(5))
    return np.mean([g.winner == g.learners[0] for g in results])


def test_ppo_learns_to_beat_random_bots(config):
    """20 iterations against random bots lift the win share from about 1/3 to well above it."""
    s = SelfPlaySettings(
        games=64, parallel=32, width=64, self_share=0.0, bot_share=1.0, bots="random", lr=1e-3
    )
    tr = SelfPlayTrainer(config, s, seed=0, bot_factory=_factory(config))
    before = _share_against_random(config, tr.net)
    tr.step(20)
    after = _share_against_random(config, tr.net)
    assert before < 0.40
    assert after > 0.50


@pytest.mark.parametrize(
    ("exploiter", "average", "target"),
    [(0.0, 0, "current"), (0.3, 0, "current"), (0.0, 50, "current"), (0.3, 50, "average")],
)
def test_resumed_trainer_continues_exactly(config, exploiter, average, target):
    """Three iterations in one go equal one, a checkpoint round trip, then two (past selves,
    the exploiter and the average network with its reservoir too)."""
    s = SelfPlaySettings(
        games=12,
        parallel=6,
        width=16,
        snapshot_every=1,
        snapshots=2,
        bot_share=0.3,
        exploiter_share=exploiter,
        exploiter_games=6,
        exploiter_reset=2,
        average=average,
        average_steps=3,
        exploiter_target=target,
    )
    whole = SelfPlayTrainer(config, s, seed=4, bot_factory=_factory(config))
    whole.step(3)
    first = SelfPlayTrainer(config, s, seed=4, bot_factory=_factory(config))
    first.step(1)
    state = {k: np.array(v) for k, v in first.get_state().items()}
    second = SelfPlayTrainer(config, s, seed=4, bot_factory=_factory(config))
    second.set_state(state)
    assert len(second.past) == 1
    second.step(2)
    for a, b in zip(whole.net.net.weights, second.net.net.weights, strict=True):
        np.testing.assert_array_equal(a, b)
    if exploiter:
        for a, b in zip(whole.exploiter.net.weights, second.exploiter.net.weights, strict=True):
            np.testing.assert_array_equal(a, b)
        assert np.isfinite(whole.last["exploiter_win_share"])
    if average:
        assert whole.policy() is whole.average.net and whole.average.seen > average
        for a, b in zip(whole.policy().params(), second.policy().params(), strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(whole.average.probs, second.average.probs)
    else:
        assert whole.policy() is whole.net
    assert whole.games == second.games == 36


def test_settings_refuse_bad_values():
    """A bad option names itself."""
    with pytest.raises(ValueError, match="games"):
        SelfPlaySettings.from_options({"games": "0"})
    with pytest.raises(ValueError, match="self_share"):
        SelfPlaySettings.from_options({"self_share": "0.8", "bot_share": "0.5"})
    with pytest.raises(ValueError, match="exploiter_share"):
        SelfPlaySettings.from_options({"exploiter_share": "0.3"})
    with pytest.raises(ValueError, match="unknown"):
        SelfPlaySettings.from_options({"gamez": "3"})
    with pytest.raises(ValueError, match="bot_one_kind must be in"):
        SelfPlaySettings.from_options({"bot_one_kind": "1.5"})
    with pytest.raises(ValueError, match="average"):
        SelfPlaySettings.from_options({"average": "-1"})
    with pytest.raises(ValueError, match="exploiter_target must be one of current, average"):
        SelfPlaySettings.from_options({"exploiter_target": "best"})
    with pytest.raises(ValueError, match="exploiter_target=average needs"):
        SelfPlaySettings.from_options({"exploiter_target": "average"})
    with pytest.raises(ValueError, match="bot factory"):
        SelfPlayTrainer(resolve_game("draft-ambassador")[0], SelfPlaySettings())


def test_responder_rotates_chairs_and_finds_a_weak_strategy(config):
    """Chairs are played equally; a strategy trained 0 iterations is beaten by a trained responder."""
    s = SelfPlaySettings(games=8, parallel=8, width=16, self_share=1.0, bot_share=0.0)
    weak = SelfPlayTrainer(config, s, seed=1).net  # untrained: near-uniform play
    wins, seat_wins, seat_games, draws = measure_responder(config, weak, weak, 30, seed=2)
    assert seat_games == (10, 10, 10)
    assert sum(seat_wins) == wins
    result = responder_bound(config, weak, iterations=25, games=300, seed=0)
    lo, hi = result.interval()
    assert result.train_iterations == 25
    assert lo > 0.05  # a responder clearly beats uniform play at a 3-seat table


def test_two_player_responder_return_counts_draws_as_nothing():
    """3 wins, 1 loss and 1 turn cap in 5 games: +0.4 a game; the interval is a normal one."""
    from complots_solver.solvers.selfplay.responder import ResponderResult

    r = ResponderResult(2, 5, 3, (2, 1), (3, 2), 1, 256, 1.0, 1)
    assert r.mean_return == pytest.approx(0.4)
    lo, hi = r.return_interval()
    half = 1.96 * np.sqrt((4 / 5 - 0.16) / 5)  # E[r^2] is the decided share, 4/5
    assert (lo, hi) == pytest.approx((0.4 - half, 0.4 + half))
    assert "per game +0.400" in r.text()
    assert "per game" not in ResponderResult(3, 5, 3, (1, 1, 1), (2, 2, 1), 1, 1, 1.0, 0).text()


class _Bots:
    """A picklable bot factory (worker processes seat their own bots)."""

    def __init__(self, config):
        self.config = config

    def __call__(self, name, rng):
        return make_bot(name, self.config, rng)


def test_streams_give_the_same_network_on_one_or_two_workers(config):
    """jobs=3 on two worker processes equals jobs=3 in this process, bit for bit; jobs=1 is
    another stream."""
    from complots_solver.solvers.common.pool import WorkerPool

    s = SelfPlaySettings(
        games=12, parallel=6, width=16, snapshot_every=1, snapshots=2, bot_share=0.3, jobs=3
    )
    here = SelfPlayTrainer(config, s, seed=4, bot_factory=_Bots(config))
    here.step(2)
    with WorkerPool(2) as pool:
        there = SelfPlayTrainer(config, s, seed=4, bot_factory=_Bots(config), pool=pool)
        there.step(2)
    for a, b in zip(here.net.net.weights, there.net.net.weights, strict=True):
        np.testing.assert_array_equal(a, b)
    assert here.games == there.games == 24
    assert here.last["decisions"] == there.last["decisions"]
    single = SelfPlayTrainer(config, replace(s, jobs=1), seed=4, bot_factory=_Bots(config))
    single.step(2)
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(here.net.net.weights, single.net.net.weights, strict=True)
    )


def test_a_run_from_before_jobs_resumes_with_one_stream(config, tmp_path):
    """A run directory whose settings lack ``jobs`` was played in one stream and resumes so."""
    import json

    from complots_solver.solvers.selfplay.run import SelfPlayRun

    s = SelfPlaySettings(games=4, parallel=4, width=8, bot_share=0.0, snapshots=0)
    run = SelfPlayRun(tmp_path, config, s, seed=1)
    run.train(iterations=1)
    path = tmp_path / "config.json"
    saved = json.loads(path.read_text())
    assert saved["solver"]["jobs"] == 2
    del saved["solver"]["jobs"]
    path.write_text(json.dumps(saved))
    again = SelfPlayRun(tmp_path, config, s, seed=1, resume=True)
    assert again.settings.jobs == 1 and again.trainer.iteration == 1


@pytest.mark.parametrize("target", ["current", "average"])
def test_the_exploiter_learns_against_its_target(config, target):
    """The exploiter's own games seat its target in every other chair, and each reset copies it."""
    s = SelfPlaySettings(
        games=8, parallel=4, width=8, bot_share=0.0, snapshots=0, exploiter_share=0.3,
        exploiter_games=4, exploiter_reset=2, average=20, average_steps=2, exploiter_target=target,
    )  # fmt: skip
    tr = SelfPlayTrainer(config, s, seed=3)
    tr.step(1)
    assert tr.average.net is not tr.net  # the two differ after an iteration
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(tr.average.net.params(), tr.net.params(), strict=True)
    )
    want = tr.average.net if target == "average" else tr.net
    seats = tr._exploiter_seating(np.random.default_rng(0))
    others = [seat for seat in seats if not seat.learner]
    assert len(others) == config.players - 1 and all(seat.net is want for seat in others)
    tr.step(1)
    assert any(
        not np.array_equal(a, b) for a, b in zip(tr.exploiter.params(), want.params(), strict=True)
    )
    tr.runner.play = lambda *args: ({"x": np.zeros((0, 1))}, [])  # the reset alone, no update
    tr._train_exploiter(np.random.default_rng(1))  # iteration 2: a reset
    for a, b in zip(tr.exploiter.params(), want.params(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_checkpoint_from_before_a_log_column_resumes(config, tmp_path):
    """A checkpoint whose log rows lack the columns added since (average_loss) resumes, the
    old rows read as NaN there and the new rows filled."""
    from complots_solver.solvers.common.rundir import read_checkpoint, write_checkpoint
    from complots_solver.solvers.selfplay.run import SelfPlayRun
    from complots_solver.solvers.selfplay.train import LOG_COLUMNS

    s = SelfPlaySettings(
        games=4, parallel=4, width=8, bot_share=0.0, snapshots=0, average=20, average_steps=2
    )
    run = SelfPlayRun(tmp_path, config, s, seed=1)
    run.train(iterations=1)
    path = tmp_path / "checkpoint.npz"
    saved = read_checkpoint(path)
    saved.log = [row[:-1] for row in saved.log]  # as written before average_loss was logged
    write_checkpoint(path, saved, len(LOG_COLUMNS) - 1)
    again = SelfPlayRun(tmp_path, config, s, seed=1, resume=True)
    again.train(iterations=2)
    rows = (tmp_path / "training.csv").read_text().splitlines()
    assert rows[0].split(",")[-1] == "average_loss"
    assert rows[1].split(",")[-1] == "nan"
    assert float(rows[2].split(",")[-1]) > 0


@pytest.mark.slow
def test_streams_on_ray_actors_equal_one_process(config):
    """The same iteration's streams played on two Ray actors give the same network."""
    from complots_solver.solvers.common.pool import WorkerPool

    ray = pytest.importorskip("ray")
    s = SelfPlaySettings(games=8, parallel=4, width=8, bot_share=0.5, snapshots=0, jobs=2)
    here = SelfPlayTrainer(config, s, seed=6, bot_factory=_Bots(config))
    here.step(1)
    try:
        with WorkerPool(2, "local") as pool:
            there = SelfPlayTrainer(config, s, seed=6, bot_factory=_Bots(config), pool=pool)
            there.step(1)
    finally:
        ray.shutdown()
    for a, b in zip(here.net.net.weights, there.net.net.weights, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("average", [0, 40])
def test_a_run_stopped_at_any_moment_leaves_the_strategy_of_its_checkpoint(
    config, tmp_path, average
):
    """Every checkpoint writes the playable network (the average one when kept); a run
    interrupted inside an iteration keeps its last checkpoint and that network, never the
    half-updated state."""
    from complots_solver.solvers.nets.tablenet import TableNet
    from complots_solver.solvers.selfplay.run import POLICY_FILE, SelfPlayRun

    s = SelfPlaySettings(
        games=4, parallel=4, width=8, bot_share=0.0, snapshots=0, average=average, average_steps=2
    )
    run = SelfPlayRun(tmp_path, config, s, seed=1)
    run.train(iterations=1)  # no run.save(): the checkpoint alone writes the network
    saved = TableNet.load(tmp_path / POLICY_FILE)
    strategy = run.trainer.average.net if average else run.trainer.net
    for a, b in zip(saved.params(), strategy.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    whole = [p.copy() for p in strategy.params()]

    trainer = run.trainer
    real_update = trainer.ppo.train
    calls = []

    def interrupted(*args, **kwargs):
        out = real_update(*args, **kwargs)
        calls.append(1)
        if len(calls) == 2:  # iteration 2 is whole; in iteration 3 the network has changed
            raise KeyboardInterrupt
        return out

    trainer.ppo.train = interrupted
    with pytest.raises(KeyboardInterrupt):
        run.train(iterations=3)
    assert trainer.stepping and trainer.iteration == 2
    after = TableNet.load(tmp_path / POLICY_FILE)
    for a, b in zip(after.params(), whole, strict=True):
        np.testing.assert_array_equal(a, b)
    again = SelfPlayRun(tmp_path, config, s, seed=1, resume=True)
    assert again.trainer.iteration == 1


def _magnet_settings(**kw):
    base = dict(games=24, parallel=12, width=16, self_share=1.0, bot_share=0.0, snapshots=0)
    base.update(kw)
    return SelfPlaySettings(**base)


def test_a_magnet_run_resumes_exactly_with_its_magnet(config):
    """Four iterations in one go equal three, a checkpoint round trip, then one: the magnet
    (the network at iteration 2, not the fresh one) is restored from the checkpoint."""
    s = _magnet_settings(magnet_every=2, entropy=0.5, lr=1e-2)
    whole = SelfPlayTrainer(config, s, seed=3)
    whole.step(4)
    first = SelfPlayTrainer(config, s, seed=3)
    first.step(3)
    state = {k: np.array(v) for k, v in first.get_state().items()}
    fresh = SelfPlayTrainer(config, s, seed=3)
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(first.magnet.params(), fresh.magnet.params(), strict=True)
    )
    fresh.set_state(state)
    fresh.step(1)
    for a, b in zip(whole.net.params(), fresh.net.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    plain = SelfPlayTrainer(config, _magnet_settings(entropy=0.5, lr=1e-2), seed=3)
    with pytest.raises(ValueError, match="magnet"):
        SelfPlayTrainer(config, s, seed=3).set_state(plain.get_state())
    with pytest.raises(ValueError, match="magnet_every"):
        SelfPlaySettings.from_options({"magnet_every": "-1"})


def _kl_to(net, magnet, batch):
    p, _ = net.policy_value(batch["x"], batch["legal"])
    m, _ = magnet.policy_value(batch["x"], batch["legal"])
    legal = batch["legal"] > 0
    d = np.where(legal, np.log(np.maximum(p, 1e-30)) - np.log(np.maximum(m, 1e-30)), 0.0)
    return float((p * d).sum(axis=1).mean())


def test_the_magnet_pulls_the_network_towards_it(config):
    """With a strong pull and a peaked magnet the network moves towards the magnet; with the
    entropy bonus (the uniform magnet) it moves away from it."""
    peaked = SelfPlayTrainer(config, _magnet_settings(), seed=9).net
    peaked.net.weights[-1] *= 40.0  # a far-from-uniform policy
    probe = TableRunner(config, parallel=12).play(
        48,
        lambda rng: [Seat(net=peaked, learner=True, label="self") for _ in range(3)],
        np.random.default_rng(0),
    )[0]
    kls = {}
    for every in (0, 1000):
        tr = SelfPlayTrainer(
            config, _magnet_settings(magnet_every=every, entropy=3.0, lr=3e-3), seed=9
        )
        if tr.magnet is not None:
            tr.magnet = peaked
            tr.settings = replace(tr.settings, magnet_every=1000)
            tr.iteration = 1  # past the reset at 0
        before = _kl_to(tr.net, peaked, probe)
        tr.step(6)
        kls[every] = (before, _kl_to(tr.net, peaked, probe))
    assert kls[1000][1] < 0.5 * kls[1000][0]
    assert kls[0][1] > kls[0][0]


def test_the_batch_keeps_each_seats_own_reach_and_the_weights_follow_it(config):
    """Each learner decision's reach_logp is the sum of its seat's earlier log-probabilities in
    the game; the counterfactual weights are 1 / reach capped, scaled to mean 1."""
    from complots_solver.solvers.selfplay.train import counterfactual_weights

    tr = SelfPlayTrainer(config, _magnet_settings(), seed=2)
    batch, results = tr.runner.play(
        8,
        lambda rng: [Seat(net=tr.net, learner=True, label="self") for _ in range(3)],
        np.random.default_rng(1),
    )
    reach, logp = batch["reach_logp"], batch["logp"]
    starts = np.flatnonzero(reach == 0)
    assert len(starts) == 3 * len(results) and starts[0] == 0
    later = np.setdiff1d(np.arange(len(reach)), starts)
    np.testing.assert_allclose(reach[later], reach[later - 1] + logp[later - 1], atol=1e-4)
    assert reach.min() < -3  # deep decisions have a small own reach
    w = counterfactual_weights(reach, 20.0)
    assert w.mean() == pytest.approx(1.0)
    raw = np.minimum(np.exp(-reach.astype(np.float64)), 20.0)
    np.testing.assert_allclose(w, raw / raw.mean(), rtol=1e-5)
    assert w[starts].max() < w.max()
    with pytest.raises(ValueError, match="counterfactual"):
        SelfPlaySettings.from_options({"counterfactual": "-2"})


def _bot_tables(config, settings, draws):
    """The bot labels of the bot games among ``draws`` seatings of a 6-player league."""
    tr = SelfPlayTrainer(config, settings, seed=0, bot_factory=_factory(config))
    rng = np.random.default_rng(3)
    tables = []
    for _ in range(draws):
        labels = [seat.label for seat in tr._seating(rng) if not seat.learner]
        if labels:
            tables.append(labels)
    return tables


def test_bot_one_kind_seats_tables_of_one_bot_in_its_share_of_bot_games():
    """bot_one_kind=1: every bot game seats one kind in all five chairs, and every kind comes
    up; 0: tables of one kind (1 in 7^4 at six seats) essentially never; 0.5: about half."""
    config = resolve_game("complots-ambassador-6")[0]
    base = SelfPlaySettings(width=8, self_share=0.0, bot_share=1.0)
    kinds = set(base.bot_list())
    every = _bot_tables(config, replace(base, bot_one_kind=1.0), 140)
    assert len(every) == 140 and all(len(t) == 5 and len(set(t)) == 1 for t in every)
    assert {t[0] for t in every} == kinds
    never = _bot_tables(config, base, 140)
    assert sum(len(set(t)) == 1 for t in never) <= 1
    assert {b for t in never for b in t} == kinds
    half = _bot_tables(config, replace(base, bot_one_kind=0.5), 400)
    assert 0.40 < np.mean([len(set(t)) == 1 for t in half]) < 0.60


def test_without_bot_one_kind_a_league_seats_as_before(config):
    """bot_one_kind=0 draws no extra random number: the seating sequence is the one a league of
    the same seed dealt before the setting existed (checked against a recorded sequence)."""
    s = SelfPlaySettings(width=8, self_share=0.0, bot_share=1.0)
    tr = SelfPlayTrainer(config, s, seed=0, bot_factory=_factory(config))
    rng = np.random.default_rng(11)
    labels = [[seat.label for seat in tr._seating(rng)] for _ in range(4)]
    assert labels == RECORDED_SEATING
