"""A sampled regret run directory: train through the run driver, write the playable network.

Files in the run directory:

``config.json``     the game and the settings (written first; the run driver's layout)
``checkpoint.npz``  both networks, their optimisers, the average's reservoir and counters
                    (atomic, every 5 minutes; ``resume`` continues exactly)
``training.csv``    one row per iteration (``sampler.LOG_COLUMNS``)
``policy-net.npz``  the average network (``net:DIR``, ``complots bound --strategy DIR``)
``meta.json``       what the run did; quality not measured (the bounds measure it)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_json
from complots_solver.solvers.common.driver import Budget, LogSpec, RunDriver, RunProgress
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.common.rundir import CONFIG_FILE
from complots_solver.solvers.regret.sampler import LOG_COLUMNS, RegretSampler, RegretSettings
from complots_solver.solvers.selfplay.features import FEATURE_VERSION
from complots_solver.solvers.selfplay.run import META_FILE, POLICY_FILE

ALGORITHM = "regret"
CHECKPOINT_SECONDS = 300.0
LOG = LogSpec(
    "training.csv",
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
    ) -> None:
        """Set up the folder; on ``resume`` the saved settings and seed are the run's (a run from
        before the ``jobs`` setting played one stream, its default). ``pool`` plays the
        iteration's streams."""
        self.out = Path(out)
        self.config = config
        if resume and not force:
            path = self.out / CONFIG_FILE
            if not path.is_file():
                raise ValueError(f"resume: no sampled regret run in {self.out}")
            saved = json.loads(path.read_text())
            if saved.get("algorithm") != ALGORITHM:
                raise ValueError(f"resume: {self.out} holds a run of another algorithm")
            if saved.get("game") != config.game_string():
                raise ValueError(f"resume: {self.out} holds a run of {saved.get('game')}")
            names = {f.name for f in fields(RegretSettings)}
            settings = RegretSettings(
                **{k: v for k, v in saved.get("solver", {}).items() if k in names}
            )
            seed = int(saved.get("solver", {}).get("seed", seed))
        self.settings = settings
        self.seed = seed
        self.trainer = RegretSampler(config, settings, seed=seed, pool=pool)
        self.driver = RunDriver(
            self.out, _record(config, seed, settings), (), LOG, resume, force,
            on_checkpoint=self.save,
        )  # fmt: skip
        self.driver.restore(self.trainer)

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
            measure=self.trainer.measure,
            progress=progress,
            consistent=lambda: not self.trainer.stepping,
        )

    def save(self) -> None:
        """Write ``policy-net.npz`` (the average network) and ``meta.json``; also after every
        checkpoint, so that a run stopped at any moment can be played."""
        tr = self.trainer
        tr.policy().save(
            self.out / POLICY_FILE,
            meta={
                "game": self.config.game_string(),
                "algorithm": ALGORITHM,
                "features": str(FEATURE_VERSION),
            },
        )
        atomic_write_json(
            self.out / META_FILE,
            {
                "algorithm": ALGORITHM,
                "game": self.config.game_string(),
                "training_iterations": tr.iteration,
                "training_games": tr.games,
                "training_seconds": round(self.driver.elapsed, 1),
                "settings": self.settings.record(),
                "quality": "not measured: bound it with complots bound GAME --strategy DIR",
            },
        )
