"""Ctrl-C during ``complots solve``'s exact tree build: exit 130 at once, in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from complots_solver.solvers.common.faults import PAUSE_ENV

GAME = "ladder-3-ambassador"  # its tree takes seconds to build
SOLVE = ("solve", GAME, "--algorithm", "cfr+", "-n", "2", "--eval-every", "1")
# SIGINT raises KeyboardInterrupt, as at a terminal, even if the test runner ignores it
CODE = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from complots_solver.cli.main import main; main()"
)
INTERRUPTED = 130
TIMEOUT = 300
INTO_THE_BUILD = 2.0  # seconds after config.json: the walks take several seconds
PROMPT_SECONDS = 2.0  # without the fix the message waits for the walk to return


def _env() -> dict[str, str]:
    """The test's environment without any pause point."""
    return {k: v for k, v in os.environ.items() if k != PAUSE_ENV}


def interrupt_build(out: Path) -> tuple[int, str, str, float]:
    """Start a solve, SIGINT it during the tree build: (exit code, stdout, stderr, delay).

    ``delay`` is the time from the signal to the first line on stderr.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", CODE, *SOLVE, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        # config.json is written just before the build begins
        while not (out / "config.json").is_file():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no config.json"
            time.sleep(0.02)
        time.sleep(INTO_THE_BUILD)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        assert proc.stderr is not None
        first = proc.stderr.readline()
        delay = time.monotonic() - sent
        stdout, rest = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, stdout, first + rest, delay


def test_ctrl_c_during_the_tree_build_exits_130_in_one_line(tmp_path: Path) -> None:
    """Exit code 130, one line on stderr naming the tree build, no traceback, config kept."""
    out = tmp_path / "run"
    code, stdout, stderr, delay = interrupt_build(out)
    assert code == INTERRUPTED, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("interrupted: ") and "tree build" in lines[0]
    assert "Traceback" not in stdout + stderr
    assert delay < PROMPT_SECONDS
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]
    assert json.loads((out / "config.json").read_text())["preset"] == GAME


@pytest.mark.slow
def test_a_run_interrupted_during_the_build_resumes(tmp_path: Path) -> None:
    """The interrupted run's folder is resumed to a finished strategy."""
    out = tmp_path / "run"
    assert interrupt_build(out)[0] == INTERRUPTED
    res = subprocess.run(
        [sys.executable, "-c", CODE, *SOLVE, "--out", str(out), "--resume"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=_env(),
    )
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["iterations"] == 2
