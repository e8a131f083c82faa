"""A selfplay run that keeps networks along the way (``--option keep_every=K``): one copy for
each multiple of K, written whole at a checkpoint, each the network the same run had at that
iteration and playable on its own."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.policies.open import open_strategy
from complots_solver.solvers.selfplay.run import KEPT_DIR, SelfPlayRun, kept_iterations
from complots_solver.solvers.selfplay.train import SelfPlaySettings

PRESET = "complots-inquisitor-3"
SMALL = SelfPlaySettings(
    games=4, parallel=4, width=8, bot_share=0.0, snapshot_every=1, snapshots=2, keep_every=2
)  # fmt: skip


@pytest.fixture(scope="module")
def config():
    return resolve_game(PRESET)[0]


def _same(a: TableNet, b: TableNet) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.params(), b.params(), strict=True))


@pytest.fixture(scope="module")
def stepped(config, tmp_path_factory):
    """A run written after every one of its five iterations (as checkpoints would)."""
    folder = tmp_path_factory.mktemp("stepped")
    for iterations in range(1, 6):
        run = SelfPlayRun(folder, config, SMALL, seed=1, resume=iterations > 1)
        run.run(Budget(iterations=iterations))
    return folder


def test_one_network_is_kept_for_each_multiple(stepped):
    """Saved at iterations 1 to 5 with keep_every=2: iterations 2 and 4, not 3 or 5."""
    assert kept_iterations(stepped) == [2, 4]
    names = sorted(p.name for p in (stepped / KEPT_DIR).iterdir())
    assert names == ["it-000002", "it-000004"]


def test_a_kept_network_is_the_one_the_run_had_then(config, stepped, tmp_path):
    """kept/it-000004 equals the network a run of the same seed stopped at 4 writes, and differs
    from the last one; its meta.json names its iteration and game."""
    shorter = tmp_path / "to4"
    SelfPlayRun(shorter, config, replace(SMALL, keep_every=0), seed=1).run(Budget(iterations=4))
    kept = stepped / KEPT_DIR / "it-000004"
    assert _same(TableNet.load(kept / "policy-net.npz"), TableNet.load(shorter / "policy-net.npz"))
    assert not _same(
        TableNet.load(kept / "policy-net.npz"), TableNet.load(stepped / "policy-net.npz")
    )
    meta = json.loads((kept / "meta.json").read_text())
    assert meta["training_iterations"] == 4 and meta["game"] == config.game_string()
    assert not (shorter / KEPT_DIR).exists()  # keep_every=0 keeps nothing
    policy = open_strategy(kept, config)  # what net: and --strategy open
    assert _same(policy.net, TableNet.load(shorter / "policy-net.npz"))


def test_a_copy_left_half_written_is_ignored_and_replaced(config, tmp_path):
    """A run killed while keeping leaves kept/it-N.part: it counts for nothing, and the next
    save of that multiple writes the copy whole."""
    folder = tmp_path / "killed"
    run = SelfPlayRun(folder, config, SMALL, seed=1)
    run.run(Budget(iterations=1))
    part = folder / KEPT_DIR / "it-000002.part"
    part.mkdir(parents=True)
    (part / "policy-net.npz").write_bytes(b"half")
    assert kept_iterations(folder) == []
    SelfPlayRun(folder, config, SMALL, seed=1, resume=True).run(Budget(iterations=2))
    assert kept_iterations(folder) == [2]
    assert not part.exists()


def test_a_resume_may_change_keep_every(config, tmp_path):
    """keep_every shapes only what is written, so a resume may set it."""
    folder = tmp_path / "later"
    SelfPlayRun(folder, config, replace(SMALL, keep_every=0), seed=1).run(Budget(iterations=2))
    assert kept_iterations(folder) == []
    SelfPlayRun(folder, config, SMALL, seed=1, resume=True, given={"keep_every"}).run(
        Budget(iterations=3)
    )
    assert kept_iterations(folder) == [3]


def test_a_negative_spacing_is_refused():
    """0 keeps nothing; below 0 is an error naming the option."""
    with pytest.raises(ValueError, match="--option keep_every must be at least 0"):
        SelfPlaySettings.from_options({"keep_every": "-1"})
