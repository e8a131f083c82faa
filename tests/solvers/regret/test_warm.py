"""A warm start from regret-state.npz: the regret network goes on exactly as the unbroken run's,
the average's reservoir starts empty, and an unusable state file is refused by name."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.regret.run import KIT_FILE, RegretRun, read_kit
from complots_solver.solvers.regret.sampler import RegretSettings

SMALL = RegretSettings(games=60, steps=10, average_steps=20, width=16, average=20_000)


@pytest.fixture(scope="module")
def config():
    return resolve_game("ladder-1-ambassador")[0]


def test_warm_start_continues_the_regret_network_exactly_with_an_empty_reservoir(config, tmp_path):
    """Three iterations straight, and two then a warm start for the third: the regret networks
    agree bit for bit (the reservoir never feeds them); the warm run's average network starts
    from the saved one, its reservoir holds only the third iteration's decisions, and the state
    file is a small part of the checkpoint."""
    straight = RegretRun(tmp_path / "straight", config, SMALL, seed=3)
    straight.train(iterations=3)
    first = RegretRun(tmp_path / "first", config, SMALL, seed=3)
    first.train(iterations=2)
    first.save()
    kit = tmp_path / "first" / KIT_FILE
    assert kit.stat().st_size < (tmp_path / "first" / "checkpoint.npz").stat().st_size / 2
    saved_average = [p.copy() for p in first.trainer.policy().params()]
    warm = RegretRun(
        tmp_path / "warm", config, replace(SMALL, jobs=1), seed=3, warm_start=tmp_path / "first"
    )
    assert warm.trainer.iteration == 2 and warm.trainer.average.size == 0
    for mine, other in zip(warm.trainer.policy().params(), saved_average, strict=True):
        np.testing.assert_array_equal(mine, other)
    warm.train(iterations=3)
    assert warm.trainer.iteration == 3
    for mine, other in zip(warm.trainer.net.params(), straight.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    assert 0 < warm.trainer.average.size < straight.trainer.average.size
    warm.save()
    meta = json.loads((tmp_path / "warm" / "meta.json").read_text())
    assert meta["warm_start"] == {"from": str(tmp_path / "first"), "iteration": 2, "games": 240}
    assert meta["training_iterations"] == 3
    assert (tmp_path / "warm" / KIT_FILE).is_file()


def test_a_warm_run_stopped_before_its_first_checkpoint_resumes_from_the_state(config, tmp_path):
    """--resume of a warm-started folder with no checkpoint yet starts again from the state file,
    not from scratch."""
    first = RegretRun(tmp_path / "first", config, SMALL, seed=1)
    first.train(iterations=2)
    first.save()
    RegretRun(tmp_path / "warm", config, SMALL, seed=1, warm_start=tmp_path / "first")
    again = RegretRun(tmp_path / "warm", config, SMALL, resume=True)
    assert again.trainer.iteration == 2 and again.warm is not None
    for mine, other in zip(again.trainer.net.params(), first.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(mine, other)


def test_unusable_state_files_are_refused_by_name(config, tmp_path):
    """No file, a pickle payload, garbage bytes, another game, and warm start with resume."""
    with pytest.raises(ValueError, match="holds no regret-state.npz"):
        read_kit(tmp_path, config)
    pickled = tmp_path / "pickled"
    pickled.mkdir()
    np.savez(pickled / KIT_FILE, kit_meta=np.array([{"kind": "x"}], dtype=object))
    with pytest.raises(ValueError, match="not a readable regret state"):
        read_kit(pickled, config)
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / KIT_FILE).write_bytes(b"not an npz at all")
    with pytest.raises(ValueError, match="not a readable regret state"):
        read_kit(garbage, config)
    run = RegretRun(tmp_path / "run", config, SMALL)
    run.train(iterations=1)
    run.save()
    other = resolve_game("ladder-1-inquisitor")[0]
    with pytest.raises(ValueError, match="is a state of complots"):
        read_kit(tmp_path / "run", other)
    with pytest.raises(ValueError, match="resume"):
        RegretRun(tmp_path / "run", config, SMALL, resume=True, warm_start=tmp_path / "run")


def test_snapshots_keep_earlier_networks_to_measure_and_warm_start_from(
    config, tmp_path, monkeypatch
):
    """Every SNAPSHOT_EVERY iterations the average network and the state are kept; the snapshot
    plays as the run's network did then and warm-starts at its iteration; --force clears them."""
    import complots_solver.solvers.regret.run as run_module
    from complots_solver.solvers.nets.tablenet import TableNet

    monkeypatch.setattr(run_module, "SNAPSHOT_EVERY", 2)
    run = RegretRun(tmp_path / "run", config, SMALL, seed=2)
    run.train(iterations=5)
    kept = sorted(p.name for p in (tmp_path / "run" / "snapshots").iterdir())
    assert kept == ["iteration-2", "iteration-4"]
    two = RegretRun(tmp_path / "two", config, SMALL, seed=2)
    two.train(iterations=2)
    saved = TableNet.load(tmp_path / "run" / "snapshots" / "iteration-2" / "policy-net.npz")
    for mine, other in zip(saved.params(), two.trainer.policy().params(), strict=True):
        np.testing.assert_array_equal(mine, other)
    warm = RegretRun(
        tmp_path / "warm",
        config,
        SMALL,
        seed=2,
        warm_start=tmp_path / "run" / "snapshots" / "iteration-4",
    )
    assert warm.trainer.iteration == 4
    RegretRun(tmp_path / "run", config, SMALL, seed=2, force=True)
    assert not (tmp_path / "run" / "snapshots").exists()


@pytest.mark.parametrize("preset", ["draft-ambassador", "draft-inquisitor"])
def test_the_shipped_regret_networks_carry_their_state(preset):
    """A fresh clone continues each shipped 2-player regret network (issue 50): its state file
    loads without pickle for its game, at the shipped network's iteration and settings, and its
    average network is the shipped network weight for weight (the Inquisitor's threshold is
    the played network's, in its file's meta)."""
    from complots_solver.solvers.common.folders import strategies_dir
    from complots_solver.solvers.nets.tablenet import TableNet

    config = resolve_game(preset)[0]
    folder = strategies_dir() / preset
    kit, meta = read_kit(folder, config)
    shipped_meta = json.loads((folder / "meta.json").read_text())
    assert int(kit["counters"][0]) == shipped_meta["training_iterations"] == 600
    assert meta["settings"]["power"] == 0.0  # the clipped regret sum, shipped on 2026-12-07
    for key, value in shipped_meta["settings"].items():
        assert meta["settings"][key] == value, key
    assert meta["seed"] == 0
    shipped = TableNet.load(folder / "policy-net.npz")
    for i, weights in enumerate(shipped.params()):
        np.testing.assert_array_equal(kit[f"avg_p{i}"], weights)
    assert kit["avg_x"].shape[0] == 0  # no reservoir: the state is a few MB
