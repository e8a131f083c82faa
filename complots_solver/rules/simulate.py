"""Random playouts on the compiled core: speed, game length, seat win rates."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.stats import Z95, wilson_interval  # noqa: F401  (re-exported)

CHUNK = 2000  # games per compiled call, so progress can be reported


@dataclass
class SimulationResult:
    """What `simulate` measured."""

    config: GameConfig
    games: int
    seed: int
    seconds: float
    moves: int
    turns: int
    capped: int
    wins: np.ndarray

    @property
    def games_per_second(self) -> float:
        """Games played per wall-clock second."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def moves_per_second(self) -> float:
        """State transitions (chance moves included) per second."""
        return self.moves / self.seconds if self.seconds > 0 else float("inf")

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        """(rate, low, high): seat's win share with its 95% Wilson interval."""
        w = int(self.wins[seat])
        low, high = wilson_interval(w, self.games)
        return w / self.games, low, high


def simulate(
    config: GameConfig,
    games: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play `games` uniformly random games (seeded) through the compiled core."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    cfg = config.to_array()
    rng = np.random.default_rng(seed)
    stats = np.zeros(2, dtype=np.int64)
    wins = np.zeros(config.players, dtype=np.int64)
    core.random_playouts(cfg, 1, np.random.default_rng(0), stats.copy(), wins.copy())  # compile
    moves = 0
    done = 0
    start = time.perf_counter()
    while done < games:
        batch = min(CHUNK, games - done)
        moves += core.random_playouts(cfg, batch, rng, stats, wins)
        done += batch
        if progress is not None:
            progress(batch)
    seconds = time.perf_counter() - start
    return SimulationResult(
        config=config,
        games=games,
        seed=seed,
        seconds=seconds,
        moves=int(moves),
        turns=int(stats[1]),
        capped=int(stats[0]),
        wins=wins,
    )
