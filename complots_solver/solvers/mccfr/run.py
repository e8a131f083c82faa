"""A Monte Carlo CFR solve run: the common run driver iterates, checkpoints, resumes, saves.

Files in the run directory (:mod:`complots_solver.solvers.common.driver`):

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.driver import (
    Budget,
    LogSpec,
    RunDriver,
    RunProgress,
    reconcile,
)
from complots_solver.solvers.common.strategy_file import (
    KeyedStrategyFile,
    keyed_strategy,
    save_keyed_strategy,
)
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION, KEYS, key_after_history
from complots_solver.solvers.mccfr.parallel.solver import DEFAULT_SYNC_ITERATIONS, ParallelMCCFR
from complots_solver.solvers.mccfr.parallel.workers import (
    SPLIT_ITERATIONS,
    SPLIT_SEATS,
    SPLIT_SHARED,
    SPLITS,
)
from complots_solver.solvers.mccfr.policy_table import PolicyTable
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
    key: str = field(
        default="markov",
        metadata={
            "help": "information key: markov (default), perfect (perfect recall, small games), "
            "compact (about 10x fewer states, for the full game)",
            "choices": tuple(KEYS),
        },
    )
    iterations: int | None = None
    seconds: float | None = None
    averaging: str = field(
        default="simple",
        metadata={"help": "average-strategy weighting", "choices": tuple(AVERAGING)},
    )
    epsilon: float = field(default=DEFAULT_EPSILON, metadata={"help": "os-mccfr: exploration"})
    seed: int = 0
    workers: int = 1
    sync_iterations: int = field(
        default=DEFAULT_SYNC_ITERATIONS,
        metadata={
            "help": "several workers: iterations per worker between table merges; keep it a "
            "small share of the run (10000 suits the full draft game)"
        },
    )
    checkpoint_seconds: float = field(
        default=300.0, metadata={"help": "seconds between checkpoints"}
    )
    exact: bool = field(
        default=False,
        metadata={"help": "exact exploitability at the end (small 2-player games)"},
    )
    ray_address: str | None = field(
        default=None, metadata={"help": "run the workers as Ray actors ('local' starts one)"}
    )
    split: str = field(
        default=SPLIT_SEATS,
        metadata={
            "help": "several workers: seats (each owns some seats' traversals), iterations "
            "(whole iterations, deltas summed; no discounting, floor or baselines) or shared "
            "(os-mccfr, 2 workers reading each other's table)",
            "choices": tuple(SPLITS),
        },
    )
    round_epochs: int = field(
        default=1,
        metadata={"help": "split shared: epochs per pipelined round (a worker may run ahead)"},
    )
    regret_floor: bool = field(
        default=False,
        metadata={"help": "floor cumulative regrets at 0 (regret matching+, a heuristic)"},
    )
    baseline: float = field(
        default=0.0,
        metadata={"help": "os-mccfr: decay in (0, 1] of learned action baselines (VR-MCCFR)"},
    )
    discount_interval: int | None = field(
        default=None, metadata={"help": "DCFR discounting (alpha, beta, gamma) every N iterations"}
    )
    capacity: int = field(
        default=0,
        metadata={
            "help": "table slots allocated at the start (0: grow as needed); same results, "
            "fewer copies for a long run that knows its size"
        },
    )
    alpha: float = field(default=Discount.alpha, metadata={"help": "DCFR alpha"})
    beta: float = field(default=Discount.beta, metadata={"help": "DCFR beta"})
    gamma: float = field(default=Discount.gamma, metadata={"help": "DCFR gamma"})

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


# the progress a callback receives (``p.infostates``, ``p.node_visits`` read its figures)
MCCFRProgress = RunProgress


def _log_cells(row: Sequence[float]) -> list[object]:
    """A progress row as CSV cells: plain numbers."""
    return [int(row[0]), f"{row[1]:.3f}", int(row[2]), int(row[3])]


LOG = LogSpec(PROGRESS_FILE, LOG_COLUMNS, _log_cells)


class TablePolicy:
    """A keyed average strategy playable from live states (the ``Policy`` protocol).

    A state's key is recomputed from its history with the table's key scheme;
    states the table never saw play uniformly.
    """

    def __init__(self, table: PolicyTable, config: GameConfig, key: str) -> None:
        self.table = table
        self.key = key
        self._cfg = config.to_array()

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """Probability of each legal action of the player to move at ``state``."""
        history = np.asarray(list(state.history()), np.int64)
        key, _ = key_after_history(self._cfg, KEYS[self.key], history)
        legal = [int(a) for a in state.legal_actions()]
        row = self.table.row_of(int(key))
        if row >= 0:
            lo, hi = self.table.action_offsets[row], self.table.action_offsets[row + 1]
            actions = [int(a) for a in self.table.legal_actions[lo:hi]]
            if sorted(actions) == sorted(legal):
                return {a: float(p) for a, p in zip(actions, self.table.probs[lo:hi], strict=True)}
        return {a: 1.0 / len(legal) for a in legal}


class DrivenMCCFR(ParallelMCCFR):
    """MCCFR on one or several workers as the run driver drives it (``Solver``)."""

    def get_state(self, copy: bool = False) -> dict[str, np.ndarray]:
        """The checkpoint state; by reference (no copy of a large table) unless ``copy``."""
        return super().get_state(copy)

    def set_state(self, state: dict[str, np.ndarray], copy: bool = False) -> None:
        """Restore :meth:`get_state`; the arrays are taken over unless ``copy``."""
        super().set_state(state, copy)

    def policy(self) -> TablePolicy:
        """The average strategy, playable from live states."""
        master = self.master
        return TablePolicy(master.policy_table(), self.config, master.key)

    def evaluate(self) -> dict[str, float]:
        """Counts of the run so far (MCCFR has no exact measure without a compiled tree)."""
        return {
            "iterations": float(self.iteration),
            "node_visits": float(self.node_visits),
            "infostates": float(self.num_infostates),
        }


def peak_rss_bytes() -> int:
    """Peak resident memory of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * KIB


