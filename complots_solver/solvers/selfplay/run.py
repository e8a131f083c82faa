"""A table self-play run directory: train through the run driver, write the playable network.

Files in the run directory:

``config.json``     the game and the settings (written first; the run driver's layout)
``checkpoint.npz``  network, optimiser, past selves and counters (atomic; ``--resume``
                    continues exactly)
``training.csv``    one row per iteration (games, decisions, win share against the bots
                    in that iteration's bot games, entropy, losses)
``policy-net.npz``  the table network (``net:DIR`` and ``solved`` play it)
``mixture-TAG-NN.npz``  with ``mixture`` M > 1: the M - 1 earlier networks the strategy mixes
                    with it, newest first (``mixture_every`` iterations apart)
``meta.json``       what the run did, and the strategy's measured quality if any
``kept/it-NNNNNN/``  with ``keep_every`` K > 0: the network as it was at iteration NNNNNN
                    (``policy-net.npz`` and ``meta.json``; ``net:`` plays it), one for each
                    multiple of K, written at the first checkpoint at or past it
``selfplay-state.npz`` the network and its optimiser without the past selves (about 1.6 MB
                    at 3 players, with every checkpoint; with ``average``, its network
                    and optimiser but not its reservoir): what a warm start needs, small
                    enough to ship beside a strategy so that a fresh clone can train it
                    further

The folder, the resume guard, ``--force``, checkpoints and the budget
(``-n``: iterations in all, ``--seconds``: this session) are the shared run
driver's (:mod:`complots_solver.solvers.common.driver`).

A **warm start** (``warm_start``: a folder holding ``selfplay-state.npz``; ``solved``:
the game's shipped strategy) begins a new run folder from that network and its Adam
state at its iteration and game counts, with the saved run's settings (one given again
with another value is refused, but ``jobs``, ``bots``, ``bot_one_kind``, ``mixture``,
``mixture_every`` and ``keep_every``) and the
command's seed. The league's past
selves start empty: until the next multiple of ``snapshot_every`` the games meant for
past selves seat the learning network instead, and from then on the snapshots the new
run takes fill it again; with ``average`` the average network goes on from its weights
and optimiser with an empty reservoir, fed by the new iterations only; an exploiter or a
magnet goes on from its saved weights. So a warm start is not bit for bit the run that
was never stopped; ``--resume`` of the run folder is.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
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
    SELFPLAY_STATE_FILE,
    TRAINING_LOG,
)
from complots_solver.solvers.common.kit import KitSpec, refuse_with_resume, warm_settings
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.common.rundir import numbered_folders, read_checkpoint
from complots_solver.solvers.knowledge.table_features import FEATURE_VERSION
from complots_solver.solvers.nets.tablenet import (
    MIXTURE_HOW,
    TableNet,
    policy_meta,
    save_strategy_nets,
)
from complots_solver.solvers.selfplay.train import (
    LOG_COLUMNS,
    BotFactory,
    SelfPlaySettings,
    SelfPlayTrainer,
    without_league,
)

ALGORITHM = "selfplay"
LOG_FILE = TRAINING_LOG
LOG = LogSpec(
    LOG_FILE,
    LOG_COLUMNS,
    lambda row: [*(int(x) for x in row[:4]), *(round(float(x), 4) for x in row[4:])],
)
KIT_FILE = SELFPLAY_STATE_FILE
KIT_KIND = "complots selfplay state"
KIT_VERSION = 1
KIT = KitSpec(KIT_FILE, KIT_KIND, KIT_VERSION, "selfplay state", "a selfplay run", "iteration")
# settings a resume may change: what the run writes, not how it trains
RESUMABLE: tuple[str, ...] = ("mixture", "mixture_every", "keep_every")
KEPT_DIR = "kept"  # keep_every: kept/it-NNNNNN/ under the run folder
KEPT_PREFIX = "it-"
# settings a warm start may change: the streams an iteration is split into, the bots the
# continued network meets, and the above
WARM_RESUMABLE = ("jobs", "bots", "bot_one_kind", *RESUMABLE)
__all__ = ["KIT_FILE", "META_FILE", "POLICY_FILE", "SelfPlayRun", "policy_meta"]


def _record(config: GameConfig, seed: int, settings: SelfPlaySettings) -> dict[str, Any]:
    return {
        "algorithm": ALGORITHM,
        "game": config.game_string(),
        "params": config.params(),
        "solver": {"seed": seed, **settings.record()},
    }


def _saved_defaults() -> dict[str, Any]:
    """What a saved run or state lacks took: a setting's default from before it existed, and
    one stream from before ``jobs``."""
    return {**SelfPlaySettings().record(), "jobs": 1}


def _settings(solver: dict[str, Any]) -> SelfPlaySettings:
    names = {f.name for f in fields(SelfPlaySettings)}
    return SelfPlaySettings(**{k: v for k, v in solver.items() if k in names})


def write_kit(path: Path, trainer: SelfPlayTrainer) -> None:
    """Write ``trainer``'s state without its past selves (and reservoir), atomically (npz)."""
    KIT.write(
        path, trainer.kit_state(), trainer.config, FEATURE_VERSION, trainer.seed,
        trainer.settings.record(),
    )  # fmt: skip


