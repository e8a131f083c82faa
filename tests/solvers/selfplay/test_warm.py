"""A selfplay run's state file and the warm start from it: written with every checkpoint without the
past selves or the average's reservoir, loaded without pickle, continued at its iteration with its
networks, found through ``solved``, and refused by name when unusable."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common import folders
from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.common.kit import KIT_META
from complots_solver.solvers.common.registry import RunRequest
from complots_solver.solvers.selfplay.family import FAMILY
from complots_solver.solvers.selfplay.run import (
    KIT_FILE,
    SelfPlayRun,
    kit_from_checkpoint,
    kit_from_network,
    read_kit,
)
from complots_solver.solvers.selfplay.train import SelfPlaySettings

PRESET = "complots-ambassador-3"
# past selves every iteration and an average network, so that the checkpoint holds both
SMALL = SelfPlaySettings(
    games=4, parallel=4, width=8, bot_share=0.0, snapshot_every=1, snapshots=2, average=20,
    average_steps=2,
)  # fmt: skip


@pytest.fixture(scope="module")
def config():
    return resolve_game(PRESET)[0]


@pytest.fixture(scope="module")
def first(config, tmp_path_factory):
    """A run of three iterations (its checkpoint writes the state file; no save())."""
    folder = tmp_path_factory.mktemp("first")
    run = SelfPlayRun(folder, config, SMALL, seed=1)
    run.train(iterations=3)
    return run


def _load(path):
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def test_the_state_file_holds_the_networks_without_past_selves_or_reservoir(config, first):
    """The checkpoint alone writes selfplay-state.npz; it loads without pickle, holds the
    network and its Adam moments and the average network, but no past self and no reservoir
    row, and its kit_meta names the kind, game, features, seed and settings."""
    kit = _load(first.out / KIT_FILE)
    checkpoint = _load(first.out / "checkpoint.npz")
    assert any(k.startswith("solver_past0_") for k in checkpoint)
    assert len(checkpoint["solver_avg_x"]) > 0
    assert not [k for k in kit if k.startswith("past") and k != "past"]
    assert int(kit["past"]) == 0 and len(kit["avg_x"]) == 0 and int(kit["avg_seen"]) == 0
    for name in ("p0", "m0", "v0", "avg_p0"):
        np.testing.assert_array_equal(kit[name], checkpoint[f"solver_{name}"])
    assert int(kit["iteration"]) == 3 and int(kit["games"]) == 12
    meta = json.loads(str(kit[KIT_META]))
    assert meta["kind"] == "complots selfplay state" and meta["version"] == 1
    assert meta["game"] == config.game_string() and meta["seed"] == 1
    assert meta["settings"] == SMALL.record()
    kit_bytes = (first.out / KIT_FILE).stat().st_size
    assert kit_bytes < (first.out / "checkpoint.npz").stat().st_size
    # the same arrays as a state made afterwards from that checkpoint
    made = kit_from_checkpoint(first.out / "checkpoint.npz", config)
    assert sorted(made) == sorted(kit)
    for name, value in kit.items():
        np.testing.assert_array_equal(made[name], value)


def test_a_warm_start_begins_at_the_saved_iteration_with_the_saved_networks(
    config, first, tmp_path
):
    """The new run takes the state's settings and counters, its network, Adam moments and
    average network equal the saved ones before it trains, its past selves and reservoir start
    empty; it trains on from there and records where it started; a setting given again with
    another value is refused, but jobs and the bots it meets."""
    warm = SelfPlayRun(tmp_path / "warm", config, SelfPlaySettings(), seed=2, warm_start=first.out)
    tr = warm.trainer
    assert warm.settings == SMALL and warm.seed == 2
    assert tr.iteration == 3 and tr.games == 12
    assert tr.past == [] and tr.average.size == 0
    for mine, saved in zip(tr.net.params(), first.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(mine, saved)
    for mine, saved in zip(tr.ppo.m, first.trainer.ppo.m, strict=True):
        np.testing.assert_array_equal(mine, saved)
    assert tr.ppo.t == first.trainer.ppo.t
    for mine, saved in zip(tr.policy().params(), first.trainer.policy().params(), strict=True):
        np.testing.assert_array_equal(mine, saved)
    warm.train(iterations=5)
    assert tr.iteration == 5 and tr.games == 20 and len(tr.past) == 2
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(tr.net.params(), first.trainer.net.params(), strict=True)
    )
    warm.save()
    expected = {"from": str(first.out), "iteration": 3, "games": 12}
    assert json.loads((tmp_path / "warm" / "meta.json").read_text())["warm_start"] == expected
    assert json.loads((tmp_path / "warm" / "config.json").read_text())["warm_start"] == expected
    assert int(_load(tmp_path / "warm" / KIT_FILE)["iteration"]) == 5
    with pytest.raises(ValueError, match="warm_start: solver setting games was 4"):
        SelfPlayRun(
            tmp_path / "x", config, replace(SMALL, games=5), warm_start=first.out, given={"games"}
        )
    streams = SelfPlayRun(
        tmp_path / "y", config, replace(SMALL, jobs=1), warm_start=first.out, given={"jobs"}
    )
    assert streams.settings.jobs == 1 and streams.trainer.iteration == 3
    tables = SelfPlayRun(
        tmp_path / "z", config, replace(SMALL, bots="counter", bot_one_kind=0.5),
        warm_start=first.out, given={"bots", "bot_one_kind"},
    )  # fmt: skip
    assert tables.settings == replace(SMALL, bots="counter", bot_one_kind=0.5)


def test_a_warm_run_stopped_before_its_first_checkpoint_resumes_from_the_state(
    config, first, tmp_path
):
    """--resume of a warm-started folder with no checkpoint yet starts again from the state file,
    not from scratch."""
    SelfPlayRun(tmp_path / "warm", config, SMALL, seed=1, warm_start=first.out)
    assert not (tmp_path / "warm" / "checkpoint.npz").exists()
    again = SelfPlayRun(tmp_path / "warm", config, SMALL, resume=True)
    assert again.trainer.iteration == 3 and again.warm is not None
    for mine, saved in zip(again.trainer.net.params(), first.trainer.net.params(), strict=True):
        np.testing.assert_array_equal(mine, saved)


def test_warm_start_solved_is_the_shipped_folder(config, first, tmp_path, monkeypatch):
    """warm_start=solved, through the family, starts from the preset's shipped folder."""
    shipped = tmp_path / "strategies" / PRESET
    shipped.mkdir(parents=True)
    for name in ("policy-net.npz", KIT_FILE):
        (shipped / name).write_bytes((first.out / name).read_bytes())
    monkeypatch.setattr(folders, "strategies_dir", lambda: tmp_path / "strategies")
    request = RunRequest(
        config=config, preset=PRESET, out_dir=tmp_path / "out", algorithm="selfplay",
        values={"warm_start": "solved"}, given=frozenset({"warm_start"}), flags=frozenset(),
        budget=Budget(iterations=4),
    )  # fmt: skip
    run = FAMILY.make_run(request)
    run.pool.__exit__(None, None, None)
    assert run.inner.warm == {"from": str(shipped), "iteration": 3, "games": 12}
    assert run.inner.trainer.iteration == 3 and run.inner.settings == SMALL
    assert "warm start from" in FAMILY.resume_note(run, request)


