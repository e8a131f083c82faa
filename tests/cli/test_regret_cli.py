"""``complots solve --algorithm regret``: a run folder whose average network plays and bounds."""

from __future__ import annotations

import json
import shutil

from complots_solver.solvers.common.folders import strategies_dir
from complots_solver.solvers.nets.tablenet import TableNet
from tests.cli.test_cli import run_cli

SMALL = ["--option", "games=40", "--option", "steps=5", "--option", "width=16"]
SMALL += ["--option", "average_steps=5"]


def test_regret_solve_writes_a_playable_network_resumes_and_keeps_its_settings(tmp_path):
    """The run writes its files, resumes where it stopped, refuses a changed setting; the
    network plays in evaluate and is bounded by lbr."""
    out = tmp_path / "rg"
    game = "ladder-1-ambassador"
    proc = run_cli("solve", game, "--algorithm", "regret", "--out", str(out), "-n", "2", *SMALL)
    assert proc.returncode == 0, proc.stderr
    for name in ("config.json", "checkpoint.npz", "training.csv", "policy-net.npz", "meta.json"):
        assert (out / name).is_file(), name
    assert TableNet.load(out / "policy-net.npz").num_features > 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["algorithm"] == "regret" and meta["training_iterations"] == 2
    assert meta["training_games"] == 160  # 40 games with each seat exploring, twice
    again = run_cli("solve", game, "--out", str(out), "-n", "3", "--resume")
    assert again.returncode == 0, again.stderr
    assert "method: regret" in again.stdout and "resuming after iteration 2" in again.stdout
    assert len((out / "training.csv").read_text().splitlines()) == 4
    changed = run_cli(
        "solve", game, "--out", str(out), "-n", "4", "--resume", "--option", "games=41"
    )
    assert changed.returncode == 2 and "games=40" in changed.stderr
    assert "Traceback" not in changed.stderr
    ev = run_cli("evaluate", game, "--bots", f"net:{out},random", "-n", "2", "--workers", "1")
    assert ev.returncode == 0, ev.stderr
    bound = run_cli("bound", game, "--strategy", str(out), "--method", "lbr", "-n", "4")
    assert bound.returncode == 0, bound.stderr
    assert "exploitability lower bound" in bound.stdout


