"""The solver families as ``complots solve`` knows them: one registration each, one run contract.

Each family registers itself in its own ``family.py`` (``FAMILY = SomeFamily()``,
found by :func:`complots_solver.solvers.families`): its methods, its settings
class with their help text, how to make a run, its default budget, its banner
and how the command reports it. Every run it makes is driven by the run
driver through one ``run(budget, progress)``; resume reconciliation is the
driver's (:func:`~.driver.reconcile`). The command line reads only this
registry, so adding a family touches no command-line code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.driver import Budget, RunProgress
from complots_solver.solvers.common.options import OptionSpec, option_table

FAMILY_MODULE = "family"  # solvers/<family>/family.py holds FAMILY, the family's registration
FAMILY_ATTRIBUTE = "FAMILY"


class Bots(Protocol):
    """The play layer's bots, lent by the command to the families that train against them."""

    def factory(self, config: GameConfig) -> Callable[[str, np.random.Generator], Any]:
        """A picklable maker of fresh bots by name (``name, rng -> bot``)."""
        ...

    def check(self, name: str) -> None:
        """Raise ValueError naming a bot that does not exist."""
        ...

    def pretrain(
        self, net: Any, config: GameConfig, games: int, steps: int, seed: int, zero_sum: bool
    ) -> None:
        """Fit a belief value network to the results of ``games`` games between the bots."""
        ...


@dataclass(frozen=True)
class RunRequest:
    """What a command asks of a family: the game, the folder, the settings and flags given."""

    config: GameConfig
    preset: str | None
    out_dir: Path
    algorithm: str
    values: dict[str, Any]  # settings given (--option, --config, old flags), typed
    given: frozenset[str]  # the keys of those settings
    flags: frozenset[str]  # the common flags given: iterations, seconds, seed, workers
    budget: Budget  # the budget given, else the family's default
    seed: int = 0
    workers: int = 1
    resume: bool = False
    force: bool = False
    say: Callable[[str], None] = lambda text: None
    bots: Bots | None = None
    started: float = 0.0  # the command's start (time.perf_counter()), for its time line


@runtime_checkable
class FamilyRun(Protocol):
    """A run folder of one family, driven by the run driver."""

    kept: dict[str, Any]  # saved settings a resumed run kept (not given again)

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> Any:
        """Drive the run to ``budget`` (None: its settings'), then write its result."""
        ...


class SolverFamily:
    """One solver family's registration; a family overrides what differs from these defaults."""

    name: str = ""
    title: str = ""  # how messages name the whole family ("exact algorithms")
    algorithms: tuple[str, ...] = ()  # the methods of ``solve`` it runs
    order: int = 0  # its place in listings
    run_class: type | None = None  # the class of its runs
    default_budget: Budget | None = None  # None: the command must give one
    parallel: bool = True  # takes --workers
    making: str | None = None  # what a spinner says while the run is made
    progress_every: int | None = None  # None: a progress bar; N: a line every N iterations
    helps: dict[str, str] = {}  # help text of settings whose field has none
    extra_options: tuple[OptionSpec, ...] = ()  # settings of the command, not of the class
    excluded: tuple[str, ...] = ()  # settings fields that are flags of the command

    def settings_class(self) -> type:
        """The family's settings dataclass."""
        raise NotImplementedError

    def options(self, algorithm: str | None = None) -> dict[str, OptionSpec]:
        """The settings ``--option`` takes for ``algorithm`` (None: every one), by key."""
        table = option_table(self.settings_class(), exclude=self.excluded, helps=self.helps)
        return {**table, **{spec.name: spec for spec in self.extra_options}}

    def option_note(self, key: str) -> str:
        """What the settings table adds after a setting's help (e.g. which methods take it)."""
        return ""

    def recorded_algorithm(self, record: dict[str, Any]) -> str | None:
        """The method a run folder's config.json names, if it is one of this family's."""
        name = record.get("algorithm")
        return name if name in self.algorithms else None

    def check(self, request: RunRequest) -> None:
        """Refuse what cannot run, before anything is written (ValueError naming it)."""

    def make_run(self, request: RunRequest) -> FamilyRun:
        """A run folder set up for ``request`` (resumed, reconciled, or fresh)."""
        raise NotImplementedError

    def budget(self, run: Any, request: RunRequest) -> Budget:
        """The budget the run goes to (a resumed run may keep its own)."""
        return request.budget

    def banner(self, run: Any, request: RunRequest) -> str:
        """The one line saying what the run does."""
        raise NotImplementedError

    def resume_note(self, run: Any, request: RunRequest) -> str | None:
        """What a resumed (or warm-started) run says about where it continues, if anything."""
        return None

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """A progress line (families reported in lines), or None to say nothing this time."""
        return None

    def interrupted(self, run: Any, request: RunRequest) -> str:
        """What Ctrl-C says: what is kept and how to continue."""
        return "interrupted; continue with --resume"

    def finish(self, run: Any, result: Any, request: RunRequest) -> list[str]:
        """The lines said once the run is done: its figures and where its strategy is."""
        return []
