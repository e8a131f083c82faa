"""The benchmark logic behind scripts/bench_solvers.py and scripts/bench_mccfr.py."""

from __future__ import annotations

import pytest

from complots_solver.lab.exact import benchmark as exact_bench
from complots_solver.lab.mccfr import benchmark as mccfr_bench
from complots_solver.rules.config import GameConfig

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

TINY = {"players": 2, "influence": 1, "max_turns": 2}


def test_result_rates_follow_from_time_and_visits() -> None:
    """Seconds per iteration and nanoseconds per nominal visit, from the totals."""
    r = exact_bench.Result("x", iterations=50, seconds=2.0, visits_per_iteration=1000)
    assert r.seconds_per_iteration == pytest.approx(0.04)
    assert r.ns_per_visit == pytest.approx(0.04 / 1000 * 1e9)


@pytest.mark.slow
def test_bench_game_prints_every_solver_against_the_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On Kuhn poker: one row per solver, the C++ CFR row at 1.0x, the time to the target."""
    exact_bench.bench_game("kuhn_poker", seconds=0.05, target=0.05, target_budget=10.0)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("ours", "openspiel"))]
    assert [r[:32].strip() for r in rows[:7]] == [
        "ours cfr", "ours cfr (simultaneous)", "ours cfr+", "ours dcfr",
        exact_bench.REFERENCE_ROW, "openspiel C++ CFRPlusSolver", "openspiel Python CFRSolver",
    ]  # fmt: skip
    assert rows[4].endswith(" 1.0x")
    assert "time to exploitability <= 0.05" in out
    assert "ours                   : " in out and "not reached" not in out.split("ours")[-1]


def test_timed_solvers_total_their_rounds() -> None:
    """Timed adds each round's iterations and seconds; reset forgets them."""
    calls = []

    def step() -> int:
        calls.append(1)
        return 3

    timed = mccfr_bench.Timed(step, visits=lambda: 7 * len(calls))
    rate = timed.measure(0.01)
    assert timed.iterations == 3 * len(calls) and rate > 0
    assert timed.rate.node_visits == 7 * len(calls)
    assert timed.rate.iterations_per_second == pytest.approx(timed.iterations / timed.seconds)
    timed.reset()
    assert (timed.iterations, timed.seconds, timed.node_visits) == (0, 0.0, 0)


def test_the_mccfr_cases_name_their_game_and_algorithm() -> None:
    """Four cases: ES on ladder-2 and the short draft game, OS on the full draft and ladder-2."""
    cases = mccfr_bench.cases()
    assert [c.algorithm for c in cases] == ["es", "es", "os", "os"]
    assert cases[1].config.max_turns == mccfr_bench.SHORT_DRAFT_TURNS
    assert all(c.label.endswith(c.algorithm.upper()) for c in cases)


@pytest.mark.slow
def test_bench_cases_prints_one_row_per_case(capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny ES case runs through every measurement and prints its row."""
    case = mccfr_bench.Case("tiny ES", GameConfig.from_params(TINY), "es")
    mccfr_bench.bench_cases([case], seconds=0.5)
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row.startswith("tiny ES") and row.count("x") >= 3


def test_pages_times_both_page_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    """One line per page size and round, each with nanoseconds per random access."""
    from complots_solver.lab.mccfr.visit_costs import pages

    pages(4, rounds=1, accesses=10_000)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("4 MiB, 4 KiB pages") and lines[1].startswith("4 MiB, huge pages")
    assert all(line.endswith("ns per random access") for line in lines)


@pytest.mark.slow
def test_walk_levels_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    """Each level's line gives its time and the difference from the level before."""
    from complots_solver.lab.mccfr.visit_costs import LEVELS, walk

    walk("ladder-1-ambassador", seconds=0.05, rounds=1)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("ladder-1-ambassador: best of 1 rounds")
    assert [line.split()[0] for line in lines[1:]] == [str(i) for i in range(len(LEVELS))]
