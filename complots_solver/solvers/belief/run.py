"""A belief-solver run directory: train the value network, then distil the policy network.

Files in the run directory:

``config.json``          the game and the settings (written first; the run driver's layout)
``belief-checkpoint.npz`` the training state (atomic; ``--resume`` continues it exactly)
``value-net.npz``        the value network (search players read it)
``training.csv``         one row per training round
``policy-net.npz``       the distilled policy network (``net:DIR`` and ``solved`` play it)
``meta.json``            what the run did, and the strategy's measured quality if any

A run killed at any moment keeps its last checkpoint; every file is written
atomically, so each command reads either the old or the new version. The
folder, the resume guard, ``--force`` and the budget (``-n``: rounds in all,
``--seconds``: this session) are the shared run driver's
(:mod:`complots_solver.solvers.common.driver`), as for every solver family.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.train import (
    CHECKPOINT,
    Trainer,
    TrainSettings,
    distill_policy,
)
from complots_solver.solvers.common.atomic import atomic_write_json
from complots_solver.solvers.common.driver import (
    Budget,
    LogSpec,
    RunDriver,
    RunProgress,
    reconcile,
)
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE, TRAINING_LOG, VALUE_FILE
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.common.rundir import CONFIG_FILE

ALGORITHM = "belief"


@dataclass(frozen=True)
class BeliefRunSettings:
    """Training and distillation settings of a run (``--option key=value`` on the command line)."""

    games: int = 16
    iterations: int = 48
    epsilon: float = 0.1
    explore_beliefs: int = 1  # 1: exploration also in beliefs and value targets (as shipped)
    leaf_average: int = 0  # 1: subgame leaf beliefs from the average strategy (CFR-AVG)
    sample_iteration: int = 0  # 1: a random iteration's strategy carries self-play on (ReBeL)
    outcome_weight: float = 0.5
    counterfactual: int = 0  # 1: value targets for every hand the counterfactual reach allows
    zero_sum: int = 0  # 1: value network outputs shifted to be zero-sum where used; 2: fitted so
    steps: int = 200
    batch: int = 256
    lr: float = 1e-3
    distill_games: int = 64
    # the defaults are the distillation the shipped strategies were made with; the ladder-tested
    # changes (own reach, width 512, DAgger) made the full-game Ambassador strategy weaker
    # (docs/lab/2026-full-game-journal.md section 8), so they stay options until that is understood
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
        for flag in ("explore_beliefs", "leaf_average", "sample_iteration", "counterfactual"):
            if getattr(settings, flag) not in (0, 1):
                raise ValueError(f"--option {flag} must be 0 or 1")
        if settings.zero_sum not in (0, 1, 2):
            raise ValueError("--option zero_sum must be 0, 1 or 2")
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
            leaf_average=bool(self.leaf_average),
            sample_iteration=bool(self.sample_iteration),
            outcome_weight=self.outcome_weight,
            zero_sum=self.zero_sum,
            counterfactual=bool(self.counterfactual),
            steps=self.steps,
            batch=self.batch,
            lr=self.lr,
            seed=seed,
            workers=workers,
        )


# settings that shape only the distillation, or the pretraining before round 1: a resumed
# run may change them (e.g. distil the same value network again with DAgger)
RESUMABLE = (
    "distill_games",
    "distill_epochs",
    "distill_dagger",
    "distill_width",
    "distill_own_reach",
    "pretrain_games",
    "pretrain_steps",
)
LOG_COLUMNS = (
    "round",
    "games",
    "examples",
    "buffer",
    "loss",
    "seat0_mean",
    "turns_mean",
    "play_s",
    "seconds",
)
LOG = LogSpec(TRAINING_LOG, LOG_COLUMNS, lambda row: [*(int(x) for x in row[:4]), *row[4:]])


def _record(config: GameConfig, seed: int, settings: BeliefRunSettings) -> dict[str, Any]:
    """The run's config.json in the run driver's layout (game, params, solver settings)."""
    return {
        "algorithm": ALGORITHM,
        "game": config.game_string(),
        "params": config.params(),
        "solver": {"seed": seed, **asdict(settings)},
    }


def _saved_record(out: Path, config: GameConfig) -> dict[str, Any] | None:
    """A run's config.json, older belief layouts (``seed``/``settings``) moved into the new one."""
    path = out / CONFIG_FILE
    if not path.is_file():
        return None
    saved = json.loads(path.read_text())
    if "solver" not in saved and "settings" in saved:
        if saved.get("game") != config.game_string():
            raise ValueError(
                f"--resume: {out} holds a run of {saved.get('game')}, not {config.game_string()}"
            )
        settings = BeliefRunSettings(**saved["settings"])  # keys added since take defaults
        saved = _record(config, int(saved.get("seed", 0)), settings)
        atomic_write_json(path, saved)
    if saved.get("algorithm", ALGORITHM) != ALGORITHM:
        raise ValueError(f"--resume: {out} holds a run of another algorithm")
    return saved


