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

import csv
import io
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.best_response import exploitability_report
from complots_solver.solvers.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.strategy_file import (
    StrategyFile,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_npz,
    save_strategy,
)
from complots_solver.solvers.tree import Tree

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.npz"
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


def check_run_dir(
    out_dir: Path, record: dict[str, Any], resume: bool, force: bool, resumable: tuple[str, ...]
) -> None:
    """Refuse to overwrite a run by accident, or to resume a different one.

    With ``resume`` the directory must hold a checkpoint of the same game and
    solver settings (budgets in ``resumable`` may change); with ``force`` any
    previous run there is discarded; otherwise the directory must hold none.
    """
    ckpt = out_dir / CHECKPOINT_FILE
    if resume and force:
        raise ValueError("--resume and --force exclude each other")
    if force:
        ckpt.unlink(missing_ok=True)
        return
    if not resume:
        if ckpt.is_file():
            raise ValueError(
                f"{out_dir} already holds a run; pass --resume, --force or another --out"
            )
        return
    if not ckpt.is_file():
        raise ValueError(f"--resume: no checkpoint in {out_dir}")
    saved = json.loads((out_dir / CONFIG_FILE).read_text())
    for key in ("game", "params"):
        if saved.get(key) != record[key]:
            raise ValueError(
                f"--resume: {out_dir} holds a run of {saved.get('game')}, not {record['game']}"
            )
    for key, value in saved["solver"].items():
        if key not in resumable and record["solver"].get(key) != value:
            raise ValueError(
                f"--resume: solver setting {key} was {value!r} in {out_dir}, "
                f"now {record['solver'].get(key)!r}"
            )


def compile_tree(config: GameConfig) -> Tree:
    """The compiled perfect-recall tree of a 2-player configuration."""
    if config.players != 2:
        raise ValueError(f"exact solving needs players=2, got players={config.players}")
    from complots_solver.solvers.complots_tree import compile_complots_tree

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
        check_run_dir(self.out_dir, self.record, resume, force, RESUMABLE_CHANGES)
        self.tree = tree if tree is not None else compile_tree(config)
        self.solver = TreeSolver(self.tree, **settings.solver_params())
        self.log: list[tuple[float, ...]] = []
        self.elapsed = 0.0
        if resume:
            self._load_checkpoint()
        atomic_write_json(self.out_dir / CONFIG_FILE, self.record)

    def _load_checkpoint(self) -> None:
        with np.load(io.BytesIO((self.out_dir / CHECKPOINT_FILE).read_bytes())) as npz:
            state = {k[len("solver_") :]: npz[k] for k in npz.files if k.startswith("solver_")}
            self.elapsed = float(npz["elapsed"])
            self.log = [tuple(row) for row in npz["log"]]
        self.solver.set_state(state)

    def checkpoint(self) -> None:
        """Write the solver state and the convergence log atomically."""
        arrays = {f"solver_{k}": v for k, v in self.solver.get_state().items()}
        arrays["elapsed"] = np.array(self.elapsed)
        arrays["log"] = np.array(self.log, dtype=np.float64).reshape(-1, len(LOG_COLUMNS))
        atomic_write_npz(self.out_dir / CHECKPOINT_FILE, arrays)
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(LOG_COLUMNS)
        for row in self.log:
            writer.writerow(
                [int(row[0]), f"{row[1]:.3f}", repr(row[2]), repr(row[3]), repr(row[4])]
            )
        atomic_write_bytes(self.out_dir / CONVERGENCE_FILE, buf.getvalue().encode())

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
