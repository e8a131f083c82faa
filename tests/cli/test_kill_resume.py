"""A solve killed at any point, then resumed, ends as an uninterrupted run and every command reads it.

Each case starts a real ``complots solve`` process that stops at a named pause
point (``COMPLOTS_TEST_PAUSE``, :mod:`complots_solver.solvers.common.faults`),
kills it with SIGKILL there, checks that the commands read the killed run or
refuse it in one line, resumes it with the same budget, and checks that the
result equals the uninterrupted run's and that report, evaluate and play
accept it. Pause points rather than timers: a loaded machine cannot move the
kill.
"""

from __future__ import annotations

import csv
import functools
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from complots_solver.solvers.common.atomic import partial_writes
from complots_solver.solvers.common.faults import PAUSE_ENV, PAUSED
from complots_solver.solvers.common.strategy_file import load_keyed_strategy, load_strategy

GAME = "ladder-1-ambassador"
# a checkpoint after every chunk of iterations, so that the pause points' counts name them
EVERY_CHUNK = ("--checkpoint-seconds", "1e-9")
EXACT_ITERATIONS = 50
EXACT = ("--algorithm", "cfr+", "-n", str(EXACT_ITERATIONS), "--eval-every", "10", *EVERY_CHUNK)
MCCFR_ITERATIONS = 20_000
MCCFR = ("--algorithm", "os-mccfr", "-n", str(MCCFR_ITERATIONS), "--seed", "3", *EVERY_CHUNK)
SETTINGS = {"exact": EXACT, "mccfr": MCCFR}
LOGS = {"exact": "convergence.csv", "mccfr": "progress.csv"}
REPORT_GAMES = "200"  # keyed runs are reported from sampled games: a few suffice here
TIMEOUT = 600
CODE = "from complots_solver.cli.main import main; main()"
USAGE_ERROR = 2

# (family, pause point, what the kill interrupts)
CASES = [
    ("exact", "tree-build", "during the tree build"),
    ("exact", "iterations@3", "between checkpoints"),
    ("exact", "replace:checkpoint.npz@2", "during a checkpoint"),
    ("exact", "replace:meta.json", "during the final save"),
    ("mccfr", "iterations@1", "before the first checkpoint"),
    ("mccfr", "iterations@2", "between checkpoints"),
    ("mccfr", "replace:checkpoint.npz@2", "during a checkpoint"),
    ("mccfr", "replace:strategy.npz", "during the final save"),
]
# the default suite keeps one case of each family; the others run with -m slow
DEFAULT = {("exact", "tree-build"), ("mccfr", "replace:checkpoint.npz@2")}


def _env() -> dict[str, str]:
    """The test's environment without any pause point."""
    return {k: v for k, v in os.environ.items() if k != PAUSE_ENV}


