"""A network family's state file: what a warm start needs, small enough to ship beside a strategy.

A run of a family that warm-starts (regret, selfplay) writes one ``.npz`` with
every checkpoint: the trainer's named arrays without what is large and is not
needed to go on (an average network's reservoir, a league's past selves), and
``kit_meta``, a JSON string naming the kind of state, its format version, the
game, the table features' version, the seed and the settings of the run that
wrote it. The file loads without pickle; :meth:`KitSpec.read` refuses by name
a folder without it, a file that is not readable (or holds pickled data), and a
state of another kind, format, feature version or game.

``warm_start=solved`` names the game's shipped strategy folder
(:func:`warm_folder`). A family reads the features' version from the layer that
defines it and passes it in (this shared home does not import it).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_npz
from complots_solver.solvers.common.driver import keep_saved
from complots_solver.solvers.common.folders import shipped_dir

SOLVED = "solved"  # warm_start=solved: the game's shipped strategy folder
KIT_META = "kit_meta"  # the array holding the state's description (a JSON string)


def warm_folder(value: str | None, config: GameConfig) -> Path | None:
    """The folder ``warm_start`` names: None, the shipped folder for ``solved``, else the path
    (ValueError when ``solved`` and the game has no shipped strategy)."""
    if value is None:
        return None
    return shipped_dir(config) if value == SOLVED else Path(value)


def refuse_with_resume(warm_start: Path | None, resume: bool) -> None:
    """ValueError when a warm start is asked together with ``--resume``."""
    if warm_start is not None and resume:
        raise ValueError("warm_start: --resume continues its own run; a warm start is a new one")


def warm_settings(
    meta: dict[str, Any],
    defaults: dict[str, Any],
    now: dict[str, Any],
    given: Iterable[str],
    resumable: Iterable[str],
    where: Path,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the settings a warm start runs with, those it kept from the state): the state's
    settings (``defaults`` for those it predates) unless given, a given one that differs
    refused unless in ``resumable`` (the driver's :func:`keep_saved`)."""
    stored = {**defaults, **meta.get("settings", {})}
    return keep_saved(stored, now, given, resumable, where, "warm_start")


STATE_SUFFIX = "-state.npz"  # every family's state file: FAMILY-state.npz


@dataclass(frozen=True)
class KitSpec:
    """One family's state file: its name, kind, format version and how messages name it."""

    file: str  # e.g. regret-state.npz
    kind: str  # kit_meta's "kind"
    version: int  # kit_meta's "version": the format this code reads
    what: str  # how refusals name a state ("regret state")
    writer: str  # who writes one ("a sampled regret run")
    required: str  # an array every such state holds

    def arrays(
        self,
        state: dict[str, np.ndarray],
        config: GameConfig,
        features: int,
        seed: int,
        settings: dict[str, Any],
    ) -> dict[str, np.ndarray]:
        """``state`` with its ``kit_meta`` description added (a new dict)."""
        meta = {
            "kind": self.kind,
            "version": self.version,
            "game": config.game_string(),
            "features": features,
            "seed": seed,
            "settings": settings,
        }
        return {**state, KIT_META: np.array(json.dumps(meta))}

    def write(
        self,
        path: Path,
        state: dict[str, np.ndarray],
        config: GameConfig,
        features: int,
        seed: int,
        settings: dict[str, Any],
    ) -> None:
        """Write ``state`` and its description to ``path`` atomically (npz, no pickle)."""
        # deflated: the shipped ones count against the strategies' size limit, and a state
        # made from a network alone (zero Adam moments) shrinks to a third
        atomic_write_npz(
            path, self.arrays(state, config, features, seed, settings), compressed=True
        )

    def read(
        self, folder: Path, config: GameConfig, features: int
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and description of ``folder``'s state file; ValueError naming what is
        wrong (no such file, not readable, pickled data, another kind, format, feature version
        or game)."""
        path = Path(folder) / self.file
        if not path.is_file():
            # a state file is named after its family (regret-state.npz, selfplay-state.npz)
            others = sorted(q.name for q in Path(folder).glob(f"*{STATE_SUFFIX}"))
            hint = "".join(
                f"; it holds {name}: --algorithm {name[: -len(STATE_SUFFIX)]} continues that"
                for name in others
            )
            raise ValueError(
                f"warm_start: {folder} holds no {self.file} ({self.writer} writes one with "
                f"every checkpoint){hint}"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
            meta = json.loads(str(arrays.pop(KIT_META)))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"warm_start: {path} is not a readable {self.what} ({exc})") from None
        if (
            not isinstance(meta, dict)
            or meta.get("kind") != self.kind
            or self.required not in arrays
        ):
            raise ValueError(f"warm_start: {path} is not a {self.what}")
        if meta.get("version") != self.version or meta.get("features") != features:
            raise ValueError(
                f"warm_start: {path} is of format {meta.get('version')} with features "
                f"{meta.get('features')}; this version reads format {self.version}, features "
                f"{features}"
            )
        if meta.get("game") != config.game_string():
            raise ValueError(f"warm_start: {path} is a state of {meta.get('game')}")
        return arrays, meta
