"""Local best response (after Lisý & Bowling 2017), adapted to rollouts.

At each of its decisions the responder

1. holds the exact posterior over the hidden state (:class:`.belief.ResponderBelief`:
   its own observations, the strategy's likelihood of the other seat's moves);
2. draws ``rollouts`` worlds from it (seeded, with replacement), the same
   worlds for every legal action (common random numbers);
3. plays each legal action in each world, then lets both seats follow the
   strategy to the end of the game (``games.rollout_after``: the strategy's
   own rollouts where it keeps a record per row, else
   ``BoundStrategy.matrix(live=False)``), and values the action by its mean
   return;
4. plays the action of highest value (the first on ties); with one legal
   action it plays it without rollouts.

Its mean return in real games against the strategy is a lower bound on the
best response's value whatever the quality of the valuations: it is one
particular responder that uses only what its seat sees.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from complots_solver.solvers.bounds.belief import ResponderBelief
from complots_solver.solvers.bounds.games import Seed, rollout_after
from complots_solver.solvers.bounds.strategy import BoundStrategy
from complots_solver.solvers.rows.batch import Rows, legal_mask

DEFAULT_ROLLOUTS = 16


class LocalBestResponse:
    """The LBR responder (module note); ``rollouts`` worlds per legal action per decision."""

    wants_strategy = False

    def __init__(
        self, cfg: np.ndarray, strategy: BoundStrategy, rollouts: int = DEFAULT_ROLLOUTS
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts: at least 1, got {rollouts}")
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.strategy = strategy
        self.rollouts = rollouts
        self.beliefs: list[ResponderBelief] = []
        self.rngs: list[np.random.Generator] = []
        self.decisions = 0
        self.rollout_seconds = 0.0
        self.max_hypotheses = 0

    def start(self, seeds: Sequence[Seed], seat: int) -> None:
        """A fresh belief and rollout generator per game."""
        self.seat = seat
        self.beliefs = [
            ResponderBelief(self.cfg, seat, self.strategy, game) for game in range(len(seeds))
        ]
        self.rngs = [np.random.default_rng([*s, 0x1B2]) for s in seeds]

    def observe(self, rows: Rows, moves: np.ndarray) -> None:
        """Each game's belief conditions on its move (the public and this seat's tokens)."""
        for i, g in enumerate(rows.game.tolist()):
            belief = self.beliefs[g]
            belief.observe(rows.states[i], int(moves[i]))
            self.max_hypotheses = max(self.max_hypotheses, len(belief))

    def act(self, rows: Rows, probs: np.ndarray | None, uniforms: np.ndarray) -> np.ndarray:
        """The best action of each row's game by rollouts from its belief."""
        return np.array([self.choose(g) for g in rows.game.tolist()], dtype=np.int32)

    def values(self, game: int) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions, rollout value of each) at game ``game``'s current decision."""
        belief = self.beliefs[game]
        mask = np.empty((1, self.strategy.num_actions))
        legal_mask(belief.rows.states[:1], self.cfg, mask)
        legal = np.flatnonzero(mask[0]).astype(np.int32)
        if len(legal) == 1:
            return legal, np.zeros(1)
        start = time.perf_counter()
        rng = self.rngs[game]
        worlds = belief.sample(self.rollouts, rng)
        self.strategy.freeze(game)
        batch = worlds.take(np.tile(np.arange(self.rollouts), len(legal)))
        returns = rollout_after(
            self.cfg, self.strategy, batch, np.repeat(legal, self.rollouts), self.seat, rng
        )
        self.rollout_seconds += time.perf_counter() - start
        self.decisions += 1
        return legal, returns.reshape(len(legal), self.rollouts).mean(axis=1)

    def choose(self, game: int) -> int:
        """The legal action of highest rollout value (first on ties)."""
        legal, values = self.values(game)
        return int(legal[int(np.argmax(values))])

    def finish(self, game: np.ndarray, returns: np.ndarray) -> None:
        """Nothing to learn."""

    def payload(self) -> dict[str, float]:
        """Decisions valued, seconds in rollouts, largest belief."""
        return {
            "decisions": self.decisions,
            "rollout_seconds": self.rollout_seconds,
            "max_hypotheses": self.max_hypotheses,
        }
