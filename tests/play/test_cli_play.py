"""complots play and complots evaluate, driven like a user would."""

from __future__ import annotations

import csv
import subprocess
import sys

from click.testing import CliRunner

from complots_solver.cli.main import cli
from tests.play.conftest import STRATEGY_GAME

ALWAYS_FIRST = "1\n" * 5000  # enough answers for any game at the 200-turn cap


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess and capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )


def test_play_to_the_end_with_bad_input_and_hints():
    """Bad answers re-prompt with a message; '?' gives advice; the game ends."""
    runner = CliRunner()
    script = "banana\n0\n99\n?\n" + ALWAYS_FIRST
    res = runner.invoke(
        cli,
        ["play", "draft-ambassador", "--against", "counter", "--seed", "3", "--show-strategy"],
        input=script,
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert "'banana' is not a legal move: enter a number from 1 to 5" in out
    assert "'0' is not a legal move" in out and "'99' is not a legal move" in out
    assert "advice: Pick" in out
    assert "  1. Pick Duchess" in out  # numbered, readable legal actions
    assert "P1 (counter) strategy:" in out
    assert "your hand:" in out and "face up [" in out and "last:" in out
    assert "Game over:" in out


def test_play_by_name_as_second_seat():
    """Moves may be typed by name; seat 1 is dealt second."""
    runner = CliRunner()
    script = "pick captain\n" + ALWAYS_FIRST
    res = runner.invoke(
        cli,
        ["play", "draft-inquisitor", "--against", "bluffer", "--seat", "1", "--seed", "5"],
        input=script,
    )
    assert res.exit_code == 0, res.output
    assert "> P1 Pick Captain" in res.output
    assert "Game over:" in res.output


def test_play_against_a_strategy_shows_its_probabilities(strategy_dir):
    """A solved strategy plays, and its probabilities are printed at its decisions."""
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "play",
            STRATEGY_GAME,
            "--against",
            f"policy:{strategy_dir}",
            "--show-strategy",
            "--seed",
            "1",
        ],
        input=ALWAYS_FIRST,
    )
    assert res.exit_code == 0, res.output
    assert f"P1 (policy:{strategy_dir}) strategy:" in res.output
    assert "Game over:" in res.output


def test_play_quit_and_errors():
    """'q' leaves; a bad bot or seat exits 2 with one line."""
    runner = CliRunner()
    res = runner.invoke(
        cli, ["play", "draft-ambassador", "--against", "random", "--seed", "1"], input="q\n"
    )
    assert res.exit_code == 0 and "You left the game." in res.output
    bad = run_cli("play", "draft-ambassador", "--against", "nobody")
    assert bad.returncode == 2 and "bot must be one of" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    seat = run_cli("play", "draft-ambassador", "--against", "random", "--seat", "2")
    assert seat.returncode == 2 and "--seat" in seat.stderr


def test_evaluate_table_csv_and_reproducibility(tmp_path):
    """evaluate prints standings with CIs and ratings, writes CSV, same seed same table."""
    path = tmp_path / "res.csv"
    args = (
        "evaluate",
        "draft-ambassador",
        "--bots",
        "counter,random",
        "--games",
        "20",
        "--seed",
        "4",
    )
    first = run_cli(*args, "--csv", str(path), "--workers", "2")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    for needle in ("Standings", "95% CI", "BT rating", "Head to head", "Win rate by seat", "draws"):
        assert needle in out
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 40
    second = run_cli(*args, "--workers", "1")
    table = lambda text: [ln for ln in text.splitlines() if ln.startswith("│")]  # noqa: E731
    assert table(first.stdout) == table(second.stdout)
    bad = run_cli("evaluate", "draft-ambassador", "--bots", "counter", "--games", "2")
    assert bad.returncode == 2 and "at least 2 bots" in bad.stderr
