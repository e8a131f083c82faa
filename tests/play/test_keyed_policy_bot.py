"""The policy bot on keyed Monte Carlo CFR strategy files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import make_bot
from complots_solver.play.policy_bot import KeyedPolicyBot
from complots_solver.play.tournament import run_tournament
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.infokeys import KEY_SCHEME_VERSION
from complots_solver.solvers.mccfr import MCCFRSolver
from complots_solver.solvers.mccfr_policy import KeyedPolicy, keyed_strategy
from complots_solver.solvers.strategy_file import (
    KeyedStrategyFile,
    load_keyed_strategy,
    save_keyed_strategy,
)

TINY = {"players": 2, "influence": 1, "max_turns": 2}
ITERATIONS = 300
GAMES = 30


@pytest.fixture(scope="module")
def tiny() -> GameConfig:
    """The tiny 2-player game: one influence, two turns."""
    return GameConfig.from_params(TINY)


@pytest.fixture(scope="module")
def keyed_dir(tiny: GameConfig, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A keyed strategy of a few hundred ES-MCCFR iterations (markov key)."""
    solver = MCCFRSolver(tiny, key="markov", seed=5)
    solver.run(ITERATIONS)
    meta = {
        "game": tiny.game_string(),
        "key_scheme": {"name": solver.key, "version": KEY_SCHEME_VERSION},
        "iterations": solver.iteration,
    }
    out = tmp_path_factory.mktemp("keyed") / "run"
    save_keyed_strategy(out, keyed_strategy(solver.average_table(), meta))
    return out


def _row(strategy: KeyedStrategyFile, key: int) -> dict[int, float] | None:
    """The file's row for ``key`` (rows are sorted by key), None if absent."""
    i = int(np.searchsorted(strategy.key, key))
    if i == strategy.key.shape[0] or int(strategy.key[i]) != key:
        return None
    lo, hi = strategy.action_offsets[i : i + 2]
    return {
        int(a): float(p)
        for a, p in zip(strategy.legal_actions[lo:hi], strategy.average[lo:hi], strict=True)
    }


def _decisions(config: GameConfig, games: int, seed: int):
    """Decision states of uniformly random games."""
    rng = np.random.default_rng(seed)
    game = pyspiel.load_game(config.game_string())
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            yield state
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_keyed_bot_plays_the_table(tiny: GameConfig, keyed_dir: Path) -> None:
    """policy:DIR on a keyed file returns the file's row; greedy its argmax; misses uniform."""
    bot = make_bot(f"policy:{keyed_dir}", tiny, np.random.default_rng(0))
    greedy = make_bot(f"policy:{keyed_dir}:greedy", tiny, np.random.default_rng(0))
    assert isinstance(bot, KeyedPolicyBot) and not bot.greedy
    assert isinstance(greedy, KeyedPolicyBot) and greedy.greedy
    strategy = load_keyed_strategy(keyed_dir)
    keys = KeyedPolicy.load(keyed_dir)  # an independent instance, only to compute keys
    found = missing = 0
    for state in _decisions(tiny, GAMES, seed=2):
        legal = state.legal_actions()
        key, cur = keys.key_of_history(list(state.history()))
        assert cur == state.current_player()
        row = _row(strategy, key)
        probs = bot.action_probabilities(state)
        if row is None:
            missing += 1
            assert probs == pytest.approx({a: 1.0 / len(legal) for a in legal})
            continue
        found += 1
        assert probs == pytest.approx(row)
        top = max(row.values())
        best = min(a for a, p in row.items() if p == top)
        assert greedy.action_probabilities(state) == {best: 1.0}
        assert bot.step(state) in legal
    assert found > 50 and found > 4 * missing
    assert bot.lookups >= found + missing and bot.misses >= missing


def test_keyed_bot_in_a_tournament(tiny: GameConfig, keyed_dir: Path) -> None:
    """A keyed strategy plays tournaments (and beats uniform play)."""
    spec = f"policy:{keyed_dir}"
    result = run_tournament(tiny, [spec, "random"], 200, seed=3)
    me = result.head_to_head().set_index("bot").loc[spec]
    assert me.games == 400
    assert me.wins > me.opponent_wins


def test_keyed_bot_refuses_another_game(keyed_dir: Path) -> None:
    """A keyed strategy only plays the game it was solved for."""
    config, _ = resolve_game("ladder-2-ambassador")
    with pytest.raises(ValueError, match="solved for"):
        make_bot(f"policy:{keyed_dir}", config, np.random.default_rng(0))
