"""The one run driver: every solver family's run folder, checkpoints, resume, budgets and progress.

A family gives the driver a :class:`DrivenSolver` (a :class:`~.protocols.Solver`
that also tells its iteration count and runs a chunk at a time) and a
:class:`LogSpec`; the driver does the rest the same way for all of them:

- the run folder (:mod:`.rundir`): ``config.json`` first, the resume guard,
  ``--force`` clearing the previous run's files before the new ``config.json``,
  leftovers of killed writes removed;
- ``checkpoint.npz`` (solver state, elapsed solving seconds, progress log),
  written atomically every ``checkpoint_seconds``, at the end and on Ctrl-C,
  never from a solver whose step failed half-way;
- the budget: a total iteration count and/or this session's seconds, and a
  family's own stop rule (e.g. a target exploitability);
- a progress callback after each chunk, the same for every family;
- the final save, through the family's writer;
- resume reconciliation (:func:`reconcile`): which saved settings a resumed
  run keeps, and which of those given again may change.

A solver that persists its own state every step (``checkpoints=False``) gets
everything but ``checkpoint.npz``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from complots_solver.solvers.common.atomic import atomic_write_json
from complots_solver.solvers.common.faults import pause_point
from complots_solver.solvers.common.protocols import Solver
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

T = TypeVar("T")
# the budget is one setting: a command that gives either part replaces both
BUDGET_KEYS = frozenset({"iterations", "seconds"})


@runtime_checkable
class DrivenSolver(Solver, Protocol):
    """A :class:`Solver` the driver can run a chunk at a time."""

    @property
    def iteration(self) -> int:
        """Iterations done so far (all sessions)."""
        ...

    def step(self, iterations: int | None) -> int:
        """Run ``iterations`` more (None: the solver's own unit, e.g. an epoch); return the count done."""
        ...


@dataclass(frozen=True)
class Budget:
    """When a session stops: a total iteration count and/or this session's seconds."""

    iterations: int | None = None
    seconds: float | None = None
    checkpoint_seconds: float = 60.0

    def validate(self) -> None:
        """Raise ValueError naming the bad budget."""
        if self.iterations is None and self.seconds is None:
            raise ValueError("give an iteration budget (--iterations) or a time budget (--seconds)")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")
        if self.checkpoint_seconds <= 0:
            raise ValueError(f"checkpoint_seconds must be > 0, got {self.checkpoint_seconds}")


@dataclass(frozen=True)
class LogSpec:
    """The progress log of a family: its CSV file, columns and how a row is written."""

    file: str
    columns: tuple[str, ...]
    cells: Callable[[Sequence[float]], list[object]]


@dataclass
class RunProgress:
    """What a progress callback is told after each chunk (every family alike)."""

    iteration: int
    target_iterations: int | None
    seconds: float  # solving seconds, all sessions
    session_seconds: float  # wall seconds of this session's loop
    budget_seconds: float | None
    iterations_per_second: float
    figures: dict[str, float] = field(default_factory=dict)

    def due(self, every: int) -> bool:
        """Whether a progress line is due: every ``every`` iterations, and at the last one."""
        last = self.target_iterations is not None and self.iteration >= self.target_iterations
        return last or int(self.figures.get("iteration", self.iteration)) % every == 0

    def __getattr__(self, name: str) -> float:
        """A family's figure by name (``p.exploitability``, ``p.infostates``)."""
        figures = self.__dict__.get("figures", {})
        if name in figures:
            return figures[name]
        raise AttributeError(name)


class RunDriver:
    """One run folder driven to its budget: guard, config, checkpoints, resume, progress, save."""

    def __init__(
        self,
        out_dir: Path,
        record: dict[str, Any],
        resumable: tuple[str, ...],
        log: LogSpec,
        resume: bool = False,
        force: bool = False,
        checkpoints: bool = True,
        streamed: bool = False,
        on_checkpoint: Callable[[], None] | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        # called after each checkpoint, e.g. to write the playable result of that state, so
        # that a run killed at any moment leaves one consistent with its checkpoint
        self.on_checkpoint = on_checkpoint
        self.record = record
        self.log_spec = log
        self.checkpoints = checkpoints
        self.streamed = streamed
        # False when resuming a run that stopped before its first checkpoint: start afresh
        self.resumed = check_run_dir(self.out_dir, record, resume, force, resumable)
        clean_run_dir(self.out_dir)
        # before the long set-up, so that a run killed during it can be resumed
        atomic_write_json(self.out_dir / CONFIG_FILE, record)
        self.log: list[tuple[float, ...]] = []
        self.elapsed = 0.0
        self._checkpointed = -1  # iteration of the last checkpoint written or loaded

    # -- state ---------------------------------------------------------------------
    def restore(self, solver: DrivenSolver) -> None:
        """Load the checkpoint into ``solver`` if the run resumes one."""
        if not (self.resumed and self.checkpoints):
            return
        saved = read_checkpoint(self.out_dir / CHECKPOINT_FILE)
        width = len(self.log_spec.columns)
        # a log written before a column was added (columns are only ever appended) gets NaN there
        self.elapsed, self.log = (
            saved.elapsed,
            [(*(float(x) for x in r), *[float("nan")] * (width - len(r))) for r in saved.log],
        )
        solver.set_state(saved.state)
        self._checkpointed = solver.iteration

    def checkpoint(self, solver: DrivenSolver) -> None:
        """Write the solver state and the progress log atomically (the log's CSV after)."""
        if self.checkpoints:
            saved = Checkpoint(solver.get_state(), self.elapsed, self.log)
            write_checkpoint(
                self.out_dir / CHECKPOINT_FILE, saved, len(self.log_spec.columns), self.streamed
            )
            self._checkpointed = solver.iteration
            self.write_log()
            if self.on_checkpoint is not None:
                self.on_checkpoint()

    def write_log(self) -> None:
        """Rewrite the family's CSV log from the log rows (plain numbers only)."""
        spec = self.log_spec
        write_csv(self.out_dir / spec.file, spec.columns, (spec.cells(r) for r in self.log))

    # -- the loop ------------------------------------------------------------------
    def iterate(
        self,
        solver: DrivenSolver,
        budget: Budget,
        chunk: Callable[[float], int | None],
        measure: Callable[[float], tuple[tuple[float, ...], dict[str, float]]],
        converged: Callable[[tuple[float, ...]], bool] | None = None,
        progress: Callable[[RunProgress], None] | None = None,
        consistent: Callable[[], bool] = lambda: True,
    ) -> None:
        """Step ``solver`` until the budget or ``converged``; checkpoint as the budget says.

        ``chunk(rate)`` is the next step's size (None: the solver's unit) given
        the last measured iterations per second; ``measure(spent)`` the log row
        and progress figures after a step; ``consistent()`` False after a step
        that failed half-way (its state is then not written over the last
        checkpoint).
        """
        budget.validate()
        target = budget.iterations
        session_start = time.perf_counter()
        last_ckpt = session_start
        rate = 1.0

        def stop() -> bool:
            if target is not None and solver.iteration >= target:
                return True
            if budget.seconds is not None and time.perf_counter() - session_start >= budget.seconds:
                return True
            return bool(self.log) and converged is not None and converged(self.log[-1])

        try:
            while not stop():
                n = chunk(rate)
                if n is not None and target is not None:
                    n = min(n, target - solver.iteration)
                start = time.perf_counter()
                done = solver.step(n)
                spent = time.perf_counter() - start
                self.elapsed += spent
                rate = done / max(spent, 1e-9)
                row, figures = measure(spent)
                self.log.append(row)
                pause_point("iterations")
                if progress:
                    progress(
                        RunProgress(
                            solver.iteration,
                            target,
                            self.elapsed,
                            time.perf_counter() - session_start,
                            budget.seconds,
                            rate,
                            figures,
                        )
                    )
                if time.perf_counter() - last_ckpt >= budget.checkpoint_seconds:
                    self.checkpoint(solver)
                    last_ckpt = time.perf_counter()
        finally:
            if self._checkpointed != solver.iteration and consistent():
                self.checkpoint(solver)

    def save(self, write: Callable[[Path], T]) -> T:
        """The final save: the family's result files, written by ``write(out_dir)``."""
        return write(self.out_dir)


def read_record(out_dir: Path) -> dict[str, Any] | None:
    """A run folder's ``config.json`` (None when there is none or it is not a JSON object)."""
    path = Path(out_dir) / CONFIG_FILE
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def refusal(key: str, saved: Any, now: Any, where: Path | str, kind: str = "--resume") -> str:
    """The one message refusing a change to a setting a run keeps."""
    run = "a resumed run" if kind == "--resume" else "a warm start"
    return (
        f"{kind}: solver setting {key} was {saved!r} in {where}, now {now!r}; "
        f"{run} keeps {key}={saved}"
    )


def keep_saved(
    saved: Mapping[str, Any],
    solver: Mapping[str, Any],
    given: Iterable[str] | None,
    resumable: Iterable[str],
    where: Path | str,
    kind: str = "--resume",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``solver`` with the saved settings it was not given, those kept): the one rule.

    A setting the command did not give (``given``; None: every one) takes its
    saved value; one given with another value is refused unless it is in
    ``resumable``. Giving either part of the budget replaces both.
    """
    names = set(solver)
    picked = names if given is None else set(given) & names
    if picked & BUDGET_KEYS:
        picked |= BUDGET_KEYS & names
    stored = {k: v for k, v in saved.items() if k in names}
    allowed = set(resumable)
    for key in sorted(picked & set(stored)):
        if solver[key] != stored[key] and key not in allowed:
            raise ValueError(refusal(key, stored[key], solver[key], where, kind))
    kept = {k: v for k, v in stored.items() if k not in picked}
    return {**solver, **kept}, kept


def reconcile(
    out_dir: Path,
    record: dict[str, Any],
    given: Iterable[str] | None,
    resumable: Iterable[str],
    missing: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The solver settings a resumed run continues with, and the saved ones it kept.

    ``record`` is the run's new ``config.json``; its ``solver`` settings are
    reconciled with the saved run's by :func:`keep_saved` (``missing``: the
    values of settings a run saved before they existed). A run of another
    game, or of another algorithm (a record's ``algorithm``), is refused; a
    folder without ``config.json`` is left to the resume guard.
    """
    saved = read_record(out_dir)
    if saved is None:
        return dict(record["solver"]), {}
    for key in ("game", "params"):
        if key in saved and saved.get(key) != record[key]:
            raise ValueError(
                f"--resume: {out_dir} holds a run of {saved.get('game')}, not {record['game']}"
            )
    if "algorithm" in record and saved.get("algorithm") != record["algorithm"]:
        raise ValueError(f"--resume: {out_dir} holds a run of another algorithm")
    stored = {**(missing or {}), **saved.get("solver", {})}
    return keep_saved(stored, record["solver"], given, resumable, out_dir)
