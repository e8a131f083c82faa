"""OpenSpiel's Deep CFR as a ladder baseline (runs only where the deepcfr extra is installed)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from complots_solver.lab.compare.strength import DEEP_CFR, ESCHER, method_curve
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

HAVE_EXTRA = all(importlib.util.find_spec(m) is not None for m in ("torch", "tree"))
needs_extra = pytest.mark.skipif(
    not HAVE_EXTRA,
    reason="needs the optional deepcfr extra (torch, dm-tree): pip install -e '.[deepcfr]'",
)


def _uniform(tree) -> np.ndarray:
    widths = np.diff(tree.action_offsets)
    return np.repeat(1.0 / widths, widths)


@needs_extra
def test_deep_cfr_learns_on_ladder_1() -> None:
    """After a few iterations the policy network, read on the history tree, is a distribution
    per infoset and exactly less exploitable than uniform play (0.6 on ladder-1)."""
    from complots_solver.lab.compare.deep_cfr import DeepCFRRun, DeepCFRSettings

    config, _ = resolve_game("ladder-1-ambassador")
    tree = compile_complots_tree(config)
    settings = DeepCFRSettings(
        policy_network_layers=(64, 64),
        advantage_network_layers=(64, 64),
        num_traversals=50,
        batch_size_advantage=256,
        batch_size_strategy=256,
        policy_network_train_steps=300,
        advantage_network_train_steps=100,
    )
    run = DeepCFRRun(config, tree, seed=0, settings=settings)
    run.run(5)
    assert run.iterations == 5
    strategy = run.tree_strategy()
    sums = np.add.reduceat(strategy, tree.action_offsets[:-1])
    assert np.allclose(sums, 1.0) and (strategy >= 0.0).all()
    assert exploitability(tree, _uniform(tree)) == pytest.approx(0.6)
    assert exploitability(tree, strategy) < 0.55


def test_deep_cfr_without_the_extra_says_what_to_install(monkeypatch) -> None:
    """Without torch the method fails with one line naming the extra, not an import trace."""
    import builtins

    real = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("open_spiel.python.pytorch"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    config, _ = resolve_game("ladder-1-ambassador")
    tree = compile_complots_tree(config)
    with pytest.raises(RuntimeError, match=r"deepcfr extra"):
        method_curve("ladder-1-ambassador", config, DEEP_CFR, 1.0, 0.5, tree)


@needs_extra
@pytest.mark.slow
@pytest.mark.parametrize("method", [DEEP_CFR, ESCHER])
def test_network_cfr_curves_are_measured_exactly(method: str) -> None:
    """Through the strength comparison, each network-CFR method runs one chunk (two
    iterations) and its policy is measured on the history tree: a point with a real value."""
    config, _ = resolve_game("ladder-1-ambassador")
    tree = compile_complots_tree(config)
    points = method_curve("ladder-1-ambassador", config, method, 1.0, 0.001, tree)
    assert len(points) == 1 and points[0].iterations == 2 and points[0].method == method
    assert 0.0 < points[0].exploitability < 1.0
