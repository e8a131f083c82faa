"""``complots solve --algorithm selfplay`` and ``complots bound --method responder``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from complots_solver.solvers.nets.tablenet import TableNet, save_strategy_nets
from tests.cli.test_cli import run_cli

SMALL = ["--option", "games=8", "--option", "parallel=8", "--option", "width=16"]


def test_selfplay_solve_writes_a_playable_network_and_resumes(tmp_path):
    """auto picks selfplay at 3 players; the network plays in evaluate; --resume continues."""
    out = tmp_path / "sp"
    proc = run_cli("solve", "complots-ambassador-3", "--out", str(out), "-n", "2", *SMALL)
    assert proc.returncode == 0, proc.stderr
    assert "method: selfplay" in proc.stdout
    for name in ("config.json", "checkpoint.npz", "training.csv", "policy-net.npz", "meta.json"):
        assert (out / name).is_file(), name
    rows = (out / "training.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("iteration,games")
    meta = json.loads((out / "meta.json").read_text())
    assert meta["training_iterations"] == 2 and meta["training_games"] == 16
    assert meta["quality"].startswith("not measured")
    again = run_cli("solve", "complots-ambassador-3", "--out", str(out), "-n", "3", "--resume")
    assert again.returncode == 0, again.stderr
    assert "resuming after iteration 2" in again.stdout
    assert len((out / "training.csv").read_text().splitlines()) == 4
    changed = run_cli(
        "solve", "complots-ambassador-3", "--out", str(out), "-n", "4", "--resume",
        "--option", "games=9",
    )  # fmt: skip
    assert changed.returncode == 2 and "games=8" in changed.stderr
    ev = run_cli(
        "evaluate", "complots-ambassador-3", "--bots", f"net:{out},honest,random", "-n", "2"
    )
    assert ev.returncode == 0, ev.stderr
    assert "6 games" in ev.stdout  # one table, three chair rotations, two deals
    bound = run_cli(
        "bound", "complots-ambassador-3", "--strategy", str(out), "--budget", "1",
        "--games", "4", "--write",
    )  # fmt: skip
    assert bound.returncode == 0, bound.stderr
    assert "best responder gain" in bound.stdout
    meta = json.loads((out / "meta.json").read_text())
    assert meta["responder_gain"]["games"] == 12
    assert meta["quality"].startswith(("WEAK: best responder gain", "HOLDS: best responder gain"))


def test_selfplay_refuses_2p_methods_at_a_table_and_bad_bots(tmp_path):
    """One line and exit 2: lbr at 3 players, the responder on a belief network, a bad bot name."""
    proc = run_cli("bound", "complots-ambassador-3", "--method", "lbr")
    assert proc.returncode == 2
    assert "responder" in proc.stderr and "Traceback" not in proc.stderr
    belief = str(Path(__file__).resolve().parents[2] / "games/strategies/belief/draft-ambassador")
    proc = run_cli("bound", "draft-ambassador", "--strategy", belief, "--method", "responder")
    assert proc.returncode == 2
    assert "lbr" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli(
        "solve", "complots-ambassador-3", "--out", str(tmp_path / "b"), "--option", "bots=nobody"
    )
    assert proc.returncode == 2
    assert "nobody" in proc.stderr and "Traceback" not in proc.stderr


def test_selfplay_on_the_two_player_draft_plays_and_is_bounded_per_game(tmp_path):
    """League self-play on the full 2-player game trains a network that plays through net:, that LBR
    measures, and whose responder bound is written per game in exploitability_bound; LBR refuses
    a mixture with one line."""
    out = tmp_path / "d"
    proc = run_cli(
        "solve", "draft-inquisitor", "--algorithm", "selfplay", "--out", str(out), "-n", "1",
        "--workers", "2", *SMALL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "in 2 stream(s) on 2 worker(s)" in proc.stdout
    ev = run_cli("evaluate", "draft-inquisitor", "--bots", f"net:{out},honest", "-n", "2")
    assert ev.returncode == 0, ev.stderr
    lbr = run_cli(
        "bound", "draft-inquisitor", "--strategy", str(out), "--method", "lbr", "--games", "2",
        "--rollouts", "1", "--value-games", "2", "--write",
    )  # fmt: skip
    assert lbr.returncode == 0, lbr.stderr
    written = json.loads((out / "meta.json").read_text())["exploitability_bound"]["lbr"]
    assert [s["games"] for s in written["seats"]] == [2, 2]
    assert "local best response" in written["how"]
    bound = run_cli(
        "bound", "draft-inquisitor", "--strategy", f"net:{out}", "--budget", "1", "--games", "6",
        "--write",
    )  # fmt: skip
    assert bound.returncode == 0, bound.stderr
    assert "per game" in bound.stdout
    meta = json.loads((out / "meta.json").read_text())
    record = meta["exploitability_bound"]["responder"]
    lo, hi = record["ci95"]
    assert lo <= record["exploitability_lower_bound"] <= hi
    assert -1.0 <= record["exploitability_lower_bound"] <= 1.0
    assert meta["responder_gain"]["games"] == 12
    for method, extra in (("trained", ["--budget", "20"]), ("bots", ["--bots", "honest"])):
        other = run_cli(
            "bound", "draft-inquisitor", "--strategy", str(out), "--method", method, "--games",
            "2", "--value-games", "2", "--write", *extra,
        )  # fmt: skip
        assert other.returncode == 0, other.stderr
    written = json.loads((out / "meta.json").read_text())["exploitability_bound"]
    assert {"lbr", "trained", "bot:honest", "responder"} <= set(written)
    policy = TableNet.load(out / "policy-net.npz")
    save_strategy_nets(out, policy, [policy], {})
    mixed = run_cli("bound", "draft-inquisitor", "--strategy", str(out), "--method", "lbr")
    assert mixed.returncode == 2 and "mixture" in mixed.stderr
    assert "Traceback" not in mixed.stderr


def test_save_responder_keeps_the_trained_exploiter_as_a_playable_network(tmp_path):
    """--save-responder writes the trained responder (not the strategy's copy it starts from) as a
    net:DIR folder labelled an exploiter; a folder already holding one, a method that trains no
    network, and a path under a file are refused with one line and exit 2, before any training."""
    out = tmp_path / "d"
    proc = run_cli(
        "solve", "draft-ambassador", "--algorithm", "selfplay", "--out", str(out), "-n", "1",
        *SMALL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    keep = tmp_path / "exploiter"
    bound = run_cli(
        "bound", "draft-ambassador", "--strategy", str(out), "--method", "responder",
        "--budget", "64", "--games", "2", "--save-responder", str(keep),
    )  # fmt: skip
    assert bound.returncode == 0, bound.stderr
    assert f"net:{keep}" in bound.stdout
    saved, strategy = TableNet.load(keep / "policy-net.npz"), TableNet.load(out / "policy-net.npz")
    assert saved.net.meta["game"] == strategy.net.meta["game"]
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(saved.net.weights, strategy.net.weights, strict=True)
    )  # trained away from the copy of the strategy it started from
    meta = json.loads((keep / "meta.json").read_text())
    assert meta["algorithm"] == "responder" and meta["against"] == str(out)
    assert meta["quality"].startswith("EXPLOITER") and "--save-responder" in meta["command"]
    ev = run_cli("evaluate", "draft-ambassador", "--bots", f"net:{keep},net:{out}", "-n", "2")
    assert ev.returncode == 0, ev.stderr
    refusals = (
        ["--method", "responder", "--save-responder", str(keep)],  # holds a network already
        ["--method", "lbr", "--save-responder", str(tmp_path / "new")],  # trains none
        ["--method", "responder", "--save-responder", str(out / "meta.json" / "x")],
    )
    for extra in refusals:
        proc = run_cli("bound", "draft-ambassador", "--strategy", str(out), *extra)
        assert proc.returncode == 2, extra
        assert "--save-responder" in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()[-1]) > 0
    assert not (tmp_path / "new").exists()


def test_selfplay_warm_start_from_a_folder_and_its_refusals(tmp_path):
    """--option warm_start=DIR starts a new folder at the saved iteration and says so; a folder
    without selfplay-state.npz, a setting that differs from the saved run's and resume with a warm
    start are refused with one line and exit 2."""
    game = "complots-ambassador-3"
    first = tmp_path / "first"
    proc = run_cli("solve", game, "--algorithm", "selfplay", "--out", str(first), "-n", "2", *SMALL)
    assert proc.returncode == 0, proc.stderr
    assert (first / "selfplay-state.npz").is_file()
    warm = tmp_path / "warm"
    proc = run_cli(
        "solve", game, "--algorithm", "selfplay", "--out", str(warm), "-n", "3", "--option",
        f"warm_start={first}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"warm start from {first} after iteration 2" in proc.stdout
    meta = json.loads((warm / "meta.json").read_text())
    assert meta["training_iterations"] == 3 and meta["settings"]["width"] == 16
    assert meta["warm_start"] == {"from": str(first), "iteration": 2, "games": 16}
    empty = tmp_path / "empty"
    empty.mkdir()
    changed = ["--option", f"warm_start={first}", "--option", "games=9"]
    refusals = [
        (["--out", str(tmp_path / "x"), "--option", f"warm_start={empty}"], "selfplay-state.npz"),
        (["--out", str(tmp_path / "y"), *changed], "games=8"),
        (["--out", str(warm), "--resume", "--option", f"warm_start={first}"], "--resume"),
    ]
    for extra, said in refusals:
        proc = run_cli("solve", game, "--algorithm", "selfplay", "-n", "4", *extra)
        assert proc.returncode == 2, extra
        assert said in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for name in ("x", "y"):
        assert not (tmp_path / name / "config.json").exists()
