"""What the network families' registrations share: the Ray option, banner texts, pooled runs."""

from __future__ import annotations

from typing import Any

from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.common.options import OptionSpec
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.common.registry import RunRequest

RAY = OptionSpec(
    "ray_address", str, None, "run the workers as Ray actors ('local' starts one)", True
)


def budget_text(budget: Budget, unit: str) -> str:
    """A network run's budget as its banner says it (``3600 s``, ``iteration 5 or 60 s``)."""
    if budget.seconds is not None and budget.iterations is not None:
        return f"{unit} {budget.iterations} or {budget.seconds:.0f} s"
    if budget.seconds is not None:
        return f"{budget.seconds:.0f} s"
    return f"{unit} {budget.iterations}"


def workers_text(workers: int, ray_address: str | None) -> str:
    """``2 worker(s)`` or ``2 Ray actor(s)``."""
    return f"{workers} {'Ray actor' if ray_address else 'worker'}(s)"


class PooledRun:
    """A network family's run together with the worker pool it plays on (closed after it)."""

    def __init__(self, run: Any, pool: WorkerPool, workers: int, ray_address: str | None) -> None:
        self.inner = run
        self.pool = pool
        self.workers = workers
        self.ray_address = ray_address
        self.kept = run.kept

    def run(self, budget: Budget | None = None, progress: Any = None) -> Any:
        """Run the inner run to ``budget``, then close the pool."""
        with self.pool:
            return self.inner.run(budget, progress)


def open_pool(request: RunRequest, values: dict[str, Any]) -> tuple[WorkerPool, str | None]:
    """The worker pool of ``--workers`` (Ray actors with ``ray_address``), started."""
    ray_address = values.pop("ray_address", None)
    pool = WorkerPool(request.workers, ray_address)
    pool.__enter__()
    return pool, ray_address


def warm_resume_note(run: PooledRun, request: RunRequest, kept: str) -> str | None:
    """The iteration a resumed run continues after, or the state a warm start begins from
    (``kept``: what the warm start takes and what starts empty, in words)."""
    inner = run.inner
    tr = inner.trainer
    if request.resume and tr.iteration > 0:
        return f"resuming after iteration {tr.iteration} ({tr.games} games)"
    if not request.resume and inner.warm is not None:
        return (
            f"warm start from {inner.warm['from']} after iteration {inner.warm['iteration']} "
            f"({kept})"
        )
    return None
