"""A table strategy and its mixture members are written as one set (nets.tablenet
save_strategy_nets): a writer killed at any moment leaves the old set or the new one whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from complots_solver.solvers.nets import tablenet
from complots_solver.solvers.nets.tablenet import (
    MIXTURE_KEY,
    TableNet,
    load_mixture,
    mixture_files,
    save_strategy_nets,
)


def _net(seed: int) -> TableNet:
    return TableNet.create(12, 5, (8,), seed=seed)


def _same(a: TableNet, b: TableNet) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.params(), b.params(), strict=True))


def test_the_policy_names_its_members_and_stale_ones_go(tmp_path: Path) -> None:
    save_strategy_nets(tmp_path, _net(0), [_net(1), _net(2)], {"game": "g"})
    first = mixture_files(tmp_path)
    assert len(first) == 2 and all(p.is_file() for p in first)
    loaded = load_mixture(tmp_path)
    assert _same(loaded[0], _net(1)) and _same(loaded[1], _net(2))
    save_strategy_nets(tmp_path, _net(3), [_net(4)], {"game": "g"})
    second = mixture_files(tmp_path)
    assert len(second) == 1 and _same(load_mixture(tmp_path)[0], _net(4))
    assert not any(p.exists() for p in first)  # the old set's files are gone
    save_strategy_nets(tmp_path, _net(5), [], {"game": "g"})
    assert mixture_files(tmp_path) == [] and not list(tmp_path.glob("mixture-*"))


def test_a_writer_killed_before_the_policy_leaves_the_old_set(tmp_path: Path, monkeypatch) -> None:
    save_strategy_nets(tmp_path, _net(0), [_net(1), _net(2)], {})
    real = TableNet.save

    def killed(self, path, meta=None):  # the members are written, the policy never is
        if Path(path).name == "policy-net.npz":
            raise KeyboardInterrupt
        real(self, path, meta)

    monkeypatch.setattr(TableNet, "save", killed)
    with pytest.raises(KeyboardInterrupt):
        save_strategy_nets(tmp_path, _net(3), [_net(4), _net(5), _net(6)], {})
    monkeypatch.setattr(TableNet, "save", real)
    assert _same(TableNet.load(tmp_path / "policy-net.npz"), _net(0))
    members = load_mixture(tmp_path)
    assert len(members) == 2 and _same(members[0], _net(1)) and _same(members[1], _net(2))


def test_the_callers_network_carries_no_listing(tmp_path: Path) -> None:
    policy = _net(0)
    save_strategy_nets(tmp_path, policy, [_net(1)], {})
    assert MIXTURE_KEY not in policy.net.meta
    alone = tmp_path / "alone"
    alone.mkdir()
    policy.save(alone / "policy-net.npz")
    assert mixture_files(alone) == []


def test_a_named_member_missing_is_an_error_that_names_it(tmp_path: Path) -> None:
    save_strategy_nets(tmp_path, _net(0), [_net(1)], {})
    gone = mixture_files(tmp_path)[0]
    gone.unlink()
    with pytest.raises(ValueError, match=gone.name):
        load_mixture(tmp_path)


def test_a_folder_written_before_the_listing_reads_its_numbered_members(tmp_path: Path) -> None:
    _net(0).save(tmp_path / "policy-net.npz")
    for k in range(2):
        _net(k + 1).save(tmp_path / f"{tablenet.MIXTURE_PREFIX}{k:02d}.npz")
    assert [p.name for p in mixture_files(tmp_path)] == ["mixture-00.npz", "mixture-01.npz"]
    save_strategy_nets(tmp_path, _net(0), [_net(7)], {})  # rewritten: the old files go
    assert not (tmp_path / "mixture-00.npz").exists() and len(mixture_files(tmp_path)) == 1
