"""SHA-256 digests of bytes, files and arrays (the one place the solvers hash data)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

HASH_BLOCK = 1 << 24  # bytes read at a time when hashing a file


def _hexdigest(chunks: Iterable[bytes]) -> str:
    """SHA-256 hex digest of the concatenated chunks."""
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()


def bytes_digest(data: bytes) -> str:
    """SHA-256 hex digest of ``data``."""
    return _hexdigest((data,))


def file_digest(path: Path) -> str:
    """SHA-256 hex digest of a file, read in blocks (never whole in memory)."""
    with open(path, "rb") as fh:
        return _hexdigest(iter(lambda: fh.read(HASH_BLOCK), b""))


def arrays_digest(*arrays: tuple[np.ndarray, type]) -> str:
    """SHA-256 of arrays, each converted to the given dtype (a layout-independent digest)."""
    return _hexdigest(np.ascontiguousarray(arr, dtype=dtype).tobytes() for arr, dtype in arrays)
