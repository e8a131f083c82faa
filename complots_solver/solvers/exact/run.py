"""A solve run: compile the tree, iterate, measure, checkpoint, resume, save.

Files in the run directory:

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
from complots_solver.solvers.common.strategy_file import StrategyFile, save_strategy
from complots_solver.solvers.exact.best_response import exploitability_report
from complots_solver.solvers.exact.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.exact.tree import Tree

CONVERGENCE_FILE = "convergence.csv"
LOG_COLUMNS = ("iteration", "seconds", "exploitability", "nash_conv", "game_value")
# settings that may change when a run is resumed (budgets, not the algorithm)
RESUMABLE_CHANGES = ("iterations", "target_exploitability", "checkpoint_seconds", "eval_every")
INFOSET_ORDER = "complots_tree.compile_complots_tree (token trie, first visit in DFS order)"


@dataclass(frozen=True)
class SolveSettings:
    """Solver settings of a run (all recorded in config.json and meta.json)."""

    algorithm: str = "cfr+"
    iterations: int = 1000
    target_exploitability: float = 0.0
    eval_every: int = 10
    checkpoint_seconds: float = 60.0
    alternating: bool = True
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the bad setting."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}"
            )
        if self.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.eval_every < 1:
            raise ValueError(f"eval_every must be >= 1, got {self.eval_every}")
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


@dataclass
class Progress:
    """What a progress callback is told after each chunk of iterations."""

    iteration: int
    target_iterations: int
    seconds: float
    exploitability: float
    iterations_per_second: float


def compile_tree(config: GameConfig) -> Tree:
    """The compiled perfect-recall tree of a 2-player configuration."""
    if config.players != 2:
        raise ValueError(f"exact solving needs players=2, got players={config.players}")
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree

    pause_point("tree-build")
    return compile_complots_tree(config)


class SolveRun:
    """One run directory: start fresh or resume, iterate, checkpoint, save."""

    def __init__(
        self,
        out_dir: Path,
        config: GameConfig,
        settings: SolveSettings,
        preset: str | None = None,
        resume: bool = False,
        tree: Tree | None = None,
        force: bool = False,
    ) -> None:
        settings.validate()
        self.out_dir = Path(out_dir)
        self.config = config
        self.settings = settings
        self.preset = preset
        self.record = {
            "game": config.game_string(),
            "preset": preset,
            "params": config.params(),
            "solver": asdict(settings),
        }
        # False when resuming a run that stopped before its first checkpoint: start afresh
        self.resumed = check_run_dir(self.out_dir, self.record, resume, force, RESUMABLE_CHANGES)
        clean_run_dir(self.out_dir)
        # before the long set-up, so that a run killed during it can be resumed
        atomic_write_json(self.out_dir / CONFIG_FILE, self.record)
        self.tree = tree if tree is not None else compile_tree(config)
        self.solver = TreeSolver(self.tree, **settings.solver_params())
        self.log: list[tuple[float, ...]] = []
        self.elapsed = 0.0
        if self.resumed:
            self._load_checkpoint()

    def _load_checkpoint(self) -> None:
        saved = read_checkpoint(self.out_dir / CHECKPOINT_FILE)
        self.elapsed, self.log = saved.elapsed, saved.log
        self.solver.set_state(saved.state)

    def checkpoint(self) -> None:
        """Write the solver state and the convergence log atomically."""
        saved = Checkpoint(self.solver.get_state(), self.elapsed, self.log)
        write_checkpoint(self.out_dir / CHECKPOINT_FILE, saved, len(LOG_COLUMNS))
        write_csv(
            self.out_dir / CONVERGENCE_FILE,
            LOG_COLUMNS,
            # float(): a resumed log holds numpy scalars, whose repr is "np.float64(...)"
            (
                [int(r[0]), f"{r[1]:.3f}", repr(float(r[2])), repr(float(r[3])), repr(float(r[4]))]
                for r in self.log
            ),
        )

    def _evaluate(self) -> float:
        report = exploitability_report(self.tree, self.solver.average_strategy())
        self.log.append(
            (
                self.solver.iteration,
                self.elapsed,
                report.exploitability,
                report.nash_conv,
                report.game_value,
            )
        )
        return report.exploitability

    def run(self, progress: Callable[[Progress], None] | None = None) -> StrategyFile:
        """Iterate until the iteration budget or the target; save and return the strategy."""
        s = self.settings
        last_ckpt = time.perf_counter()
        expl = self.log[-1][2] if self.log else float("inf")
        try:
            while self.solver.iteration < s.iterations and expl > s.target_exploitability:
                chunk = min(s.eval_every, s.iterations - self.solver.iteration)
                start = time.perf_counter()
                self.solver.run(chunk)
                spent = time.perf_counter() - start
                self.elapsed += spent
                expl = self._evaluate()
                pause_point("iterations")
                if progress:
                    progress(
                        Progress(
                            self.solver.iteration,
                            s.iterations,
                            self.elapsed,
                            expl,
                            chunk / max(spent, 1e-12),
                        )
                    )
                if time.perf_counter() - last_ckpt >= s.checkpoint_seconds:
                    self.checkpoint()
                    last_ckpt = time.perf_counter()
        finally:
            self.checkpoint()
        return self.save()

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
        save_strategy(self.out_dir, strategy)
        return strategy