class _Rounds:
    """The trainer as the run driver's solver: one iteration is one self-play round.

    The trainer writes its own checkpoint (``belief-checkpoint.npz``, with the
    network, optimiser and example buffer) after every round, so the driver
    runs it without ``checkpoint.npz``.
    """

    def __init__(self, trainer: Trainer, pool: WorkerPool) -> None:
        self.trainer = trainer
        self.pool = pool
        self.last: dict[str, float] = {}

    @property
    def iteration(self) -> int:
        """Rounds done (all sessions)."""
        return self.trainer.state.round

    def step(self, iterations: int | None) -> int:
        """Play ``iterations`` rounds (None: one)."""
        n = 1 if iterations is None else iterations
        for _ in range(n):
            self.last = self.trainer.round(self.pool)
        return n

    def run(self, iterations: int) -> None:
        """Play ``iterations`` more rounds."""
        self.step(iterations)

    def get_state(self) -> dict[str, np.ndarray]:
        """Nothing: the trainer's own checkpoint holds the state."""
        return {}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Nothing to restore here: the trainer loads its own checkpoint."""

    def policy(self) -> Any:
        """The value network (search plays it; the distilled policy network is the strategy)."""
        return self.trainer.state.net

    def evaluate(self) -> dict[str, float]:
        """The last round's figures (loss, games, examples, ...)."""
        return {k: float(v) for k, v in self.last.items()}

    def measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The log row and progress figures after a step: the last round's."""
        figures = self.evaluate()
        return tuple(figures.get(c, 0.0) for c in LOG_COLUMNS), figures


class BeliefRun:
    """Train, checkpoint, resume and distil in one run directory (see the module note).

    The run folder, the resume guard, ``--force``, the budget and resume
    reconciliation go through the shared run driver. On ``resume`` the saved
    settings and seed are the run's; those in ``given`` (the settings the
    command names) replace them, and a change to a training setting is refused
    (only those in :data:`RESUMABLE` may change).
    """

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
        given: Iterable[str] | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        """Set up the folder through the run driver, and the trainer (resumed or fresh);
        ``say`` is told when the distillation starts."""
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
        self.say = say
        self.kept: dict[str, Any] = {}
        record = _record(config, self.seed, self.settings)
        if resume and not force:
            if _saved_record(self.out, config) is None:
                raise ValueError(f"--resume: no belief run in {self.out}")
            defaults = {"seed": seed, **asdict(BeliefRunSettings())}
            solver, self.kept = reconcile(
                self.out, record, given or (), RESUMABLE, missing=defaults
            )
            names = {f.name for f in fields(BeliefRunSettings)}
            self.settings = BeliefRunSettings(**{k: v for k, v in solver.items() if k in names})
            self.seed = int(solver["seed"])
            record = _record(config, self.seed, self.settings)
        self.driver = RunDriver(self.out, record, RESUMABLE, LOG, resume, force, checkpoints=False)
        loads = resume and (self.out / CHECKPOINT).is_file()
        self.trainer = Trainer(
            config,
            self.settings.train_settings(self.seed, workers),
            self.out,
            resume=loads,
            initial_net=None if loads else initial_net,
        )

    @property
    def needs_initial_net(self) -> bool:
        """Whether training starts from scratch here (no round checkpoint to resume)."""
        return self.trainer.state.round == 0 and not self.trainer.state.pretrained

    def start_from(self, net: Any) -> None:
        """Start training from ``net`` (a pretrained value network) instead of a fresh one."""
        if not self.needs_initial_net:
            raise ValueError("start_from: the run has already trained")
        self.trainer = Trainer(
            self.config,
            self.settings.train_settings(self.seed, self.workers),
            self.out,
            initial_net=net,
        )

    def train(
        self,
        seconds: float | None = None,
        rounds: int | None = None,
        progress: Callable[[RunProgress], None] | None = None,
    ) -> None:
        """Training rounds until ``rounds`` in all or ``seconds`` more (a checkpoint each round)."""
        budget = Budget(iterations=rounds, seconds=seconds)
        with WorkerPool(self.workers, self.ray_address) as pool:
            solver = _Rounds(self.trainer, pool)
            self.driver.iterate(
                solver, budget, chunk=lambda rate: None, measure=solver.measure, progress=progress
            )

    def run(
        self, budget: Budget | None = None, progress: Callable[[RunProgress], None] | None = None
    ) -> None:
        """Train to ``budget`` (None: one round more), then distil the policy network."""
        if budget is None:
            budget = Budget(iterations=self.trainer.state.round + 1)
        self.train(budget.seconds, budget.iterations, progress)
        if self.say is not None:
            self.say(
                f"distilling the policy network from {self.settings.distill_games} self-play games"
            )
        self.distill(log=None)

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
    for name in (POLICY_FILE, VALUE_FILE, META_FILE):
        if not (run_dir / name).is_file():
            raise ValueError(f"{run_dir}: no {name}; finish the run first")
    target.mkdir(parents=True, exist_ok=True)
    for name in (POLICY_FILE, VALUE_FILE, META_FILE):
        shutil.copyfile(run_dir / name, target / name)
