"""A sampled regret run directory: train through the run driver, write the playable network.

Files in the run directory:

``config.json``     the game and the settings (written first; the run driver's layout)
``checkpoint.npz``  both networks, their optimisers, the average's reservoir and counters
                    (atomic, every 5 minutes; ``resume`` continues exactly)
``training.csv``    one row per iteration (``sampler.LOG_COLUMNS``)
``policy-net.npz``  the average network (``net:DIR``, ``complots bound --strategy DIR``)
``meta.json``       what the run did; quality not measured (the bounds measure it)
``regret-state.npz`` both networks and their optimisers without the reservoir (a few MB,
                    with every checkpoint): what a warm start needs, small enough to ship
                    beside a strategy so that a fresh clone can train it further

``snapshots/iteration-N/`` ``policy-net.npz`` and ``regret-state.npz`` every
                    ``SNAPSHOT_EVERY`` iterations (about 3.5 MB each): the average network
                    does not improve monotonically on the full game (docs section 22), so a
                    run keeps earlier ones to be measured, shipped and warm-started from

A **warm start** (``warm_start``: a folder holding ``regret-state.npz``) begins a new
run folder from those networks at their iteration, with the run's settings and an
empty reservoir: the average network goes on from its weights and learns from the new
iterations only (weighted by their iteration, as before), so it is not bit for bit
the run that was never stopped, which ``--resume`` of the run folder is.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_json
from complots_solver.solvers.common.driver import (
    Budget,
    LogSpec,
    RunDriver,
    RunProgress,
    read_record,
    reconcile,
)
from complots_solver.solvers.common.folders import (
    META_FILE,
    POLICY_FILE,
    REGRET_STATE_FILE,
    TRAINING_LOG,
)
from complots_solver.solvers.common.kit import KitSpec, refuse_with_resume, warm_settings
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.knowledge.table_features import FEATURE_VERSION
from complots_solver.solvers.nets.tablenet import policy_meta
from complots_solver.solvers.regret.sampler import (
    BEFORE_SETTING,
    LOG_COLUMNS,
    RegretSampler,
    RegretSettings,
)

ALGORITHM = "regret"
CHECKPOINT_SECONDS = 300.0
KIT_FILE = REGRET_STATE_FILE
KIT_KIND = "complots sampled regret state"
KIT_VERSION = 1
KIT = KitSpec(KIT_FILE, KIT_KIND, KIT_VERSION, "regret state", "a sampled regret run", "counters")
SNAPSHOT_DIR = "snapshots"
SNAPSHOT_EVERY = 100  # iterations between snapshots of the average network and the state
LOG = LogSpec(
    TRAINING_LOG,
    LOG_COLUMNS,
    lambda row: [*(int(x) for x in row[:4]), *(round(float(x), 5) for x in row[4:])],
)


def _record(config: GameConfig, seed: int, settings: RegretSettings) -> dict[str, Any]:
    return {
        "algorithm": ALGORITHM,
        "game": config.game_string(),
        "params": config.params(),
        "solver": {"seed": seed, **settings.record()},
    }


def write_kit(path: Path, sampler: RegretSampler) -> None:
    """Write ``sampler``'s networks and optimisers, without the reservoir, atomically (npz)."""
    KIT.write(
        path, sampler.kit_state(), sampler.config, FEATURE_VERSION, sampler.seed,
        sampler.settings.record(),
    )  # fmt: skip


