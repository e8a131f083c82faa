"""Layering: each package imports only the layers below it (README, Layout).

rules (1) -> openspiel (2) -> solvers (3) -> browse, play (4) -> reports, cli (5).
Reports use only the read-only browser, never solver internals.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "complots_solver"
ALLOWED = {
    "rules": {"rules"},
    "openspiel": {"rules", "openspiel"},
    "solvers": {"rules", "openspiel", "solvers"},
    "browse": {"rules", "openspiel", "solvers", "browse"},
    "play": {"rules", "openspiel", "solvers", "play"},
    "reports": {"browse", "reports"},
    "cli": {"rules", "openspiel", "solvers", "browse", "play", "reports", "cli"},
}


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


def test_every_package_is_listed() -> None:
    """A new package must be given its layer here."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ALLOWED)


def test_packages_import_only_lower_layers() -> None:
    """Each module imports only what its layer may."""
    for layer, allowed in ALLOWED.items():
        for module, layers in _imported_layers(PACKAGE / layer).items():
            assert layers <= allowed, f"{layer}/{module} imports {sorted(layers - allowed)}"
