"""Layering: browse (4) imports rules/openspiel/solvers only; reports (5) only browse; none below."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "complots_solver"
ALLOWED = {
    "browse": {"rules", "openspiel", "solvers", "browse"},
    "reports": {"browse", "reports"},
}
BELOW = ("rules", "openspiel", "solvers")


def _imported_layers(folder: Path) -> dict[str, set[str]]:
    """complots_solver sub-packages imported by each module of ``folder``."""
    out: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        layers: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] == "complots_solver" and len(parts) > 1:
                    layers.add(parts[1])
        out[path.name] = layers
    return out


def test_browse_and_reports_respect_their_layers() -> None:
    """Each module imports only what its layer may."""
    for layer, allowed in ALLOWED.items():
        for module, layers in _imported_layers(PACKAGE / layer).items():
            assert layers <= allowed, f"{layer}/{module} imports {sorted(layers - allowed)}"


def test_lower_layers_do_not_import_browse_or_reports() -> None:
    """rules, openspiel and solvers never import the layers above them."""
    for layer in BELOW:
        for module, layers in _imported_layers(PACKAGE / layer).items():
            assert not layers & {"browse", "reports"}, f"{layer}/{module}"
