"""``complots solve --algorithm selfplay`` and ``complots bound --method responder`` at 3+ players."""

from __future__ import annotations

import json

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


def test_selfplay_refuses_two_players_and_2p_methods_at_a_table(tmp_path):
    """One line and exit 2: selfplay on a 2-player game, lbr at 3 players, a bad bot name."""
    proc = run_cli(
        "solve", "draft-ambassador", "--algorithm", "selfplay", "--out", str(tmp_path / "a")
    )
    assert proc.returncode == 2
    assert "players" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("bound", "complots-ambassador-3", "--method", "lbr")
    assert proc.returncode == 2
    assert "responder" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli(
        "solve", "complots-ambassador-3", "--out", str(tmp_path / "b"), "--option", "bots=nobody"
    )
    assert proc.returncode == 2
    assert "nobody" in proc.stderr and "Traceback" not in proc.stderr
