"""Independent jobs (e.g. self-play games) on worker processes or Ray actors, results in order.

Each job carries its own seed, so a run's results do not depend on which
worker played which job, nor on the number of workers: a pool only changes
the wall time.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

LOCAL_RAY = "local"


class _Runner:
    """A Ray actor's body: runs jobs of any picklable function."""

    def run(self, fn: Callable[[Any], Any], job: Any) -> Any:
        """``fn(job)``."""
        return fn(job)


def init_ray(address: str) -> Any:
    """The ``ray`` module, connected to ``address`` (``local``: a Ray started on this machine)."""
    try:
        import ray
    except ImportError:
        raise ValueError(
            "ray: not installed; install the extra with pip install -e '.[ray]'"
        ) from None
    if not ray.is_initialized():
        ray.init(
            address=None if address == LOCAL_RAY else address,
            include_dashboard=False,
            log_to_driver=False,
        )
    return ray


class WorkerPool:
    """``map`` over ``workers`` forked processes, or over ``workers`` Ray actors if ``ray_address``.

    ``workers == 1`` without Ray runs the jobs in this process.
    """

    def __init__(self, workers: int, ray_address: str | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers: at least 1; got {workers}")
        self.workers = workers
        self.ray_address = ray_address
        self._executor: ProcessPoolExecutor | None = None
        self._ray: Any = None
        self._actors: list[Any] = []
        if ray_address is not None:
            self._ray = init_ray(ray_address)
            actor = self._ray.remote(num_cpus=1)(_Runner)
            self._actors = [actor.remote() for _ in range(workers)]
        elif workers > 1:
            self._executor = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")
            )

    def map(self, fn: Callable[[Any], Any], jobs: Sequence[Any]) -> list[Any]:
        """``[fn(j) for j in jobs]``, computed by the workers."""
        if self._ray is not None:
            fn_ref = self._ray.put(fn)
            futures = [
                self._actors[i % len(self._actors)].run.remote(fn_ref, job)
                for i, job in enumerate(jobs)
            ]
            return list(self._ray.get(futures))
        if self._executor is not None:
            return list(self._executor.map(fn, jobs))
        return [fn(j) for j in jobs]

    def shutdown(self) -> None:
        """Stop the processes or the actors (Ray itself stays up: it may be shared)."""
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None
        if self._ray is not None:
            for a in self._actors:
                self._ray.kill(a)
            self._actors = []
            self._ray = None

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
