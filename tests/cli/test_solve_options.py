"""complots solve: algorithm settings as --option/--config, their tables and docs, --force."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from complots_solver.cli import main as cli_main
from complots_solver.cli import solve_options
from complots_solver.solvers.common.driver import LogSpec, RunDriver
from complots_solver.solvers.common.faults import PAUSE_ENV, PAUSED
from complots_solver.solvers.common.options import OptionSpec, parse_value
from complots_solver.solvers.common.rundir import RUN_FILES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "solve-options.md"
CODE = "from complots_solver.cli.main import main; main()"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run ``complots ARGS`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-c", CODE, *args], capture_output=True, text=True, timeout=600
    )


def test_the_docs_hold_every_table() -> None:
    """docs/solve-options.md ends with the tables the code checks options against."""
    assert DOCS.read_text().endswith(solve_options.markdown())
    for key in ("eval_every", "sync_iterations", "distill_games", "target_exploitability"):
        assert f"| `{key}` |" in DOCS.read_text()


def test_the_cli_lists_the_methods_the_tables_know() -> None:
    """main.py names the methods without importing the solvers; both lists agree."""
    assert tuple(cli_main.SOLVE_ALGORITHMS) == solve_options.ALGORITHMS


def test_values_take_the_option_type() -> None:
    """Strings and JSON values become the field's type; anything else names what it takes."""
    flag = OptionSpec("exact", bool, False, "")
    assert parse_value(flag, "true") is True and parse_value(flag, "0") is False
    assert parse_value(flag, False) is False
    number = OptionSpec("alpha", float, None, "", optional=True)
    assert parse_value(number, "none") is None and parse_value(number, 2) == 2.0
    count = OptionSpec("eval_every", int, 10, "")
    assert parse_value(count, "25") == 25
    for spec, raw in ((flag, "maybe"), (count, "2.5"), (count, True), (number, "x")):
        with pytest.raises(ValueError, match="expected"):
            parse_value(spec, raw)
    choice = OptionSpec("key", str, "markov", "", choices=("perfect", "markov"))
    with pytest.raises(ValueError, match="one of perfect, markov"):
        parse_value(choice, "foo")


def test_keys_are_checked_against_the_method() -> None:
    """Unknown keys name the allowed ones; another method's key names the methods taking it."""
    with pytest.raises(ValueError, match=r"--option nope: unknown; allowed: alternating, "):
        solve_options.resolve("cfr+", [("--option nope", "nope", "1")])
    with pytest.raises(ValueError, match="applies to belief, selfplay and regret only, not cfr"):
        solve_options.resolve("cfr", [("--option games", "games", "2")])
    with pytest.raises(ValueError, match="applies to dcfr and es-mccfr and os-mccfr only"):
        solve_options.resolve("cfr+", [("--option alpha", "alpha", "1")])
    later_wins = [("file", "eval_every", 5), ("--option eval_every", "eval_every", "7")]
    assert solve_options.resolve("dcfr", later_wins) == {"eval_every": 7}


def test_list_options_prints_a_method_table() -> None:
    """--list-options ALGORITHM needs no game; an unknown algorithm exits 2 in one line."""
    res = run_cli("solve", "--list-options", "os-mccfr")
    assert res.returncode == 0, res.stderr
    assert "sync_iterations" in res.stdout and "eval_every" not in res.stdout
    bad = run_cli("solve", "--list-options", "nope")
    lines = [line for line in bad.stderr.splitlines() if line.strip()]
    assert bad.returncode == 2 and len(lines) == 1 and "cfr+" in lines[0]


def test_a_bad_option_exits_2_in_one_line_before_any_work(tmp_path: Path) -> None:
    """A bad key or value stops solve at once: no run folder is made."""
    out = tmp_path / "run"
    cases = [
        (("--option", "eval_every=often"), "eval_every: expected int"),
        (("--option", "nope=1"), "allowed: alternating, checkpoint_seconds, eval_every"),
        (("--config", str(tmp_path / "missing.json")), "--config"),
    ]
    for extra, needle in cases:
        res = run_cli(
            "solve", "ladder-1-ambassador", "--algorithm", "cfr+", *extra, "--out", str(out)
        )
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert res.returncode == 2 and len(lines) == 1 and needle in lines[0], res.stderr
    assert not out.exists()


def test_config_file_settings_reach_the_run(tmp_path: Path) -> None:
    """A --config file's settings are recorded in config.json; --option overrides the file."""
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"key": "perfect", "averaging": "linear"}))
    out = tmp_path / "run"
    res = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "os-mccfr", "-n", "50",
        "--config", str(settings), "--option", "averaging=simple", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    solver = json.loads((out / "config.json").read_text())["solver"]
    assert solver["key"] == "perfect" and solver["averaging"] == "simple"


