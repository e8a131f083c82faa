"""complots-solver: rules, OpenSpiel game, solvers and reports for Complots (Coup)."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

# The solvers batch small matrix products (value-network leaves, a few hundred rows):
# BLAS threads cost more than they give there, and runs use processes for parallelism.
# Set before numpy is first imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

_PACKAGE = Path(__file__).resolve().parent
_STALE_DAYS = 7  # caches of other source versions are removed after this long unused


def source_fingerprint() -> str:
    """A short SHA-256 of the package's numba-compiled sources (paths and contents).

    Only modules that mention numba count: editing a report or the CLI does
    not throw the compiled kernels away.
    """
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text or b"njit" in text:
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(text)
    return digest.hexdigest()[:16]


def _configure_numba_cache() -> None:
    """Keep numba's on-disk cache in a directory keyed by the package's source fingerprint.

    Numba's ``cache=True`` only checks the source file of the function it
    compiles: a kernel that inlines a function from another module (every
    solver kernel calls the rules core) would be reloaded stale after that
    module changes. Keying the whole cache by all numba sources makes any
    change to them recompile everything once. ``NUMBA_CACHE_DIR`` still chooses the root.
    """
    import numba

    root = Path(
        os.environ.get("NUMBA_CACHE_DIR")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "complots-solver"
    )
    current = root / f"numba-{source_fingerprint()}"
    numba.config.CACHE_DIR = str(current)
    try:
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)
        cutoff = time.time() - _STALE_DAYS * 86400
        for old in root.glob("numba-*"):
            if old != current and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass  # a read-only home: numba falls back to not caching


_configure_numba_cache()