def _rewrite_meta(folder, **changes):
    arrays = _load(folder / KIT_FILE)
    meta = {**json.loads(str(arrays[KIT_META])), **changes}
    arrays[KIT_META] = np.array(json.dumps(meta))
    np.savez(folder / KIT_FILE, **arrays)


def test_unusable_state_files_are_refused_by_name(config, first, tmp_path):
    """No file, a pickle payload, garbage bytes, another kind, game, format or feature version,
    and a warm start together with --resume."""
    with pytest.raises(ValueError, match="holds no selfplay-state.npz"):
        read_kit(tmp_path, config)
    pickled = tmp_path / "pickled"
    pickled.mkdir()
    np.savez(pickled / KIT_FILE, kit_meta=np.array([{"kind": "x"}], dtype=object))
    with pytest.raises(ValueError, match="not a readable selfplay state"):
        read_kit(pickled, config)
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / KIT_FILE).write_bytes(b"not an npz at all")
    with pytest.raises(ValueError, match="not a readable selfplay state"):
        read_kit(garbage, config)
    other = resolve_game("complots-inquisitor-3")[0]
    with pytest.raises(ValueError, match="is a state of complots\\(players=3,lineup=ambassador"):
        SelfPlayRun(tmp_path / "other", other, SMALL, warm_start=first.out)
    cases = [
        ({"kind": "complots sampled regret state"}, "is not a selfplay state"),
        ({"version": 2}, "is of format 2"),
        ({"features": -1}, "with features -1"),
    ]
    for changes, message in cases:
        folder = tmp_path / "changed"
        folder.mkdir(exist_ok=True)
        (folder / KIT_FILE).write_bytes((first.out / KIT_FILE).read_bytes())
        _rewrite_meta(folder, **changes)
        with pytest.raises(ValueError, match=message):
            read_kit(folder, config)
    with pytest.raises(ValueError, match="resume"):
        SelfPlayRun(first.out, config, SMALL, resume=True, warm_start=first.out)
    assert not (tmp_path / "other").exists()


def _shipped_without_its_run(tmp_path, config, settings, seed):
    """A 2-iteration run, and a strategy folder holding only its network and meta.json."""
    run = SelfPlayRun(tmp_path / "run", config, settings, seed=seed)
    run.train(iterations=2)
    run.save()
    shipped = tmp_path / "strategies" / PRESET
    shipped.mkdir(parents=True)
    for name in ("policy-net.npz", "meta.json"):
        (shipped / name).write_bytes((run.out / name).read_bytes())
    return run, shipped