class MCCFRRun:
    """One MCCFR run directory: set up, then the run driver iterates, checkpoints and saves."""

    def __init__(
        self,
        out_dir: Path,
        config: GameConfig,
        settings: MCCFRSettings,
        preset: str | None = None,
        resume: bool = False,
        force: bool = False,
        given: Iterable[str] | None = None,
    ) -> None:
        """Set up the folder through the run driver, then the solver (restored on ``resume``).

        On ``resume`` the settings not in ``given`` (None: all are given) are the
        saved run's (the driver's reconciliation).
        """
        self.out_dir = Path(out_dir)
        self.config = config
        self.preset = preset
        self.kept: dict[str, Any] = {}
        self.record = {
            "game": config.game_string(),
            "preset": preset,
            "params": config.params(),
            "solver": {"kind": "mccfr", **asdict(settings)},
        }
        if resume and not force:
            solver, self.kept = reconcile(self.out_dir, self.record, given, RESUMABLE_CHANGES)
            settings = replace(settings, **{k: v for k, v in self.kept.items() if k != "kind"})
            self.record["solver"] = solver
        settings.validate()
        if settings.exact and config.players != 2:
            raise ValueError("exact exploitability needs players=2")
        self.settings = settings
        self.driver = RunDriver(
            self.out_dir, self.record, RESUMABLE_CHANGES, LOG, resume, force, streamed=True
        )
        self.resumed = self.driver.resumed
        self.solver = DrivenMCCFR(
            config,
            workers=settings.workers,
            sync_iterations=settings.sync_iterations,
            ray_address=settings.ray_address,
            split=settings.split,
            round_epochs=settings.round_epochs,
            **settings.solver_kwargs(),
        )
        self.driver.restore(self.solver)

    @property
    def iteration(self) -> int:
        """Iterations done so far (all sessions)."""
        return self.solver.iteration

    @property
    def log(self) -> list[tuple[float, ...]]:
        """The progress log (all sessions)."""
        return self.driver.log

    @property
    def elapsed(self) -> float:
        """Solving seconds (all sessions)."""
        return self.driver.elapsed

    def checkpoint(self) -> None:
        """Write the solver state and the progress log atomically."""
        self.driver.checkpoint(self.solver)

    def _chunk(self, rate: float) -> int | None:
        """Iterations for the next step with one worker (None: one epoch of several workers)."""
        if self.settings.workers > 1:
            return None
        return max(MIN_CHUNK, int(rate * CHUNK_SECONDS))

    def _measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The progress row after a step: the solver's own counts (no merge of the tables)."""
        visits, infostates = self.solver.node_visits, self.solver.num_infostates
        row = (self.iteration, self.driver.elapsed, visits, infostates)
        return row, {"infostates": infostates, "node_visits": visits}

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> KeyedStrategyFile:
        """Iterate until ``budget`` (None: the settings'); save and return the strategy."""
        s = self.settings
        if budget is None:
            budget = Budget(s.iterations, s.seconds)
        # compile the numba code on a scratch solver, so that wall time is solving time
        MCCFRSolver(self.config, **s.solver_kwargs()).run(WARMUP_ITERATIONS)
        try:
            self.driver.iterate(
                self.solver,
                replace(budget, checkpoint_seconds=s.checkpoint_seconds),
                chunk=self._chunk,
                measure=self._measure,
                progress=progress,
                # a step that raised (not Ctrl-C: steps finish first) may leave the workers'
                # tables mid-epoch: keep the last good checkpoint rather than overwrite it
                consistent=lambda: self.solver.consistent,
            )
        finally:
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
