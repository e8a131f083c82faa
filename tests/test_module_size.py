"""No module of the package is over 800 lines: a long module is split by what its parts do."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "complots_solver"
MAX_LINES = 800


def _lines(path: Path) -> int:
    """Lines of a source file."""
    return len(path.read_text().splitlines())


def _long_modules() -> dict[str, int]:
    """Modules of the package over MAX_LINES, by path below the package, with their lengths."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = _lines(path)
        if lines > MAX_LINES:
            out[path.relative_to(PACKAGE).as_posix()] = lines
    return out


def test_no_module_is_over_800_lines() -> None:
    """Every module under complots_solver/ has at most 800 lines (no exceptions)."""
    long = _long_modules()
    assert not long, f"modules over {MAX_LINES} lines, split them by what their parts do: {long}"
