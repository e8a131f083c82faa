"""Atomic file writes: a temporary file in the same folder, flushed, synced, then renamed.

A reader (or a run killed mid-write) sees either the old file or the new
one, never a torn one; a failed write removes its temporary file.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np

from complots_solver.solvers.common.faults import pause_point
from complots_solver.solvers.common.hashing import file_digest

TMP_SUFFIX = ".tmp"
_TMP_NAME = re.compile(r"^\..+\.(\d+)-[^.]*\.tmp$")


def temporary_name_prefix(path: Path) -> str:
    """Prefix of the temporary files an atomic write of ``path`` creates (``.NAME.``)."""
    return f".{Path(path).name}."


@contextmanager
def _atomic_file(path: Path) -> Iterator[tuple[IO[bytes], Path]]:
    """A temporary file next to ``path`` to write, renamed onto ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the writer's process id in the name tells a reader whether the write can still finish
    fd, tmp = tempfile.mkstemp(
        prefix=f"{temporary_name_prefix(path)}{os.getpid()}-", suffix=TMP_SUFFIX, dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh, Path(tmp)
            fh.flush()
            os.fsync(fh.fileno())
        pause_point(f"replace:{path.name}")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename."""
    with _atomic_file(path) as (fh, _):
        fh.write(data)


def atomic_write_npz(path: Path, arrays: dict[str, np.ndarray], compressed: bool = False) -> bytes:
    """Save arrays as an .npz atomically (deflated with ``compressed``); return the bytes written."""
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    data = buf.getvalue()
    atomic_write_bytes(path, data)
    return data


def atomic_write_npz_streamed(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Save arrays as an .npz atomically, streamed to disk (no copy in memory); return its SHA-256."""
    with _atomic_file(path) as (fh, tmp):
        np.savez(fh, **arrays)
        fh.flush()
        digest = file_digest(tmp)
    return digest


def partial_writes(folder: Path) -> list[Path]:
    """Temporary files of atomic writes in ``folder`` that never completed (a killed process)."""
    return sorted(p for p in Path(folder).glob(f".*{TMP_SUFFIX}") if p.is_file())


def remove_partial_writes(folder: Path) -> list[Path]:
    """Delete what :func:`partial_writes` finds; return the paths removed."""
    found = partial_writes(folder)
    for path in found:
        path.unlink(missing_ok=True)
    return found


def writer_pid(tmp: Path) -> int | None:
    """Process id of the writer of a temporary file (None for a name without one)."""
    match = _TMP_NAME.match(Path(tmp).name)
    return int(match.group(1)) if match else None


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def stale_partial_writes(folder: Path) -> list[Path]:
    """Partial writes in ``folder`` whose writer is no longer running (killed mid-write)."""
    out = []
    for path in partial_writes(folder):
        pid = writer_pid(path)
        if pid is None or (pid != os.getpid() and not _running(pid)):
            out.append(path)
    return out


def remove_stale_partial_writes(folder: Path) -> list[Path]:
    """Delete the stale partial writes in ``folder`` if allowed; return the paths removed.

    Readers call this, so a run killed mid-write and never resumed leaves no
    stray file once any command has opened it; a read-only folder is left as it is.
    """
    removed = []
    for path in stale_partial_writes(folder):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            continue
        removed.append(path)
    return removed


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (indented, keys in insertion order)."""
    atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode())
