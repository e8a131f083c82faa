"""The run directory every solver family shares: file names, the resume guard, checkpoints.

A run directory holds ``config.json`` (the resolved game and solver settings),
``checkpoint.npz`` (the solver's state under :data:`CHECKPOINT_PREFIX`, the
elapsed solving time and the progress log) and the result files of its family.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.solvers.common.atomic import (
    atomic_write_bytes,
    atomic_write_npz,
    atomic_write_npz_streamed,
    remove_partial_writes,
)
from complots_solver.solvers.common.folders import (
    META_FILE,
    POLICY_FILE,
    REGRET_STATE_FILE,
    SELFPLAY_STATE_FILE,
    STRATEGY_FILE,
    TRAINING_LOG,
    VALUE_FILE,
)

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.npz"
# every family's run files, in the order --force removes them: results first, then logs,
# checkpoints, and config.json last, so that a kill half-way leaves an older run whole
# enough to resume or refuse, never new settings beside old results
RESULT_FILES = (
    META_FILE, STRATEGY_FILE, POLICY_FILE, VALUE_FILE, REGRET_STATE_FILE, SELFPLAY_STATE_FILE,
)  # fmt: skip
LOG_FILES = ("convergence.csv", "progress.csv", TRAINING_LOG)
STATE_FILES = (CHECKPOINT_FILE, "belief-checkpoint.npz")
RUN_FILES = (*RESULT_FILES, *LOG_FILES, *STATE_FILES, CONFIG_FILE)
CHECKPOINT_PREFIX = "solver_"  # names of the solver's own arrays in checkpoint.npz
ELAPSED = "elapsed"
LOG = "log"
# a numpy scalar's repr, as runs resumed before the fix wrote into convergence.csv
NUMPY_SCALAR = re.compile(r"^np\.float(?:64|32)\((.*)\)$")


@dataclass
class Checkpoint:
    """What a checkpoint holds: the solver's state, elapsed solving seconds, the progress log."""

    state: dict[str, np.ndarray]
    elapsed: float = 0.0
    log: list[tuple[float, ...]] = field(default_factory=list)


def solver_state(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The solver's arrays of a checkpoint (an open .npz or a dict), without the prefix."""
    return {
        name[len(CHECKPOINT_PREFIX) :]: arrays[name]
        for name in arrays
        if name.startswith(CHECKPOINT_PREFIX)
    }


def write_checkpoint(
    path: Path, checkpoint: Checkpoint, log_columns: int, streamed: bool = False
) -> None:
    """Write a checkpoint atomically (``streamed``: to disk without a copy in memory)."""
    arrays = {f"{CHECKPOINT_PREFIX}{name}": arr for name, arr in checkpoint.state.items()}
    arrays[ELAPSED] = np.array(checkpoint.elapsed)
    arrays[LOG] = np.array(checkpoint.log, dtype=np.float64).reshape(-1, log_columns)
    if streamed:
        atomic_write_npz_streamed(path, arrays)
    else:
        atomic_write_npz(path, arrays)


def read_checkpoint(path: Path) -> Checkpoint:
    """Read a checkpoint written by :func:`write_checkpoint`."""
    with np.load(path) as npz:
        return Checkpoint(
            state=solver_state(npz),
            elapsed=float(npz[ELAPSED]),
            log=[tuple(row) for row in npz[LOG]],
        )


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write a CSV table (a header of ``columns``, then ``rows``) atomically."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(columns)
    writer.writerows(rows)
    atomic_write_bytes(path, buf.getvalue().encode())


def csv_float(cell: str) -> float:
    """A CSV cell as a float; also reads the ``np.float64(x)`` cells older runs wrote."""
    text = cell.strip()
    match = NUMPY_SCALAR.match(text)
    return float(match.group(1) if match else text)


def read_csv_log(path: Path) -> list[dict[str, float]]:
    """Rows of a CSV log written by :func:`write_csv`, every cell a float."""
    with Path(path).open(newline="") as fh:
        return [{k: csv_float(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def numbered_folders(folder: Path, prefix: str, holding: str) -> list[int]:
    """The N of every ``folder/PREFIXN/`` holding the file ``holding``, smallest first (a run's
    kept networks and snapshots)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"{prefix}[0-9]*"):
        digits = path.name[len(prefix) :]
        if path.is_dir() and digits.isdigit() and (path / holding).is_file():
            found.append(int(digits))
    return sorted(found)


def clean_run_dir(out_dir: Path) -> list[Path]:
    """Remove the temporary files a run killed mid-write left (its files are whole or absent)."""
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        return []
    removed = remove_partial_writes(out_dir)
    for name in RUN_FILES:  # writers that name their temporary file NAME.tmp
        stray = out_dir / f"{name}.tmp"
        if stray.is_file():
            stray.unlink()
            removed.append(stray)
    return removed


def clear_run(out_dir: Path) -> list[str]:
    """Delete a previous run's files (``--force``), results first and config.json last."""
    out_dir = Path(out_dir)
    clean_run_dir(out_dir)
    removed = []
    for name in RUN_FILES:
        path = out_dir / name
        if path.is_file():
            path.unlink()
            removed.append(name)
    return removed


def holds_run(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds a run's state or results (config.json alone does not count)."""
    return any((Path(out_dir) / name).is_file() for name in RUN_FILES if name != CONFIG_FILE)


def check_run_dir(
    out_dir: Path, record: dict[str, Any], resume: bool, force: bool, resumable: tuple[str, ...]
) -> bool:
    """Refuse to overwrite a run by accident, or to resume another; True: load its checkpoint.

    With ``resume`` the directory must hold a run of the same game and solver
    settings (budgets in ``resumable`` may change): its checkpoint, or only its
    ``config.json`` when it stopped before the first checkpoint (it then starts
    afresh); with ``force`` every file of a previous run there is deleted
    (:func:`clear_run`) before the new run writes anything; otherwise the
    directory must hold none.
    """
    ckpt = out_dir / CHECKPOINT_FILE
    if resume and force:
        raise ValueError("--resume and --force exclude each other")
    if force:
        clear_run(out_dir)
        return False
    if not resume:
        if holds_run(out_dir):
            raise ValueError(
                f"{out_dir} already holds a run; pass --resume, --force or another --out"
            )
        return False
    if not ckpt.is_file() and not (out_dir / CONFIG_FILE).is_file():
        raise ValueError(f"--resume: no checkpoint in {out_dir}")
    saved = json.loads((out_dir / CONFIG_FILE).read_text())
    for key in ("game", "params"):
        if saved.get(key) != record[key]:
            raise ValueError(
                f"--resume: {out_dir} holds a run of {saved.get('game')}, not {record['game']}"
            )
    for key, value in saved["solver"].items():
        if key not in resumable and record["solver"].get(key) != value:
            now = record["solver"].get(key)
            raise ValueError(
                f"--resume: solver setting {key} was {value!r} in {out_dir}, now {now!r}; "
                f"a resumed run keeps {key}={value}"
            )
    return ckpt.is_file()
