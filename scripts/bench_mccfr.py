"""MCCFR speed: our numba ES/OS-MCCFR versus OpenSpiel's C++ MCCFR solvers, same process.

Usage: python scripts/bench_mccfr.py [--seconds 10] [--key perfect|markov|compact] [--case TEXT]

OpenSpiel's solvers run on the registered Python game ``complots`` (every node
calls back into Python). OpenSpiel does not count node visits, so its node
visits per second are estimated as its iterations per second times our node
visits per iteration (the same sampling scheme: equal in expectation once
both strategies are similar). Every solver runs untimed for a fifth of the
budget first (steady-state speeds); then ours on one core, ours on two workers
and OpenSpiel take turns in 5 rounds of a fifth of the budget each, so that a
change in the machine's speed hits all three alike. The ratios are those of
the totals; the lowest and highest round's ratios show the spread.
Goal (issue 4): ours >= 1000x OpenSpiel.

Cases: external sampling on ladder-2 (influence 1, 3 turns) and on the full
draft deck with a 4-turn cap; outcome sampling on the full draft game (200
turns). External sampling is infeasible on the full draft game for both
solvers: it walks every action of the traverser at every one of its nodes,
so one iteration's cost grows about 4x per turn of the cap.

Columns: ours on one core and with two workers (``ParallelMCCFR``, split by
iterations for ES and "shared" for OS, wall-clock iterations per second),
OpenSpiel's C++ solver (one thread), the two ratios, and a *ceiling*: the
rate at which the rules core alone steps uniformly random games (``rules.simulate``: legal actions, chance sampling and
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
# Each solver first runs untimed for this share of the budget: on the benchmark VM
# a process's first seconds of compiled work run at about 60% of the steady speed
# (measured: a second solver started after a warm one runs at full speed at once).
WARMUP_SHARE = 0.2
SHORT_DRAFT_TURNS = 4
EPOCHS = 20  # two-worker runs synchronise about this many times per budget
ROUNDS = 5  # the budget is measured in this many interleaved rounds per solver
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


class Timed:
    """A solver under test: ``step()`` runs a batch and returns its iterations."""

    def __init__(self, step: Callable[[], int], visits: Callable[[], int] | None = None) -> None:
        self.step = step
        self.visits = visits
        self.iterations = 0
        self.seconds = 0.0
        self.node_visits = 0

    def measure(self, seconds: float) -> float:
        """Run for ``seconds``, add to the totals; return this round's iterations per second."""
        visits0 = self.visits() if self.visits else 0
        done, spent = time_loop(self.step, seconds)
        self.iterations += done
        self.seconds += spent
        if self.visits:
            self.node_visits += self.visits() - visits0
        return done / spent

    def reset(self) -> None:
        """Forget the rounds measured so far."""
        self.iterations = self.node_visits = 0
        self.seconds = 0.0

    @property
    def rate(self) -> Rate:
        """Totals over every round."""
        return Rate(self.iterations, self.seconds, self.node_visits)


def ours_one_core(case: Case, seconds: float, key: str) -> Timed:
    """Our solver on one core, warmed up, with a batch of about a tenth of a round."""
    solver = MCCFRSolver(case.config, algorithm=case.algorithm, key=key, seed=SEED)

    def warm() -> int:
        solver.run(WARMUP_ITERATIONS)
        return WARMUP_ITERATIONS

    warm()  # compiles
    time_loop(warm, seconds * WARMUP_SHARE)
    chunk = 1
    while True:
        start = time.perf_counter()
        solver.run(chunk)
        if time.perf_counter() - start > seconds / ROUNDS / 10 or chunk >= 1 << 20:
            break
        chunk *= 2

    def step() -> int:
        solver.run(chunk)
        return chunk

    return Timed(step, lambda: solver.node_visits)


