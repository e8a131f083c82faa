"""The Monte Carlo CFR family's registration (``solve --algorithm es-mccfr`` or ``os-mccfr``)."""

from __future__ import annotations

import time
from typing import Any

from complots_solver.solvers.common.driver import Budget, RunProgress
from complots_solver.solvers.common.registry import RunRequest, SolverFamily
from complots_solver.solvers.exact.family import COMMAND_FLAGS, progress_figure, resuming
from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings

# the methods of ``solve`` and the sampling scheme each names
METHODS = {"es-mccfr": "es", "os-mccfr": "os"}
DISCOUNT_KEYS = ("alpha", "beta", "gamma")


class MCCFRFamily(SolverFamily):
    """Tabular external- or outcome-sampling Monte Carlo CFR, on one or several workers."""

    name = "mccfr"
    title = "es-mccfr and os-mccfr"
    algorithms = tuple(METHODS)
    order = 1
    run_class = MCCFRRun
    excluded = COMMAND_FLAGS

    def settings_class(self) -> type:
        """The MCCFR family's settings."""
        return MCCFRSettings

    def recorded_algorithm(self, record: dict[str, Any]) -> str | None:
        """The method an MCCFR run's config.json names (``kind`` mccfr, sampling es or os)."""
        solver = record.get("solver")
        if not isinstance(solver, dict) or solver.get("kind") != "mccfr":
            return None
        made = f"{solver.get('algorithm')}-mccfr"
        return made if made in self.algorithms else None

    def make_run(self, request: RunRequest) -> MCCFRRun:
        """Set up the run folder (resumed with its settings kept)."""
        values = request.values
        discount = [k for k in DISCOUNT_KEYS if k in values]
        if discount and "discount_interval" not in values:
            raise ValueError(
                f"{', '.join(discount)}: give discount_interval too (--option "
                "discount_interval=N, formerly --discount-interval)"
            )
        b = request.budget
        settings = MCCFRSettings(
            algorithm=METHODS[request.algorithm],
            iterations=b.iterations,
            seconds=b.seconds,
            seed=request.seed,
            workers=request.workers,
            **values,
        )
        settings.validate()
        return MCCFRRun(
            request.out_dir, request.config, settings, preset=request.preset,
            resume=request.resume, force=request.force, given=request.given | request.flags | {"algorithm"},
        )  # fmt: skip

    def budget(self, run: MCCFRRun, request: RunRequest) -> Budget:
        """The run's own budget (a resumed run keeps its own unless given another)."""
        return Budget(run.settings.iterations, run.settings.seconds)

    def banner(self, run: MCCFRRun, request: RunRequest) -> str:
        """The method, key, seed and workers."""
        s = run.settings
        backend = f"Ray ({s.ray_address})" if s.ray_address else "threads"
        return f"{request.algorithm}, key {s.key}, seed {s.seed}, {s.workers} worker(s) ({backend})"

    def resume_note(self, run: MCCFRRun, request: RunRequest) -> str | None:
        """Where a resumed run continues."""
        if not request.resume:
            return None
        return resuming(run.resumed, run.iteration, request.out_dir)

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """The figure the progress bar shows."""
        return progress_figure(progress)

    def interrupted(self, run: MCCFRRun, request: RunRequest) -> str:
        """The iteration the checkpoint holds."""
        return (
            f"interrupted at iteration {run.iteration:,}; checkpoint saved, continue with --resume"
        )

    def finish(self, run: MCCFRRun, result: Any, request: RunRequest) -> list[str]:
        """Iterations, visits, information states, memory, time, where the strategy is."""
        meta = result.meta
        lines = [
            f"{meta['iterations']:,} iterations, {meta['node_visits']:,} node visits in "
            f"{meta['wall_time_seconds']:.1f} s ({meta['node_visits_per_second']:,.0f} "
            f"visits/s); {meta['information_states']['total']:,} information states, "
            f"{meta['bytes_per_infostate']:.0f} bytes each; peak memory "
            f"{meta['peak_rss_bytes'] / 2**20:,.0f} MiB"
        ]
        if meta["exploitability"] is not None:
            lines.append(f"exploitability {meta['exploitability']:.4g} (exact)")
        lines += [
            f"time: {time.perf_counter() - request.started:.1f} s in all (the rest: setting up, "
            "checkpoints, saving and any exact evaluation)",
            f"strategy written to {request.out_dir}/strategy.npz and meta.json",
        ]
        return lines


FAMILY = MCCFRFamily()
