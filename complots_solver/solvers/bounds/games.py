"""Real games between a responder and the strategy, played side by side, and rollouts.

Every game draws its moves' random numbers from its own generator, seeded by
the game's seed tuple, so a game's result does not depend on how games are
batched or spread over worker processes.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from complots_solver.solvers.bounds.strategy import BoundStrategy
from complots_solver.solvers.rows.batch import NO_MOVE, TERMINAL, Rows, returns_of, sample_moves

Seed = tuple[int, ...]


class Responder(Protocol):
    """One seat's player against the strategy; it reads only what that seat sees."""

    wants_strategy: bool  # act() needs the strategy's own probabilities at the seat's state

    def start(self, seeds: Sequence[Seed], seat: int) -> None:
        """Begin one game per seed, playing ``seat``."""
        ...

    def observe(self, rows: Rows, moves: np.ndarray) -> None:
        """Each row's game is about to play ``moves[i]`` (tokens only: see each class)."""
        ...

    def act(self, rows: Rows, probs: np.ndarray | None, uniforms: np.ndarray) -> np.ndarray:
        """A move for each row where the responder is to move."""
        ...

    def finish(self, game: np.ndarray, returns: np.ndarray) -> None:
        """The games ended with these returns for the responder."""
        ...

    def payload(self) -> object:
        """What a batch of games leaves to report or learn from (sent back from workers)."""
        ...


class StrategySeat:
    """The strategy itself in the responder's seat: self-play."""

    wants_strategy = True

    def __init__(self, cfg: np.ndarray) -> None:
        self.cfg = cfg

    def start(self, seeds: Sequence[Seed], seat: int) -> None:
        """Nothing to set up."""

    def observe(self, rows: Rows, moves: np.ndarray) -> None:
        """Nothing to follow."""

    def act(self, rows: Rows, probs: np.ndarray | None, uniforms: np.ndarray) -> np.ndarray:
        """A move sampled from the strategy."""
        if probs is None:
            raise ValueError("probs: self-play needs the strategy's probabilities")
        out = np.empty(len(rows), dtype=np.int32)
        sample_moves(rows.states, self.cfg, probs, uniforms, out)
        return out

    def finish(self, game: np.ndarray, returns: np.ndarray) -> None:
        """Nothing to learn."""

    def payload(self) -> object:
        """Nothing to report."""
        return None


def play_games(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    seat: int,
    responder: Responder,
    seeds: Sequence[Seed],
) -> np.ndarray:
    """Play one game per seed, ``responder`` in ``seat``; the responder's returns."""
    n = len(seeds)
    rngs = [np.random.default_rng(list(s)) for s in seeds]
    rows = Rows.initial(cfg, n, seat)
    strategy.start(n)
    responder.start(seeds, seat)
    width = strategy.num_actions
    while True:
        cur = rows.current
        active = np.flatnonzero(cur != TERMINAL)
        if len(active) == 0:
            break
        uniforms = np.array([rngs[g].random() for g in active.tolist()])
        here = cur[active]
        probs = np.zeros((len(active), width))
        theirs = np.flatnonzero(here == 1 - seat)
        if len(theirs):
            probs[theirs] = strategy.matrix(rows.take(active[theirs]), live=True)
        moves = np.empty(len(active), dtype=np.int32)
        sample_moves(rows.states[active], cfg, probs, uniforms, moves)
        mine = np.flatnonzero(here == seat)
        if len(mine):
            sub = rows.take(active[mine])
            own = strategy.matrix(sub, live=True) if responder.wants_strategy else None
            moves[mine] = responder.act(sub, own, uniforms[mine])
        if (moves == NO_MOVE).any():
            raise RuntimeError("a game found no move (empty strategy row)")
        responder.observe(rows.take(active), moves)
        strategy.advance(active, rows.states[active], moves)
        stepped = rows.take(active)
        stepped.step(moves, cfg, strategy.memory, seat)
        _put(rows, active, stepped)
    out = np.empty(n)
    returns_of(rows.states, cfg, seat, out)
    responder.finish(np.arange(n), out)
    return out