def test_a_killed_run_resumes_with_the_options_it_was_given(tmp_path: Path) -> None:
    """Killed, then resumed with --resume alone, a run keeps its --option settings (in
    config.json too), its method and its budget; an option given again replaces its own."""
    out = tmp_path / "run"
    given = ("--option", "checkpoint_seconds=5", "--option", "eval_every=5")
    args = [
        sys.executable, "-c", CODE, "solve", "ladder-1-ambassador", "--algorithm", "cfr+",
        "-n", "40", *given, "--option", "alternating=false", "--out", str(out),
    ]  # fmt: skip
    env = {**os.environ, PAUSE_ENV: "iterations@2"}
    with subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        assert proc.stderr is not None
        paused = any(line.startswith(PAUSED) for line in proc.stderr)  # stops reading there
        proc.kill()
    assert paused
    resumed = run_cli("solve", "ladder-1-ambassador", "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "method: cfr+ (the run in" in resumed.stdout
    assert "settings kept from the run in" in resumed.stdout and "checkpoint_seconds=5.0" in (
        resumed.stdout
    )
    solver = json.loads((out / "config.json").read_text())["solver"]
    assert solver["checkpoint_seconds"] == 5.0 and solver["eval_every"] == 5
    assert solver["alternating"] is False and solver["iterations"] == 40
    assert json.loads((out / "meta.json").read_text())["iterations"] == 40
    again = run_cli(
        "solve", "ladder-1-ambassador", "-n", "50", "--option", "checkpoint_seconds=7",
        "--out", str(out), "--resume",
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    solver = json.loads((out / "config.json").read_text())["solver"]
    assert solver["checkpoint_seconds"] == 7.0 and solver["eval_every"] == 5
    assert solver["iterations"] == 50


def test_force_deletes_every_file_of_the_previous_run(tmp_path: Path) -> None:
    """--force: no file of the old run (any family) survives beside the new config.json."""
    for name in RUN_FILES:
        (tmp_path / name).write_bytes(b"old")
    (tmp_path / ".strategy.npz.x1y2.tmp").write_bytes(b"partial")
    (tmp_path / "notes.txt").write_text("mine")
    record = {"game": "g", "preset": None, "params": {}, "solver": {"seed": 1}}
    log = LogSpec("progress.csv", ("iteration",), lambda row: [int(row[0])])
    with pytest.raises(ValueError, match="already holds a run"):
        RunDriver(tmp_path, record, (), log)
    RunDriver(tmp_path, record, (), log, force=True)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["config.json", "notes.txt"]
    assert json.loads((tmp_path / "config.json").read_text()) == record


class _Counter:
    """A tiny Solver: its state is a count; a step adds the chunk asked for."""

    def __init__(self) -> None:
        self.iteration = 0

    def step(self, iterations: int | None) -> int:
        n = 1 if iterations is None else iterations
        self.iteration += n
        return n

    def run(self, iterations: int) -> None:
        self.step(iterations)

    def get_state(self) -> dict[str, np.ndarray]:
        return {"count": np.array(self.iteration)}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        self.iteration = int(state["count"])

    def policy(self) -> None:
        return None

    def evaluate(self) -> dict[str, float]:
        return {}


def test_the_driver_resumes_and_stops_at_the_budget(tmp_path: Path) -> None:
    """Iteration budgets count over sessions; a resumed run continues from its checkpoint."""
    from complots_solver.solvers.common.driver import Budget, DrivenSolver

    record = {"game": "g", "preset": None, "params": {}, "solver": {"iterations": 7}}
    log = LogSpec("progress.csv", ("iteration", "seconds"), lambda r: [int(r[0]), r[1]])
    solver = _Counter()
    assert isinstance(solver, DrivenSolver)

    def drive(target: int, resume: bool) -> tuple[_Counter, RunDriver]:
        driver = RunDriver(tmp_path, record, ("iterations",), log, resume=resume)
        counter = _Counter()
        driver.restore(counter)
        driver.iterate(
            counter,
            Budget(iterations=target),
            chunk=lambda rate: 3,
            measure=lambda spent: ((counter.iteration, driver.elapsed), {}),
        )
        return counter, driver

    first, _ = drive(7, resume=False)
    assert first.iteration == 7  # chunks of 3, the last cut to the budget
    again, driver = drive(12, resume=True)
    assert again.iteration == 12 and [row[0] for row in driver.log] == [3, 6, 7, 10, 12]
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["3", "6", "7", "10", "12"]


def test_a_scripts_bool_setting_reads_the_word_as_the_option_does():
    """argument_type: the scripts' --common-random false is False (bool("false") would be True);
    other settings keep their type; a word that is no flag is refused."""
    from complots_solver.solvers.common.options import argument_type

    flag = argument_type(False)
    assert flag("false") is False and flag("true") is True and flag("no") is False
    assert argument_type(3)("4") == 4 and argument_type(0.5)("0.25") == 0.25
    with pytest.raises(ValueError):
        flag("maybe")