def read_kit(folder: Path, config: GameConfig) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and description of ``folder/regret-state.npz``; ValueError naming what is wrong
    (no such file, not readable, pickled data, another game or format)."""
    return KIT.read(folder, config, FEATURE_VERSION)


def recorded_settings(solver: dict[str, Any]) -> RegretSettings:
    """The settings a run folder or state file recorded (its other keys ignored): a setting
    saved before it existed takes its default, or the value it had then where the default has
    changed since (``BEFORE_SETTING``)."""
    names = {f.name for f in fields(RegretSettings)}
    given = {**BEFORE_SETTING, **solver}
    return RegretSettings(**{k: v for k, v in given.items() if k in names})


class RegretRun:
    """Train, checkpoint, resume and save sampled regret matching+ in one folder (module note)."""

    def __init__(
        self,
        out: Path,
        config: GameConfig,
        settings: RegretSettings,
        seed: int = 0,
        resume: bool = False,
        force: bool = False,
        pool: WorkerPool | None = None,
        warm_start: Path | None = None,
        given: Iterable[str] = frozenset(),
        before_iteration: Callable[[RegretSampler], None] | None = None,
        make_sampler: Callable[..., RegretSampler] = RegretSampler,
    ) -> None:
        """Set up the folder; on ``resume`` the saved settings and seed are the run's (a run from
        before the ``jobs`` setting played one stream, its default). ``pool`` plays the
        iteration's streams. ``warm_start``: a new run from a folder's ``regret-state.npz``
        (module note), its settings but for ``jobs``; ValueError if unusable. A setting named
        in ``given`` that differs from the kept one is refused (the driver's reconciliation).
        ``before_iteration``: the sampler's hook (an experiment's opponent, ``lab.regret``);
        ``make_sampler``: builds the sampler from (config, settings, seed=, pool=,
        before_iteration=), a subclass where an experiment fits otherwise (``lab.regret``)."""
        self.out = Path(out)
        self.config = config
        self.warm: dict[str, Any] | None = None
        self.kept: dict[str, Any] = {}
        kit = None
        defaults = recorded_settings({}).record()  # what a record without a setting means
        refuse_with_resume(warm_start, resume)
        if warm_start is not None:
            kit, meta = read_kit(Path(warm_start), config)
            solver, self.kept = warm_settings(
                meta, defaults, settings.record(), {*given, "jobs"}, ("jobs",), warm_start
            )
            settings = recorded_settings(solver)
            counters = [int(v) for v in kit["counters"]]
            self.warm = {"from": str(warm_start), "iteration": counters[0], "games": counters[1]}
        if resume and not force:
            saved = read_record(self.out)
            if saved is None:
                raise ValueError(f"resume: no sampled regret run in {self.out}")
            solver, self.kept = reconcile(
                self.out, _record(config, seed, settings), given, (), {"seed": seed, **defaults}
            )
            settings = recorded_settings(solver)
            seed = int(solver["seed"])
            self.warm = saved.get("warm_start")
        self.settings = settings
        self.seed = seed
        self.trainer = make_sampler(
            config, settings, seed=seed, pool=pool, before_iteration=before_iteration
        )
        record = _record(config, seed, settings)
        if self.warm is not None:
            record["warm_start"] = self.warm
        self.driver = RunDriver(
            self.out, record, (), LOG, resume, force, on_checkpoint=self.save
        )  # fmt: skip
        if force:  # the driver cleared the run's files; its snapshots go with them
            shutil.rmtree(self.out / SNAPSHOT_DIR, ignore_errors=True)
        self.driver.restore(self.trainer)
        if self.warm is not None and not self.driver.resumed:
            if kit is None:  # a warm-started run stopped before its first checkpoint
                kit, _ = read_kit(Path(self.warm["from"]), config)
            self.trainer.set_state(kit)

    def train(
        self,
        seconds: float | None = None,
        iterations: int | None = None,
        progress: Callable[[RunProgress], None] | None = None,
    ) -> None:
        """Iterations until ``iterations`` in all or ``seconds`` more (checkpoints every
        ``CHECKPOINT_SECONDS``: the average's reservoir makes a full-game checkpoint about 2 GB,
        written in seconds, so once a minute would cost a sixth of the run)."""
        self.driver.iterate(
            self.trainer,
            Budget(iterations=iterations, seconds=seconds, checkpoint_seconds=CHECKPOINT_SECONDS),
            chunk=lambda rate: None,
            measure=self._measure,
            progress=progress,
            consistent=lambda: not self.trainer.stepping,
        )

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> None:
        """Train to ``budget`` (None: one iteration more), then write the average network."""
        if budget is None:
            budget = Budget(iterations=self.trainer.iteration + 1)
        self.train(budget.seconds, budget.iterations, progress)
        self.save()

    def _measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The sampler's log row, and a snapshot when the iteration is a multiple of
        ``SNAPSHOT_EVERY``."""
        tr = self.trainer
        if tr.iteration % SNAPSHOT_EVERY == 0:
            self.snapshot()
        return tr.measure(spent)

    def snapshot(self) -> Path:
        """Write the average network and the state under ``snapshots/iteration-N/``."""
        tr = self.trainer
        folder = self.out / SNAPSHOT_DIR / f"iteration-{tr.iteration}"
        folder.mkdir(parents=True, exist_ok=True)
        write_kit(folder / KIT_FILE, tr)
        tr.policy().save(folder / POLICY_FILE, meta=policy_meta(self.config, ALGORITHM))
        return folder

    def save(self) -> None:
        """Write ``policy-net.npz`` (the average network), ``regret-state.npz`` and ``meta.json``;
        also after every checkpoint, so that a run stopped at any moment can be played."""
        tr = self.trainer
        write_kit(self.out / KIT_FILE, tr)
        tr.policy().save(self.out / POLICY_FILE, meta=policy_meta(self.config, ALGORITHM))
        atomic_write_json(
            self.out / META_FILE,
            {
                "algorithm": ALGORITHM,
                "game": self.config.game_string(),
                "training_iterations": tr.iteration,
                "training_games": tr.games,
                "training_seconds": round(self.driver.elapsed, 1),
                "settings": self.settings.record(),
                "warm_start": self.warm,
                "quality": "not measured: bound it with complots bound GAME --strategy DIR",
            },
        )
