"""The exact family's registration: CFR-family solving of the compiled tree (``solve --algorithm cfr+``)."""

from __future__ import annotations

import time
from typing import Any

from complots_solver.rules.text import signed
from complots_solver.solvers.common.driver import Budget, RunProgress
from complots_solver.solvers.common.registry import RunRequest, SolverFamily
from complots_solver.solvers.exact.cfr import ALGORITHMS
from complots_solver.solvers.exact.run import DEFAULT_ITERATIONS, SolveRun, SolveSettings

# flags of the command, not --option settings
COMMAND_FLAGS = ("algorithm", "iterations", "seconds", "seed", "workers")
DCFR_ONLY = ("alpha", "beta", "gamma")


def resuming(resumed: bool, iteration: int, out_dir: object) -> str:
    """What a resumed tabular run says: where it continues, or that it had no checkpoint yet."""
    if resumed:
        return f"resuming at iteration {iteration:,}"
    return f"no checkpoint in {out_dir} yet (the run stopped before its first): starting afresh"


def progress_figure(progress: RunProgress) -> str:
    """The figure a progress bar shows for a tabular run: exploitability or information states."""
    figures = progress.figures
    if "exploitability" in figures:
        return f"expl {figures['exploitability']:.3g}"
    if "infostates" in figures:
        return f"{int(figures['infostates']):,} infostates"
    return ""


class ExactFamily(SolverFamily):
    """CFR, CFR+, linear and discounted CFR on the compiled tree, evaluated exactly."""

    name = "exact"
    title = "exact algorithms"
    algorithms = ALGORITHMS
    order = 0
    run_class = SolveRun
    default_budget = Budget(iterations=DEFAULT_ITERATIONS)
    parallel = False
    making = "building the exact tree"
    excluded = COMMAND_FLAGS

    def settings_class(self) -> type:
        """The exact family's settings."""
        return SolveSettings

    def options(self, algorithm: str | None = None) -> dict[str, Any]:
        """The settings of ``algorithm``: alpha, beta and gamma only for dcfr."""
        table = super().options(algorithm)
        if algorithm is not None and algorithm != "dcfr":
            return {k: v for k, v in table.items() if k not in DCFR_ONLY}
        return table

    def option_note(self, key: str) -> str:
        """Marks the discounted CFR settings."""
        return " (dcfr only)" if key in DCFR_ONLY else ""

    def recorded_algorithm(self, record: dict[str, Any]) -> str | None:
        """The CFR variant an exact run's config.json names in its solver settings."""
        solver = record.get("solver")
        if not isinstance(solver, dict) or "kind" in solver or "algorithm" in record:
            return None
        made = solver.get("algorithm")
        return made if made in self.algorithms else None

    def check(self, request: RunRequest) -> None:
        """Refuse a tree that cannot fit, before anything is written."""
        from complots_solver.solvers.exact.estimate import check_exact_fits

        check_exact_fits(request.config, request.preset or request.config.game_string())

    def make_run(self, request: RunRequest) -> SolveRun:
        """Compile the tree and set up the run folder (resumed with its settings kept)."""
        b = request.budget
        settings = SolveSettings(
            algorithm=request.algorithm,
            iterations=b.iterations,
            seconds=b.seconds,
            seed=request.seed,
            **request.values,
        )
        settings.validate()
        return SolveRun(
            request.out_dir, request.config, settings, preset=request.preset,
            resume=request.resume, force=request.force, given=request.given | request.flags | {"algorithm"},
        )  # fmt: skip

    def budget(self, run: SolveRun, request: RunRequest) -> Budget:
        """The run's own budget (a resumed run keeps its own unless given another)."""
        return run.settings.budget()

    def banner(self, run: SolveRun, request: RunRequest) -> str:
        """The tree's size and how long it took to build."""
        summary = run.tree.summary().removeprefix(request.config.game_string() + ": ")
        return f"tree: {summary} (built in {run.setup_seconds:.1f} s)"

    def resume_note(self, run: SolveRun, request: RunRequest) -> str | None:
        """Where a resumed run continues."""
        if not request.resume:
            return None
        return resuming(run.resumed, run.iteration, request.out_dir)

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """The figure the progress bar shows."""
        return progress_figure(progress)

    def interrupted(self, run: SolveRun, request: RunRequest) -> str:
        """The iteration the checkpoint holds."""
        return (
            f"interrupted at iteration {run.iteration:,}; checkpoint saved, continue with --resume"
        )

    def finish(self, run: SolveRun, result: Any, request: RunRequest) -> list[str]:
        """Exploitability, game value, where the time went, where the strategy is."""
        meta = result.meta
        now = time.perf_counter()
        setup = now - request.started - run.setup_seconds - run.session_seconds
        return [
            f"{meta['iterations']} iterations: exploitability {meta['exploitability']:.3g} "
            f"(exact), game value for seat 0 {signed(meta['game_value'])}",
            f"time: {now - request.started:.1f} s in all: start-up {setup:.1f} s, "
            f"tree build {run.setup_seconds:.1f} s, iterations {run.session_solving:.1f} s, "
            f"exact evaluations and saving {run.session_seconds - run.session_solving:.1f} s",
            f"strategy written to {request.out_dir}/strategy.npz and meta.json",
        ]


FAMILY = ExactFamily()
