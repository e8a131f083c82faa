"""The family registry: every solver family registers itself, and ``solve`` reads only it."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from complots_solver.cli import solve_options
from complots_solver.solvers import families
from complots_solver.solvers.common.registry import FamilyRun, SolverFamily

PACKAGE = Path(__file__).resolve().parents[2] / "complots_solver"
SOLVERS = PACKAGE / "solvers"
CLI = PACKAGE / "cli"
RUN_MODULE = "run"  # a family's run classes live in solvers/<family>/run.py


def _run_classes(family_dir: Path) -> set[str]:
    """Names of the classes a family's run.py defines that drive a run folder (a ``run`` method)."""
    tree = ast.parse((family_dir / f"{RUN_MODULE}.py").read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.endswith("Run"):
            if any(isinstance(f, ast.FunctionDef) and f.name == "run" for f in node.body):
                out.add(node.name)
    return out


def test_every_family_with_runs_is_registered_with_each_run_class() -> None:
    """A sub-package with run classes has a registration naming each of them."""
    registered = {fam.name: fam for fam in families()}
    for family_dir in sorted(p for p in SOLVERS.iterdir() if (p / f"{RUN_MODULE}.py").is_file()):
        assert family_dir.name in registered, f"solvers/{family_dir.name} is not registered"
        fam = registered[family_dir.name]
        assert fam.run_class is not None
        assert _run_classes(family_dir) == {fam.run_class.__name__}, family_dir.name


def test_every_registration_is_complete_and_runs_take_one_contract() -> None:
    """Each family names its methods, settings with help, a banner; its run class takes
    ``run(budget, progress)``; no method belongs to two families."""
    seen: set[str] = set()
    for fam in families():
        assert isinstance(fam, SolverFamily) and fam.algorithms and fam.title
        assert not seen & set(fam.algorithms), fam.name
        seen |= set(fam.algorithms)
        options = fam.options()
        assert options and all(spec.help for spec in options.values()), fam.name
        params = list(inspect.signature(fam.run_class.run).parameters)
        assert params[:3] == ["self", "budget", "progress"], fam.name
        assert "kept" in inspect.getsource(fam.run_class), fam.name
        assert type(fam).banner is not SolverFamily.banner, fam.name
    assert solve_options.algorithms() == tuple(
        a for fam in sorted(families(), key=lambda f: f.order) for a in fam.algorithms
    )


def test_the_command_line_names_no_family_module() -> None:
    """No CLI module imports a family's run or registration module, or names a run class:
    ``solve`` and ``--list-options`` go through the registry."""
    run_classes = {fam.run_class.__name__ for fam in families()}
    family_names = {fam.name for fam in families()}
    for path in sorted(CLI.glob("*.py")):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["complots_solver", "solvers"] and len(parts) > 3:
                    bad = parts[2] in family_names and parts[3] in (RUN_MODULE, "family")
                    assert not bad, f"{path.name} imports {name}"
        for cls in run_classes:
            assert cls not in source, f"{path.name} names {cls}"


def test_a_run_class_left_out_of_the_registry_is_caught(tmp_path: Path) -> None:
    """The check above fails on a run.py defining an unregistered run class."""
    (tmp_path / f"{RUN_MODULE}.py").write_text(
        "class SolveRun:\n    def run(self): ...\n\nclass ShadowRun:\n    def run(self): ...\n"
    )
    assert _run_classes(tmp_path) == {"SolveRun", "ShadowRun"} != {"SolveRun"}


def test_registered_runs_conform_to_the_protocol() -> None:
    """A family's run class has what ``solve`` uses (``run`` and ``kept``)."""
    for fam in families():
        module = importlib.import_module(fam.run_class.__module__)
        assert getattr(module, fam.run_class.__name__) is fam.run_class
        assert callable(fam.run_class.run)
    assert hasattr(FamilyRun, "run")


def test_a_progress_line_is_due_every_n_iterations_and_at_the_last() -> None:
    """RunProgress.due: the families' progress lines come every N iterations and at the end."""
    from complots_solver.solvers.common.driver import RunProgress

    def at(iteration: int, target: int | None) -> RunProgress:
        return RunProgress(iteration, target, 1.0, 1.0, None, 1.0, {"iteration": iteration})

    assert [i for i in range(1, 26) if at(i, None).due(10)] == [10, 20]
    assert at(23, 23).due(10) and not at(22, 23).due(10)
