"""A Monte Carlo CFR solve run: iterate, checkpoint, resume, save a keyed strategy.

Files in the run directory:

- ``config.json``: the resolved game and solver settings (written first);
- ``checkpoint.npz``: solver state (tables, counters, generator states) and
  the progress log, rewritten atomically every ``checkpoint_seconds``, at
  the end and on Ctrl-C;
- ``progress.csv``: iteration, seconds, node visits, information states;
- ``strategy.npz`` + ``meta.json``: the keyed average strategy
  (:mod:`complots_solver.solvers.common.strategy_file`, keyed variant).

Iteration chunks never change the iterates (one worker) and epochs are fixed
by ``sync_iterations`` (several workers), so a resumed run that reaches the
same iteration count holds exactly the tables of an uninterrupted one.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_json
from complots_solver.solvers.common.faults import pause_point
from complots_solver.solvers.common.rundir import (
    CHECKPOINT_FILE,
    CONFIG_FILE,
    Checkpoint,
    check_run_dir,
    clean_run_dir,
    read_checkpoint,
    write_checkpoint,
    write_csv,
)
from complots_solver.solvers.common.strategy_file import (
    KeyedStrategyFile,
    keyed_strategy,
    save_keyed_strategy,
)
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION, KEYS
from complots_solver.solvers.mccfr.parallel.solver import DEFAULT_SYNC_ITERATIONS, ParallelMCCFR
from complots_solver.solvers.mccfr.parallel.workers import (
    SPLIT_ITERATIONS,
    SPLIT_SEATS,
    SPLIT_SHARED,
    SPLITS,
)
from complots_solver.solvers.mccfr.solver import (
    ALGORITHMS,
    AVERAGING,
    DEFAULT_EPSILON,
    Discount,
    MCCFRSolver,
)

PROGRESS_FILE = "progress.csv"
LOG_COLUMNS = ("iteration", "seconds", "node_visits", "infostates")
CHUNK_SECONDS = 1.0  # one worker: aim for progress updates about this often
MIN_CHUNK = 1
WARMUP_ITERATIONS = 1
KIB = 1024
# settings that may change when a run is resumed (budgets, not the algorithm)
# a resumed run loads its table: the starting capacity no longer matters (and never
# changes results, only how often the table is copied to grow)
RESUMABLE_CHANGES = (
    "iterations", "seconds", "checkpoint_seconds", "exact", "ray_address", "capacity",
)  # fmt: skip


@dataclass(frozen=True)
class MCCFRSettings:
    """Settings of a Monte Carlo CFR run (recorded in config.json and meta.json)."""

    algorithm: str = "os"
    key: str = "markov"
    iterations: int | None = None
    seconds: float | None = None
    averaging: str = "simple"
    epsilon: float = DEFAULT_EPSILON
    seed: int = 0
    workers: int = 1
    sync_iterations: int = DEFAULT_SYNC_ITERATIONS
    checkpoint_seconds: float = 300.0
    exact: bool = False
    ray_address: str | None = None
    split: str = SPLIT_SEATS  # several workers: share out seats, or whole iterations
    round_epochs: int = 1  # split "shared": epochs per pipelined round (ParallelMCCFR)
    regret_floor: bool = False
    baseline: float = 0.0  # os: decay of learned action baselines (VR-MCCFR); 0 = none
    discount_interval: int | None = None  # DCFR discounting every this many iterations
    capacity: int = 0  # table slots allocated at the start (0: the default, grown as needed)
    alpha: float = Discount.alpha
    beta: float = Discount.beta
    gamma: float = Discount.gamma

    def discount(self) -> Discount | None:
        """The DCFR discount these settings ask for, if any."""
        if self.discount_interval is None:
            return None
        return Discount(self.alpha, self.beta, self.gamma, self.discount_interval)

    def validate(self) -> None:
        """Raise ValueError naming the bad setting."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}"
            )
        if self.key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, got {self.key!r}")
        if self.averaging not in AVERAGING:
            raise ValueError(f"averaging must be one of {', '.join(AVERAGING)}")
        if self.iterations is None and self.seconds is None:
            raise ValueError("give an iteration budget (--iterations) or a time budget (--seconds)")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.sync_iterations < 1:
            raise ValueError(f"sync_iterations must be >= 1, got {self.sync_iterations}")
        if self.ray_address is not None and self.workers < 2:
            raise ValueError("--ray runs the workers as Ray actors: give --workers >= 2")
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")
        if self.split == SPLIT_ITERATIONS and (
            self.discount_interval is not None or self.regret_floor or self.baseline > 0.0
        ):
            raise ValueError(
                "split 'iterations' sums the workers' deltas: it does not support "
                "--discount-interval, --regret-floor or --baseline (use split 'seats')"
            )
        if self.split == SPLIT_SHARED and (
            self.algorithm != "os"
            or self.workers != 2
            or self.ray_address is not None
            or self.discount_interval is not None
            or self.baseline > 0.0
        ):
            raise ValueError(
                "split 'shared' runs os-mccfr on exactly 2 workers as threads, without "
                "--ray, --discount-interval or --baseline"
            )
        if self.round_epochs < 1 or (self.round_epochs > 1 and self.split != SPLIT_SHARED):
            raise ValueError(
                f"round_epochs must be >= 1, and 1 unless split is 'shared', got "
                f"{self.round_epochs}"
            )
        if self.capacity < 0:
            raise ValueError(
                f"capacity must be >= 0 (0: grow from the default), got {self.capacity}"
            )
        if self.checkpoint_seconds <= 0:
            raise ValueError(f"checkpoint_seconds must be > 0, got {self.checkpoint_seconds}")
        if not 0.0 <= self.baseline <= 1.0:
            raise ValueError(f"baseline must be in [0, 1] (0: none), got {self.baseline}")
        if self.baseline > 0.0 and self.algorithm != "os":
            raise ValueError("baseline applies to os-mccfr only")
        if self.discount_interval is not None and self.discount_interval < 1:
            raise ValueError(f"discount_interval must be >= 1, got {self.discount_interval}")

    def solver_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of MCCFRSolver."""
        return {
            "algorithm": self.algorithm,
            "key": self.key,
            "averaging": self.averaging,
            "epsilon": self.epsilon,
            "seed": self.seed,
            "discount": self.discount(),
            "regret_floor": self.regret_floor,
            "baseline": self.baseline,
            **({"capacity": self.capacity} if self.capacity > 0 else {}),
        }


@dataclass
class MCCFRProgress:
    """What a progress callback is told after each chunk or epoch."""

    iteration: int
    target_iterations: int | None
    seconds: float
    iterations_per_second: float
    infostates: int
    node_visits: int


def peak_rss_bytes() -> int:
    """Peak resident memory of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * KIB


