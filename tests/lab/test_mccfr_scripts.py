"""The thin MCCFR scripts over their package logic: long-run trends, current strategies, growth."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from complots_solver.lab.mccfr import quality
from complots_solver.lab.policies.runs import checkpoint_solver
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 200-iteration OS run of ladder-1-ambassador."""
    out = tmp_path_factory.mktemp("run") / "run"
    config, preset = resolve_game("ladder-1-ambassador")
    settings = MCCFRSettings(algorithm="os", key="markov", iterations=200)
    MCCFRRun(out, config, settings, preset=preset).run()
    return out


def _script(*args: str) -> str:
    """Run a script of scripts/; return its standard output."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / args[0]), *args[1:]],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.mark.slow
def test_long_runs_bound_writes_the_trend_once(run_dir: Path, tmp_path: Path) -> None:
    """Each snapshot is bounded with the budget asked for, then reused; the trend lists them."""
    snap = tmp_path / "snapshot-300s"
    snap.mkdir()
    for name in ("strategy.npz", "meta.json"):
        shutil.copy2(run_dir / name, snap / name)
    options = ("--train-iterations", "200", "--games", "200")
    first = _script("mccfr_long_runs.py", "bound", str(tmp_path), *options)
    assert "snapshot-300s: bound" in first
    trend = json.loads((tmp_path / "trend.json").read_text())
    meta = json.loads((snap / "meta.json").read_text())
    assert [r["snapshot"] for r in trend] == ["snapshot-300s"]
    assert trend[0]["bound"] == meta["exploitability_bound"]["lower_bound"]
    assert trend[0]["responder_iterations"] == 200 and trend[0]["games_per_seat"] == 200
    second = _script("mccfr_long_runs.py", "bound", str(tmp_path), *options)
    assert "snapshot-300s: bound" not in second  # already bounded with this budget
    assert json.loads((tmp_path / "trend.json").read_text()) == trend


def test_current_strategy_is_regret_matching_on_the_checkpoint(
    run_dir: Path, tmp_path: Path
) -> None:
    """The written strategy holds the checkpoint solver's current table, row for row."""
    _, settings, solver, elapsed = checkpoint_solver(run_dir)
    assert solver.iteration == 200 and settings.algorithm == "os" and elapsed > 0
    out = _script("current_strategy.py", str(run_dir), str(tmp_path / "current"))
    assert f"{solver.num_infostates:,} rows written" in out
    meta = json.loads((tmp_path / "current" / "meta.json").read_text())
    assert meta["strategy_kind"].startswith("current")
    with np.load(tmp_path / "current" / "strategy.npz") as npz:
        average = npz["average"]
    current = solver.current_table()
    assert average.shape == current["average"].shape
    assert np.allclose(np.sort(average), np.sort(current["average"]))


def test_growth_accounts_for_the_whole_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The growth measurement runs its budget and prints the share growths took."""
    quality.growth("ladder-1-ambassador", seconds=0.3, chunk=20, algorithm="es", key="perfect")
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("ladder-1-ambassador ES key perfect: ")
    assert "growth took" in last and "% of the run)" in last
