"""Layering: each package imports only the layers below it, and nothing imports in a cycle.

Layers (README, Layout), checked over every module of every sub-package:
rules (1) -> openspiel (2) -> solvers (3) -> browse, play (4) -> reports, cli (5).
Reports never touch solver internals: strategy reports read the read-only
browser; the balance report plays the shipped strategies (play) and names
presets and characters (rules).

Solver families (the sub-packages of ``solvers``), lowest first:

- ``common`` imports no other family: it is what they all share;
- ``exact`` imports ``common``;
- ``mccfr`` imports ``common`` and ``exact`` (keyed tables are measured and
  mapped on compiled trees);
- ``belief`` imports ``common`` and ``exact``, never ``mccfr`` (nor
  ``policies``, which imports ``mccfr``);
- ``policies`` (saved strategies made playable, and ``open_strategy``, the one
  way to open any strategy folder) imports ``common``, ``exact``, ``mccfr``,
  ``belief`` and ``selfplay``: it sits above the solvers whose strategies it plays;
- ``bounds`` (best responders that bound a strategy's exploitability)
  imports ``common``, ``exact``, ``policies``, ``belief`` and ``selfplay``:
  it measures the strategies they make;
- ``compare`` (measurements across families, e.g. strength per core-hour)
  imports ``common``, ``exact``, ``mccfr``, ``belief``, ``selfplay`` and ``regret``;
- ``selfplay`` (table networks trained by league self-play) imports
  ``common``, ``exact`` (the exact exploitability of a network on a small
  2-player game) and ``belief`` (its certain-knowledge tracking and its numpy
  network and optimiser);
- ``regret`` (sampled regret matching+ on real games) imports ``common``,
  ``exact``, ``belief``, ``selfplay`` (its table networks and features) and
  ``bounds`` (the batched rows it steps games on).

``solvers/__init__.py`` may re-export any family; modules inside a family never
import the ``solvers`` package itself (it imports them).

No import cycles: every ``import`` statement counts, at module level or inside a
function (a lazy import hides a cycle from the interpreter, not from a reader).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "complots_solver"
ROOT = PACKAGE.name
ALLOWED = {
    "rules": {"rules"},
    "openspiel": {"rules", "openspiel"},
    "solvers": {"rules", "openspiel", "solvers"},
    "browse": {"rules", "openspiel", "solvers", "browse"},
    "play": {"rules", "openspiel", "solvers", "play"},
    "reports": {"rules", "browse", "play", "reports"},
    "cli": {"rules", "openspiel", "solvers", "browse", "play", "reports", "cli"},
}
FAMILIES = {
    "common": {"common"},
    "knowledge": {"knowledge"},
    "nets": {"common", "knowledge", "nets"},
    "exact": {"common", "knowledge", "exact"},
    "mccfr": {"common", "knowledge", "nets", "exact", "mccfr"},
    "belief": {"common", "knowledge", "nets", "exact", "belief"},
    "policies": {"common", "knowledge", "nets", "exact", "mccfr", "belief", "selfplay", "policies"},
    "bounds": {"common", "knowledge", "nets", "exact", "policies", "belief", "selfplay", "bounds"},
    "compare": {
        "common",
        "knowledge",
        "nets",
        "exact",
        "mccfr",
        "belief",
        "selfplay",
        "regret",
        "compare",
    },
    "selfplay": {"common", "knowledge", "nets", "exact", "belief", "selfplay"},
    "regret": {"common", "knowledge", "nets", "exact", "belief", "selfplay", "bounds", "regret"},
}
SOLVERS = PACKAGE / "solvers"


def _module_name(path: Path) -> str:
    """Dotted module name of a source file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of the package that ``path`` imports anywhere (``from p import m`` counts m)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == ROOT)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != ROOT:
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
    return out


def _graph() -> dict[str, set[str]]:
    """Import graph of the package's modules (edges to modules of the package only)."""
    modules = _modules()
    return {name: _imports(path, modules) & set(modules) for name, path in modules.items()}


def _part(module: str, depth: int) -> str | None:
    """The ``depth``-th component of a dotted name below the package (None if it has none)."""
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else None


def test_every_package_is_listed() -> None:
    """A new package must be given its layer here."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ALLOWED)


def test_every_solver_family_is_listed() -> None:
    """A new solver family must be given its rule here."""
    families = {p.name for p in SOLVERS.iterdir() if (p / "__init__.py").is_file()}
    assert families <= set(FAMILIES), f"unlisted solver families {sorted(families - set(FAMILIES))}"


def test_packages_import_only_lower_layers() -> None:
    """Each module, in every sub-package, imports only what its layer may."""
    for module, imported in _graph().items():
        layer = _part(module, 1)
        if layer is None:
            continue  # the package's own __init__
        layers = {_part(m, 1) for m in imported} - {None}
        assert layers <= ALLOWED[layer], f"{module} imports {sorted(layers - ALLOWED[layer])}"


def test_solver_families_import_only_what_their_rule_allows() -> None:
    """Each solver module imports only the families its family may (module docstring)."""
    for module, imported in _graph().items():
        if _part(module, 1) != "solvers" or _part(module, 2) is None:
            continue  # other layers, and solvers/__init__ (re-exports any family)
        family = _part(module, 2)
        solver_imports = {m for m in imported if _part(m, 1) == "solvers"}
        assert f"{ROOT}.solvers" not in solver_imports, f"{module} imports the solvers package"
        families = {_part(m, 2) for m in solver_imports}
        allowed = FAMILIES[family]
        assert families <= allowed, f"{module} ({family}) imports {sorted(families - allowed)}"


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a closed path of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles() -> None:
    """No module imports itself through others."""
    cycle = _cycle(_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_cycles() -> None:
    """The helper itself: a lazy two-module cycle is found, a chain is not."""
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
