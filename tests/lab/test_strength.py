"""Strength per core-hour: curves on a small rung and the time-to-target ratios."""

from __future__ import annotations

import math

import pytest

from complots_solver.lab.compare.strength import (
    CurvePoint,
    method_curve,
    ratio_rows,
    read_points,
    time_to,
    write_points,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def _p(method: str, total: float, value: float) -> CurvePoint:
    return CurvePoint("g", method, 1, 0.0, total, value)


def test_ratios_against_os_mccfr() -> None:
    points = [
        _p("os-mccfr", 10.0, 0.1),
        _p("os-mccfr", 20.0, 0.01),
        _p("belief", 1.0, 0.05),
        _p("belief", 2.0, 0.005),
        _p("belief", 4.0, 0.0008),
    ]
    rows = {(r["method"], r["target"]): r for r in ratio_rows(points, [0.01, 0.001, 1e-4])}
    assert rows[("belief", 0.01)]["speedup_vs_os_mccfr"] == "10.0x"
    assert rows[("os-mccfr", 0.01)]["speedup_vs_os_mccfr"] == "1.0x"
    # OS-MCCFR never reached 1e-3 in its 20 s: the speed-up is at least 20 / 4
    assert rows[("belief", 0.001)]["speedup_vs_os_mccfr"] == ">=5.0x"
    assert rows[("belief", 1e-4)]["speedup_vs_os_mccfr"] == "n/a"
    assert math.isinf(time_to(points[:2], 0.001))


def test_points_round_trip(tmp_path) -> None:
    points = [_p("cfr+", 1.5, 0.25), CurvePoint("h", "belief", 8, 0.5, 2.0, 1e-3)]
    write_points(points, tmp_path / "p.csv")
    assert read_points(tmp_path / "p.csv") == points


def test_cfr_plus_curve_matches_an_independent_solve() -> None:
    """Chunks double; each point's exploitability is that of a fresh solve of as many iterations."""
    config, _ = resolve_game("ladder-1-ambassador")
    ctree = compile_complots_tree(config)
    points = method_curve("ladder-1-ambassador", config, "cfr+", 60.0, 1e-3, ctree)
    assert [p.iterations for p in points] == [4 * 2**k for k in range(len(points))]
    assert points[-1].exploitability <= 1e-3
    solver = TreeSolver(ctree, "cfr+")
    solver.run(points[1].iterations)
    assert exploitability(ctree, solver.average_strategy()) == pytest.approx(
        points[1].exploitability, abs=1e-12
    )


def test_bad_method_and_target_refused() -> None:
    config, _ = resolve_game("ladder-1-ambassador")
    ctree = compile_complots_tree(config)
    with pytest.raises(ValueError, match="method"):
        method_curve("x", config, "nope", 1.0, 0.01, ctree)
    with pytest.raises(ValueError, match="target"):
        method_curve("x", config, "cfr+", 1.0, 2.0, ctree)


def test_selfplay_curve_measures_the_trainers_network_exactly() -> None:
    """The selfplay point after 4 iterations is the exact exploitability of a trainer run apart
    with the same seed (league self-play without bots), and is that of a poor strategy."""
    from complots_solver.solvers.selfplay.exact import table_exploitability
    from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer

    config, _ = resolve_game("ladder-1-ambassador")
    ctree = compile_complots_tree(config)
    points = method_curve("ladder-1-ambassador", config, "selfplay", 1e-6, 1e-3, ctree, seed=2)
    assert len(points) == 1 and points[0].iterations == 4
    trainer = SelfPlayTrainer(config, SelfPlaySettings(bot_share=0.0), seed=2)
    trainer.step(4)
    want = table_exploitability(config, trainer.net, ctree)["exploitability"]
    assert points[0].exploitability == pytest.approx(want, abs=1e-9)
    assert 0.0 < want < 1.0


def test_the_regret_curve_measures_its_average_network() -> None:
    """A regret point is the exact exploitability of the average network the same run makes."""
    from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings
    from complots_solver.solvers.selfplay.exact import table_exploitability

    config, _ = resolve_game("ladder-1-ambassador")
    ctree = compile_complots_tree(config)
    points = method_curve("ladder-1-ambassador", config, "regret", 1e-6, 1e-3, ctree, seed=3)
    assert len(points) == 1 and points[0].iterations == 2
    run = RegretSampler(config, RegretSettings(games=2000), seed=3)
    run.step(2)
    want = table_exploitability(config, run.policy(), ctree)["exploitability"]
    assert points[0].exploitability == pytest.approx(want, abs=1e-9)
    assert 0.0 < want < 1.0
