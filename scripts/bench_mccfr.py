"""MCCFR speed: our numba ES/OS-MCCFR versus OpenSpiel's C++ MCCFR solvers, same process.

Usage: python scripts/bench_mccfr.py [--seconds 10] [--key perfect|markov|compact] [--case TEXT]

OpenSpiel's solvers run on the registered Python game ``complots`` (every node
calls back into Python). OpenSpiel does not count node visits, so its node
visits per second are estimated as its iterations per second times our node
visits per iteration (the same sampling scheme: equal in expectation once
both strategies are similar). Goal (issue 4): ours >= 1000x OpenSpiel.

Cases: external sampling on ladder-2 (influence 1, 3 turns) and on the full
draft deck with a 4-turn cap; outcome sampling on the full draft game (200
turns). External sampling is infeasible on the full draft game for both
solvers: it walks every action of the traverser at every one of its nodes,
so one iteration's cost grows about 4x per turn of the cap.

Columns: ours on one core and with two workers (``ParallelMCCFR``, wall-clock
iterations per second), OpenSpiel's C++ solver (one thread), the two ratios,
and a *ceiling*: the rate at which the rules core alone steps uniformly random
games (``rules.simulate``: legal actions, chance sampling and
``apply_action`` only, no key, no table) divided by OpenSpiel's node visits
per second. No MCCFR over this rules core can beat that ratio on one core,
whatever its own overhead.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.simulate import simulate
from complots_solver.solvers.infokeys import KEYS
from complots_solver.solvers.mccfr import MCCFRSolver
from complots_solver.solvers.mccfr_parallel import ParallelMCCFR

SEED = 1
WARMUP_ITERATIONS = 10  # compiles the numba code and fills the table a little
SHORT_DRAFT_TURNS = 4
EPOCHS = 20  # two-worker runs synchronise about this many times per budget
PROBE_GAMES = 200  # random games that estimate the rules core's speed before timing it


@dataclass(frozen=True)
class Case:
    """One benchmark line: a game and an algorithm."""

    label: str
    config: GameConfig
    algorithm: str  # "es" or "os"


@dataclass(frozen=True)
class Rate:
    """Measured speed of one solver on one case."""

    iterations: int
    seconds: float
    node_visits: int

    @property
    def iterations_per_second(self) -> float:
        """Iterations per second."""
        return self.iterations / self.seconds

    @property
    def visits_per_second(self) -> float:
        """Node visits per second."""
        return self.node_visits / self.seconds


def cases() -> list[Case]:
    """The benchmark cases."""
    ladder2, _ = resolve_game("ladder-2-ambassador")
    draft, _ = resolve_game("draft-ambassador")
    return [
        Case("ladder-2-ambassador ES", ladder2, "es"),
        Case(
            f"draft-ambassador max_turns={SHORT_DRAFT_TURNS} ES",
            draft.replace(max_turns=SHORT_DRAFT_TURNS),
            "es",
        ),
        Case("draft-ambassador (full) OS", draft, "os"),
        Case("ladder-2-ambassador OS", ladder2, "os"),
    ]


def time_loop(step: Callable[[], int], seconds: float) -> tuple[int, float]:
    """Call ``step`` (returning iterations done) until ``seconds`` pass."""
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += step()
    return done, time.perf_counter() - start


def bench_ours(case: Case, seconds: float, key: str) -> Rate:
    """Our solver's speed on one core after a warm-up."""
    solver = MCCFRSolver(case.config, algorithm=case.algorithm, key=key, seed=SEED)
    solver.run(WARMUP_ITERATIONS)
    chunk = 1
    # grow the chunk so that one call takes about a tenth of the budget
    while True:
        start = time.perf_counter()
        solver.run(chunk)
        if time.perf_counter() - start > seconds / 10 or chunk >= 1 << 20:
            break
        chunk *= 2

    def step() -> int:
        solver.run(chunk)
        return chunk

    visits0 = solver.node_visits
    done, spent = time_loop(step, seconds)
    return Rate(done, spent, solver.node_visits - visits0)


def bench_two_workers(case: Case, seconds: float, key: str, one_core: Rate) -> float:
    """Wall-clock iterations per second of two workers (threads) after a warm-up epoch."""
    sync = max(1, int(one_core.iterations_per_second * seconds / EPOCHS))
    solver = ParallelMCCFR(
        case.config, workers=2, sync_iterations=sync, algorithm=case.algorithm, key=key, seed=SEED
    )
    try:
        solver.step()
        done, spent = time_loop(solver.step, seconds)
    finally:
        solver.close()
    return done / spent


def bench_core(case: Case, seconds: float) -> float:
    """Steps per second of the rules core alone playing uniformly random games."""
    probe = simulate(case.config, PROBE_GAMES, SEED)  # also compiles
    games = max(PROBE_GAMES, int(probe.games_per_second * seconds))
    return simulate(case.config, games, SEED).moves_per_second


def bench_openspiel(case: Case, seconds: float, visits_per_iteration: float) -> Rate:
    """OpenSpiel's C++ solver on the registered game; visits estimated (see the docstring)."""
    game = pyspiel.load_game(case.config.game_string())
    if case.algorithm == "es":
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=SEED)
    else:
        solver = pyspiel.OutcomeSamplingMCCFRSolver(game, seed=SEED)
    solver.run_iteration()

    def step() -> int:
        solver.run_iteration()
        return 1

    done, spent = time_loop(step, seconds)
    return Rate(done, spent, int(done * visits_per_iteration))


def main() -> None:
    """Run every case and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget per solver")
    parser.add_argument("--key", default="perfect", choices=list(KEYS), help="our information key")
    parser.add_argument(
        "--case",
        action="append",
        help="run only the cases whose label contains this text (repeatable)",
    )
    args = parser.parse_args()
    chosen = [c for c in cases() if not args.case or any(x in c.label for x in args.case)]
    if not chosen:
        parser.error(f"--case matches no case; cases: {[c.label for c in cases()]}")
    print(f"our key: {args.key}; OpenSpiel: perfect recall (information_state_string)")
    header = (
        f"{'case':36s} {'ours it/s':>10s} {'visits/s':>10s} {'2 workers it/s':>15s} "
        f"{'OpenSpiel it/s':>15s} {'visits/s (est)':>15s} {'ratio':>7s} {'ratio 2w':>9s} "
        f"{'core steps/s':>13s} {'ceiling':>8s}"
    )
    print(header)
    for case in chosen:
        ours = bench_ours(case, args.seconds, args.key)
        two = bench_two_workers(case, args.seconds, args.key, ours)
        per_iteration = ours.node_visits / ours.iterations
        theirs = bench_openspiel(case, args.seconds, per_iteration)
        core_rate = bench_core(case, args.seconds / 2)
        ratio = ours.iterations_per_second / theirs.iterations_per_second
        ratio2 = two / theirs.iterations_per_second
        ceiling = core_rate / theirs.visits_per_second
        print(
            f"{case.label:36s} {ours.iterations_per_second:10.1f} {ours.visits_per_second:10.0f} "
            f"{two:15.1f} {theirs.iterations_per_second:15.2f} {theirs.visits_per_second:15.0f} "
            f"{ratio:6.0f}x {ratio2:8.0f}x {core_rate:13.0f} {ceiling:7.0f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