def test_a_state_made_from_a_shipped_network_alone_continues_it(config, tmp_path):
    """For a strategy whose run is gone: the state holds the shipped network weight for
    weight, zero Adam moments, the meta.json's counters and settings; a warm start from it
    begins there and trains on. Another game's network is refused."""
    plain = replace(SMALL, average=0)
    run, shipped = _shipped_without_its_run(tmp_path, config, plain, seed=4)
    kit = kit_from_network(shipped, config, seed=4)
    for i, weights in enumerate(run.trainer.net.params()):
        np.testing.assert_array_equal(kit[f"p{i}"], weights)
        assert not kit[f"m{i}"].any() and not kit[f"v{i}"].any()
    assert int(kit["adam_t"]) == 0 and int(kit["past"]) == 0
    assert int(kit["iteration"]) == 2 and int(kit["games"]) == 8
    assert json.loads(str(kit[KIT_META]))["settings"] == plain.record()
    np.savez(shipped / KIT_FILE, **kit)
    warm = SelfPlayRun(tmp_path / "warm", config, SelfPlaySettings(), seed=5, warm_start=shipped)
    assert warm.settings == plain and warm.trainer.iteration == 2
    warm.train(iterations=3)
    assert warm.trainer.iteration == 3 and warm.trainer.ppo.t > 0
    other = resolve_game("complots-inquisitor-3")[0]
    with pytest.raises(ValueError, match="strategy of"):
        kit_from_network(shipped, other)


def test_a_state_made_from_a_shipped_average_network_starts_both_networks_from_it(config, tmp_path):
    """The Complots 2 drafts ship their run's average network, and the learning network is
    gone: the state starts the learner and the average from the shipped weights (which
    differ from the run's learner), with zero moments and an empty reservoir, and a warm
    start from it plays the shipped strategy until it trains."""
    run, shipped = _shipped_without_its_run(tmp_path, config, SMALL, seed=1)
    average = run.trainer.average.net.params()
    assert not np.array_equal(average[0], run.trainer.net.params()[0])
    kit = kit_from_network(shipped, config, seed=1)
    for i, weights in enumerate(average):
        np.testing.assert_array_equal(kit[f"p{i}"], weights)
        np.testing.assert_array_equal(kit[f"avg_p{i}"], weights)
        assert not kit[f"m{i}"].any() and not kit[f"avg_m{i}"].any()
    assert int(kit["avg_seen"]) == 0 and len(kit["avg_x"]) == 0
    np.savez(shipped / KIT_FILE, **kit)
    warm = SelfPlayRun(tmp_path / "warm", config, SelfPlaySettings(), seed=2, warm_start=shipped)
    assert warm.settings == SMALL and warm.trainer.iteration == 2
    for mine, weights in zip(warm.trainer.policy().params(), average, strict=True):
        np.testing.assert_array_equal(mine, weights)
    warm.train(iterations=3)
    assert warm.trainer.iteration == 3 and warm.trainer.average.seen > 0


TABLE_PRESETS = [
    "complots-ambassador-3", "complots-inquisitor-3", "complots-ambassador",
    "complots-inquisitor", "complots2-catechumene-3", "complots2-catechumene",
    "complots-ambassador-5", "complots-inquisitor-5", "complots-ambassador-6",
    "complots-inquisitor-6",
]  # fmt: skip


@pytest.mark.parametrize("preset", TABLE_PRESETS)
def test_every_shipped_table_strategy_carries_its_state(preset):
    """A fresh clone can continue each shipped table network: its state file loads without
    pickle for its game and holds the shipped network weight for weight."""
    from complots_solver.solvers.nets.tablenet import TableNet

    config = resolve_game(preset)[0]
    folder = folders.strategies_dir() / preset
    kit, meta = read_kit(folder, config)
    shipped = TableNet.load(folder / "policy-net.npz")
    for i, weights in enumerate(shipped.params()):
        np.testing.assert_array_equal(kit[f"p{i}"], weights)
    assert meta["settings"]["average"] == 0


@pytest.mark.parametrize("preset", ["draft-c2-catechumene", "draft-c2-expert"])
def test_the_shipped_complots2_drafts_carry_a_state_starting_from_their_network(preset):
    """A fresh clone can continue the two Complots 2 drafts' league networks (issue 50, goal
    2): the state loads without pickle for the draft's game, and both its learning and its
    average network are the shipped average network weight for weight (the runs' learners
    were not kept), with the reservoir empty."""
    from complots_solver.solvers.nets.tablenet import TableNet

    config = resolve_game(preset)[0]
    folder = folders.strategies_dir() / preset
    kit, meta = read_kit(folder, config)
    shipped = TableNet.load(folder / "policy-net.npz")
    for i, weights in enumerate(shipped.params()):
        np.testing.assert_array_equal(kit[f"p{i}"], weights)
        np.testing.assert_array_equal(kit[f"avg_p{i}"], weights)
    assert meta["settings"]["average"] > 0 and int(kit["avg_seen"]) == 0
    shipped_meta = json.loads((folder / "meta.json").read_text())
    assert int(kit["iteration"]) == shipped_meta["training_iterations"]
    assert "average network" in shipped_meta["state_file"]


def test_the_shipped_strategies_stay_within_50_mb():
    """games/strategies, state files and second opinions included, is at most 50 MB."""
    files = [p for p in folders.strategies_dir().rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) <= 50_000_000