def _put(rows: Rows, idx: np.ndarray, sub: Rows) -> None:
    rows.states[idx] = sub.states
    rows.xs[idx] = sub.xs
    rows.knows[idx] = sub.knows
    rows.drafts[idx] = sub.drafts
    rows.pubs[idx] = sub.pubs
    rows.owns[idx] = sub.owns


def rollout(
    cfg: np.ndarray, strategy: BoundStrategy, rows: Rows, seat: int, rng: np.random.Generator
) -> np.ndarray:
    """Both seats play the strategy (``live=False``) from ``rows`` to the end; ``seat``'s returns."""
    rows = rows.take(np.arange(len(rows)))
    width = strategy.num_actions
    while True:
        cur = rows.current
        active = np.flatnonzero(cur != TERMINAL)
        if len(active) == 0:
            break
        sub = rows.take(active)
        probs = np.zeros((len(active), width))
        players = np.flatnonzero(cur[active] >= 0)
        if len(players):
            probs[players] = strategy.matrix(sub.take(players), live=False)
        moves = np.empty(len(active), dtype=np.int32)
        sample_moves(sub.states, cfg, probs, rng.random(len(active)), moves)
        sub.step(moves, cfg, strategy.memory, seat)
        _put(rows, active, sub)
    out = np.empty(len(rows))
    returns_of(rows.states, cfg, seat, out)
    return out


def rollout_after(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    rows: Rows,
    moves: np.ndarray,
    seat: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Play ``moves[i]`` in row ``i``, then :func:`rollout`; a strategy with its own
    ``rollout_after`` (one that keeps a record per row) rolls out itself."""
    own = getattr(strategy, "rollout_after", None)
    if own is not None:
        return own(rows, moves, seat, rng)
    rows = rows.take(np.arange(len(rows)))
    rows.step(moves, cfg, strategy.memory, seat)
    return rollout(cfg, strategy, rows, seat, rng)


@dataclass(frozen=True)
class Mean:
    """A sampled mean with its standard error."""

    mean: float
    stderr: float
    n: int

    @classmethod
    def of(cls, values: np.ndarray) -> Mean:
        """Mean and standard error of ``values``."""
        n = len(values)
        if n == 0:
            return cls(0.0, math.inf, 0)
        sd = float(np.std(values, ddof=1)) if n > 1 else math.inf
        return cls(float(np.mean(values)), sd / math.sqrt(n), n)


# --- worker processes: games split into chunks, results put back in game order -----------

_WORKER: dict[str, object] = {}


def _init(cfg: np.ndarray, strategy: BoundStrategy, make: Callable[[], Responder]) -> None:
    _WORKER.update(cfg=cfg, strategy=strategy, make=make)


def _chunk(job: tuple[int, list[Seed]]) -> tuple[np.ndarray, object]:
    seat, seeds = job
    responder = _WORKER["make"]()  # type: ignore[operator]
    strategy = _WORKER["strategy"]
    returns = play_games(_WORKER["cfg"], strategy, seat, responder, seeds)  # type: ignore[arg-type]
    return returns, responder.payload()


def play_many(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    seat: int,
    make: Callable[[], Responder],
    seeds: Sequence[Seed],
    workers: int = 1,
    batch: int = 16,
) -> tuple[np.ndarray, list[object]]:
    """Play every seed's game in batches of ``batch`` (over ``workers`` processes).

    Returns the responder's returns in seed order and the payload of every
    batch's responder, in order (what it recorded or learnt).
    """
    if workers < 1:
        raise ValueError(f"workers: at least 1, got {workers}")
    if batch < 1:
        raise ValueError(f"batch: at least 1, got {batch}")
    jobs = [(seat, list(seeds[i : i + batch])) for i in range(0, len(seeds), batch)]
    if workers == 1 or len(jobs) == 1:
        _init(cfg, strategy, make)
        results = [_chunk(job) for job in jobs]
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers, initializer=_init, initargs=(cfg, strategy, make)) as pool:
            results = pool.map(_chunk, jobs, chunksize=1)
    returns = np.concatenate([r for r, _ in results]) if results else np.empty(0)
    return returns, [payload for _, payload in results]
