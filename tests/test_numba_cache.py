"""The numba cache is keyed by the package's sources, so no kernel is reloaded stale."""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

import complots_solver


def test_cache_dir_is_keyed_by_the_source_fingerprint() -> None:
    assert Path(numba.config.CACHE_DIR).name == f"numba-{complots_solver.source_fingerprint()}"


def test_fingerprint_changes_with_any_source_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "core.py").write_text("from numba import njit\nX = 1\n")
    (tmp_path / "solvers.py").write_text("from numba import njit\nY = 2\n")
    (tmp_path / "cli.py").write_text("Z = 0\n")
    monkeypatch.setattr(complots_solver, "_PACKAGE", tmp_path)
    before = complots_solver.source_fingerprint()
    assert complots_solver.source_fingerprint() == before  # deterministic
    (tmp_path / "cli.py").write_text("Z = 1\n")  # no numba code: the kernels stay valid
    assert complots_solver.source_fingerprint() == before
    (tmp_path / "rules" / "core.py").write_text("from numba import njit\nX = 3\n")
    assert complots_solver.source_fingerprint() != before  # a dependency of solvers.py changed
