"""The complots command line: output content, exit codes, solve with resume."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from complots_solver.solvers.common.strategy_file import load_strategy


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess (as a user would) and capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600
    )


def test_info_prints_parameters_and_sizes():
    """info names the variant, every parameter with value and default, and sizes."""
    res = run_cli("info", "draft-inquisitor")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "variant 2-player draft" in out
    for name in (
        "players",
        "lineup",
        "variant",
        "influence",
        "copies",
        "coins",
        "start_coins",
        "max_turns",
    ):
        assert name in out
    assert "inquisitor" in out
    # 48 fixed ids + 4 targeted kinds x 2 players
    assert "distinct actions" in out and "56" in out


def test_simulate_reports_rates_with_intervals():
    """simulate prints speed, length, the turn-cap share and a CI per seat."""
    res = run_cli(
        "simulate", "complots(players=3,lineup=inquisitor)", "--games", "3000", "--seed", "5"
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "games/s" in out and "average length" in out and "turn cap (200)" in out
    rows = [line for line in out.splitlines() if line.strip().startswith("│")]
    assert len(rows) == 3  # one row per seat
    wins = sum(int(r.split("│")[2].strip().replace(",", "")) for r in rows)
    assert wins <= 3000


def test_simulate_is_reproducible():
    """Same seed, same win counts."""
    a = run_cli("simulate", "draft-ambassador", "-n", "2000", "--seed", "11").stdout
    b = run_cli("simulate", "draft-ambassador", "-n", "2000", "--seed", "11").stdout
    table = lambda out: [line for line in out.splitlines() if line.strip().startswith("│")]  # noqa: E731
    assert table(a) == table(b)


@pytest.mark.parametrize(
    "args, needle",
    [
        (("info", "complots(players=9)"), "players must be from 2 to 8"),
        (("info", "complots(players=3,variant=draft)"), "variant=draft needs players=2"),
        (("info", "complots(lineup=jester)"), "lineup must be one of"),
        (("info", "no-such-preset"), "unknown game or preset"),
        (("simulate", "draft-ambassador", "--games", "0"), "--games"),
        (("info", "complots(max_turns=0)"), "max_turns must be >= 1"),
        (("info", "complots(coins=-3)"), "coins must be >= 0"),
        (("info", "complots(characters=bourreau+espion+pape+sorciere)"), "characters must name"),
        (("info", "complots(characters=bourreau+assassin+pape+sorciere+ursuline)"), "characters"),
        (
            ("info", "complots(characters=bourreau+espion+pape+sorciere+jester)"),
            "unknown character",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(args, needle):
    """Bad input: exit code 2, a single readable line on stderr, no traceback."""
    res = run_cli(*args)
    assert res.returncode == 2
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert needle in lines[0]
    assert "Traceback" not in res.stderr


def test_solve_resume_equals_uninterrupted(tmp_path):
    """A run stopped at 30 iterations and resumed to 60 equals a straight 60-iteration run."""
    straight, split = tmp_path / "straight", tmp_path / "split"
    common = ("--algorithm", "cfr+", "--eval-every", "10")
    res = run_cli("solve", "ladder-1-ambassador", *common, "-n", "60", "--out", str(straight))
    assert res.returncode == 0, res.stderr
    assert (
        run_cli("solve", "ladder-1-ambassador", *common, "-n", "30", "--out", str(split)).returncode
        == 0
    )
    again = run_cli("solve", "ladder-1-ambassador", *common, "-n", "30", "--out", str(split))
    assert again.returncode == 2 and "--resume" in again.stderr  # no silent overwrite
    both = run_cli(
        "solve", "ladder-1-ambassador", "-n", "30", "--out", str(split), "--resume", "--force"
    )
    assert both.returncode == 2 and "exclude each other" in both.stderr
    res = run_cli(
        "solve", "ladder-1-ambassador", *common, "-n", "60", "--out", str(split), "--resume"
    )
    assert res.returncode == 0, res.stderr
    a, b = load_strategy(straight), load_strategy(split)
    assert a.meta["iterations"] == b.meta["iterations"] == 60
    np.testing.assert_array_equal(a.average, b.average)
    assert a.meta["exploitability"] == b.meta["exploitability"]
    config = json.loads((split / "config.json").read_text())
    assert config["preset"] == "ladder-1-ambassador" and config["params"]["max_turns"] == 2
    log = (split / "convergence.csv").read_text().splitlines()
    assert log[0].startswith("iteration,") and len(log) == 1 + 6


def test_solve_rejects_mismatched_resume(tmp_path):
    """Resuming a run with another game is refused with a clear message."""
    out = tmp_path / "run"
    assert run_cli("solve", "ladder-1-ambassador", "-n", "10", "--out", str(out)).returncode == 0
    res = run_cli("solve", "ladder-1-inquisitor", "-n", "20", "--out", str(out), "--resume")
    assert res.returncode == 2
    assert "holds a run of" in res.stderr


def test_solve_force_starts_afresh(tmp_path):
    """--force replaces an existing run: 10 iterations after a 20-iteration run gives 10."""
    out = tmp_path / "run"
    assert run_cli("solve", "ladder-1-ambassador", "-n", "20", "--out", str(out)).returncode == 0
    res = run_cli("solve", "ladder-1-ambassador", "-n", "10", "--out", str(out), "--force")
    assert res.returncode == 0, res.stderr
    assert load_strategy(out).meta["iterations"] == 10


def test_complots2_info_simulate_and_commas():
    """A Complots 2 set: info names the characters, commas work, simulate runs."""
    res = run_cli(
        "info", "complots(players=3,characters=bourreau,espion,justicier,sorcière,ursuline)"
    )
    assert res.returncode == 0, res.stderr
    assert "Complots 2, characters Ursuline, Bourreau, Sorcière, Justicier, Espion" in res.stdout
    res = run_cli("simulate", "complots2-expert", "--games", "500", "--seed", "3")
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if line.strip().startswith("│")]
    assert len(rows) == 4
    presets = run_cli("presets").stdout
    for name in ("complots2-catechumene", "complots12-tractations", "ladder-1-c2-expert"):
        assert name in presets


def test_solve_picks_the_method_and_refuses_options_for_others(tmp_path):
    """auto says which method it chose and why; --option is refused for other methods."""
    out = tmp_path / "l1"
    proc = run_cli("solve", "ladder-1-ambassador", "-n", "5", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "method: cfr+ (the exact tree" in proc.stdout
    proc = run_cli(
        "solve",
        "ladder-1-ambassador",
        "--algorithm",
        "cfr+",
        "--option",
        "games=2",
        "--out",
        str(tmp_path / "x"),
    )
    assert proc.returncode == 2
    assert "applies to belief, selfplay and regret only" in proc.stderr


def test_belief_solve_trains_distils_and_resumes(tmp_path):
    """A tiny belief run writes both networks and meta.json; --resume continues its rounds."""
    out = tmp_path / "belief"
    small = [
        "--option",
        "games=2",
        "--option",
        "iterations=4",
        "--option",
        "steps=2",
        "--option",
        "distill_games=1",
        "--option",
        "distill_epochs=1",
        "--option",
        "distill_dagger=1",
        "--option",
        "distill_width=16",
        "--option",
        "pretrain_games=4",
        "--option",
        "pretrain_steps=2",
    ]
    proc = run_cli(
        "solve", "draft-ambassador", "--algorithm", "belief", "--out", str(out), "-n", "1", *small
    )
    assert proc.returncode == 0, proc.stderr
    assert "pretraining the value network on 4 games" in proc.stdout
    for name in (
        "config.json",
        "belief-checkpoint.npz",
        "value-net.npz",
        "policy-net.npz",
        "meta.json",
        "training.csv",
    ):
        assert (out / name).is_file(), name
    # -n counts rounds in all, as for every family; the saved settings are the run's
    proc = run_cli("solve", "draft-ambassador", "--out", str(out), "-n", "2", "--resume")
    assert proc.returncode == 0, proc.stderr
    assert "method: belief (the run in" in proc.stdout  # a resumed run keeps its method
    assert "resuming after round 1" in proc.stdout
    assert (out / "training.csv").read_text().count("\n") == 3
    meta = json.loads((out / "meta.json").read_text())
    assert meta["training_rounds"] == 2 and meta["exploitability_bound"] is None
    record = json.loads((out / "config.json").read_text())
    assert record["solver"]["games"] == 2 and record["params"]["players"] == 2
    # a distillation setting may change on resume; a training setting may not
    proc = run_cli("solve", "draft-ambassador", "--out", str(out), "-n", "2", "--resume",
                   "--option", "distill_width=8")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "meta.json").read_text())["training_rounds"] == 2
    assert json.loads((out / "config.json").read_text())["solver"]["distill_width"] == 8
    proc = run_cli("solve", "draft-ambassador", "--out", str(out), "-n", "3", "--resume",
                   "--option", "games=3")  # fmt: skip
    assert proc.returncode == 2 and "solver setting games was 2" in proc.stderr
    # a run folder from before the run driver (seed and settings at the top) still resumes
    solver = json.loads((out / "config.json").read_text())["solver"]
    old = {"algorithm": "belief", "game": record["game"], "seed": solver.pop("seed"),
           "settings": solver}  # fmt: skip
    (out / "config.json").write_text(json.dumps(old))
    proc = run_cli("solve", "draft-ambassador", "--out", str(out), "-n", "3", "--resume")
    assert proc.returncode == 0, proc.stderr
    assert "resuming after round 2" in proc.stdout
    assert json.loads((out / "config.json").read_text())["solver"]["distill_width"] == 8
    proc = run_cli(
        "solve", "draft-ambassador", "--out", str(out), "-n", "1", "--option", "nope=1", "--force"
    )
    assert proc.returncode == 2 and "nope: unknown" in proc.stderr


def test_solved_without_a_shipped_strategy_exits_2_naming_the_presets():
    """evaluate and play refuse `solved` for a game with no shipped strategy, in one line."""
    from complots_solver.play.search_bot import shipped_presets

    for args in (
        ("evaluate", "ladder-1-ambassador", "--bots", "solved,honest", "-n", "1"),
        ("play", "ladder-1-ambassador", "--against", "solved"),
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2
        assert "no shipped strategy" in proc.stderr and "presets with one" in proc.stderr
        assert "Traceback" not in proc.stderr
        for name in shipped_presets():
            assert name in proc.stderr
