"""A solve run of the exact CFR family: compile the tree, then the common run driver iterates.

Files in the run directory (:mod:`complots_solver.solvers.common.driver`):

- ``config.json``: the resolved game and solver settings (written first);
- ``checkpoint.npz``: solver state + convergence log, rewritten atomically
  every ``checkpoint_seconds`` and at the end (also on Ctrl-C);
- ``convergence.csv``: iteration, seconds, exploitability, NashConv, value;
- ``strategy.npz`` + ``meta.json``: the result (see ``strategy_file``).

CFR iterations are deterministic, so a run resumed from a checkpoint ends with
exactly the strategy an uninterrupted run produces.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.driver import (
    Budget,
    LogSpec,
    RunDriver,
    RunProgress,
    reconcile,
)
from complots_solver.solvers.common.faults import pause_point
from complots_solver.solvers.common.strategy_file import StrategyFile, save_strategy
from complots_solver.solvers.exact.best_response import exploitability_report
from complots_solver.solvers.exact.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.exact.policy import TreeStrategyPolicy
from complots_solver.solvers.exact.tree import Tree

CONVERGENCE_FILE = "convergence.csv"
LOG_COLUMNS = ("iteration", "seconds", "exploitability", "nash_conv", "game_value")
# settings that may change when a run is resumed (budgets, not the algorithm)
RESUMABLE_CHANGES = (
    "iterations", "seconds", "target_exploitability", "checkpoint_seconds", "eval_every",
)  # fmt: skip
INFOSET_ORDER = "complots_tree.compile_complots_tree (token trie, first visit in DFS order)"
DEFAULT_ITERATIONS = 1000


def _log_cells(row: Sequence[float]) -> list[object]:
    """A convergence row as CSV cells: plain numbers (a resumed log holds numpy scalars)."""
    return [int(row[0]), f"{row[1]:.3f}", *(repr(float(x)) for x in row[2:5])]


LOG = LogSpec(CONVERGENCE_FILE, LOG_COLUMNS, _log_cells)


@dataclass(frozen=True)
class SolveSettings:
    """Solver settings of a run (all recorded in config.json and meta.json)."""

    algorithm: str = "cfr+"
    iterations: int | None = DEFAULT_ITERATIONS
    target_exploitability: float = field(
        default=0.0, metadata={"help": "stop once the exact exploitability is at most this"}
    )
    eval_every: int = field(
        default=10, metadata={"help": "iterations between exact evaluations (logged, checked)"}
    )
    checkpoint_seconds: float = field(
        default=60.0, metadata={"help": "seconds between checkpoints"}
    )
    alternating: bool = field(
        default=True, metadata={"help": "alternating updates (false: simultaneous)"}
    )
    alpha: float | None = field(default=None, metadata={"help": "alpha (default 1.5)"})
    beta: float | None = field(default=None, metadata={"help": "beta (default 0)"})
    gamma: float | None = field(default=None, metadata={"help": "gamma (default 2)"})
    seed: int = 0
    seconds: float | None = None  # time budget of this session (None: iterations only)

    def validate(self) -> None:
        """Raise ValueError naming the bad setting."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}"
            )
        if self.iterations is None and self.seconds is None:
            raise ValueError("give an iteration budget (--iterations) or a time budget (--seconds)")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")
        if self.eval_every < 1:
            raise ValueError(f"eval_every must be >= 1, got {self.eval_every}")
        if self.checkpoint_seconds <= 0:
            raise ValueError(f"checkpoint_seconds must be > 0, got {self.checkpoint_seconds}")
        if self.target_exploitability < 0:
            raise ValueError(
                f"target_exploitability must be >= 0, got {self.target_exploitability}"
            )
        if self.algorithm != "dcfr" and any(
            v is not None for v in (self.alpha, self.beta, self.gamma)
        ):
            raise ValueError("alpha, beta and gamma apply to algorithm dcfr only")

    def solver_params(self) -> dict[str, Any]:
        """Keyword arguments for TreeSolver."""
        params: dict[str, Any] = {"algorithm": self.algorithm, "alternating": self.alternating}
        if self.algorithm == "dcfr":
            params.update(alpha=self.alpha, beta=self.beta, gamma=self.gamma)
        return params

    def budget(self) -> Budget:
        """The driver's budget."""
        return Budget(self.iterations, self.seconds, self.checkpoint_seconds)


# the progress a callback receives (``p.exploitability`` reads its figures)
Progress = RunProgress


class ExactSolver(TreeSolver):
    """A CFR-family solver on its compiled tree, as the run driver drives it (``Solver``)."""

    def step(self, iterations: int | None) -> int:
        """Run ``iterations`` more (None: one); return the count."""
        n = 1 if iterations is None else int(iterations)
        self.run(n)
        return n

    def policy(self) -> TreeStrategyPolicy:
        """The average strategy, playable from live states."""
        return TreeStrategyPolicy(self.tree, self.average_strategy())

    def evaluate(self) -> dict[str, float]:
        """Exact exploitability, NashConv and game value of the average strategy."""
        report = exploitability_report(self.tree, self.average_strategy())
        return {
            "exploitability": report.exploitability,
            "nash_conv": report.nash_conv,
            "game_value": report.game_value,
        }


