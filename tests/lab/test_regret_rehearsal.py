"""Rehearsal in the regret fit (lab.regret.rehearsal): nothing changes at a share of 0, the
reservoir is uniform, and rehearsed rows keep their held regrets better than a fit without."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.regret.rehearsal import RehearsalSampler, RehearsalSettings
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

SMALL = RegretSettings(games=40, steps=10, average_steps=10, width=32, average=20_000)


@pytest.fixture(scope="module")
def config():
    return resolve_game("ladder-1-ambassador")[0]


def _weights(sampler: RegretSampler) -> list[np.ndarray]:
    return [*sampler.net.net.weights, *sampler.average.net.net.weights]


def test_a_share_of_zero_is_the_library_bit_for_bit(config):
    plain = RegretSampler(config, SMALL, seed=3)
    rehearsing = RehearsalSampler(config, SMALL, RehearsalSettings(share=0.0), seed=3)
    plain.step(3)
    rehearsing.step(3)
    for a, b in zip(_weights(plain), _weights(rehearsing), strict=True):
        np.testing.assert_array_equal(a, b)
    assert rehearsing.kept == rehearsing.samples  # every decision offered, none dropped yet


def test_settings_out_of_range_are_refused(config):
    with pytest.raises(ValueError, match="share"):
        RehearsalSampler(config, SMALL, RehearsalSettings(share=1.0))
    with pytest.raises(ValueError, match="capacity"):
        RehearsalSampler(config, SMALL, RehearsalSettings(capacity=0))


def test_the_reservoir_keeps_a_uniform_sample(config):
    sampler = RehearsalSampler(config, SMALL, RehearsalSettings(capacity=500), seed=0)
    width, actions = sampler.net.num_features, sampler.num_actions
    rng = np.random.default_rng(1)
    counts = np.zeros(4)
    for batch in range(4):  # 4 x 1,000 rows offered, each batch marked by its first input
        x = np.zeros((1000, width), dtype=np.float32)
        x[:, 0] = batch
        sampler._keep(x, np.ones((1000, actions), dtype=np.float32), rng)
    assert sampler.kept == 500 and sampler.kept_seen == 4000
    counts = np.bincount(sampler.kept_x[:, 0].astype(int), minlength=4)
    # each batch holds 125 of the 500 in expectation; sd about 9.7 under uniform keeping
    assert np.all(np.abs(counts - 125) < 45), counts


def test_rehearsed_rows_keep_their_held_regrets(config):
    """Fit twice from the same state to targets on one kind of row: the rows held from earlier
    iterations drift less from their held regrets when half of each minibatch rehearses them."""
    drift = {}
    settings = RegretSettings(games=40, steps=200, average_steps=10, width=32, average=20_000)
    for share in (0.0, 0.5):
        sampler = RehearsalSampler(config, settings, RehearsalSettings(share=share), seed=7)
        sampler.step(4)
        held_x = sampler.kept_x[: sampler.kept]
        held_legal = sampler.kept_legal[: sampler.kept] > 0
        before = np.maximum(sampler.net.outputs(held_x)[:, :-1], 0.0) * held_legal
        one = held_x[:1].repeat(64, axis=0)  # this iteration samples a single decision
        target = np.full((64, sampler.num_actions), 5.0) * held_legal[:1]
        sampler.fit_regrets(one, sampler.kept_legal[:1].repeat(64, axis=0), target,
                            np.random.default_rng(0))  # fmt: skip
        after = np.maximum(sampler.net.outputs(held_x)[:, :-1], 0.0) * held_legal
        drift[share] = float(np.abs(after - before)[1:].mean())
    assert drift[0.5] < 0.5 * drift[0.0], drift
