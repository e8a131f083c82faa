"""What the command line says: unwritable paths, whole game strings, help, hints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from complots_solver.cli.main import ComplotsGroup
from complots_solver.rules.presets import load_presets, resolve_game
from complots_solver.rules.text import signed

UNWRITABLE = "/proc/complots-no-such-dir"  # /proc refuses new entries, even to root


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess (80 columns, no terminal) and capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "80"},
    )


def one_line_error(res: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit code 2, one line on stderr naming every needle, no traceback."""
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture(scope="module")
def solved_run(tmp_path_factory) -> Path:
    """A tiny exact run to report on."""
    out = tmp_path_factory.mktemp("run") / "l1"
    res = run_cli("solve", "ladder-1-ambassador", "-n", "5", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return out


@pytest.mark.parametrize(
    "args, needle",
    [
        (("solve", "ladder-1-ambassador", "-n", "5", "--out", UNWRITABLE), "--out"),
        (
            ("solve", "ladder-1-ambassador", "--algorithm", "es-mccfr", "-n", "5"),
            "--out",
        ),
        (
            ("evaluate", "ladder-1-ambassador", "--bots", "random,honest", "--games", "1"),
            "--csv",
        ),
    ],
)
def test_unwritable_output_exits_2_with_one_line(args, needle):
    """solve (exact and MCCFR) and evaluate: an output that cannot be made is one line."""
    target = f"{UNWRITABLE}/x.csv" if needle == "--csv" else UNWRITABLE
    extra = () if target in args else (needle, target)
    one_line_error(run_cli(*args, *extra), needle, target)


def test_report_and_compare_unwritable_outputs(solved_run, tmp_path):
    """report --out, report --csv and compare --out name the path and exit 2."""
    run = str(solved_run)
    one_line_error(run_cli("report", run, "--out", f"{UNWRITABLE}/r"), "--out", UNWRITABLE)
    one_line_error(
        run_cli("report", run, "--out", str(tmp_path / "r"), "--csv", UNWRITABLE),
        "--csv",
        UNWRITABLE,
    )
    one_line_error(run_cli("compare", run, run, "--out", f"{UNWRITABLE}/c"), "--out")


def test_a_write_failing_late_is_one_line_too(tmp_path):
    """An OSError inside a command (the CSV is a link into /proc) is caught centrally."""
    folder = tmp_path / "results.csv"
    folder.symlink_to(f"{UNWRITABLE}/results.csv")  # passes the early check, fails to open
    res = run_cli(
        "evaluate",
        "ladder-1-ambassador",
        "--bots",
        "random,honest",
        "--games",
        "1",
        "--workers",
        "1",
        "--csv",
        str(folder),
    )
    one_line_error(res, "results.csv", "file system error")


def test_group_turns_any_oserror_into_exit_2():
    """The group's wrapper: an OSError of any command gives exit code 2 and the path."""

    @click.group(cls=ComplotsGroup)
    def group() -> None:
        """A group for the test."""

    @group.command()
    def write() -> None:
        """Fail as a full disk would."""
        raise OSError(28, "No space left on device", "/data/out.csv")

    res = CliRunner().invoke(group, ["write"])
    assert res.exit_code == 2
    assert "/data/out.csv: No space left on device" in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_game_strings_are_printed_whole_and_once(tmp_path):
    """info, simulate and solve print the game string on one line; solve prints it once."""
    config, _ = resolve_game("draft-inquisitor")
    gs = config.game_string()
    assert len(gs) > 80
    info = run_cli("info", "draft-inquisitor")
    assert gs in info.stdout.splitlines()
    sim = run_cli("simulate", "draft-inquisitor", "-n", "200")
    assert gs in sim.stdout.splitlines()
    ladder = resolve_game("ladder-1-ambassador")[0].game_string()
    solve = run_cli("solve", "ladder-1-ambassador", "-n", "5", "--out", str(tmp_path / "s"))
    assert solve.returncode == 0, solve.stderr
    assert solve.stdout.count(ladder) == 1
    assert ladder in solve.stdout.splitlines()


def test_solve_reports_the_whole_time(tmp_path):
    """solve names the total wall time and its parts, not only the iterations."""
    res = run_cli("solve", "ladder-1-ambassador", "-n", "10", "--out", str(tmp_path / "t"))
    assert res.returncode == 0, res.stderr
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("time:"))
    for part in (
        "s in all",
        "start-up",
        "tree build",
        "iterations",
        "exact evaluations and saving",
    ):
        assert part in line
    figures = [float(x) for x in re.findall(r"(\d+\.\d) s", line)]
    total, parts = figures[0], figures[1:]
    assert len(parts) == 4 and total >= sum(parts) - 0.2, line  # the total covers its parts