def complots(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """Run ``complots ARGS`` in a subprocess, as a user would."""
    return subprocess.run(
        [sys.executable, "-c", CODE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=_env(),
    )


def solve(family: str, out: Path) -> None:
    """An uninterrupted (or resumed: ``--resume`` when ``out`` holds a run) solve to the end."""
    resume = ("--resume",) if out.exists() else ()
    res = complots("solve", GAME, *SETTINGS[family], "--out", str(out), *resume)
    assert res.returncode == 0, res.stderr
    assert "building the exact tree" not in res.stdout  # the spinner draws on terminals only


def kill_at(family: str, out: Path, point: str) -> None:
    """Start a solve that pauses at ``point``, and SIGKILL it there."""
    env = {**_env(), PAUSE_ENV: point}
    args = [sys.executable, "-c", CODE, "solve", GAME, *SETTINGS[family], "--out", str(out)]
    with tempfile.TemporaryFile("w+") as stdout:
        proc = subprocess.Popen(args, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
        try:
            seen = []
            assert proc.stderr is not None
            for line in proc.stderr:
                seen.append(line)
                if line.startswith(f"{PAUSED} "):
                    break
            else:
                stdout.seek(0)
                pytest.fail(f"solve ended without pausing at {point}:\n{stdout.read()}{seen}")
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=TIMEOUT) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def strays(out: Path) -> list[str]:
    """Names of leftover temporary files in a run directory."""
    return sorted({p.name for p in partial_writes(out)} | {p.name for p in out.glob("*.tmp")})


def read_commands(family: str, run: Path, work: Path) -> dict[str, subprocess.CompletedProcess]:
    """report, evaluate and play given ``run``: their finished processes by name."""
    games = ("--games", REPORT_GAMES) if family == "mccfr" else ()
    html = work / f"report-{run.name}"
    return {
        "report": complots("report", str(run), "--format", "html", "--out", str(html), *games),
        "evaluate": complots("evaluate", GAME, "--bots", f"policy:{run},random", "--games", "2"),
        "play": complots("play", GAME, "--against", f"policy:{run}", "--seed", "1", stdin="q\n"),
    }


def log_iterations(path: Path) -> list[int]:
    """The iteration column of a run's CSV log (every cell must be a plain number)."""
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        [float(cell) for cell in row.values()]
    return [int(row["iteration"]) for row in rows]


def assert_same_strategy(family: str, run: Path, reference: Path) -> None:
    """The run's saved strategy equals the reference run's, array for array."""
    if family == "exact":
        a, b = load_strategy(run), load_strategy(reference)
        names = ("average", "current", "action_offsets", "legal_actions", "infoset_player")
        assert a.meta["iterations"] == b.meta["iterations"] == EXACT_ITERATIONS
        assert a.meta["exploitability"] == b.meta["exploitability"]
    else:
        a, b = load_keyed_strategy(run), load_keyed_strategy(reference)
        names = ("key", "player", "action_offsets", "legal_actions", "average")
        assert a.meta["iterations"] == b.meta["iterations"] == MCCFR_ITERATIONS
        assert a.meta["node_visits"] == b.meta["node_visits"]
    for name in names:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The uninterrupted run of a family, made on first use."""
    root = tmp_path_factory.mktemp("uninterrupted")

    @functools.cache
    def made(family: str) -> Path:
        solve(family, root / family)
        return root / family

    return made


@pytest.mark.parametrize(
    "family, point",
    [
        pytest.param(
            family,
            point,
            id=f"{family}-{what.replace(' ', '-')}",
            marks=() if (family, point) in DEFAULT else pytest.mark.slow,
        )
        for family, point, what in CASES
    ],
)
def test_a_killed_run_resumes_to_the_uninterrupted_result(
    family: str, point: str, reference: Callable[[str], Path], tmp_path: Path
) -> None:
    """Killed at the point, the run is read or refused in one line; resumed, it is whole."""
    uninterrupted = reference(family)
    run = tmp_path / "run"
    kill_at(family, run, point)
    assert (run / "config.json").is_file(), "config.json is written before the long work"
    if point.startswith("replace:"):
        assert strays(run), "a kill before the rename leaves the write's temporary file"
    for name, res in read_commands(family, run, tmp_path).items():
        if res.returncode != 0:  # a run without a finished strategy is refused, in one line
            lines = [line for line in res.stderr.splitlines() if line.strip()]
            assert res.returncode == USAGE_ERROR and len(lines) == 1, (name, res.stderr)
    assert strays(run) == [], "reading a killed run clears its dead writer's temporary files"

    solve(family, run)
    assert strays(run) == []
    assert sorted(p.name for p in run.iterdir()) == sorted(p.name for p in uninterrupted.iterdir())
    assert_same_strategy(family, run, uninterrupted)
    iterations = log_iterations(run / LOGS[family])
    if family == "exact":
        assert iterations == log_iterations(uninterrupted / LOGS[family])
    else:  # chunk sizes follow the measured speed; the iterates do not
        assert iterations == sorted(set(iterations)) and iterations[-1] == MCCFR_ITERATIONS
    results = read_commands(family, run, tmp_path)
    for name, res in results.items():
        assert res.returncode == 0, (name, res.stderr)
    assert (tmp_path / "report-run.html").is_file()
    assert results["report"].stderr == ""  # its progress lines draw on terminals only
    assert "policy:" in results["evaluate"].stdout
    assert "You left the game" in results["play"].stdout


def _budget(family: str, iterations: int) -> tuple[str, ...]:
    """The family's settings with another iteration budget."""
    args = list(SETTINGS[family])
    args[args.index("-n") + 1] = str(iterations)
    return tuple(args)


@pytest.mark.parametrize(
    "family, first",
    [
        pytest.param("exact", EXACT_ITERATIONS // 2, id="exact"),
        pytest.param("mccfr", MCCFR_ITERATIONS // 2, id="mccfr", marks=pytest.mark.slow),
    ],
)
def test_a_resumed_run_killed_between_its_strategy_and_meta_stays_readable(
    family: str, first: int, reference: Callable[[str], Path], tmp_path: Path
) -> None:
    """Killed after the new strategy.npz, before meta.json: read as is, then resumed, whole."""
    uninterrupted = reference(family)
    run = tmp_path / "run"
    done = complots("solve", GAME, *_budget(family, first), "--out", str(run))
    assert done.returncode == 0, done.stderr
    env = {**_env(), PAUSE_ENV: "replace:meta.json"}
    args = [sys.executable, "-c", CODE, "solve", GAME, *SETTINGS[family], "--out", str(run)]
    with tempfile.TemporaryFile("w+") as stdout:
        proc = subprocess.Popen(
            [*args, "--resume"], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if line.startswith(f"{PAUSED} "):
                    break
            else:
                pytest.fail("the resumed solve ended without pausing at meta.json")
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=TIMEOUT) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # the new strategy.npz is in place beside the older meta.json: no --resume needed
    assert_same_strategy(family, run, uninterrupted)
    results = read_commands(family, run, tmp_path)
    for name, res in results.items():
        assert res.returncode == 0, (name, res.stderr)
    assert "policy:" in results["evaluate"].stdout
    assert "You left the game" in results["play"].stdout

    solve(family, run)
    assert strays(run) == []
    assert_same_strategy(family, run, uninterrupted)
