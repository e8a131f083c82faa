"""How long a bot takes per decision, measured over whole games against another bot."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.tournament import game_rngs, play_game_bots
from complots_solver.rules.config import GameConfig
from complots_solver.rules.stats import Z95


@dataclass(frozen=True)
class DecisionTiming:
    """Per-decision wall time of one bot over ``games`` games (both seats in turn)."""

    bot: str
    opponent: str
    games: int
    decisions: int
    seconds: float
    mean_ms: float
    ci_ms: float
    worst_game_ms: float

    def line(self) -> str:
        """One line for a benchmark print-out."""
        return (
            f"{self.bot} vs {self.opponent}: {self.mean_ms:.2f} ms per decision "
            f"(±{self.ci_ms:.2f} ms 95% over games; {self.decisions} decisions in "
            f"{self.games} games, {self.seconds:.1f} s; slowest game {self.worst_game_ms:.2f} ms)"
        )


def decision_timing(
    config: GameConfig, bot: str, opponent: str, games: int, seed: int = 0
) -> DecisionTiming:
    """Time ``bot``'s decisions over ``games`` games against ``opponent`` in every other seat.

    The bot's seat turns round the table game by game. Runs in this process
    (one core); the interval is over the per-game means.
    """
    n = config.players
    if games < n:
        raise ValueError(f"games: at least {n} (one per seat); got {games}")
    game = pyspiel.load_game(config.game_string())
    per_game = []
    decisions = 0
    seconds = 0.0
    for g in range(games):
        seat = g % n
        specs = [opponent] * n
        specs[seat] = bot
        _, _, bots = play_game_bots(game, specs, game_rngs(seed, seat, g, n))
        b = bots[seat]
        decisions += b.decisions
        seconds += b.decision_seconds
        if b.decisions:
            per_game.append(1000.0 * b.decision_seconds / b.decisions)
    mean = 1000.0 * seconds / max(decisions, 1)
    spread = float(np.std(per_game, ddof=1)) if len(per_game) > 1 else 0.0
    ci = Z95 * spread / math.sqrt(max(len(per_game), 1))
    return DecisionTiming(
        bot, opponent, games, decisions, seconds, mean, ci, max(per_game, default=0.0)
    )
