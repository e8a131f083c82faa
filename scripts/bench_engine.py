"""Engine speed: random playouts on the compiled core versus the pyspiel API, same process.

Usage: python scripts/bench_engine.py [--seconds 5]
Goals (issue 2): the core >= 100x the pyspiel path, >= 1,000,000 transitions/s on one core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.rules import core
from complots_solver.rules.presets import resolve_game

GAMES = ("draft-ambassador", "complots-inquisitor-6")


def bench_core(cfg: np.ndarray, seconds: float) -> float:
    """Transitions per second of random playouts stepping the compiled core."""
    stats = np.zeros(2, dtype=np.int64)
    wins = np.zeros(8, dtype=np.int64)
    rng = np.random.default_rng(1)
    core.random_playouts(cfg, 10, rng, stats, wins)  # compile outside the clock
    steps, batch = 0, 1000
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += core.random_playouts(cfg, batch, rng, stats, wins)
    return steps / (time.perf_counter() - start)


def bench_pyspiel(game: pyspiel.Game, seconds: float) -> float:
    """Transitions per second of the same random playouts through the pyspiel API."""
    rng = np.random.default_rng(1)
    play_pyspiel_game(game, rng)  # compile the core functions outside the clock
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_pyspiel_game(game, rng)
    return steps / (time.perf_counter() - start)


def play_pyspiel_game(game: pyspiel.Game, rng: np.random.Generator) -> int:
    """Play one random game through the pyspiel API; return its transitions."""
    steps = 0
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            action = outcomes[rng.choice(len(outcomes), p=probs)]
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
        state.apply_action(action)
        steps += 1
    return steps


def main() -> None:
    """Print transitions/s for both paths and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = parser.parse_args()
    print(f"{'game':<28}{'core/s':>14}{'pyspiel/s':>14}{'ratio':>10}")
    for name in GAMES:
        config, _ = resolve_game(name)
        game = pyspiel.load_game(config.game_string())
        fast = bench_core(config.to_array(), args.seconds)
        slow = bench_pyspiel(game, args.seconds)
        print(f"{name:<28}{fast:>14,.0f}{slow:>14,.0f}{fast / slow:>9.0f}x")


if __name__ == "__main__":
    main()
