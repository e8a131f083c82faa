"""Shared fixtures for the play tests: a small solved strategy file."""

from __future__ import annotations

from pathlib import Path

import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.run import SolveRun, SolveSettings

STRATEGY_GAME = "ladder-1-ambassador"


@pytest.fixture(scope="session")
def strategy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CFR+ strategy of the smallest ladder rung (exact, 200 iterations)."""
    out = tmp_path_factory.mktemp("strategy") / "run"
    config, preset = resolve_game(STRATEGY_GAME)
    settings = SolveSettings(iterations=200, eval_every=100, checkpoint_seconds=600)
    SolveRun(out, config, settings, preset=preset).run()
    return out
