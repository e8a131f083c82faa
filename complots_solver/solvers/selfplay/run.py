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

from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

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
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE, TRAINING_LOG
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.nets.tablenet import policy_meta
from complots_solver.solvers.selfplay.train import (
    LOG_COLUMNS,
    BotFactory,
    SelfPlaySettings,
    SelfPlayTrainer,
)

ALGORITHM = "selfplay"
LOG_FILE = TRAINING_LOG
LOG = LogSpec(
    LOG_FILE,
    LOG_COLUMNS,
    lambda row: [*(int(x) for x in row[:4]), *(round(float(x), 4) for x in row[4:])],
)
RESUMABLE: tuple[str, ...] = ()
__all__ = ["META_FILE", "POLICY_FILE", "SelfPlayRun", "policy_meta"]


def _record(config: GameConfig, seed: int, settings: SelfPlaySettings) -> dict[str, Any]:
    return {
        "algorithm": ALGORITHM,
        "game": config.game_string(),
        "params": config.params(),
        "solver": {"seed": seed, **settings.record()},
    }


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
        given: Iterable[str] = frozenset(),
        pool: WorkerPool | None = None,
    ) -> None:
        """Set up the folder through the run driver and the trainer (restored on ``resume``).

        On ``resume`` the saved settings and seed are the run's; a setting named
        in ``given`` that differs from the saved one is refused (ValueError), by
        the driver's reconciliation.
        """
        self.out = Path(out)
        self.config = config
        self.kept: dict[str, object] = {}
        if resume and not force:
            if read_record(self.out) is None:
                raise ValueError(f"--resume: no self-play run in {self.out}")
            # runs from before a setting existed took its default; before jobs, one stream
            missing = {"seed": seed, **SelfPlaySettings().record(), "jobs": 1}
            solver, self.kept = reconcile(
                self.out, _record(config, seed, settings), given, RESUMABLE, missing
            )
            names = {f.name for f in fields(SelfPlaySettings)}
            settings = SelfPlaySettings(**{k: v for k, v in solver.items() if k in names})
            seed = int(solver["seed"])
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

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> None:
        """Train to ``budget`` (None: one iteration more), then write the network."""
        if budget is None:
            budget = Budget(iterations=self.trainer.iteration + 1)
        self.train(budget.seconds, budget.iterations, progress)
        self.save()

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
