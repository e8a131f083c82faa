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
    (tmp_path / "rules" / "core.py").write_text("X = 1\n")
    (tmp_path / "solvers.py").write_text("Y = 2\n")
    monkeypatch.setattr(complots_solver, "_PACKAGE", tmp_path)
    before = complots_solver.source_fingerprint()
    assert complots_solver.source_fingerprint() == before  # deterministic
    (tmp_path / "rules" / "core.py").write_text("X = 3\n")  # a dependency of solvers.py changes
    assert complots_solver.source_fingerprint() != before