def test_regret_on_two_workers_splits_each_iteration_into_two_streams(tmp_path):
    """--workers 2 plays two streams on two processes; a resume on one worker keeps them."""
    out = tmp_path / "w"
    game = "ladder-1-ambassador"
    proc = run_cli(
        "solve", game, "--algorithm", "regret", "--out", str(out), "-n", "1", "--workers", "2",
        *SMALL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2 stream(s) on 2 worker(s)" in proc.stdout
    assert json.loads((out / "config.json").read_text())["solver"]["jobs"] == 2
    again = run_cli("solve", game, "--out", str(out), "-n", "2", "--resume")
    assert again.returncode == 0, again.stderr
    assert "2 stream(s) on 1 worker(s)" in again.stdout
    assert json.loads((out / "meta.json").read_text())["training_iterations"] == 2


def test_regret_is_the_full_two_player_games_default(tmp_path):
    """auto picks regret when the 2-player tree cannot fit, and says why."""
    out = tmp_path / "full"
    proc = run_cli(
        "solve", "draft-ambassador", "--out", str(out), "-n", "1", "--option", "games=4",
        "--option", "steps=5", "--option", "width=16", "--option", "average_steps=5",
        "--option", "average=1000",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "method: regret (the exact tree" in proc.stdout and "cannot fit" in proc.stdout
    assert json.loads((out / "meta.json").read_text())["algorithm"] == "regret"


def test_regret_runs_at_a_table_of_three(tmp_path):
    """--algorithm regret at 3 players writes a 3-player table network and counts every seat's
    games (3 traversers x 4 games)."""
    out = tmp_path / "three"
    proc = run_cli(
        "solve", "complots-ambassador-3", "--algorithm", "regret", "--out", str(out), "-n", "1",
        "--option", "games=4", "--option", "steps=5", "--option", "width=16",
        "--option", "average_steps=5", "--option", "average=1000",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["algorithm"] == "regret" and "players=3" in meta["game"]
    assert meta["training_games"] == 12
    assert (out / "policy-net.npz").is_file()


def test_regret_refuses_bad_settings_and_streams(tmp_path):
    """One line and exit 2, naming what is wrong."""
    bad = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "regret", "--out", str(tmp_path / "a"),
        "-n", "1", "--option", "explore=1.5",
    )  # fmt: skip
    assert bad.returncode == 2 and "explore" in bad.stderr and "Traceback" not in bad.stderr
    streams = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "regret", "--out", str(tmp_path / "c"),
        "-n", "1", "--workers", "3", "--option", "games=2",
    )  # fmt: skip
    assert streams.returncode == 2 and "jobs: at most games (2)" in streams.stderr


def test_regret_warm_start_from_a_folder_and_its_refusals(tmp_path):
    """--option warm_start=DIR starts a new folder at the saved iteration and says so; a setting
    that differs from the saved run's, resume with a warm start, and a shipped strategy with no
    state file are refused with one line and exit 2."""
    game = "ladder-1-ambassador"
    first = tmp_path / "first"
    proc = run_cli("solve", game, "--algorithm", "regret", "--out", str(first), "-n", "2", *SMALL)
    assert proc.returncode == 0, proc.stderr
    warm = tmp_path / "warm"
    proc = run_cli(
        "solve", game, "--algorithm", "regret", "--out", str(warm), "-n", "3", "--option",
        f"warm_start={first}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"warm start from {first} after iteration 2" in proc.stdout
    meta = json.loads((warm / "meta.json").read_text())
    assert meta["training_iterations"] == 3 and meta["settings"]["width"] == 16
    assert meta["warm_start"]["iteration"] == 2
    refusals = [
        ["--out", str(tmp_path / "x"), "--option", f"warm_start={first}", "--option", "games=41"],
        ["--out", str(warm), "--resume", "--option", f"warm_start={first}"],
    ]
    for extra in refusals:
        proc = run_cli("solve", game, "--algorithm", "regret", "-n", "4", *extra)
        assert proc.returncode == 2, extra
        assert "warm" in proc.stderr or "games=40" in proc.stderr
        assert "Traceback" not in proc.stderr
    bare = tmp_path / "network-only"  # a strategy folder without its state file
    bare.mkdir()
    shutil.copy(strategies_dir() / "draft-inquisitor" / "policy-net.npz", bare)
    refused = run_cli(
        "solve", "draft-inquisitor", "--algorithm", "regret", "--out", str(tmp_path / "s"),
        "-n", "1", "--option", f"warm_start={bare}",
    )  # fmt: skip
    assert refused.returncode == 2 and "regret-state.npz" in refused.stderr
    assert "Traceback" not in refused.stderr
    # a Complots 2 draft ships league self-play's state: the refusal names the way on
    league = run_cli(
        "solve", "draft-c2-expert", "--out", str(tmp_path / "c2"), "-n", "1", "--option",
        "warm_start=solved",
    )  # fmt: skip
    assert league.returncode == 2 and "Traceback" not in league.stderr
    assert "it holds selfplay-state.npz: --algorithm selfplay continues that" in league.stderr
    assert len(league.stderr.strip().splitlines()) == 1


def test_the_ray_flag_is_shown_and_refused_where_no_workers_play(tmp_path):
    """--ray ADDRESS is listed by solve --help; an exact solver, which has no workers, refuses it
    with one line naming the methods that take it."""
    shown = run_cli("solve", "--help")
    assert shown.returncode == 0 and "--ray ADDRESS" in shown.stdout
    exact = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "cfr+", "--ray", "local", "-n", "1",
        "--out", str(tmp_path / "x"),
    )  # fmt: skip
    assert exact.returncode == 2 and "--ray" in exact.stderr and "regret" in exact.stderr
    assert "Traceback" not in exact.stderr


def test_a_fresh_clone_continues_the_shipped_ambassador_network(tmp_path):
    """`complots solve draft-ambassador --option warm_start=solved` starts from the shipped
    state at iteration 600 with the shipped run's settings (its streams from --workers) and
    writes iteration 601."""
    out = tmp_path / "more"
    proc = run_cli(
        "solve", "draft-ambassador", "--out", str(out), "-n", "601", "--workers", "1",
        "--option", "warm_start=solved",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "after iteration 600" in proc.stdout
    meta = json.loads((out / "meta.json").read_text())
    assert meta["training_iterations"] == 601 and meta["warm_start"]["iteration"] == 600
    assert meta["settings"]["games"] == 500 and meta["settings"]["width"] == 256
    assert meta["settings"]["power"] == 0.0  # the clipped regret sum, as the shipped run
    assert meta["settings"]["jobs"] == 1  # a warm start takes every setting but jobs
