"""Thresholding a table network at play: small probabilities dropped, the rest rescaled."""

from __future__ import annotations

import shutil

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.folders import strategies_dir
from complots_solver.solvers.nets.tablenet import THRESHOLD_KEY, TableNet, thresholded
from complots_solver.solvers.policies.open import open_strategy


def test_drops_small_probabilities_and_rescales() -> None:
    """0.04 falls below 0.05 and the rest is rescaled by hand: 0.56/0.96 and 0.4/0.96."""
    out = thresholded(np.array([[0.04, 0.56, 0.4, 0.0]]), 0.05)
    np.testing.assert_allclose(out, [[0.0, 0.56 / 0.96, 0.4 / 0.96, 0.0]])


def test_keeps_the_most_likely_action_when_all_are_below() -> None:
    """A threshold above every probability keeps the row's most likely action (both, if tied)."""
    np.testing.assert_allclose(thresholded(np.array([[0.3, 0.4, 0.3]]), 0.5), [[0, 1, 0]])
    np.testing.assert_allclose(thresholded(np.array([[0.5, 0.5]]), 0.9), [[0.5, 0.5]])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(2, 9),
    st.floats(0.0, 0.6),
    st.integers(0, 2**31 - 1),
)
def test_rows_stay_distributions_over_the_same_support(rows, cols, threshold, seed) -> None:
    """Each row sums to 1, never gains an action, and keeps every action at or above the
    threshold in the same proportions."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(cols), size=rows) * (rng.random((rows, cols)) < 0.8)
    p[np.arange(rows), rng.integers(0, cols, rows)] += 0.1
    p /= p.sum(axis=1, keepdims=True)
    out = thresholded(p, threshold)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    assert np.all(out[p == 0] == 0)
    for r in range(rows):
        big = p[r] >= threshold
        if big.sum() >= 1:
            np.testing.assert_allclose(out[r, big], p[r, big] / p[r, big].sum())


def test_a_saved_threshold_is_applied_by_the_loaded_network(tmp_path) -> None:
    """The same weights played with and without the meta entry: equal where every legal
    probability is at or above it, and no legal action below it once thresholded."""
    net = TableNet.create(12, 5, (16,), seed=3)
    x = np.random.default_rng(0).normal(size=(200, 12)).astype(np.float32) * 3
    legal = np.ones((200, 5), dtype=np.float32)
    plain, _ = net.policy_value(x, legal)
    net.save(tmp_path / "net.npz", meta={THRESHOLD_KEY: "0.1"})
    loaded = TableNet.load(tmp_path / "net.npz")
    assert loaded.threshold == 0.1
    cut, _ = loaded.policy_value(x, legal)
    assert np.all((cut == 0) | (cut >= 0.1))
    untouched = (plain >= 0.1).all(axis=1)
    assert 0 < untouched.sum() < 200  # both kinds of row occur, so both branches are checked
    np.testing.assert_allclose(cut[untouched], plain[untouched], rtol=1e-6)
    assert not np.allclose(cut[~untouched], plain[~untouched])


def test_the_shipped_inquisitor_plays_thresholded_through_open_strategy(tmp_path) -> None:
    """The shipped Inquisitor network (threshold 0.05 in its file) and the same network with the
    threshold taken out, opened the way bots and bounds open them, at the same decisions of
    random games: the shipped one never gives an action a probability under 0.05, and the
    network without it does at some of them (so the threshold is what makes the difference)."""
    config, _ = resolve_game("draft-inquisitor")
    game = pyspiel.load_game(config.game_string())
    folder = strategies_dir() / "draft-inquisitor"
    net = TableNet.load(folder / "policy-net.npz")
    assert net.threshold == pytest.approx(0.05)
    del net.net.meta["threshold"]
    net.save(tmp_path / "policy-net.npz")
    shutil.copy(folder / "meta.json", tmp_path / "meta.json")
    thresholded = open_strategy(folder, config)
    plain = open_strategy(f"net:{tmp_path}", config)
    rng = np.random.default_rng(0)
    small_without = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                p = np.array(probs)
                state.apply_action(int(rng.choice(outcomes, p=p / p.sum())))
                continue
            cut = thresholded.action_probabilities(state)
            assert sum(cut.values()) == pytest.approx(1.0)
            assert all(p == 0 or p >= 0.05 for p in cut.values())
            full = plain.action_probabilities(state)
            small_without += any(0 < p < 0.05 for p in full.values())
            actions = list(full)
            weights = np.array([full[a] for a in actions])
            state.apply_action(int(rng.choice(actions, p=weights / weights.sum())))
    assert small_without > 0
