"""Exploitability lower bounds per seat, with 95% intervals, from either responder.

Definitions (2-player zero-sum; a draw is 0 for both):

- ``v_p``: the strategy's value for seat ``p`` when both seats play it
  (exact when the strategy knows it, e.g. on a compiled ladder tree,
  otherwise the mean of self-play games, with its own standard error);
- ``r_p``: the responder's mean return in seat ``p`` against the strategy;
- gain of seat ``p``: ``r_p - v_p``, a lower bound on ``BR_p - v_p``;
- the exploitability bound ``(r_0 + r_1) / 2``: a lower bound on the
  exploitability ``(BR_0 + BR_1) / 2`` (the project's NashConv / 2); it
  needs no self-play, as ``v_0 + v_1 = 0``.

Intervals are normal 95% intervals of the sampled means.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from complots_solver.rules.stats import Z95
from complots_solver.solvers.bounds.games import Mean, StrategySeat, play_many
from complots_solver.solvers.bounds.lbr import DEFAULT_ROLLOUTS, LocalBestResponse
from complots_solver.solvers.bounds.strategy import BoundStrategy
from complots_solver.solvers.bounds.trained import (
    DEFAULT_EPSILON,
    DEFAULT_MIN_VISITS,
    TableResponder,
    train_responder,
)

METHODS = ("lbr", "trained")
BASELINE_SEED = 0x5E1F


@dataclass
class SeatGain:
    """One seat's responder against the strategy."""

    seat: int
    games: int
    responder_mean: float
    responder_stderr: float
    value: float  # v_p
    value_stderr: float  # 0 when exact
    gain: float
    ci95: tuple[float, float]
    seconds: float
    extra: dict[str, object] = field(default_factory=dict)


@dataclass
class Bound:
    """Both seats' gains and the exploitability bound, with how they were computed."""

    method: str
    how: str
    seats: list[SeatGain]
    exploitability: float
    ci95: tuple[float, float]
    value_how: str

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dictionary."""
        return asdict(self)


def _interval(mean: float, stderr: float) -> tuple[float, float]:
    return (mean - Z95 * stderr, mean + Z95 * stderr)


def strategy_values(
    cfg: np.ndarray, strategy: BoundStrategy, games: int, seed: int, workers: int = 1
) -> tuple[float, float, str]:
    """(v_0, its standard error, how it was computed): exact if known, else self-play games."""
    exact = strategy.exact_value()
    if exact is not None:
        return float(exact), 0.0, "exact (compiled game tree)"
    if games < 2:
        raise ValueError(f"games: at least 2 self-play games for the value, got {games}")
    seeds = [(seed, BASELINE_SEED, g) for g in range(games)]
    returns, _ = play_many(cfg, strategy, 0, lambda: StrategySeat(cfg), seeds, workers=workers)
    m = Mean.of(returns)
    return m.mean, m.stderr, f"{games} self-play games, seed {seed}"


def bound_from_returns(
    method: str,
    how: str,
    per_seat: list[tuple[np.ndarray, float, dict[str, object]]],
    value: tuple[float, float, str],
) -> Bound:
    """The bound from each seat's responder returns (seat order), the seconds it took and extras."""
    v0, v_se, value_how = value
    seats = []
    for seat, (returns, seconds, extra) in enumerate(per_seat):
        m = Mean.of(returns)
        v = v0 if seat == 0 else -v0
        se = math.sqrt(m.stderr**2 + v_se**2)
        seats.append(
            SeatGain(
                seat,
                m.n,
                m.mean,
                m.stderr,
                v,
                v_se,
                m.mean - v,
                _interval(m.mean - v, se),
                seconds,
                extra,
            )
        )
    expl = (seats[0].responder_mean + seats[1].responder_mean) / 2
    se = math.hypot(seats[0].responder_stderr, seats[1].responder_stderr) / 2
    return Bound(method, how, seats, expl, _interval(expl, se), value_how)


def _merge(payloads: list[object]) -> dict[str, object]:
    out: dict[str, float] = {}
    for p in payloads:
        if isinstance(p, dict):
            for k, v in p.items():
                if isinstance(v, int | float):
                    out[k] = max(out.get(k, 0), v) if k.startswith("max_") else out.get(k, 0) + v
    return dict(out)


def lbr_bound(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    games: int,
    seed: int,
    rollouts: int = DEFAULT_ROLLOUTS,
    workers: int = 1,
    value_games: int | None = None,
) -> Bound:
    """LBR in each seat for ``games`` games (seeds ``(seed, seat, game)``)."""
    if games < 2:
        raise ValueError(f"games: at least 2, got {games}")
    per_seat = []
    for seat in (0, 1):
        start = time.perf_counter()
        seeds = [(seed, seat, g) for g in range(games)]
        returns, payloads = play_many(
            cfg,
            strategy,
            seat,
            lambda: LocalBestResponse(cfg, strategy, rollouts),
            seeds,
            workers=workers,
            batch=max(1, -(-games // workers)) if workers > 1 else 16,
        )
        per_seat.append((returns, time.perf_counter() - start, _merge(payloads)))
    value = strategy_values(cfg, strategy, value_games or games, seed, workers)
    how = (
        f"local best response: exact belief over the hidden state; {rollouts} rollouts per legal "
        f"action per decision (worlds drawn from the belief, then both seats play the strategy"
        f"{getattr(strategy, 'rollout_note', '')}); "
        f"{games} games per seat, seed {seed}"
    )
    return bound_from_returns("lbr", how, per_seat, value)


def trained_bound(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    games: int,
    seed: int,
    key: str,
    train_games: int | None = None,
    train_seconds: float | None = None,
    workers: int = 1,
    epsilon: float = DEFAULT_EPSILON,
    min_visits: int = DEFAULT_MIN_VISITS,
    value_games: int | None = None,
) -> Bound:
    """Train a table responder per seat with the budget, then play ``games`` fresh games each."""
    if games < 2:
        raise ValueError(f"games: at least 2, got {games}")
    per_seat = []
    trainings = []
    for seat in (0, 1):
        start = time.perf_counter()
        table, training = train_responder(
            cfg,
            strategy,
            seat,
            key,
            seed,
            games=train_games,
            seconds=train_seconds,
            workers=workers,
            epsilon=epsilon,
            min_visits=min_visits,
        )
        trainings.append(training)
        seeds = [(seed, seat, 1, g) for g in range(games)]

        def make(t: dict[int, np.ndarray] = table) -> TableResponder:
            return TableResponder(cfg, strategy.num_actions, key, t, False, epsilon, min_visits)

        returns, payloads = play_many(
            cfg, strategy, seat, make, seeds, workers=workers, batch=max(1, -(-games // workers))
        )
        extra = _merge(payloads)
        extra.update(
            train_games=training.games,
            train_seconds=round(training.seconds, 1),
            keys=training.keys,
        )
        per_seat.append((returns, time.perf_counter() - start, extra))
    value = strategy_values(cfg, strategy, value_games or games, seed, workers)
    budget = f"{train_games} training games" if train_games is not None else f"{train_seconds:g} s"
    how = (
        f"trained responder: Monte Carlo control on '{key}' keys, {budget} per seat "
        f"(epsilon {epsilon:g}, rounds of {trainings[0].round_games} games; greedy over actions "
        f"tried {min_visits}+ times, the strategy's own move elsewhere), then {games} fresh "
        f"games per seat, seed {seed}"
    )
    return bound_from_returns("trained", how, per_seat, value)
