"""The layers above the solvers read the state through rules/view.py, never by layout offset.

A source scan, like the layer test: no module of ``browse``, ``play``,
``reports`` or ``cli`` names a state-layout constant (``S_*`` of
``rules/layout.py``), whether imported, referenced as ``layout.S_X`` or
spelled in a string for ``getattr``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from complots_solver.rules import layout

PACKAGE = Path(__file__).resolve().parents[1] / "complots_solver"
ABOVE_SOLVERS = ("browse", "play", "reports", "cli")
STATE_FIELDS = {name for name in vars(layout) if name.startswith("S_")}


def _state_field_uses(path: Path) -> list[str]:
    """'line: name' of every state-layout constant a source file names."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        hits += [f"{node.lineno}: {n}" for n in names if n in STATE_FIELDS]
    return hits


def test_the_state_fields_are_known() -> None:
    assert {"S_STAGE", "S_CUR", "S_COINS", "S_HIDDEN", "S_COURT"} <= STATE_FIELDS


def test_the_scan_finds_a_raw_state_read(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from complots_solver.rules.layout import S_COINS\n"
        "from complots_solver.rules import layout\n"
        "x = s[S_COINS] + s[layout.S_TURN]\n"
    )
    assert _state_field_uses(source) == ["1: S_COINS", "3: S_COINS", "3: S_TURN"]


def test_no_layer_above_the_solvers_indexes_the_state() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): hits
        for layer in ABOVE_SOLVERS
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        if (hits := _state_field_uses(path))
    }
    assert not offenders, f"use complots_solver.rules.view instead: {offenders}"
