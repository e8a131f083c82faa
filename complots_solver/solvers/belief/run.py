"""A belief-solver run directory: train the value network, then distil the policy network.

Files in the run directory:

``config.json``          the game and the settings (written first)
``belief-checkpoint.npz`` the training state (atomic; ``--resume`` continues it exactly)
``value-net.npz``        the value network (search players read it)
``training.csv``         one row per training round
``policy-net.npz``       the distilled policy network (``net:DIR`` and ``solved`` play it)
``meta.json``            what the run did, and the strategy's measured quality if any

A run killed at any moment keeps its last checkpoint; every file is written
atomically, so each command reads either the old or the new version.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.train import (
    CHECKPOINT,
    LOG_FILE,
    NET_FILE,
    POLICY_FILE,
    Trainer,
    TrainSettings,
    distill_policy,
)
from complots_solver.solvers.common.atomic import atomic_write_json

CONFIG_FILE = "config.json"
META_FILE = "meta.json"
RUN_FILES = (CONFIG_FILE, CHECKPOINT, NET_FILE, LOG_FILE, POLICY_FILE, META_FILE)
ALGORITHM = "belief"


@dataclass(frozen=True)
class BeliefRunSettings:
    """Training and distillation settings of a run (``--option key=value`` on the command line)."""

    games: int = 16
    iterations: int = 48
    epsilon: float = 0.1
    explore_beliefs: int = 1  # 1: exploration also in beliefs and value targets (as shipped)
    outcome_weight: float = 0.5
    steps: int = 200
    batch: int = 256
    lr: float = 1e-3
    distill_games: int = 64
    # the defaults are the distillation the shipped strategies were made with; the ladder-tested
    # changes (own reach, width 512, DAgger) made the full-game Ambassador strategy weaker
    # (docs/solving-the-full-game.md section 8), so they stay options until that is understood
    distill_epochs: int = 20
    distill_dagger: int = 0  # games the network then plays with its own beliefs
    distill_width: int = 256  # units in each of the policy network's two hidden layers
    distill_own_reach: int = 0  # 1: weight decisions by the actor's own reach
    pretrain_games: int = 2000  # games between the bots fitted before self-play (0: none)
    pretrain_steps: int = 3000

    @classmethod
    def from_options(cls, options: dict[str, str]) -> BeliefRunSettings:
        """Settings from ``key=value`` strings; ValueError naming an unknown key or bad value."""
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, raw in options.items():
            if key not in known:
                raise ValueError(f"--option {key}: unknown; allowed: {', '.join(sorted(known))}")
            kind = int if known[key] in ("int", int) else float
            try:
                values[key] = kind(raw)
            except ValueError:
                raise ValueError(f"--option {key}: {raw!r} is not a number") from None
        settings = cls(**values)
        if settings.distill_games < 1 or settings.distill_epochs < 1 or settings.distill_width < 1:
            raise ValueError(
                "--option distill_games, distill_epochs and distill_width must be at least 1"
            )
        if settings.explore_beliefs not in (0, 1):
            raise ValueError("--option explore_beliefs must be 0 or 1")
        if settings.distill_dagger < 0:
            raise ValueError("--option distill_dagger must be at least 0")
        return settings

    def train_settings(self, seed: int, workers: int) -> TrainSettings:
        """The training part."""
        return TrainSettings(
            games=self.games,
            iterations=self.iterations,
            epsilon=self.epsilon,
            explore_beliefs=bool(self.explore_beliefs),
            outcome_weight=self.outcome_weight,
            steps=self.steps,
            batch=self.batch,
            lr=self.lr,
            seed=seed,
            workers=workers,
        )


class BeliefRun:
    """Train, checkpoint, resume and distil in one run directory (see the module note)."""

    def __init__(
        self,
        out: Path,
        config: GameConfig,
        settings: BeliefRunSettings,
        seed: int = 0,
        workers: int = 1,
        resume: bool = False,
        force: bool = False,
        initial_net: Any | None = None,
        ray_address: str | None = None,
    ) -> None:
        if config.players != 2:
            raise ValueError("players: the belief solver handles 2-player games")
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.out = Path(out)
        self.config = config
        self.settings = settings
        self.seed = seed
        self.workers = workers
        self.ray_address = ray_address
        record = {
            "algorithm": ALGORITHM,
            "game": config.game_string(),
            "seed": seed,
            "settings": asdict(settings),
        }
        existing = self.out / CONFIG_FILE
        if resume:
            if not existing.is_file():
                raise ValueError(f"--resume: no belief run in {self.out}")
            saved = json.loads(existing.read_text())
            if saved.get("game") != record["game"] or saved.get("algorithm") != ALGORITHM:
                raise ValueError(f"--resume: {self.out} holds a run of another game or algorithm")
            # settings added since the run was saved take their defaults
            self.settings = BeliefRunSettings(**saved["settings"])
            self.seed = int(saved["seed"])
        else:
            if any((self.out / f).exists() for f in RUN_FILES):
                if not force:
                    raise ValueError(
                        f"--out: {self.out} already holds a run; use --resume or --force"
                    )
                for f in RUN_FILES:
                    (self.out / f).unlink(missing_ok=True)
            self.out.mkdir(parents=True, exist_ok=True)
            atomic_write_json(existing, record)
        self.trainer = Trainer(
            config,
            self.settings.train_settings(self.seed, workers),
            self.out,
            resume=resume,
            initial_net=None if resume else initial_net,
        )

    def train(
        self, seconds: float | None = None, rounds: int | None = None, log: Any | None = None
    ) -> None:
        """Training rounds within the budget (checkpointed after each round)."""
        self.trainer.run(rounds=rounds, seconds=seconds, log=log, ray_address=self.ray_address)

    def distill(self, log: Any | None = None) -> None:
        """Distil the policy network from self-play with the current value network; write meta.json."""
        start = time.perf_counter()
        s = self.settings
        distill_policy(
            self.config,
            self.trainer.state.net,
            self.out,
            games=s.distill_games,
            iterations=s.iterations,
            epochs=s.distill_epochs,
            hidden=(s.distill_width, s.distill_width),
            dagger_games=s.distill_dagger,
            own_reach=bool(s.distill_own_reach),
            seed=self.seed,
            workers=self.workers,
            log=log,
            ray_address=self.ray_address,
        )
        st = self.trainer.state
        meta = {
            "algorithm": ALGORITHM,
            "game": self.config.game_string(),
            "training_rounds": st.round,
            "training_games": st.games,
            "training_examples": st.examples,
            "training_seconds": round(st.seconds, 1),
            "distill_seconds": round(time.perf_counter() - start, 1),
            "exploitability_bound": None,
            "quality": "not measured: no best response has been run against this strategy",
        }
        atomic_write_json(self.out / META_FILE, meta)


def copy_strategy(run_dir: Path, target: Path) -> None:
    """Copy a finished run's networks and meta into a shipped-strategy folder."""
    run_dir = Path(run_dir)
    for name in (POLICY_FILE, NET_FILE, META_FILE):
        if not (run_dir / name).is_file():
            raise ValueError(f"{run_dir}: no {name}; finish the run first")
    target.mkdir(parents=True, exist_ok=True)
    for name in (POLICY_FILE, NET_FILE, META_FILE):
        shutil.copyfile(run_dir / name, target / name)