class MCCFRRun:
    """One MCCFR run directory: start fresh or resume, iterate, checkpoint, save."""

    def __init__(
        self,
        out_dir: Path,
        config: GameConfig,
        settings: MCCFRSettings,
        preset: str | None = None,
        resume: bool = False,
        force: bool = False,
    ) -> None:
        settings.validate()
        if settings.exact and config.players != 2:
            raise ValueError("exact exploitability needs players=2")
        self.out_dir = Path(out_dir)
        self.config = config
        self.settings = settings
        self.preset = preset
        self.record = {
            "game": config.game_string(),
            "preset": preset,
            "params": config.params(),
            "solver": {"kind": "mccfr", **asdict(settings)},
        }
        # False when resuming a run that stopped before its first checkpoint: start afresh
        self.resumed = check_run_dir(self.out_dir, self.record, resume, force, RESUMABLE_CHANGES)
        clean_run_dir(self.out_dir)
        # before the long set-up, so that a run killed during it can be resumed
        atomic_write_json(self.out_dir / CONFIG_FILE, self.record)
        self.solver = ParallelMCCFR(
            config,
            workers=settings.workers,
            sync_iterations=settings.sync_iterations,
            ray_address=settings.ray_address,
            split=settings.split,
            round_epochs=settings.round_epochs,
            **settings.solver_kwargs(),
        )
        self.log: list[tuple[float, ...]] = []
        self.elapsed = 0.0
        self._checkpointed = -1  # iteration of the last checkpoint written
        if self.resumed:
            self._load_checkpoint()

    @property
    def iteration(self) -> int:
        """Iterations done so far (all sessions)."""
        return self.solver.iteration

    def _load_checkpoint(self) -> None:
        saved = read_checkpoint(self.out_dir / CHECKPOINT_FILE)
        self.elapsed, self.log = saved.elapsed, saved.log
        self.solver.set_state(saved.state, copy=False)
        self._checkpointed = self.iteration

    def checkpoint(self) -> None:
        """Write the solver state and the progress log atomically."""
        saved = Checkpoint(self.solver.get_state(copy=False), self.elapsed, self.log)
        write_checkpoint(self.out_dir / CHECKPOINT_FILE, saved, len(LOG_COLUMNS), streamed=True)
        self._checkpointed = self.iteration
        write_csv(
            self.out_dir / PROGRESS_FILE,
            LOG_COLUMNS,
            ([int(r[0]), f"{r[1]:.3f}", int(r[2]), int(r[3])] for r in self.log),
        )

    def _next_chunk(self, rate: float, target: int | None) -> int | None:
        """Iterations for the next step with one worker (None: one epoch of several workers)."""
        if self.settings.workers > 1:
            return None
        chunk = max(MIN_CHUNK, int(rate * CHUNK_SECONDS))
        if target is not None:
            chunk = min(chunk, target - self.iteration)
        return chunk

    def run(self, progress: Callable[[MCCFRProgress], None] | None = None) -> KeyedStrategyFile:
        """Iterate until the iteration or time budget; save and return the strategy."""
        s = self.settings
        target = s.iterations
        # compile the numba code on a scratch solver, so that wall time is solving time
        MCCFRSolver(self.config, **s.solver_kwargs()).run(WARMUP_ITERATIONS)
        session_start = time.perf_counter()
        last_ckpt = session_start
        rate = 1.0
        try:
            while target is None or self.iteration < target:
                if s.seconds is not None and time.perf_counter() - session_start >= s.seconds:
                    break
                start = time.perf_counter()
                done = self.solver.step(self._next_chunk(rate, target))
                spent = time.perf_counter() - start
                self.elapsed += spent
                rate = done / max(spent, 1e-9)
                # the solver's own counts: its master would merge the workers' tables
                visits, infostates = self.solver.node_visits, self.solver.num_infostates
                self.log.append((self.iteration, self.elapsed, visits, infostates))
                pause_point("iterations")
                if progress:
                    progress(
                        MCCFRProgress(
                            self.iteration, target, self.elapsed, rate, infostates, visits
                        )
                    )
                if time.perf_counter() - last_ckpt >= s.checkpoint_seconds:
                    self.checkpoint()
                    last_ckpt = time.perf_counter()
        finally:
            # a step that raised (not Ctrl-C: steps finish first) may leave the workers'
            # tables mid-epoch: keep the last good checkpoint rather than overwrite it
            if self._checkpointed != self.iteration and self.solver.consistent:
                self.checkpoint()
            self.solver.close()
        return self.save()

    def exact_report(self) -> dict[str, Any]:
        """Exact exploitability of the average strategy on the compiled tree (2 players)."""
        from complots_solver.solvers.exact.best_response import exploitability_report
        from complots_solver.solvers.exact.run import compile_tree

        tree = compile_tree(self.config)
        strategy, found, missing = self.solver.master.tree_strategy(tree)
        report = exploitability_report(tree, strategy)
        return {
            "exploitability": report.exploitability,
            "nash_conv": report.nash_conv,
            "best_response_values": list(report.best_response_values),
            "game_value": report.game_value,
            "tree_infosets_found": found,
            "tree_infosets_missing": missing,
        }

    def save(self) -> KeyedStrategyFile:
        """Write strategy.npz and meta.json for the current average strategy."""
        master = self.solver.master
        exact = self.exact_report() if self.settings.exact else None
        discount = self.settings.discount()
        per_player = master.infostates_per_player()
        meta = {
            "game": self.record["game"],
            "preset": self.preset,
            "algorithm": f"{self.settings.algorithm}-mccfr",
            "parameters": {
                "averaging": self.settings.averaging,
                "epsilon": self.settings.epsilon if self.settings.algorithm == "os" else None,
                "regret_floor": self.settings.regret_floor,
                "baseline": self.settings.baseline if self.settings.algorithm == "os" else None,
                "discount": None if discount is None else asdict(discount),
                "workers": self.settings.workers,
                "sync_iterations": self.settings.sync_iterations
                if self.settings.workers > 1
                else None,
                "split": self.settings.split if self.settings.workers > 1 else None,
                "round_epochs": self.settings.round_epochs if self.settings.workers > 1 else None,
            },
            "key_scheme": {"name": self.settings.key, "version": KEY_SCHEME_VERSION},
            "iterations": master.iteration,
            "node_visits": master.node_visits,
            "wall_time_seconds": self.elapsed,
            "node_visits_per_second": master.node_visits / max(self.elapsed, 1e-9),
            "seed": self.settings.seed,
            "information_states": {
                "total": master.num_infostates,
                "per_player": [int(x) for x in per_player],
                "key_conflicts": master.key_conflicts,
            },
            "bytes_per_infostate": master.bytes_per_infostate(),
            "table_bytes_in_use": master.nbytes(),  # index whole, rows and pool as used
            "peak_rss_bytes": peak_rss_bytes(),
            "exploitability": None if exact is None else exact["exploitability"],
            "exploitability_method": "exact best response on the full compiled tree"
            if exact is not None
            else "not computed (no compiled tree; see exploitability_bound)",
            "exact": exact,
            "exploitability_bound": None,
        }
        strategy = keyed_strategy(master.average_table(), meta)
        save_keyed_strategy(self.out_dir, strategy)
        return strategy
