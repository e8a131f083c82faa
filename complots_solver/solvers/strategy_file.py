"""On-disk format of a solved strategy, written atomically and checked on load.

A strategy lives in a run directory as two files:

``strategy.npz``
    numpy arrays aligned with the compiled tree's information sets:
    ``average`` (float64[S], the average strategy: the one to play),
    ``current`` (float64[S], the last iterate), ``action_offsets``
    (int64[I+1]: the slots of infoset i are ``action_offsets[i]:action_offsets[i+1]``),
    ``legal_actions`` (int32[S]: the OpenSpiel action id of each slot) and
    ``infoset_player`` (int8[I]).
``meta.json``
    ``format`` (this module's FORMAT_NAME) and ``format_version``; ``game``
    (the OpenSpiel game string), ``preset``; ``algorithm`` and its
    ``parameters``; ``iterations``; ``exploitability``, ``nash_conv``,
    ``best_response_values``, ``game_value`` (exact, from the compiled tree,
    or null when not computed); ``seed``; ``package_version``;
    ``wall_time_seconds``; ``created``; ``tree`` (nodes, infosets, slots and a
    fingerprint of the infoset layout); ``infoset_order`` (how infoset ids are
    assigned, so that the ids can be rebuilt); ``sha256`` of ``strategy.npz``.

Infoset ids are those of the deterministic tree compiler named in
``infoset_order``: recompiling the game string gives the same ids, and the
fingerprint proves it. Each file is written to a temporary name and renamed,
``meta.json`` last, so a reader never sees a half-written strategy.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver import __version__

FORMAT_NAME = "complots-strategy"
FORMAT_VERSION = 1
STRATEGY_FILE = "strategy.npz"
META_FILE = "meta.json"
ARRAYS = {
    "average": np.float64,
    "current": np.float64,
    "action_offsets": np.int64,
    "legal_actions": np.int32,
    "infoset_player": np.int8,
}


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_npz(path: Path, arrays: dict[str, np.ndarray]) -> bytes:
    """Save arrays as an .npz atomically; return the bytes written."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    data = buf.getvalue()
    atomic_write_bytes(path, data)
    return data


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (indented, keys in insertion order)."""
    atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode())


def layout_fingerprint(
    action_offsets: np.ndarray, legal_actions: np.ndarray, infoset_player: np.ndarray
) -> str:
    """SHA-256 of the infoset layout: which actions each infoset has, and whose it is."""
    h = hashlib.sha256()
    for arr, dtype in (
        (action_offsets, np.int64),
        (legal_actions, np.int32),
        (infoset_player, np.int8),
    ):
        h.update(np.ascontiguousarray(arr, dtype=dtype).tobytes())
    return h.hexdigest()


@dataclass
class StrategyFile:
    """A solved strategy with its metadata (see the module docstring for the format)."""

    average: np.ndarray
    current: np.ndarray
    action_offsets: np.ndarray
    legal_actions: np.ndarray
    infoset_player: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def num_infosets(self) -> int:
        """Number of information sets."""
        return int(self.infoset_player.shape[0])

    @property
    def fingerprint(self) -> str:
        """Fingerprint of the infoset layout."""
        return layout_fingerprint(self.action_offsets, self.legal_actions, self.infoset_player)

    def check_matches(
        self, action_offsets: np.ndarray, legal_actions: np.ndarray, infoset_player: np.ndarray
    ) -> None:
        """Raise ValueError unless the strategy fits this infoset layout."""
        theirs = layout_fingerprint(action_offsets, legal_actions, infoset_player)
        if theirs != self.fingerprint:
            raise ValueError(
                f"strategy file does not match this game's tree (game {self.meta.get('game')!r}): "
                "the infoset layout fingerprint differs"
            )


def save_strategy(directory: Path, strategy: StrategyFile) -> None:
    """Write strategy.npz then meta.json into `directory`, each atomically."""
    directory = Path(directory)
    arrays = {
        name: np.ascontiguousarray(getattr(strategy, name), dtype=dtype)
        for name, dtype in ARRAYS.items()
    }
    slots = arrays["legal_actions"].shape[0]
    if arrays["average"].shape != (slots,) or arrays["current"].shape != (slots,):
        raise ValueError(f"average and current must have one entry per slot ({slots})")
    data = atomic_write_npz(directory / STRATEGY_FILE, arrays)
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        **strategy.meta,
        "package_version": __version__,
        "created": strategy.meta.get("created")
        or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "tree": {
            **strategy.meta.get("tree", {}),
            "infosets": strategy.num_infosets,
            "slots": int(slots),
            "fingerprint": strategy.fingerprint,
        },
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    strategy.meta = meta
    atomic_write_json(directory / META_FILE, meta)


def load_strategy(directory: Path) -> StrategyFile:
    """Read a strategy back; corrupt, partial or foreign files raise ValueError."""
    directory = Path(directory)
    meta_path, npz_path = directory / META_FILE, directory / STRATEGY_FILE
    for path in (meta_path, npz_path):
        if not path.is_file():
            raise ValueError(f"no strategy in {directory}: {path.name} is missing")
    try:
        meta = json.loads(meta_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{meta_path} is not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ValueError(f"{meta_path} is not a {FORMAT_NAME} file")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{meta_path} has format_version {meta.get('format_version')}; this version reads {FORMAT_VERSION}"
        )
    data = npz_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise ValueError(
            f"{npz_path} is corrupt or does not belong to {meta_path.name} (sha256 mismatch)"
        )
    with np.load(io.BytesIO(data)) as npz:
        missing = set(ARRAYS) - set(npz.files)
        if missing:
            raise ValueError(f"{npz_path} lacks arrays {sorted(missing)}")
        arrays = {name: np.asarray(npz[name], dtype=dtype) for name, dtype in ARRAYS.items()}
    strategy = StrategyFile(**arrays, meta=meta)
    if meta.get("tree", {}).get("fingerprint") != strategy.fingerprint:
        raise ValueError(f"{npz_path}: infoset layout does not match its metadata fingerprint")
    return strategy
