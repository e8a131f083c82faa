"""scripts/mix_table_strategies.py: a folder that plays the mixture of several table networks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.table_features import config_features
from complots_solver.solvers.nets.tablenet import TableNet, policy_meta
from complots_solver.solvers.policies.open import open_strategy

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "mix_table_strategies.py"


def _member(folder: Path, preset: str, seed: int, iteration: int) -> Path:
    config = resolve_game(preset)[0]
    folder.mkdir(parents=True)
    net = TableNet.create(
        config_features(config.to_array()), config.num_distinct_actions(), (8, 8), seed=seed
    )
    net.save(folder / "policy-net.npz", meta=policy_meta(config, "selfplay"))
    meta = {"algorithm": "selfplay", "game": config.game_string(), "training_iterations": iteration}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def _run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True
    )


def test_the_mixture_plays_each_member_and_names_them(tmp_path):
    """Three members become policy-net.npz and mixture-00/01; the folder opens as a mixture
    whose members are the given networks, and meta.json names their iterations."""
    members = [_member(tmp_path / f"m{k}", "complots-inquisitor-3", k, 100 * k) for k in (1, 2, 3)]
    out = tmp_path / "mix"
    done = _run("--out", out, *members)
    assert done.returncode == 0, done.stderr
    policy = open_strategy(out, resolve_game("complots-inquisitor-3")[0])
    assert len(policy.mixture) == 2
    for mine, folder in zip((policy.net, *policy.mixture), members, strict=True):
        for a, b in zip(
            mine.params(), TableNet.load(folder / "policy-net.npz").params(), strict=True
        ):
            np.testing.assert_array_equal(a, b)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["mixture"]["iterations"] == [100, 200, 300]
    assert meta["training_iterations"] == 100  # the first member describes the folder
    assert meta["responder_gain"] is None
    assert "is not the newest" in done.stdout  # 100 before 200 and 300
    newest_first = _run("--out", tmp_path / "mix2", *members[::-1])
    assert newest_first.returncode == 0 and "is not the newest" not in newest_first.stdout


def test_members_of_different_games_or_a_single_member_are_refused(tmp_path):
    """Networks of two games cannot mix; one member is no mixture; nothing is written."""
    a = _member(tmp_path / "a", "complots-inquisitor-3", 1, 10)
    b = _member(tmp_path / "b", "complots-ambassador-3", 2, 10)
    mixed = _run("--out", tmp_path / "x", a, b)
    assert mixed.returncode != 0 and "different games" in mixed.stderr
    single = _run("--out", tmp_path / "y", a)
    assert single.returncode != 0 and "at least two" in single.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
