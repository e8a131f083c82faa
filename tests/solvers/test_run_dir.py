"""Run directories survive resumes and kills at any moment: plain CSV logs, no stray files."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from complots_solver.browse import StrategyBrowser
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import (
    atomic_write_bytes,
    partial_writes,
    remove_partial_writes,
    remove_stale_partial_writes,
    writer_pid,
)
from complots_solver.solvers.common.rundir import (
    CHECKPOINT_FILE,
    CONFIG_FILE,
    csv_float,
    read_csv_log,
)
from complots_solver.solvers.common.strategy_file import META_FILE, STRATEGY_FILE, load_strategy
from complots_solver.solvers.exact import run as exact_run
from complots_solver.solvers.exact.run import CONVERGENCE_FILE, SolveRun, SolveSettings

TINY = GameConfig.from_params({"influence": 1, "max_turns": 1})
FIRST, SECOND, EVAL = 20, 40, 10

# a run that dies by SIGKILL while renaming meta.json into place, as a kill during the
# final save would leave it: no clean-up code runs
KILLED_SAVE = """
import os, signal, sys
from pathlib import Path
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.run import SolveRun, SolveSettings

real_replace = os.replace

def replace(src, dst):
    if Path(dst).name == "meta.json":
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(src, dst)

os.replace = replace
config = GameConfig.from_params({"influence": 1, "max_turns": 1})
SolveRun(Path(sys.argv[1]), config, SolveSettings(iterations=20, eval_every=10)).run()
"""


def _cells(path: Path) -> list[list[str]]:
    """The data cells of a CSV file (header dropped)."""
    with path.open(newline="") as fh:
        return list(csv.reader(fh))[1:]


def test_a_resumed_run_logs_plain_floats(tmp_path: Path) -> None:
    """Resuming rewrites convergence.csv from the checkpoint's log without numpy reprs."""
    SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST, eval_every=EVAL)).run()
    SolveRun(tmp_path, TINY, SolveSettings(iterations=SECOND, eval_every=EVAL), resume=True).run()
    cells = _cells(tmp_path / CONVERGENCE_FILE)
    assert [int(row[0]) for row in cells] == list(range(EVAL, SECOND + 1, EVAL))
    for row in cells:
        assert not any("np." in cell for cell in row), row
        [float(cell) for cell in row]  # plain numbers only


def test_old_numpy_cells_are_read(tmp_path: Path) -> None:
    """A convergence.csv written by a resume before the fix still reads (and reports)."""
    SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST, eval_every=EVAL)).run()
    path = tmp_path / CONVERGENCE_FILE
    lines = path.read_text().splitlines()
    header, rows = lines[0], [line.split(",") for line in lines[1:]]
    old = [",".join([r[0], r[1], *(f"np.float64({x})" for x in r[2:])]) for r in rows]
    path.write_text("\n".join([header, *old]) + "\n")
    assert csv_float("np.float64(0.00186)") == 0.00186
    log = read_csv_log(path)
    assert [row["iteration"] for row in log] == [float(EVAL), float(FIRST)]
    conv = StrategyBrowser(tmp_path).convergence()
    assert conv is not None and list(conv["exploitability"]) == [float(r[2]) for r in rows]


def test_a_kill_during_the_final_save_is_completed_by_resume(tmp_path: Path) -> None:
    """SIGKILL while meta.json is renamed in: --resume saves the strategy and leaves no tmp."""
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_SAVE, str(tmp_path)], capture_output=True, timeout=600
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    assert partial_writes(tmp_path), "the kill should leave meta.json's temporary file"
    assert not (tmp_path / META_FILE).exists()
    SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST, eval_every=EVAL), resume=True).run()
    assert partial_writes(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
    strategy = load_strategy(tmp_path)
    assert strategy.meta["iterations"] == FIRST


def test_only_temporary_files_of_atomic_writes_are_removed(tmp_path: Path) -> None:
    """The clean-up removes ``.NAME.XXXX.tmp`` files, nothing else."""
    stray = tmp_path / ".checkpoint.npz.k3j2h1.tmp"
    kept = [tmp_path / "checkpoint.npz", tmp_path / "notes.tmp", tmp_path / ".hidden"]
    for path in [stray, *kept]:
        path.write_bytes(b"x")
    assert remove_partial_writes(tmp_path) == [stray]
    assert all(path.exists() for path in kept) and not stray.exists()


def test_readers_remove_only_the_temporary_files_of_dead_writers(tmp_path: Path) -> None:
    """A temporary file names its writer; only those of finished processes (or unnamed) go."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    dead = int(gone.stdout)
    stale = tmp_path / f".strategy.npz.{dead}-ab12cd.tmp"
    legacy = tmp_path / ".meta.json.k3j2h1.tmp"
    live = tmp_path / f".checkpoint.npz.{os.getppid()}-ef34gh.tmp"
    mine = tmp_path / f".policy-net.npz.{os.getpid()}-ij56kl.tmp"
    for path in (stale, legacy, live, mine):
        path.write_bytes(b"partial")
    assert writer_pid(stale) == dead and writer_pid(legacy) is None
    assert sorted(remove_stale_partial_writes(tmp_path)) == sorted([stale, legacy])
    assert live.exists() and mine.exists()


def test_atomic_writes_name_their_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary file of an atomic write carries this process's id."""
    seen = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (seen.append(Path(a)), real(a, b)))
    atomic_write_bytes(tmp_path / "meta.json", b"{}")
    assert [writer_pid(p) for p in seen] == [os.getpid()]
    assert (tmp_path / "meta.json").read_bytes() == b"{}"


@pytest.mark.parametrize("cell", ["0.5", " 0.5", "np.float64(0.5)", "np.float32(0.5)"])
def test_csv_float(cell: str) -> None:
    """Plain and numpy-repr cells give the same float."""
    assert csv_float(cell) == 0.5


def test_resume_before_the_first_checkpoint_starts_afresh(tmp_path: Path) -> None:
    """A run killed before its first checkpoint left config.json only: --resume starts over."""
    settings = SolveSettings(iterations=FIRST, eval_every=EVAL)
    SolveRun(tmp_path, TINY, settings).run()
    straight = load_strategy(tmp_path)
    (tmp_path / CHECKPOINT_FILE).unlink()
    for name in (META_FILE, STRATEGY_FILE, CONVERGENCE_FILE):
        (tmp_path / name).unlink()
    run = SolveRun(tmp_path, TINY, settings, resume=True)
    assert not run.resumed and run.solver.iteration == 0
    again = run.run()
    assert again.meta["iterations"] == FIRST
    np.testing.assert_array_equal(again.average, straight.average)


def test_resume_without_checkpoint_still_checks_the_run(tmp_path: Path) -> None:
    """Starting afresh needs the same game in config.json; an empty folder is no run."""
    with pytest.raises(ValueError, match="no checkpoint"):
        SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST), resume=True)
    other = GameConfig.from_params({"influence": 1, "max_turns": 2})
    SolveRun(tmp_path, other, SolveSettings(iterations=FIRST, eval_every=EVAL)).run()
    (tmp_path / CHECKPOINT_FILE).unlink()
    with pytest.raises(ValueError, match="holds a run of"):
        SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST), resume=True)


def test_config_is_written_before_the_tree_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that dies while building its tree has already recorded what it was solving."""

    def dies(config: GameConfig) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(exact_run, "compile_tree", dies)
    with pytest.raises(KeyboardInterrupt):
        SolveRun(tmp_path, TINY, SolveSettings(iterations=FIRST))
    assert json.loads((tmp_path / CONFIG_FILE).read_text())["game"] == TINY.game_string()