def test_presets_list_whole_strings_first_games_and_solving_times():
    """presets: whole game strings, marked first games, exact or not and how long."""
    out = run_cli("presets").stdout
    lines = out.splitlines()
    for preset in load_presets().values():
        assert f"  {preset.config().game_string()}" in lines
    assert "ladder-2-inquisitor  * recommended first game to solve" in lines
    assert "draft-inquisitor  * recommended first game to play" in lines
    assert "complots solve ladder-2-inquisitor -e 1e-3 --out runs/ladder-2-inquisitor" in out
    assert out.count("solving: ") == len(load_presets())
    start = lines.index("ladder-2-inquisitor  * recommended first game to solve")
    assert lines[start + 3] == "  solving: exact to 1e-3 in about 3 s"


def test_solve_hints():
    """Ladder rungs with a measured time give it; the full game names solve's default method."""
    presets = load_presets()
    assert presets["ladder-1-ambassador"].solve_hint() == "exact to 1e-3 in about 1 s"
    assert "19 min, 11 GB peak" in presets["ladder-5-ambassador"].solve_hint()
    full = presets["draft-inquisitor"].solve_hint()
    assert full.startswith("not exactly solvable (full game)") and "regret matching" in full
    assert "(4 players)" in presets["coup-classic"].solve_hint()
    assert "not measured" in presets["ladder-3-c2-expert"].solve_hint()
    info = run_cli("info", "ladder-3-inquisitor").stdout
    assert "solving: exact to 1e-3 in about 2 min" in info
    two = run_cli("info", "complots(players=2,max_turns=3)").stdout
    assert "solving: exact only if its tree fits in memory" in two
    six = run_cli("info", "complots(players=6)").stdout
    assert "solving: not exactly solvable (6 players)" in six


def test_preset_descriptions_do_not_contradict_themselves():
    """'2 influence (sudden death when 1)' is gone; 1-influence rungs say what it means."""
    for preset in load_presets().values():
        assert "sudden death when 1" not in preset.description
    assert "first lost card ends the game" in load_presets()["ladder-1-inquisitor"].description


def test_help_summaries_are_whole():
    """complots --help: every command's summary is whole (no '...', no cut '(e.g.')."""
    out = run_cli("--help").stdout
    commands = out[out.index("Commands:") :].splitlines()[1:]
    names = {line.split()[0] for line in commands if line.startswith("  ") and line[2] != " "}
    assert names == {
        "balance", "bound", "compare", "evaluate", "info", "pick", "play",
        "presets", "report", "simulate", "solve",
    }  # fmt: skip
    for line in commands:
        assert not line.rstrip().endswith("..."), line
        assert "(e.g." not in line
    assert "draft-ambassador" in run_cli("simulate", "--help").stdout


def test_unknown_preset_suggests_the_nearest_name():
    """A near miss gets one suggestion, not the list of every preset."""
    res = run_cli("info", "draft-inquistor")
    one_line_error(res, "did you mean draft-inquisitor?")
    assert "ladder-5-ambassador" not in res.stderr
    far = run_cli("info", "zzzz")
    one_line_error(far, "complots presets")
    assert "did you mean" not in far.stderr


def test_evaluate_bad_bot_is_one_line_and_prints_nothing_else():
    """A bad bot name is caught before the progress bar: nothing on stdout, no blank line."""
    res = run_cli("evaluate", "draft-ambassador", "--bots", "counter,nobody", "--games", "2")
    one_line_error(res, "--bots", "nobody")
    assert res.stdout == ""


def test_a_strategy_of_the_wrong_kind_names_the_right_spelling():
    """policy:DIR on a network folder is one line saying to use net:DIR (a run from before)."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "runs-before-registry" / "regret"
    res = run_cli(
        "evaluate", "ladder-1-ambassador", "--bots", f"policy:{folder},random", "--games", "2"
    )
    one_line_error(res, f"use net:{folder}", "table network")
    assert res.stdout == ""


def test_evaluate_and_simulate_start_with_the_game_string_when_piped():
    """Their progress bars draw on terminals only: piped output has no leading blank line."""
    game = resolve_game("ladder-1-ambassador")[0].game_string()
    ev = run_cli(
        "evaluate", "ladder-1-ambassador", "--bots", "random,honest", "--games", "1",
        "--workers", "1",
    )  # fmt: skip
    assert ev.returncode == 0, ev.stderr
    assert ev.stdout.startswith(game + "\n"), ev.stdout[:200]
    sim = run_cli("simulate", "ladder-1-ambassador", "-n", "20000")  # the bar's threshold
    assert sim.returncode == 0, sim.stderr
    assert sim.stdout.startswith(game + "\n"), sim.stdout[:200]


@pytest.mark.parametrize(
    "value, digits, text",
    [
        (-0.00001, 4, "+0.0000"),
        (-0.0, 4, "+0.0000"),
        (-0.4, 0, "+0"),
        (-0.5, 4, "-0.5000"),
        (0.01254, 3, "+0.013"),
        (2.0, 4, "+2.0000"),
    ],
)
def test_signed_never_prints_minus_zero(value, digits, text):
    """Signed figures: a value rounding to zero is +0, never -0."""
    assert signed(value, digits) == text
