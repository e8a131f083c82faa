"""Exact strategies as perfect-key tables: same probabilities as the policy bot, fast play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import make_bot
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.strategy_file import load_strategy
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.mccfr.evaluate import play_games
from complots_solver.solvers.mccfr.infokeys import KEYS, key_after_history
from complots_solver.solvers.policies.exact_keyed import (
    average_probabilities,
    exact_policy_table,
    infoset_perfect_keys,
)
from tests.play.conftest import STRATEGY_GAME

GAMES = 40
SELF_PLAY = 100_000


def test_average_probabilities_normalises_rows() -> None:
    """Rows sum to 1; negative weights count as 0; an all-zero row is uniform."""
    offsets = np.array([0, 2, 5, 6])
    got = average_probabilities(np.array([1.0, 3.0, 0.0, -1.0, 0.0, 0.0]), offsets)
    assert got == pytest.approx([0.25, 0.75, 1 / 3, 1 / 3, 1 / 3, 1.0])


def test_table_plays_like_the_policy_bot(strategy_dir: Path) -> None:
    """At every decision of random games the table's row is the policy bot's distribution."""
    config, _ = resolve_game(STRATEGY_GAME)
    tree = compile_complots_tree(config)
    strategy = load_strategy(strategy_dir)
    table = exact_policy_table(strategy, tree, config)
    assert table.num_rows == tree.num_infosets
    assert len(set(infoset_perfect_keys(config, tree).tolist())) == tree.num_infosets
    bot = make_bot(f"policy:{strategy_dir}", config, np.random.default_rng(0))
    game = pyspiel.load_game(config.game_string())
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(GAMES):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            key, _ = key_after_history(
                config.to_array(), KEYS["perfect"], np.asarray(state.history(), np.int64)
            )
            r = table.row_of(int(key))
            assert r >= 0
            lo, hi = table.action_offsets[r], table.action_offsets[r + 1]
            row = dict(zip(table.legal_actions[lo:hi].tolist(), table.probs[lo:hi], strict=True))
            assert row == pytest.approx(bot.action_probabilities(state))
            checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > GAMES


def test_self_play_estimates_the_profile_value(strategy_dir: Path) -> None:
    """Sampled self-play of the table: no misses, mean return near the exact profile value."""
    config, _ = resolve_game(STRATEGY_GAME)
    strategy = load_strategy(strategy_dir)
    table = exact_policy_table(strategy, compile_complots_tree(config), config)
    stats = play_games(config, [table, table], SELF_PLAY, seed=0)
    assert stats.miss_share == (0.0, 0.0)
    value = strategy.meta["game_value"]
    assert abs(stats.mean[0] - value) < 4 * stats.stderr[0] + 1e-12
    assert stats.mean[0] == pytest.approx(-stats.mean[1])


def test_refuses_a_tree_of_another_game(strategy_dir: Path) -> None:
    """The key walk checks the tree against the rules core of the given configuration."""
    config, _ = resolve_game(STRATEGY_GAME)
    other, _ = resolve_game("ladder-1-inquisitor")
    with pytest.raises(ValueError, match="does not match"):
        infoset_perfect_keys(other, compile_complots_tree(config))
