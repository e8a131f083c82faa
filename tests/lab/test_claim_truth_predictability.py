"""The claim-truth diagnostic's arithmetic: its AUC against counting pairs, its logistic fit on a
separable and a blind sample."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import load_script

pytestmark = pytest.mark.slow

CT = load_script("claim_truth_predictability")


def _pairs(score: np.ndarray, label: np.ndarray) -> float:
    """P(a positive scores above a negative), ties half: the AUC by its definition."""
    pos, neg = score[label == 1], score[label == 0]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def test_the_auc_is_the_share_of_pairs_ordered_right():
    rng = np.random.default_rng(0)
    for _ in range(20):
        score = rng.integers(0, 6, size=40).astype(float)  # many ties
        label = (rng.random(40) < 0.4).astype(float)
        if 0 < label.sum() < 40:
            assert CT.auc(score, label) == pytest.approx(_pairs(score, label))
    label = np.array([0, 0, 1, 1.0])
    assert CT.auc(np.array([1, 2, 3, 4.0]), label) == 1.0
    assert CT.auc(np.array([4, 3, 2, 1.0]), label) == 0.0


def test_the_logistic_fit_finds_a_signal_and_none_where_there_is_none():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 3))
    y = (x[:, 1] + 0.3 * rng.normal(size=4000) > 0).astype(float)
    w = CT.logistic(x, y)
    assert CT.auc(x @ w[:-1], y) > 0.95
    assert abs(w[1]) > 5 * max(abs(w[0]), abs(w[2]))
    blind = (rng.random(4000) < 0.5).astype(float)
    wb = CT.logistic(x[:2000], blind[:2000])
    assert abs(CT.auc(x[2000:] @ wb[:-1], blind[2000:]) - 0.5) < 0.05
