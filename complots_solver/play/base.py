"""The interface every bot implements: a distribution over legal actions, sampled with its rng."""

from __future__ import annotations

import abc
import time

import numpy as np
import pyspiel

from complots_solver.rules.config import GameConfig


class Bot(abc.ABC):
    """A player: a distribution over legal actions at each decision, sampled with its rng.

    ``table_lookups`` and ``table_misses`` count this bot's decisions looked up
    in a strategy table and, of those, the ones at information states the
    table lacks (played uniformly); both stay 0 for the heuristic bots.
    ``decisions`` and ``decision_seconds`` count the bot's :meth:`step` calls
    and the wall time spent in them (for the per-decision benchmarks).
    """

    def __init__(self, config: GameConfig, rng: np.random.Generator, name: str) -> None:
        """A bot for games of ``config`` drawing its randomness from ``rng`` only."""
        self.config = config
        self.rng = rng
        self.name = name
        self.table_lookups = 0
        self.table_misses = 0
        self.decisions = 0
        self.decision_seconds = 0.0

    def restart(self) -> None:  # noqa: B027  (an optional hook)
        """Forget per-game memory (called before a new game)."""

    @abc.abstractmethod
    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """Probability of each legal action of the seat to move (sums to 1)."""

    def step(self, state: pyspiel.State) -> int:
        """An action sampled from :meth:`action_probabilities` with the bot's rng."""
        start = time.perf_counter()
        try:
            return self._sample(self.action_probabilities(state))
        finally:
            self.decisions += 1
            self.decision_seconds += time.perf_counter() - start

    def _sample(self, probs: dict[int, float]) -> int:
        actions = sorted(probs)
        if len(actions) == 1:
            return actions[0]
        weights = np.array([probs[a] for a in actions], dtype=np.float64)
        cdf = np.cumsum(weights / weights.sum())
        return actions[
            min(int(np.searchsorted(cdf, self.rng.random(), side="right")), len(cdf) - 1)
        ]