def compile_tree(config: GameConfig) -> Tree:
    """The compiled perfect-recall tree of a 2-player configuration."""
    if config.players != 2:
        raise ValueError(f"exact solving needs players=2, got players={config.players}")
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree

    pause_point("tree-build")
    return compile_complots_tree(config)


class SolveRun:
    """One run directory of an exact solver: set up, then the run driver iterates and saves."""

    def __init__(
        self,
        out_dir: Path,
        config: GameConfig,
        settings: SolveSettings,
        preset: str | None = None,
        resume: bool = False,
        tree: Tree | None = None,
        force: bool = False,
        given: Iterable[str] | None = None,
    ) -> None:
        """Set up the folder through the run driver, then the tree and the solver.

        On ``resume`` the settings not in ``given`` (None: all are given) are the
        saved run's (the driver's reconciliation).
        """
        started = time.perf_counter()
        self.out_dir = Path(out_dir)
        self.config = config
        self.preset = preset
        self.kept: dict[str, Any] = {}
        self.record = {
            "game": config.game_string(),
            "preset": preset,
            "params": config.params(),
            "solver": asdict(settings),
        }
        if resume and not force:
            solver, self.kept = reconcile(self.out_dir, self.record, given, RESUMABLE_CHANGES)
            settings = replace(settings, **self.kept)
            self.record["solver"] = solver
        settings.validate()
        self.settings = settings
        self.driver = RunDriver(self.out_dir, self.record, RESUMABLE_CHANGES, LOG, resume, force)
        self.resumed = self.driver.resumed
        self.tree = tree if tree is not None else compile_tree(config)
        self.solver = ExactSolver(self.tree, **settings.solver_params())
        self.driver.restore(self.solver)
        self.setup_seconds = time.perf_counter() - started
        self.session_seconds = 0.0  # wall seconds of the last run() loop
        self.session_solving = 0.0  # solving seconds of the last run() loop

    @property
    def iteration(self) -> int:
        """Iterations done so far (all sessions)."""
        return self.solver.iteration

    @property
    def log(self) -> list[tuple[float, ...]]:
        """The convergence log (all sessions)."""
        return self.driver.log

    @property
    def elapsed(self) -> float:
        """Solving seconds (all sessions)."""
        return self.driver.elapsed

    def checkpoint(self) -> None:
        """Write the solver state and the convergence log atomically."""
        self.driver.checkpoint(self.solver)

    def _measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The convergence row after a chunk: an exact evaluation of the average strategy."""
        figures = self.solver.evaluate()
        row = (
            self.solver.iteration,
            self.driver.elapsed,
            figures["exploitability"],
            figures["nash_conv"],
            figures["game_value"],
        )
        return row, figures

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> StrategyFile:
        """Iterate until ``budget`` (None: the settings') or the target exploitability; save
        and return the strategy."""
        s = self.settings
        before, start = self.elapsed, time.perf_counter()
        self.driver.iterate(
            self.solver,
            s.budget()
            if budget is None
            else replace(budget, checkpoint_seconds=s.checkpoint_seconds),
            chunk=lambda rate: s.eval_every,
            measure=self._measure,
            converged=lambda row: row[2] <= s.target_exploitability,
            progress=progress,
        )
        self.session_solving = self.elapsed - before
        strategy = self.save()
        self.session_seconds = time.perf_counter() - start
        return strategy

    def save(self) -> StrategyFile:
        """Write strategy.npz and meta.json for the current average strategy."""
        tree = self.tree
        avg = self.solver.average_strategy()
        report = exploitability_report(tree, avg)
        strategy = StrategyFile(
            average=avg,
            current=self.solver.current_strategy(),
            action_offsets=tree.action_offsets,
            legal_actions=tree.legal_actions,
            infoset_player=tree.infoset_player,
            meta={
                "game": self.record["game"],
                "preset": self.preset,
                "algorithm": self.settings.algorithm,
                "parameters": {
                    "alternating": self.solver.alternating,
                    "alpha": self.solver.alpha,
                    "beta": self.solver.beta,
                    "gamma": self.solver.gamma,
                },
                "iterations": self.solver.iteration,
                "exploitability": report.exploitability,
                "exploitability_method": "exact best response on the full compiled tree",
                "nash_conv": report.nash_conv,
                "best_response_values": list(report.best_response_values),
                "game_value": report.game_value,
                "seed": self.settings.seed,
                "wall_time_seconds": self.elapsed,
                "tree": {"nodes": tree.num_nodes, "edges": tree.num_edges},
                "infoset_order": INFOSET_ORDER,
            },
        )
        return self.driver.save(lambda out: _saved(out, strategy))


def _saved(out: Path, strategy: StrategyFile) -> StrategyFile:
    """Save ``strategy`` into ``out``; return it (its meta completed)."""
    save_strategy(out, strategy)
    return strategy
