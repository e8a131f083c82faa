"""The quality figure of a table strategy: a trained best responder's gain over the fair share.

Multiplayer equilibria carry no guarantee, so a table strategy is measured by
what a player gets who studies it: a table network, starting from a copy of
the strategy (so it starts at the fair share, not below it), is trained by PPO
in one chair (a random chair each game) against the strategy in every other
chair, for a stated budget, then plays ``games`` fresh games against it,
each chair equally often. Its win share minus the fair share 1/n, with a
Wilson 95% interval, is the **responder gain**: a lower bound on how much
the strategy can be exploited by one seat (a stronger responder could gain
more; it is not an upper bound).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.rules.stats import wilson_interval
from complots_solver.solvers.knowledge.table_features import inputs_of
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.tables import Seat, TableRunner
from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer


@dataclass(frozen=True)
class ResponderResult:
    """What the responder won against the strategy, and what it cost."""

    players: int
    games: int
    wins: int
    seat_wins: tuple[int, ...]
    seat_games: tuple[int, ...]
    train_iterations: int
    train_games: int
    train_seconds: float
    draws: int
    responder: TableNet | None = field(default=None, compare=False, repr=False)

    @property
    def share(self) -> float:
        """The responder's win share."""
        return self.wins / self.games

    @property
    def gain(self) -> float:
        """Win share over the fair share 1/n."""
        return self.share - 1.0 / self.players

    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the gain."""
        lo, hi = wilson_interval(self.wins, self.games)
        return lo - 1.0 / self.players, hi - 1.0 / self.players

    @property
    def mean_return(self) -> float:
        """The responder's mean return per game (win +1, loss -1, turn cap 0; 2 players)."""
        losses = self.games - self.wins - self.draws
        return (self.wins - losses) / self.games

    def return_interval(self) -> tuple[float, float]:
        """Normal 95% interval of :attr:`mean_return` over the games."""
        m = self.mean_return
        decided = (self.games - self.draws) / self.games
        half = 1.96 * math.sqrt(max(decided - m * m, 0.0) / self.games)
        return m - half, m + half

    def text(self) -> str:
        """One line: the gain with its interval and the budget."""
        lo, hi = self.interval()
        line = (
            f"best responder gain {self.gain:+.3f} [{lo:+.3f}, {hi:+.3f}] over the fair share "
            f"1/{self.players} (win share {self.share:.3f}, {self.games} games; responder trained "
            f"{self.train_iterations} iterations, {self.train_games} games, "
            f"{self.train_seconds:.0f} s)"
        )
        if self.players == 2:
            rlo, rhi = self.return_interval()
            line += (
                f"; per game {self.mean_return:+.3f} [{rlo:+.3f}, {rhi:+.3f}], a lower bound on "
                "exploitability (the strategy's own value over both seats is 0 by symmetry)"
            )
        return line


def _members(strategy: TableNet | Sequence[TableNet]) -> list[TableNet]:
    """A strategy's networks: one, or the members of a mixture (the first is the newest)."""
    members = [strategy] if isinstance(strategy, TableNet) else list(strategy)
    if not members:
        raise ValueError("strategy: at least one network")
    return members


def train_responder(
    config: GameConfig,
    strategy: TableNet | Sequence[TableNet],
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    settings: SelfPlaySettings | None = None,
    start: TableNet | None = None,
) -> tuple[TableNet, int, int, float]:
    """A responder trained against ``strategy`` (one network or a mixture): (network, iterations,
    games, seconds). It starts from a copy of ``start`` (default: of the strategy's first
    network), when the shapes allow."""
    if seconds is None and iterations is None:
        raise ValueError("give the responder's budget: seconds or iterations")
    members = _members(strategy)
    first = members[0]
    memory, odds = inputs_of(first.num_features, config.to_array())
    base = settings or SelfPlaySettings(
        self_share=0.0,
        bot_share=0.0,
        snapshots=0,
        width=first.net.sizes[1],
        jobs=1,
        memory=memory,
        odds=odds,
    )  # one stream: the budgets of the recorded figures; the strategy's inputs, as its copy
    trainer = SelfPlayTrainer(config, base, seed=seed + 7919, frozen=members)
    origin = first if start is None else start
    if [w.shape for w in trainer.net.net.weights] == [w.shape for w in origin.net.weights]:
        trainer.net.assign(origin)
    began = time.perf_counter()
    while True:
        if iterations is not None and trainer.iteration >= iterations:
            break
        if seconds is not None and time.perf_counter() - began >= seconds:
            break
        trainer.step()
    return trainer.net, trainer.iteration, trainer.games, time.perf_counter() - began


def measure_responder(
    config: GameConfig,
    strategy: TableNet | Sequence[TableNet],
    responder: TableNet,
    games: int,
    seed: int = 0,
) -> tuple[int, tuple[int, ...], tuple[int, ...], int]:
    """(wins, wins per chair, games per chair, draws) of ``responder`` in ``games`` games."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    n = config.players
    runner = TableRunner(config)
    counter = iter(range(games))

    members = _members(strategy)

    def seating(rng: np.random.Generator) -> list[Seat]:
        me = next(counter) % n
        if len(members) == 1:
            seats = [Seat(net=members[0], label="strategy") for _ in range(n)]
        else:  # each chair plays one member of the mixture, drawn for the whole game
            seats = [
                Seat(net=members[int(rng.integers(len(members)))], label="strategy")
                for _ in range(n)
            ]
        seats[me] = Seat(net=responder, learner=True, label="responder")
        return seats

    _, results = runner.play(games, seating, np.random.default_rng([seed, 104729]))
    seat_wins = [0] * n
    seat_games = [0] * n
    draws = 0
    for g in results:
        me = g.learners[0]
        seat_games[me] += 1
        if g.winner == me:
            seat_wins[me] += 1
        if g.winner < 0:
            draws += 1
    return sum(seat_wins), tuple(seat_wins), tuple(seat_games), draws


def responder_iterations(train_games: int) -> int:
    """PPO iterations that train a responder on at least ``train_games`` games (the budget of
    ``complots bound --method responder --budget N``)."""
    return max(1, -(-train_games // SelfPlaySettings().games))


def responder_bound(
    config: GameConfig,
    strategy: TableNet | Sequence[TableNet],
    seconds: float | None = None,
    iterations: int | None = None,
    games: int = 2000,
    seed: int = 0,
) -> ResponderResult:
    """Train a responder against ``strategy`` and measure its gain (see the module note)."""
    net, iters, train_games, spent = train_responder(config, strategy, seconds, iterations, seed)
    wins, seat_wins, seat_games, draws = measure_responder(config, strategy, net, games, seed)
    return ResponderResult(
        config.players, games, wins, seat_wins, seat_games, iters, train_games, spent, draws, net
    )
