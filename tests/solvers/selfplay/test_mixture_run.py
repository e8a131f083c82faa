"""A selfplay run that writes a mixture (``--option mixture=M``): the last network and the
M - 1 kept before it, every ``mixture_every`` iterations, each the network the same run had
at that iteration; a resumed run writes the same mixture; the state file carries none."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.nets.tablenet import TableNet, mixture_files
from complots_solver.solvers.policies.open import open_strategy
from complots_solver.solvers.selfplay.run import KIT_FILE, SelfPlayRun
from complots_solver.solvers.selfplay.train import MEMBER_KEY, SelfPlaySettings

PRESET = "complots-inquisitor-3"
SMALL = SelfPlaySettings(
    games=4, parallel=4, width=8, bot_share=0.0, snapshot_every=1, snapshots=2,
    mixture=3, mixture_every=2,
)  # fmt: skip


@pytest.fixture(scope="module")
def config():
    return resolve_game(PRESET)[0]


def _run(folder, config, iterations, settings=SMALL, **kw):
    run = SelfPlayRun(folder, config, settings, seed=1, **kw)
    run.run(Budget(iterations=iterations))
    return run


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.params(), b.params(), strict=True))


@pytest.fixture(scope="module")
def five(config, tmp_path_factory):
    """Five iterations, members kept at iterations 2 and 4."""
    folder = tmp_path_factory.mktemp("five")
    _run(folder, config, 5)
    return folder


def test_the_mixture_is_the_last_network_and_those_of_earlier_iterations(config, five, tmp_path):
    """policy-net.npz is iteration 5's network, mixture-00 iteration 4's, mixture-01 iteration
    2's: each equal to the network a run of the same seed stopped there writes."""
    meta = json.loads((five / "meta.json").read_text())
    assert meta["mixture"]["iterations"] == [5, 4, 2]
    files = mixture_files(five)
    assert [p.name[-7:] for p in files] == ["-00.npz", "-01.npz"]
    for iterations, path in zip((4, 2), files, strict=True):
        shorter = tmp_path / f"to{iterations}"
        _run(shorter, config, iterations)
        stopped = TableNet.load(shorter / "policy-net.npz")
        assert _same(stopped, TableNet.load(path)), path.name
        assert not _same(stopped, TableNet.load(five / "policy-net.npz"))
    policy = open_strategy(five, config)
    assert len(policy.mixture) == 2  # plays as a mixture of three


def test_a_resumed_run_writes_the_same_mixture(config, five, tmp_path):
    """Stopped at iteration 3 (one member kept, in the checkpoint) and resumed to 5."""
    folder = tmp_path / "resumed"
    _run(folder, config, 3)
    assert json.loads((folder / "meta.json").read_text())["mixture"]["iterations"] == [3, 2]
    _run(folder, config, 5, resume=True)
    assert [p.name for p in mixture_files(folder)] == [p.name for p in mixture_files(five)]
    for name in ("policy-net.npz", *(p.name for p in mixture_files(five))):
        assert _same(TableNet.load(folder / name), TableNet.load(five / name)), name


def test_the_state_file_carries_no_members_and_a_warm_start_keeps_none(config, five, tmp_path):
    """The shipped state stays one network; a warm start from it writes one network until it
    keeps members of its own (none in one iteration)."""
    with np.load(five / KIT_FILE, allow_pickle=False) as data:
        assert int(data["members"]) == 0
        assert not any(MEMBER_KEY.match(k) for k in data.files)
    warm = tmp_path / "warm"
    _run(warm, config, 6, settings=SelfPlaySettings(), warm_start=five)
    assert mixture_files(warm) == []
    assert json.loads((warm / "meta.json").read_text())["mixture"] is None


def test_resume_may_change_the_mixture_and_one_network_writes_none(config, tmp_path):
    """mixture and mixture_every only shape what is written, so a resume may change them; with
    mixture=1 an earlier mixture's files go."""
    folder = tmp_path / "change"
    _run(folder, config, 3)
    assert len(mixture_files(folder)) == 1
    one = replace(SMALL, mixture=1)
    SelfPlayRun(folder, config, one, seed=1, resume=True, given={"mixture"}).run(
        Budget(iterations=4)
    )
    assert mixture_files(folder) == []
    assert json.loads((folder / "meta.json").read_text())["mixture"] is None


def test_a_member_kept_just_before_the_end_waits_for_half_the_spacing(config, tmp_path):
    """mixture_every=4: stopped at iteration 9 the member of iteration 8 is one iteration old,
    a near copy of the last network, so the mixture is 9 and 4; at 10 it is 10, 8 and 4."""
    folder = tmp_path / "spaced"
    spaced = replace(SMALL, mixture_every=4)
    _run(folder, config, 9, settings=spaced)
    assert json.loads((folder / "meta.json").read_text())["mixture"]["iterations"] == [9, 4]
    assert len(mixture_files(folder)) == 1
    _run(folder, config, 10, settings=spaced, resume=True)
    assert json.loads((folder / "meta.json").read_text())["mixture"]["iterations"] == [10, 8, 4]
    assert len(mixture_files(folder)) == 2


@pytest.mark.parametrize("option", ["mixture=0", "mixture_every=0"])
def test_a_mixture_of_nothing_is_refused(option):
    """At least one network, at least one iteration apart."""
    key, value = option.split("=")
    with pytest.raises(ValueError, match=f"--option {key} must be at least 1"):
        SelfPlaySettings.from_options({key: value})