def read_kit(folder: Path, config: GameConfig) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and description of ``folder/selfplay-state.npz``; ValueError naming what is
    wrong (no such file, not readable, pickled data, another game, format or features)."""
    return KIT.read(folder, config, FEATURE_VERSION)


def kit_from_checkpoint(checkpoint: Path, config: GameConfig) -> dict[str, np.ndarray]:
    """The arrays of ``selfplay-state.npz`` made from a selfplay run folder's ``checkpoint.npz``
    (its seed and settings from the ``config.json`` beside it), as the run would have written
    them at that checkpoint; ValueError for another algorithm, game or feature version."""
    folder = Path(checkpoint).parent
    record = read_record(folder)
    if record is None or record.get("algorithm") != ALGORITHM:
        raise ValueError(f"{folder} holds no selfplay run (config.json)")
    if record.get("game") != config.game_string():
        raise ValueError(f"{folder} holds a run of {record.get('game')}")
    state = read_checkpoint(Path(checkpoint)).state
    if "features" not in state or int(state["features"]) != FEATURE_VERSION:
        raise ValueError(
            f"{checkpoint} was written with table features {state.get('features')}; "
            f"this version has {FEATURE_VERSION}"
        )
    solver = {**_saved_defaults(), **record["solver"]}
    settings = _settings(solver)
    return KIT.arrays(
        without_league(state), config, FEATURE_VERSION, int(solver["seed"]), settings.record()
    )


def kit_from_network(folder: Path, config: GameConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """The arrays of a ``selfplay-state.npz`` for a strategy folder whose run is gone: its
    ``policy-net.npz`` with a restarted Adam state (zero moments), the iteration, game count
    and settings of its ``meta.json``; ValueError for another game, algorithm or a network of
    another shape. When the shipped network is a run's average network (``average``), the
    learning network was never shipped: both start from the average's weights."""
    folder = Path(folder)
    meta_path = folder / META_FILE
    if not meta_path.is_file():
        raise ValueError(f"{folder} holds no {META_FILE}")
    meta = json.loads(meta_path.read_text())
    if meta.get("algorithm") != ALGORITHM:
        raise ValueError(f"{folder} holds a {meta.get('algorithm')} strategy, not a selfplay one")
    if meta.get("game") != config.game_string():
        raise ValueError(f"{folder} holds a strategy of {meta.get('game')}")
    settings = _settings({**_saved_defaults(), **meta.get("settings", {})})
    # the trainer only carries the arrays here and seats no bot, so it needs no bot factory
    trainer = SelfPlayTrainer(config, replace(settings, bot_share=0.0), seed=seed)
    try:
        shipped = TableNet.load(folder / POLICY_FILE)
        trainer.net.assign(shipped)
        if trainer.average is not None:
            trainer.average.net.assign(shipped)
    except ValueError:
        raise ValueError(
            f"{folder}/{POLICY_FILE} is a network of another shape or features"
        ) from None
    trainer.iteration = int(meta["training_iterations"])
    trainer.games = int(meta["training_games"])
    return KIT.arrays(trainer.kit_state(), config, FEATURE_VERSION, seed, settings.record())


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
        warm_start: Path | None = None,
    ) -> None:
        """Set up the folder through the run driver and the trainer (restored on ``resume``).

        On ``resume`` the saved settings and seed are the run's; a setting named
        in ``given`` that differs from the saved one is refused (ValueError), by
        the driver's reconciliation. ``warm_start``: a new run from a folder's
        ``selfplay-state.npz`` (module note), its settings but for those of
        :data:`WARM_RESUMABLE` when given;
        ValueError if unusable or together with ``resume``.
        """
        self.out = Path(out)
        self.config = config
        self.kept: dict[str, object] = {}
        self.warm: dict[str, Any] | None = None
        kit = None
        refuse_with_resume(warm_start, resume)
        if warm_start is not None:
            kit, meta = read_kit(Path(warm_start), config)
            solver, self.kept = warm_settings(
                meta, SelfPlaySettings().record(), settings.record(), given, WARM_RESUMABLE,
                Path(warm_start),
            )  # fmt: skip
            settings = _settings(solver)
            settings.validate()
            self.warm = {
                "from": str(warm_start),
                "iteration": int(kit["iteration"]),
                "games": int(kit["games"]),
            }
        if resume and not force:
            saved = read_record(self.out)
            if saved is None:
                raise ValueError(f"--resume: no self-play run in {self.out}")
            missing = {"seed": seed, **_saved_defaults()}
            solver, self.kept = reconcile(
                self.out, _record(config, seed, settings), given, RESUMABLE, missing
            )
            settings = _settings(solver)
            seed = int(solver["seed"])
            self.warm = saved.get("warm_start")
        self.settings = settings
        self.seed = seed
        self.trainer = SelfPlayTrainer(
            config, settings, seed=seed, bot_factory=bot_factory, pool=pool
        )
        record = _record(config, seed, settings)
        if self.warm is not None:
            record["warm_start"] = self.warm
        self.driver = RunDriver(
            self.out, record, RESUMABLE, LOG, resume, force, on_checkpoint=self.save
        )  # fmt: skip
        self.driver.restore(self.trainer)
        if self.warm is not None and not self.driver.resumed:
            if kit is None:  # a warm-started run stopped before its first checkpoint
                kit, _ = read_kit(Path(self.warm["from"]), config)
            self.trainer.set_state(kit)

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
        """Write ``policy-net.npz`` (and the mixture's members it names, as one set), ``selfplay-state.npz``
        and ``meta.json`` (what the run did; quality not measured).

        Also after every checkpoint, so that a run stopped at any moment can be played.
        """
        tr = self.trainer
        write_kit(self.out / KIT_FILE, tr)
        net_meta = policy_meta(self.config, ALGORITHM)
        policy = tr.policy()
        members = tr.mixture_members()
        save_strategy_nets(self.out, policy, [net for _, net in members], net_meta)
        meta = {
            "algorithm": ALGORITHM,
            "game": self.config.game_string(),
            "training_iterations": tr.iteration,
            "training_games": tr.games,
            "training_seconds": round(self.driver.elapsed, 1),
            "settings": self.settings.record(),
            "warm_start": self.warm,
            "mixture": {
                "iterations": [tr.iteration, *(it for it, _ in members)],
                "how": MIXTURE_HOW,
            }
            if members
            else None,
            "responder_gain": None,
            "quality": "not measured: no best responder has been trained against this strategy",
        }
        atomic_write_json(self.out / META_FILE, meta)
        self._keep(policy, net_meta, meta)

    def _keep(self, policy: TableNet, net_meta: dict[str, str], meta: dict[str, Any]) -> None:
        """Copy the network written (``policy``, ``meta``: the run's) to ``kept/it-NNNNNN/`` once
        for each multiple of ``keep_every``."""
        every = self.settings.keep_every
        tr = self.trainer
        if every <= 0 or tr.iteration < every:
            return
        folder = self.out / KEPT_DIR
        done = {it // every for it in kept_iterations(self.out)}
        if tr.iteration // every in done:
            return
        final = folder / f"{KEPT_PREFIX}{tr.iteration:06d}"
        part = folder / f"{final.name}.part"
        if part.exists():
            shutil.rmtree(part)  # left by a run killed while keeping
        part.mkdir(parents=True)
        policy.save(part / POLICY_FILE, meta=net_meta)
        shared = ("algorithm", "game", "training_iterations", "training_games", "quality")
        kept = {key: meta[key] for key in shared}
        kept["kept_by"] = f"keep_every={every} of the run in {self.out}"
        atomic_write_json(part / META_FILE, kept)
        part.rename(final)  # whole or absent: a run killed at any moment leaves no half copy


def kept_iterations(out: Path) -> list[int]:
    """The iterations of the networks a run folder kept (``keep_every``), oldest first."""
    return numbered_folders(Path(out) / KEPT_DIR, KEPT_PREFIX, POLICY_FILE)
