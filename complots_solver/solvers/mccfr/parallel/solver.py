"""MCCFR on several workers (threads or Ray actors), synchronised per epoch and deterministic.

With ``W`` workers, worker ``w`` traverses seats ``w, w + W, ...`` and owns
their regrets and strategy sums (split ``seats``). In an *epoch* every worker
runs ``sync_iterations`` iterations on its own copy of the table with its own
generator, stamping the rows it touches; the touched rows then travel as
packets (:mod:`.packets`) and every table takes the values their owner wrote.
Split ``iterations`` gives each worker whole iterations and sums their deltas
(no discounting, regret floor or baselines). Split ``shared`` (outcome
sampling, two threads) keeps each worker's seats in its own table, read by the
other through a published copy of its regrets, so nothing is replicated or
sent; ``round_epochs > 1`` then lets a worker run one epoch ahead of the other.
Within an epoch a worker sees the other seats as they were at its start.
Runs are deterministic for a worker count, split and ``sync_iterations``, and
resume bit-exactly; with one worker this is exactly :class:`MCCFRSolver`.
Design notes and measurements:
``reports/mccfr-runs.md``, "Design notes moved from module docstrings".
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.pool import init_ray
from complots_solver.solvers.mccfr.parallel.packets import upsert
from complots_solver.solvers.mccfr.parallel.workers import (
    SPLIT_ITERATIONS,
    SPLIT_SEATS,
    SPLIT_SHARED,
    SPLITS,
    MCCFRWorker,
    Relay,
    ownership,
    seat_mask,
)
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import CT_CONFLICTS, CT_ITER, CT_VISITS

DEFAULT_SYNC_ITERATIONS = 1000


class ParallelMCCFR:
    """MCCFR on ``workers`` cores (threads) or Ray actors; see the module docstring."""

    def __init__(
        self,
        config: GameConfig,
        workers: int = 1,
        sync_iterations: int = DEFAULT_SYNC_ITERATIONS,
        ray_address: str | None = None,
        split: str = SPLIT_SEATS,
        round_epochs: int = 1,
        **solver_kwargs: Any,
    ) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        if split == SPLIT_SHARED and (ray_address is not None or workers != 2):
            raise ValueError("split 'shared' runs exactly 2 workers, as threads (no --ray)")
        if split in (SPLIT_SEATS, SPLIT_SHARED) and not 1 <= workers <= config.players:
            raise ValueError(f"workers must be from 1 to players ({config.players}), got {workers}")
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if sync_iterations < 1:
            raise ValueError(f"sync_iterations must be >= 1, got {sync_iterations}")
        if round_epochs < 1 or (round_epochs > 1 and split != SPLIT_SHARED):
            raise ValueError(
                f"round_epochs must be >= 1, and 1 unless split is 'shared', got {round_epochs}"
            )
        self.config = config
        self.workers = workers
        self.sync_iterations = sync_iterations
        self.ray_address = ray_address
        self.split = split
        self.round_epochs = round_epochs
        self._master = MCCFRSolver(config, **solver_kwargs)
        if split == SPLIT_ITERATIONS and (
            self._master.discount is not None
            or self._master.regret_floor
            or self._master.baseline_decay > 0.0
        ):
            raise ValueError(
                "split 'iterations' sums the workers' deltas: it does not support discounting, "
                "a regret floor or baselines (use split 'seats')"
            )
        if split == SPLIT_SHARED and (
            self._master.algorithm != "os"
            or self._master.discount is not None
            or self._master.baseline_decay > 0.0
        ):
            raise ValueError(
                "split 'shared' needs algorithm 'os' without discounting or baselines "
                "(use split 'seats')"
            )
        self._worker_kwargs = {
            k: v for k, v in solver_kwargs.items() if k not in ("seed", "capacity")
        }
        self._owners = ownership(config.players, workers, self._master.algorithm)
        self._pool: ThreadPoolExecutor | None = None
        self._ray: Any = None
        self._workers: list[Any] = []
        self._visits = 0
        self._conflicts = 0
        self._fresh = True  # whether _master holds worker 0's current table
        # False while a step runs, and after a step that raised: the workers' tables
        # may then be mid-epoch, and must not be checkpointed
        self.consistent = True
        self._interrupted = False  # Ctrl-C arrived while waiting for the workers
        # every worker's seconds in the walk, summed over epochs, and the slowest
        # worker's per epoch (the others wait for it): see `balance`
        self.walk_seconds = 0.0
        self.slowest_walk_seconds = 0.0
        if workers > 1:
            self._start_workers()

    # -- workers -------------------------------------------------------------------
    def _start_workers(self) -> None:
        """Create the workers (threads' objects or Ray actors) holding copies of the master."""
        children = np.random.SeedSequence(self._master.seed).spawn(self.workers)
        params = self.config.params()
        if self.split == SPLIT_ITERATIONS:
            everyone = seat_mask(list(range(self.config.players)))
            args = [
                (params, self._worker_kwargs, child, [], everyone, self.split, w, self.workers)
                for w, child in enumerate(children)
            ]
        else:
            args = [
                (
                    params,
                    self._worker_kwargs,
                    child,
                    seats,
                    regret_seats | ssum_seats,
                    self.split,
                    w,
                    self.workers,
                )
                for w, (child, (seats, regret_seats, ssum_seats)) in enumerate(
                    zip(children, self._owners, strict=True)
                )
            ]
        if self.ray_address is not None:
            ray = init_ray(self.ray_address)
            self._ray = ray
            actor = ray.remote(MCCFRWorker)
            self._workers = [actor.remote(*a) for a in args]
        else:
            self._pool = ThreadPoolExecutor(max_workers=self.workers)
            self._workers = [MCCFRWorker(*a) for a in args]
        self._call_all("load", [(self._master.table(),)] * self.workers)
        self._share()

    def _share(self, method: str = "publish", args: tuple[Any, ...] = ()) -> None:
        """Split "shared": every worker publishes (``method``), then reads the other's view."""
        if self.split != SPLIT_SHARED:
            return
        views = self._call_all(method, [args] * self.workers)
        self._call_all("share_with", [(views[1 - w],) for w in range(self.workers)])

    def _call_all(self, method: str, args: list[tuple[Any, ...]]) -> list[Any]:
        """Call ``method`` on every worker in parallel with per-worker arguments; wait for all."""
        if self._ray is not None:
            futures = [
                getattr(w, method).remote(*a) for w, a in zip(self._workers, args, strict=True)
            ]
            try:
                return self._ray.get(futures)
            except KeyboardInterrupt:  # let the workers finish; step() stops after the exchange
                self._interrupted = True
                return self._ray.get(futures)
        assert self._pool is not None
        jobs = [
            self._pool.submit(getattr(w, method), *a)
            for w, a in zip(self._workers, args, strict=True)
        ]
        try:
            return [job.result() for job in jobs]
        except KeyboardInterrupt:  # as above: a worker thread cannot be stopped mid-epoch
            self._interrupted = True
            return [job.result() for job in jobs]

    @property
    def iteration(self) -> int:
        """Iterations done (cheap: no merge of the workers' tables)."""
        return self._master.iteration

    @property
    def node_visits(self) -> int:
        """Node visits so far (cheap: no merge of the workers' tables)."""
        return self._master.node_visits if self._fresh else self._visits

    @property
    def num_infostates(self) -> int:
        """Information states in the table (cheap: no merge of the workers' tables)."""
        if self._fresh:
            return self._master.num_infostates
        if self.split == SPLIT_SHARED:  # each worker holds only its own seats' rows
            return sum(self._call_all("num_infostates", [()] * self.workers))
        if self._ray is not None:
            return int(self._ray.get(self._workers[0].num_infostates.remote()))
        return self._workers[0].num_infostates()

    @property
    def master(self) -> MCCFRSolver:
        """The full table: worker 0's (all agree between epochs), or split "shared" both merged."""
        if not self._fresh:
            if self._ray is not None:
                table = self._ray.get(self._workers[0].table.remote())
            else:
                table = self._workers[0].table()
            iteration = self._master.iteration
            shared = self.split == SPLIT_SHARED
            self._master.load_table(table, copy=shared)  # shared: merged below, in a copy
            if shared:
                _, regret_seats, ssum_seats = self._owners[1]
                upsert(self._master, self._workers[1].owned_packet(), regret_seats, ssum_seats)
            self._master.counters = self._master.counters.copy()  # the worker keeps its own
            self._master.counters[CT_ITER] = iteration
            self._master.counters[CT_VISITS] = self._visits
            self._master.counters[CT_CONFLICTS] = self._conflicts
            self._fresh = True
        return self._master

    # -- running -------------------------------------------------------------------
    @property
    def epoch_iterations(self) -> int:
        """Iterations per call of :meth:`step` (one epoch, or any count with one worker)."""
        if self.split == SPLIT_ITERATIONS and self.workers > 1:
            return self.sync_iterations * self.workers
        return self.sync_iterations * self.round_epochs

    def step(self, iterations: int | None = None) -> int:
        """Run one epoch (or ``iterations`` with one worker); return the iterations done."""
        if self.workers == 1:
            n = self.sync_iterations if iterations is None else iterations
            self._master.run(n)
            return n
        if self._fresh:  # counters continue from the master's
            self._visits = self._master.node_visits
            self._conflicts = self._master.key_conflicts
            # the workers hold the live table: a merged copy (or one referring to arrays
            # the workers will outgrow) would only hold memory until the next merge
            self._master.drop_table()
            self._fresh = False
        self.consistent = False
        self._step_workers(self._master.iteration + 1)  # a stamp unique per epoch
        self._master.counters[CT_ITER] += self.epoch_iterations
        self.consistent = True
        if self._interrupted:  # the step is whole: now stop
            self._interrupted = False
            raise KeyboardInterrupt
        return self.epoch_iterations

    def _step_workers(self, stamp: int) -> None:
        """One epoch (or round) of every worker and its exchange."""
        if self.round_epochs > 1:
            relay = Relay(self.workers)
            args = [
                (self._workers[1 - w], relay, stamp, self.round_epochs, self.sync_iterations)
                for w in range(self.workers)
            ]
            self._count(self._call_all("run_round", args))
            self._share("finish_round", (relay,))
            return
        packets = self._call_all("run_epoch", [(stamp, self.sync_iterations, stamp)] * self.workers)
        self._count(packets)
        if self.split == SPLIT_SHARED:
            self._share()
            return
        if self.split == SPLIT_ITERATIONS:
            every = [(packet, 0, 0) for packet in packets]  # deltas, in worker order
            exchange = [every] * self.workers
        else:
            exchange = [
                [
                    (packet, regret_seats, ssum_seats)
                    for v, (packet, (_, regret_seats, ssum_seats)) in enumerate(
                        zip(packets, self._owners, strict=True)
                    )
                    if v != w
                ]
                for w in range(self.workers)
            ]
        self._call_all("apply", [(e,) for e in exchange])

    def _count(self, stats: list[dict[str, Any]]) -> None:
        """Add the workers' visits, conflicts and walk seconds of an epoch (or round)."""
        for s in stats:
            self._visits += int(s["visits"])
            self._conflicts += int(s["conflicts"])
        walks = [float(s["seconds"]) for s in stats]
        self.walk_seconds += sum(walks)
        self.slowest_walk_seconds += max(walks)

    @property
    def balance(self) -> float:
        """Mean over workers of their walk time over the slowest worker's, summed over epochs.

        1.0 when every worker of every epoch took as long as the slowest; the
        rest of the wall time the workers wait at the epoch's end. Equal work
        per worker does not make it 1.0 when the cores run at different speeds.
        With rounds (``round_epochs > 1``) the sums are per round, where the
        workers meet.
        """
        if self.slowest_walk_seconds == 0.0:
            return 1.0
        return self.walk_seconds / (self.workers * self.slowest_walk_seconds)

    def run(self, iterations: int) -> None:
        """Run at least ``iterations`` iterations (whole epochs with several workers)."""
        done = 0
        while done < iterations:
            done += self.step(iterations - done if self.workers == 1 else None)

    def close(self) -> None:
        """Stop the thread pool or the Ray actors (Ray itself stays up: it may be shared)."""
        if self._workers:
            self.master  # noqa: B018  (keep the final table once the workers are gone)
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self._ray is not None:
            for w in self._workers:
                self._ray.kill(w)
            self._ray = None
        self._workers = []

    # -- state ---------------------------------------------------------------------
    def get_state(self, copy: bool = True) -> dict[str, np.ndarray]:
        """Full table, counters, the workers' generator states and the parallel settings."""
        state = self.master.get_state(copy)
        rngs = self._call_all("get_rng_state", [()] * self.workers) if self._workers else []
        state["worker_rng_states"] = np.array(json.dumps(rngs))
        state["parallel"] = np.array(json.dumps(self._parallel_settings()))
        return state

    def set_state(self, state: dict[str, np.ndarray], copy: bool = True) -> None:
        """Restore :meth:`get_state` (worker count and sync interval must match)."""
        saved = json.loads(str(state["parallel"]))
        if saved != self._parallel_settings():
            raise ValueError(
                f"checkpoint parallel settings {saved} differ from {self._parallel_settings()}"
            )
        self._master.set_state(state, copy)
        self._fresh = True
        if self._workers:
            rngs = json.loads(str(state["worker_rng_states"]))
            self._call_all("load", [(self._master.table(),)] * self.workers)
            self._call_all("set_rng_state", [(r,) for r in rngs])
            self._share()  # the workers read each other's new tables

    def _parallel_settings(self) -> dict[str, int | str]:
        """Settings that change the iterates (the backend does not)."""
        settings: dict[str, int | str] = {
            "workers": self.workers,
            "sync_iterations": self.sync_iterations,
        }
        if self.split != SPLIT_SEATS:  # older checkpoints (seats only) stay loadable
            settings["split"] = self.split
        if self.round_epochs != 1:  # ... and those from before rounds
            settings["round_epochs"] = self.round_epochs
        return settings

    def nbytes(self) -> int:
        """Bytes of every worker's table (or the one table with one worker)."""
        if not self._workers:
            return self._master.nbytes()
        return sum(self._call_all("nbytes", [()] * self.workers))
