"""Shared fixtures: small exact runs of both line-ups (ladder-1) and their browsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from complots_solver.browse import StrategyBrowser
from complots_solver.rules.presets import load_presets
from complots_solver.solvers.exact.run import SolveRun, SolveSettings

ITERATIONS = 200


def _solve(root: Path, preset: str) -> Path:
    """Solve ``preset`` exactly into ``root/preset``."""
    out = root / preset
    config = load_presets()[preset].config()
    settings = SolveSettings(iterations=ITERATIONS, eval_every=50, checkpoint_seconds=1e9)
    SolveRun(out, config, settings, preset=preset).run()
    return out


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Run directories of ladder-1 with the Ambassador and with the Inquisitor."""
    root = tmp_path_factory.mktemp("runs")
    return {lineup: _solve(root, f"ladder-1-{lineup}") for lineup in ("ambassador", "inquisitor")}


@pytest.fixture(scope="session")
def browsers(runs: dict[str, Path]) -> dict[str, StrategyBrowser]:
    """A browser over each run."""
    return {lineup: StrategyBrowser(path) for lineup, path in runs.items()}
