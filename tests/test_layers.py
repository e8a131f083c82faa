"""Layering: each package imports only the layers below it, and nothing imports in a cycle.

Layers (README, Layout), checked over every module of every sub-package:
rules (1) -> openspiel (2) -> solvers (3) -> browse, play (4) -> reports, cli (5),
the library; above it the lab (6): experiments, benchmarks and measurements run
from scripts/, which may import everything and which nothing imports.
Reports never touch solver internals: strategy reports read the read-only
browser; the balance report plays the shipped strategies (play) and names
presets and characters (rules).

Solver sub-packages (``solvers/*``) come in three kinds:

- **Shared homes**, in a fixed order, each importing only those before it and
  itself (so they cannot import in a cycle): ``common`` (run folders, files,
  the registry, the run driver), ``exact`` (compiled trees, CFR and exact
  best responses; also a family), ``knowledge`` (hypothesis sets, certain
  knowledge, the networks' features), ``nets`` (the numpy networks and their
  optimisers) and ``rows`` (games stepped side by side, a table network
  playing on them).
- **Families as peers**: ``mccfr``, ``belief``, ``selfplay`` and ``regret``
  each import only the shared homes and themselves, never one another. Every
  registered family (a ``family.py``) is ``exact`` or one of them.
- **Layers above the families**, which open and measure any family's
  strategies: ``policies`` (saved strategies made playable, ``open_strategy``)
  imports the families and the shared homes; ``bounds`` (best responders that
  bound a strategy's exploitability) also ``policies``.

``solvers/__init__.py`` may re-export any family; modules inside a family never
import the ``solvers`` package itself (it imports them).

No library layer starts the command line in a subprocess (``complots ...`` or
``python -m complots_solver.cli``): that would be an upward call the import
graph cannot see. The lab, above every layer, may.

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
LIBRARY = set(ALLOWED)  # the layers above are not the library
ALLOWED["lab"] = {*LIBRARY, "lab"}
SHARED = ("common", "exact", "knowledge", "nets", "rows")  # each imports only those before it
PEERS = ("mccfr", "belief", "selfplay", "regret")  # each imports only SHARED and itself
FAMILIES = {
    **{home: set(SHARED[: i + 1]) for i, home in enumerate(SHARED)},
    **{family: {*SHARED, family} for family in PEERS},
    "policies": {*SHARED, *PEERS, "policies"},
    "bounds": {*SHARED, *PEERS, "policies", "bounds"},
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


def test_registered_families_are_peers() -> None:
    """Every family that registers itself (``family.py``) is ``exact`` or a peer."""
    registered = {p.parent.name for p in SOLVERS.glob("*/family.py")}
    assert registered == {"exact", *PEERS}, f"families outside the rule: {sorted(registered)}"


def test_peers_import_no_other_family() -> None:
    """The peers' rule itself: each allows the shared homes and itself, no other peer."""
    for family in PEERS:
        assert FAMILIES[family] & set(PEERS) == {family}


SUBPROCESS_CALLS = {
    ("subprocess", "run"),
    ("subprocess", "Popen"),
    ("subprocess", "call"),
    ("subprocess", "check_call"),
    ("subprocess", "check_output"),
    ("os", "system"),
    ("os", "popen"),
    ("os", "execv"),
    ("os", "execvp"),
    ("os", "spawnv"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
}
CLI_NAMES = ("complots",)  # the command's name (pyproject's scripts)
CLI_MODULES = (f"{ROOT}.cli", f"-m {ROOT}")


def _starts_the_cli(source: str) -> bool:
    """Whether ``source`` starts a subprocess and names the command line as a program to run."""
    tree = ast.parse(source)
    starts = any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and (node.func.value.id, node.func.attr) in SUBPROCESS_CALLS
        for node in ast.walk(tree)
    )
    names_cli = any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (
            node.value in CLI_NAMES
            or node.value.split(" ")[0] in CLI_NAMES
            or any(name in node.value for name in CLI_MODULES)
        )
        for node in ast.walk(tree)
    )
    return starts and names_cli


def test_no_layer_starts_the_command_line_in_a_subprocess() -> None:
    """No library module runs ``complots`` (or ``-m complots_solver.cli``) as a subprocess."""
    offenders = [
        module
        for module, path in _modules().items()
        if _part(module, 1) in LIBRARY and _starts_the_cli(path.read_text())
    ]
    assert offenders == [], f"start the command line in a subprocess: {offenders}"


def test_the_subprocess_finder_finds_the_command_line() -> None:
    """The helper itself: the command run by name or by module is found, other programs are not."""
    by_name = "import subprocess\nsubprocess.run(['complots', 'solve', 'x'], check=True)"
    by_module = (
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', 'from complots_solver.cli.main import main; main()'])"
    )
    other = "import subprocess\nsubprocess.run(['chromium', '--headless'])"
    named_only = "HELP = 'run complots solve GAME'"
    assert _starts_the_cli(by_name) and _starts_the_cli(by_module)
    assert not _starts_the_cli(other) and not _starts_the_cli(named_only)


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