def ours_two_workers(case: Case, seconds: float, key: str, sync: int) -> ParallelMCCFR:
    """Two workers (threads), warmed up; the caller closes it.

    External sampling splits by iterations (a seat's ES traversal can cost
    twice another's, so splitting by seats leaves one worker waiting);
    outcome sampling by seats with a shared table (split "shared": its
    traversals cost alike, each worker inserts only its seats' rows, and
    nothing is exchanged between epochs).
    """
    split = "iterations" if case.algorithm == "es" else "shared"
    solver = ParallelMCCFR(
        case.config,
        workers=2,
        sync_iterations=max(1, sync // 2) if split == "iterations" else sync,
        split=split,
        algorithm=case.algorithm,
        key=key,
        seed=SEED,
    )
    solver.step()
    time_loop(solver.step, seconds * WARMUP_SHARE)
    return solver


def openspiel_solver(case: Case, seconds: float) -> Timed:
    """OpenSpiel's C++ solver on the registered game, warmed up (visits are estimated)."""
    game = pyspiel.load_game(case.config.game_string())
    if case.algorithm == "es":
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=SEED)
    else:
        solver = pyspiel.OutcomeSamplingMCCFRSolver(game, seed=SEED)

    def step() -> int:
        solver.run_iteration()
        return 1

    step()
    time_loop(step, seconds * WARMUP_SHARE)
    return Timed(step)


def bench_core(case: Case, seconds: float) -> float:
    """Steps per second of the rules core alone playing uniformly random games."""
    probe = simulate(case.config, PROBE_GAMES, SEED)  # also compiles
    games = max(PROBE_GAMES, int(probe.games_per_second * seconds))
    return simulate(case.config, games, SEED).moves_per_second


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
    print(f"{ROUNDS} interleaved rounds of {args.seconds / ROUNDS:g} s per solver; ratios of the")
    print("totals, with the lowest and highest round's ratio in brackets")
    header = (
        f"{'case':36s} {'ours it/s':>10s} {'visits/s':>10s} {'2 workers it/s':>15s} "
        f"{'OpenSpiel it/s':>15s} {'visits/s (est)':>15s} {'ratio':>16s} {'ratio 2w':>16s} "
        f"{'core steps/s':>13s} {'ceiling':>8s}"
    )
    print(header)
    round_seconds = args.seconds / ROUNDS
    for case in chosen:
        ours = ours_one_core(case, args.seconds, args.key)
        sync = max(1, int(ours.measure(round_seconds) * args.seconds / EPOCHS))
        ours.reset()  # that round only sized the two workers' epochs
        pair = ours_two_workers(case, args.seconds, args.key, sync)
        try:
            two = Timed(pair.step)
            theirs = openspiel_solver(case, args.seconds)
            ratios, ratios2 = [], []
            for _ in range(ROUNDS):  # interleaved, so that all three see the same machine
                mine = ours.measure(round_seconds)
                both = two.measure(round_seconds)
                other = theirs.measure(round_seconds)
                ratios.append(mine / other)
                ratios2.append(both / other)
        finally:
            pair.close()
        theirs.node_visits = int(theirs.iterations * ours.node_visits / ours.iterations)
        mine, both, other = ours.rate, two.rate, theirs.rate
        core_rate = bench_core(case, args.seconds / 2)
        ratio = mine.iterations_per_second / other.iterations_per_second
        ratio2 = both.iterations_per_second / other.iterations_per_second
        ceiling = core_rate / other.visits_per_second
        spread = f"[{min(ratios):.0f}-{max(ratios):.0f}]"
        spread2 = f"[{min(ratios2):.0f}-{max(ratios2):.0f}]"
        print(
            f"{case.label:36s} {mine.iterations_per_second:10.1f} {mine.visits_per_second:10.0f} "
            f"{both.iterations_per_second:15.1f} {other.iterations_per_second:15.2f} "
            f"{other.visits_per_second:15.0f} {ratio:5.0f}x {spread:>10s} "
            f"{ratio2:5.0f}x {spread2:>10s} {core_rate:13.0f} {ceiling:7.0f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
