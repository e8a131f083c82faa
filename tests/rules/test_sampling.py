"""The fast chance sampler of random playouts draws with the exact probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES

SAMPLES = 60_000


@pytest.mark.parametrize(
    "params",
    [{"variant": "deal"}, {"variant": "deal", "players": 3, "copies": 2}, {}],
    ids=["deal-2-cards", "small-deck-2-cards", "draft-1-card"],
)
def test_fast_sampler_matches_exact_probabilities(params: dict) -> None:
    """Empirical frequencies are within 5 standard errors of chance_outcomes_into."""
    cfg = GameConfig.from_params(params).to_array()
    s = core.initial_state(cfg)
    outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    probs = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.float64)
    k = core.chance_outcomes_into(s, cfg, outcomes, probs)
    rng = np.random.default_rng(3)
    counts: dict[int, int] = {}
    for _ in range(SAMPLES):
        a = int(core.sample_chance_fast(s, cfg, rng))
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) <= {int(o) for o in outcomes[:k]}
    for o, p in zip(outcomes[:k], probs[:k], strict=True):
        freq = counts.get(int(o), 0) / SAMPLES
        se = np.sqrt(p * (1 - p) / SAMPLES)
        assert abs(freq - p) <= 5 * se + 1e-12, (int(o), freq, p)
