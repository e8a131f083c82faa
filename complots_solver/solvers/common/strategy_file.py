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

``strategy.npz`` also holds the metadata (all of it but ``sha256``) as the
array ``meta_json``, and both carry the same random ``save_id``. A run killed
after renaming ``strategy.npz`` into place but before ``meta.json`` (a first
save, or a resumed run's new save beside the older ``meta.json``) is therefore
read whole from ``strategy.npz`` alone: readers take ``meta.json`` when it
belongs to the strategy file (same ``sha256``, or for :func:`read_meta` the same
``save_id``), else the embedded copy. Fields added to ``meta.json`` later
(:func:`update_keyed_meta`) are kept, since that file then still belongs.

Keyed variant (Monte Carlo CFR, games too large for a compiled tree)
-------------------------------------------------------------------
Same two files and the same atomic writing, but ``meta.json`` has ``format``
``complots-keyed-strategy`` (:data:`KEYED_FORMAT_NAME`, its own
``format_version``, :data:`KEYED_FORMAT_VERSION`), so a reader of the
tree-aligned format rejects it by name instead of misreading it. Rows are
information states identified by a 64-bit key, sorted by key:

``strategy.npz``
    ``key`` (int64[I], ascending, unique), ``player`` (int8[I]),
    ``action_offsets`` (int64[I+1]), ``legal_actions`` (int32[S]) and
    ``average`` (float64[S], the average strategy, rows summing to 1).
``meta.json``
    as above (``game``, ``preset``, ``algorithm``, ``parameters``,
    ``iterations``, ``seed``, ``wall_time_seconds``, ``exploitability`` and
    ``exploitability_method``, ``package_version``, ``created``, ``sha256``)
    plus ``key_scheme`` (``name``: ``perfect`` or ``markov``, ``version``:
    the key definition's version, :mod:`complots_solver.solvers.mccfr.infokeys`),
    ``node_visits``, ``information_states`` (total and per player),
    ``bytes_per_infostate`` (of the solver's table), ``exploitability_bound``
    (a sampled best-response lower bound with its interval, or null) and
    ``table`` (rows, slots and a SHA-256 fingerprint of keys, players and
    layout). A state's key is recomputed from its history with the scheme
    named here (:mod:`complots_solver.solvers.policies.mccfr_policy`).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import uuid
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver import __version__
from complots_solver.solvers.common.atomic import (
    atomic_write_json,
    atomic_write_npz,
    atomic_write_npz_streamed,
    remove_stale_partial_writes,
)
from complots_solver.solvers.common.folders import META_FILE, STRATEGY_FILE
from complots_solver.solvers.common.hashing import arrays_digest, bytes_digest, file_digest

META_ARRAY = "meta_json"  # the metadata inside strategy.npz
FORMAT_NAME = "complots-strategy"
FORMAT_VERSION = 1
ARRAYS = {
    "average": np.float64,
    "current": np.float64,
    "action_offsets": np.int64,
    "legal_actions": np.int32,
    "infoset_player": np.int8,
}


KEYED_FORMAT_NAME = "complots-keyed-strategy"
KEYED_FORMAT_VERSION = 1
KEYED_ARRAYS = {
    "key": np.int64,
    "player": np.int8,
    "action_offsets": np.int64,
    "legal_actions": np.int32,
    "average": np.float64,
}
AVERAGE_TOLERANCE = 1e-6
# what reading a damaged .npz raises (a member's CRC-32 is checked as it is read)
UNREADABLE = (
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
)  # rows of a keyed average strategy must sum to 1 within this


def layout_fingerprint(
    action_offsets: np.ndarray, legal_actions: np.ndarray, infoset_player: np.ndarray
) -> str:
    """SHA-256 of the infoset layout: which actions each infoset has, and whose it is."""
    return arrays_digest(
        (action_offsets, np.int64), (legal_actions, np.int32), (infoset_player, np.int8)
    )


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
        "save_id": uuid.uuid4().hex,
    }
    meta.pop("sha256", None)
    data = atomic_write_npz(directory / STRATEGY_FILE, {**arrays, **_embedded(meta)})
    meta["sha256"] = bytes_digest(data)
    strategy.meta = meta
    atomic_write_json(directory / META_FILE, meta)


def _embedded(meta: dict[str, Any]) -> dict[str, np.ndarray]:
    """The metadata as the strategy file's ``meta_json`` array (a unicode scalar, no pickle)."""
    return {META_ARRAY: np.array(json.dumps(meta))}


def _embedded_meta(npz: Any) -> dict[str, Any] | None:
    """The metadata inside an open strategy.npz, or None (files saved before it was added)."""
    if META_ARRAY not in npz.files:
        return None
    meta = json.loads(str(npz[META_ARRAY]))
    return meta if isinstance(meta, dict) else None


def _load_json(path: Path) -> Any:
    """Parsed JSON of `path`; ValueError if it is not valid JSON."""
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not valid JSON ({exc})") from None


def _read_checked(
    directory: Path, fmt: str, version: int, schema: dict[str, type], other: dict[str, str]
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(meta, arrays) of a strategy directory of format `fmt`, every check done.

    Both files must exist, meta.json must name `fmt` and `version`, and the
    arrays must match its sha256 and include every array of `schema`. `other`
    maps the other formats to a hint naming their reader.
    """
    directory = Path(directory)
    remove_stale_partial_writes(directory)
    meta_path, npz_path = directory / META_FILE, directory / STRATEGY_FILE
    if not npz_path.is_file():
        raise ValueError(f"no strategy in {directory}: {npz_path.name} is missing")
    data = npz_path.read_bytes()
    digest = bytes_digest(data)
    corrupt = f"{npz_path} is corrupt or does not belong to {meta_path.name} (sha256 mismatch)"
    on_disk = _load_json(meta_path) if meta_path.is_file() else None
    if isinstance(on_disk, dict) and on_disk.get("sha256") == digest:
        meta = on_disk
    else:  # meta.json missing or of an older save: the strategy file's own copy says it all
        try:
            with np.load(io.BytesIO(data)) as npz:
                inside = _embedded_meta(npz)
        except (*UNREADABLE, ValueError):
            inside = None
        if inside is not None:
            meta = {**inside, "sha256": digest}  # the zip's CRC-32 checks each array below
        elif on_disk is None:
            raise ValueError(f"no strategy in {directory}: {meta_path.name} is missing")
        else:
            meta = on_disk
    _check_format(meta, meta_path, fmt, version, other)
    if meta.get("sha256") != digest:
        raise ValueError(corrupt)
    try:
        with np.load(io.BytesIO(data)) as npz:
            names = set(npz.files)
            arrays = {n: np.asarray(npz[n], dtype=t) for n, t in schema.items() if n in names}
    except UNREADABLE:
        raise ValueError(corrupt) from None
    except ValueError as exc:
        if "pickle" in str(exc).lower():  # numpy's refusal of an object array
            raise ValueError(
                f"{npz_path}: holds pickled objects; refused (strategy files are data)"
            ) from None
        raise
    missing = set(schema) - names
    if missing:
        raise ValueError(f"{npz_path} lacks arrays {sorted(missing)}")
    return meta, arrays


def _check_format(
    meta: Any, meta_path: Path, fmt: str, version: int, other: dict[str, str]
) -> None:
    """Raise ValueError unless ``meta`` names format ``fmt`` at ``version``."""
    found = meta.get("format") if isinstance(meta, dict) else None
    if found in other:
        raise ValueError(f"{meta_path} holds {other[found]}")
    if found != fmt:
        raise ValueError(f"{meta_path} is not a {fmt} file")
    if meta.get("format_version") != version:
        raise ValueError(
            f"{meta_path} has format_version {meta.get('format_version')}; this version reads {version}"
        )


def load_strategy(directory: Path) -> StrategyFile:
    """Read a strategy back; corrupt, partial or foreign files raise ValueError."""
    npz_path = Path(directory) / STRATEGY_FILE
    hint = {
        KEYED_FORMAT_NAME: "a keyed (Monte Carlo CFR) strategy: read it with load_keyed_strategy"
    }
    meta, arrays = _read_checked(directory, FORMAT_NAME, FORMAT_VERSION, ARRAYS, hint)
    strategy = StrategyFile(**arrays, meta=meta)
    if meta.get("tree", {}).get("fingerprint") != strategy.fingerprint:
        raise ValueError(f"{npz_path}: infoset layout does not match its metadata fingerprint")
    return strategy


# ---- the keyed variant ---------------------------------------------------------------
def keyed_fingerprint(
    key: np.ndarray, player: np.ndarray, action_offsets: np.ndarray, legal_actions: np.ndarray
) -> str:
    """SHA-256 of a keyed table's rows: keys, players and action layout."""
    return arrays_digest(
        (key, np.int64), (player, np.int8), (action_offsets, np.int64), (legal_actions, np.int32)
    )


@dataclass
class KeyedStrategyFile:
    """A keyed (hashed information state) average strategy with its metadata."""

    key: np.ndarray
    player: np.ndarray
    action_offsets: np.ndarray
    legal_actions: np.ndarray
    average: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def num_infostates(self) -> int:
        """Number of rows (information states)."""
        return int(self.key.shape[0])

    @property
    def fingerprint(self) -> str:
        """Fingerprint of keys, players and action layout."""
        return keyed_fingerprint(self.key, self.player, self.action_offsets, self.legal_actions)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name, in the file's dtypes."""
        return {
            name: np.ascontiguousarray(getattr(self, name), dtype=dtype)
            for name, dtype in KEYED_ARRAYS.items()
        }

    def check(self) -> None:
        """Raise ValueError unless the arrays form a valid sorted keyed table."""
        rows = self.num_infostates
        off = np.asarray(self.action_offsets)
        slots = self.legal_actions.shape[0]
        if self.player.shape != (rows,) or off.shape != (rows + 1,):
            raise ValueError(
                "keyed strategy: player and action_offsets must have one entry per row"
            )
        if off[0] != 0 or off[-1] != slots or np.any(np.diff(off) < 1):
            raise ValueError("keyed strategy: action_offsets must run from 0 to the slot count")
        if self.average.shape != (slots,):
            raise ValueError(f"keyed strategy: average must have one entry per slot ({slots})")
        if rows and np.any(np.diff(self.key) <= 0):
            raise ValueError("keyed strategy: keys must be sorted and unique")
        if rows:
            sums = np.add.reduceat(self.average, off[:-1])
            if np.any(np.abs(sums - 1.0) > AVERAGE_TOLERANCE) or np.any(self.average < 0):
                raise ValueError("keyed strategy: every row of average must be a distribution")


def keyed_strategy(table: dict[str, np.ndarray], meta: dict[str, Any]) -> KeyedStrategyFile:
    """A keyed strategy file from a solver's ``average_table()`` rows, sorted by key."""
    order = np.argsort(table["key"], kind="stable")
    offsets = table["action_offsets"]
    lens = np.diff(offsets)[order]
    starts = offsets[:-1][order]
    slot_index = (
        np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        + np.arange(int(lens.sum()))
        if lens.size
        else np.zeros(0, dtype=np.int64)
    )
    return KeyedStrategyFile(
        key=table["key"][order],
        player=table["player"][order],
        action_offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
        legal_actions=table["legal_actions"][slot_index],
        average=table["average"][slot_index],
        meta=meta,
    )


def save_keyed_strategy(directory: Path, strategy: KeyedStrategyFile) -> None:
    """Write a keyed strategy (strategy.npz, then meta.json), each atomically."""
    strategy.check()
    directory = Path(directory)
    meta = {
        "format": KEYED_FORMAT_NAME,
        "format_version": KEYED_FORMAT_VERSION,
        **strategy.meta,
        "package_version": __version__,
        "created": strategy.meta.get("created")
        or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "table": {
            "rows": strategy.num_infostates,
            "slots": int(strategy.legal_actions.shape[0]),
            "fingerprint": strategy.fingerprint,
        },
        "save_id": uuid.uuid4().hex,
    }
    meta.pop("sha256", None)
    arrays = {**strategy.arrays(), **_embedded(meta)}
    meta["sha256"] = atomic_write_npz_streamed(directory / STRATEGY_FILE, arrays)
    strategy.meta = meta
    atomic_write_json(directory / META_FILE, meta)


def _current_meta(directory: Path) -> tuple[dict[str, Any], bool]:
    """(metadata, whether meta.json holds it) of the strategy saved last in ``directory``.

    meta.json belongs to strategy.npz when both carry the same ``save_id``
    (one small member of the .npz is read, not the whole file).
    """
    directory = Path(directory)
    path, npz_path = directory / META_FILE, directory / STRATEGY_FILE
    on_disk = _load_json(path) if path.is_file() else None
    inside = None
    if npz_path.is_file():
        try:
            with np.load(npz_path) as npz:
                inside = _embedded_meta(npz)
        except (*UNREADABLE, ValueError):
            inside = None  # unreadable: meta.json (if any) is all there is; loading will say
    if inside is not None and not (
        isinstance(on_disk, dict) and on_disk.get("save_id") == inside.get("save_id")
    ):
        return inside, False
    if on_disk is None:
        raise ValueError(f"no strategy in {directory}: {META_FILE} is missing")
    return on_disk, True


def read_meta(directory: Path) -> dict[str, Any]:
    """Metadata of a strategy directory (either format); ValueError if absent or invalid.

    meta.json when it belongs to strategy.npz, else the copy inside strategy.npz
    (a save killed before it wrote meta.json).
    """
    remove_stale_partial_writes(directory)
    meta, _ = _current_meta(directory)
    if not isinstance(meta, dict) or meta.get("format") not in (FORMAT_NAME, KEYED_FORMAT_NAME):
        raise ValueError(
            f"{Path(directory) / META_FILE} is not a {FORMAT_NAME} or {KEYED_FORMAT_NAME} file"
        )
    return meta


def is_keyed_strategy(directory: Path) -> bool:
    """Whether ``directory`` holds the keyed variant (else the tree-aligned format)."""
    return read_meta(directory)["format"] == KEYED_FORMAT_NAME


def update_keyed_meta(directory: Path, **fields: Any) -> dict[str, Any]:
    """Add or replace metadata fields of a saved keyed strategy (atomically); return the meta."""
    meta = read_meta(directory)
    if meta["format"] != KEYED_FORMAT_NAME:
        raise ValueError(f"{directory} does not hold a keyed strategy")
    _, belongs = _current_meta(directory)
    if not belongs:  # meta.json was never written for this strategy.npz: it needs its digest
        meta["sha256"] = file_digest(Path(directory) / STRATEGY_FILE)
    meta.update(fields)
    atomic_write_json(Path(directory) / META_FILE, meta)
    return meta


def load_keyed_strategy(directory: Path) -> KeyedStrategyFile:
    """Read a keyed strategy back; corrupt, partial or foreign files raise ValueError."""
    npz_path = Path(directory) / STRATEGY_FILE
    hint = {FORMAT_NAME: "a tree-aligned strategy: read it with load_strategy"}
    meta, arrays = _read_checked(
        directory, KEYED_FORMAT_NAME, KEYED_FORMAT_VERSION, KEYED_ARRAYS, hint
    )
    strategy = KeyedStrategyFile(**arrays, meta=meta)
    if meta.get("table", {}).get("fingerprint") != strategy.fingerprint:
        raise ValueError(f"{npz_path}: table does not match its metadata fingerprint")
    strategy.check()
    return strategy
