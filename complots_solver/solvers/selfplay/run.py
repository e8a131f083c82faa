"""A table self-play run directory: train through the run driver, write the playable network.

Files in the run directory:

``config.json``     the game and the settings (written first; the run driver's layout)
``checkpoint.npz``  network, optimiser, past selves and counters (atomic; ``--resume``
                    continues exactly)
``training.csv``    one row per iteration (games, decisions, win share against the bots
                    in that iteration's bot games, entropy, losses)
``policy-net.npz``  the table network (``net:DIR`` and ``solved`` play it)
``meta.json``       what the run did, and the strategy's measured quality if any

The folder, the resume guard, ``--force``, checkpoints and the budget
(``-n``: iterations in all, ``--seconds``: this session) are the shared run
driver's (:mod:`complots_solver.solvers.common.driver`).
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
from complots_solver.solvers.selfplay.features import FEATURE_VERSION
from complots_solver.solvers.selfplay.train import (
    LOG_COLUMNS,
    BotFactory,
    SelfPlaySettings,
    SelfPlayTrainer,
)

ALGORITHM = "selfplay"
POLICY_FILE = "policy-net.npz"
META_FILE = "meta.json"
LOG_FILE = "training.csv"
LOG = LogSpec(
    LOG_FILE,
    LOG_COLUMNS,
    lambda row: [*(int(x) for x in row[:4]), *(round(float(x), 4) for x in row[4:])],
)
RESUMABLE: tuple[str, ...] = ()


def _record(config: GameConfig, seed: int, settings: SelfPlaySettings) -> dict[str, Any]:
    return {
        "algorithm": ALGORITHM,
        "game": config.game_string(),
        "params": config.params(),
        "solver": {"seed": seed, **settings.record()},
    }


def policy_meta(config: GameConfig, algorithm: str) -> dict[str, str]:
    """What a table network's file records beside its weights: game, maker, feature version."""
    return {"game": config.game_string(), "algorithm": algorithm, "features": str(FEATURE_VERSION)}


class SelfPlayRun:
    """Train, checkpoint, resume and save a table network in one run directory (see the module note)."""

    def __init__(
        self,
        out: Path,
        config: GameConfig,
        settings: SelfPlaySettings,
        seed: int = 0,
        bot_factory: BotFactory | None = None,
        resume: bool = False,
        force: bool = False,
        given: frozenset[str] = frozenset(),
        pool: WorkerPool | None = None,
    ) -> None:
        """Set up the folder through the run driver and the trainer (restored on ``resume``).

        On ``resume`` the saved settings are the run's; a setting named in
        ``given`` that differs from the saved one is refused (ValueError).
        """
        self.out = Path(out)
        self.config = config
        if resume and not force:
            path = self.out / CONFIG_FILE
            if not path.is_file():
                raise ValueError(f"--resume: no self-play run in {self.out}")
            saved = json.loads(path.read_text())
            if saved.get("algorithm") != ALGORITHM:
                raise ValueError(f"--resume: {self.out} holds a run of another algorithm")
            names = {f.name for f in fields(SelfPlaySettings)}
            stored = {k: v for k, v in saved.get("solver", {}).items() if k in names}
            stored.setdefault("jobs", 1)  # runs from before the setting played one stream
            for key in sorted(given):
                if key in stored and stored[key] != getattr(settings, key):
                    raise ValueError(
                        f"--option {key}: the run in {self.out} was trained with "
                        f"{key}={stored[key]}; a resumed run keeps its settings"
                    )
            settings = SelfPlaySettings(**stored)
            seed = int(saved.get("solver", {}).get("seed", seed))
        self.settings = settings
        self.seed = seed
        self.trainer = SelfPlayTrainer(
            config, settings, seed=seed, bot_factory=bot_factory, pool=pool
        )
        self.driver = RunDriver(
            self.out, _record(config, seed, settings), RESUMABLE, LOG, resume, force,
            on_checkpoint=self.save,
        )  # fmt: skip
        self.driver.restore(self.trainer)

    @property
    def resumed(self) -> bool:
        """Whether a checkpoint was loaded."""
        return self.driver.resumed

    def train(
        self,
        seconds: float | None = None,
        iterations: int | None = None,
        progress: Callable[[RunProgress], None] | None = None,
    ) -> None:
        """Iterations until ``iterations`` in all or ``seconds`` more (checkpoints every minute)."""
        budget = Budget(iterations=iterations, seconds=seconds)
        self.driver.iterate(
            self.trainer,
            budget,
            chunk=lambda rate: None,
            measure=self.trainer.measure,
            progress=progress,
            consistent=lambda: not self.trainer.stepping,
        )

    def save(self) -> None:
        """Write ``policy-net.npz`` and ``meta.json`` (what the run did; quality not measured).

        Also after every checkpoint, so that a run stopped at any moment can be played.
        """
        tr = self.trainer
        tr.policy().save(self.out / POLICY_FILE, meta=policy_meta(self.config, ALGORITHM))
        meta = {
            "algorithm": ALGORITHM,
            "game": self.config.game_string(),
            "training_iterations": tr.iteration,
            "training_games": tr.games,
            "training_seconds": round(self.driver.elapsed, 1),
            "settings": self.settings.record(),
            "responder_gain": None,
            "quality": "not measured: no best responder has been trained against this strategy",
        }
        atomic_write_json(self.out / META_FILE, meta)
