"""The regret network fitted to kept sampled regrets (lab.regret.regret_memory): the reservoir
holds every decision's own regrets with its iteration as weight, the fit learns their weighted
mean, and the method learns on ladder-1, measured exactly."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.regret.regret_memory import RegretMemorySampler, RegretMemorySettings
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.regret.sampler import RegretSettings
from complots_solver.solvers.selfplay.exact import table_exploitability

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

SMALL = RegretSettings(games=40, steps=10, average_steps=10, width=32, average=20_000)


@pytest.fixture(scope="module")
def config():
    return resolve_game("ladder-1-ambassador")[0]


def test_the_reservoir_holds_each_iterations_sampled_regrets_weighted_by_iteration(config):
    """With room for all, row for row: the traverser decisions of iteration t, in order, with
    their sampled regrets (zero off the legal actions, centred on the strategy) and weight t."""
    seen = []
    sampler = RegretMemorySampler(config, SMALL, RegretMemorySettings(capacity=100_000), seed=2)
    real = sampler.fit_regrets

    def spy(x, legal, target, rng):
        seen.append((x.copy(), target.copy()))
        return real(x, legal, target, rng)

    sampler.fit_regrets = spy  # type: ignore[method-assign]
    sampler.step(3)
    sizes = [len(x) for x, _ in seen]
    kept = sampler.kept
    assert kept.size == sum(sizes) == sampler.samples
    start = 0
    for t, (x, regret) in enumerate(seen, start=1):
        rows = slice(start, start + len(x))
        np.testing.assert_array_equal(kept.x[rows], x)
        np.testing.assert_array_equal(kept.probs[rows], regret.astype(np.float32))
        assert (kept.weight[rows] == t).all()
        start += len(x)
    legal = kept.legal[: kept.size]
    assert np.all(kept.probs[: kept.size][legal == 0] == 0.0)
    assert np.abs(kept.probs[: kept.size]).max() > 0.0
    uniform = RegretMemorySampler(
        config, SMALL, RegretMemorySettings(capacity=100_000, linear=False), seed=2
    )
    uniform.step(2)
    assert (uniform.kept.weight[: uniform.kept.size] == 1.0).all()
    with pytest.raises(ValueError, match="capacity"):
        RegretMemorySampler(config, SMALL, RegretMemorySettings(capacity=0))


def test_the_fit_learns_the_weighted_mean_of_the_kept_regrets(config):
    """One decision kept twice with regrets +1 (weight 1) and -1 (weight 3) on one action: the
    network's output there moves to the weighted mean, -0.5, not to the last sample."""
    settings = RegretSettings(games=40, steps=400, width=32, average=1000, lr=3e-3)
    sampler = RegretMemorySampler(config, settings, RegretMemorySettings(capacity=10), seed=0)
    width, actions = sampler.net.num_features, sampler.num_actions
    x = np.zeros((1, width), dtype=np.float32)
    x[0, :5] = 1.0
    legal = np.zeros((1, actions), dtype=np.float32)
    legal[0, 0] = 1.0
    for t, value in ((1, 1.0), (3, -1.0)):
        sampler.iteration = t
        regret = np.zeros((1, actions))
        regret[0, 0] = value
        sampler.fit_regrets(x, legal, regret, np.random.default_rng(t))
    out = sampler.net.outputs(x)[0, 0]
    assert abs(out - (-0.5)) < 0.1, out


def test_it_learns_on_ladder_1(config):
    """Measured exactly, as the library's sampler is (tests/solvers/regret/test_sampler.py)."""
    tree = compile_complots_tree(config)
    settings = RegretSettings(games=300, steps=60, average_steps=100, width=64)
    run = RegretMemorySampler(config, settings, RegretMemorySettings(capacity=200_000), seed=1)
    run.step(1)
    first = table_exploitability(config, run.policy(), tree)["exploitability"]
    run.step(11)
    last = table_exploitability(config, run.policy(), tree)["exploitability"]
    assert last < 0.15
    assert last < 0.5 * first


def test_a_run_folder_resumes_it_exactly_and_its_state_file_leaves_the_reservoir_out(
    config, tmp_path
):
    """Through the library's run folder (``make_sampler``): 3 iterations then a resume to 5 give
    the networks of 5 straight, the checkpoint holds the reservoir, the state file does not."""
    from functools import partial

    from complots_solver.solvers.regret.run import RegretRun

    memory = RegretMemorySettings(capacity=400)  # full after the first iterations
    make = partial(RegretMemorySampler, memory=memory)
    straight = RegretRun(tmp_path / "a", config, SMALL, seed=3, make_sampler=make)
    straight.train(iterations=5)
    first = RegretRun(tmp_path / "b", config, SMALL, seed=3, make_sampler=make)
    first.train(iterations=3)
    first.save()
    del first
    again = RegretRun(tmp_path / "b", config, SMALL, seed=3, resume=True, make_sampler=make)
    assert again.trainer.iteration == 3 and again.trainer.kept.size == 400
    again.train(iterations=5)
    for a, b in zip(straight.trainer.net.params(), again.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    again.save()
    with np.load(tmp_path / "b" / "regret-state.npz") as kit:
        assert not [k for k in kit.files if "rmem" in k]
        assert "regret_p0" in kit.files
