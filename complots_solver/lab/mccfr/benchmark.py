"""MCCFR speed: our numba ES/OS-MCCFR versus OpenSpiel's C++ MCCFR solvers (``scripts/bench_mccfr.py``).

OpenSpiel's solvers run on the registered Python game ``complots`` (every node
calls back into Python). Every solver runs untimed for a fifth of the budget
first (steady-state speeds); then ours on one core, ours on two workers and
OpenSpiel take turns in 5 rounds of a fifth of the budget each, so that a
change in the machine's speed hits all three alike.

The speed-up is measured two ways:

- *Equal time* (columns "ratio" and "ratio 2w"): each solver runs for the
  same seconds. Ours then does several hundred times more iterations than
  OpenSpiel, so its table is that much larger and each of its iterations
  costs more (cache misses, table growth), while OpenSpiel's small table
  stays in cache: the two do different work. The ratios are those of the
  totals over the rounds; the lowest and highest round's ratios show the
  spread.
- *Equal work* (columns "ours =work it/s" and "ratio =work", one core): ours
  does the same iterations as OpenSpiel, from a fresh table. OpenSpiel did W
  untimed warm-up iterations and T timed ones (column "work W+T"); a fresh
  solver of ours runs W iterations untimed, then T timed. That is the usual
  definition of a speed-up: the ratio of the times taken by the same
  computation. Ours repeats this with seeds 1, 2, ... (OpenSpiel's seed is 1)
  until its timed total reaches a round's length and at least 3 repetitions,
  and its rate is the total timed iterations over the total timed seconds.
  The two libraries sample chance and actions with their own generators, so
  the work is equal in expectation, not game by game; and where OpenSpiel
  does only a few iterations (about 0.3 per second on the draft ES case, so
  3-4 timed iterations in a 10-s budget) its rate, and so this ratio, has a
  wide spread. These runs come after the rounds, not interleaved with them;
  the numba code is compiled and warm by then, so they start at full speed.

Columns: "ratio" (one core) and "ratio 2w" (two workers) at equal time,
"ratio =work" (one core) at equal work. The old goal "ours >= 1000x
OpenSpiel" is retired: on our Python-registered game it measured OpenSpiel's
Python adapter, not the solver; strength per core-hour is measured by
scripts/bench_strength.py.

OpenSpiel does not count node visits, so its node visits per second (column
"visits/s (est)", and the ceiling below) are estimated as its iterations per
second times our node visits per iteration at equal time (the same sampling
scheme: equal in expectation once both strategies are similar). At equal
work, our visits per iteration are measured on tables of the same age as
OpenSpiel's, so they are the better estimate of OpenSpiel's visits per
iteration; but a visits ratio at equal work built on that estimate (our
visits per second over OpenSpiel's iterations per second times our visits per
iteration) equals the "ratio =work" of iterations by construction, so it is
not printed.

Cases: external sampling on ladder-2 (influence 1, 3 turns) and on the full
draft deck with a 4-turn cap; outcome sampling on the full draft game (200
turns). External sampling is infeasible on the full draft game for both
solvers: it walks every action of the traverser at every one of its nodes,
so one iteration's cost grows about 4x per turn of the cap.

Columns: ours on one core and with two workers (``ParallelMCCFR``, split by
iterations for ES and "shared" for OS, wall-clock iterations per second),
OpenSpiel's C++ solver (one thread), the two equal-time ratios, and a
*ceiling*: the rate at which the rules core alone steps uniformly random
games (``rules.simulate``: legal actions, chance sampling and
``apply_action`` only, no key, no table) divided by OpenSpiel's node visits
per second. No MCCFR over this rules core can beat that ratio on one core,
whatever its own overhead. Then the equal-work columns: OpenSpiel's W+T,
our equal-work iterations per second, and their ratio to OpenSpiel's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.simulate import simulate
from complots_solver.solvers.mccfr.parallel.solver import ParallelMCCFR
from complots_solver.solvers.mccfr.solver import MCCFRSolver

SEED = 1
DEFAULT_SECONDS = 10.0
WARMUP_ITERATIONS = 10  # compiles the numba code and fills the table a little
# Each solver first runs untimed for this share of the budget: on the benchmark VM
# a process's first seconds of compiled work run at about 60% of the steady speed
# (measured: a second solver started after a warm one runs at full speed at once).
WARMUP_SHARE = 0.2
SHORT_DRAFT_TURNS = 4
EPOCHS = 20  # two-worker runs synchronise about this many times per budget
ROUNDS = 5  # the budget is measured in this many interleaved rounds per solver
PROBE_GAMES = 200  # random games that estimate the rules core's speed before timing it
EQUAL_WORK_REPEATS = 3  # equal work: at least this many fresh solvers of ours


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

    def __init__(
        self,
        step: Callable[[], int],
        visits: Callable[[], int] | None = None,
        warmup: int = 0,
    ) -> None:
        self.step = step
        self.visits = visits
        self.warmup = warmup  # untimed iterations run before the rounds (where counted)
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

    warmup = step()
    warmup += time_loop(step, seconds * WARMUP_SHARE)[0]
    return Timed(step, warmup=warmup)


def ours_equal_work(case: Case, key: str, warmup: int, iterations: int, seconds: float) -> Rate:
    """Fresh solvers of ours: ``warmup`` iterations untimed, then ``iterations`` timed, repeated.

    Seeds SEED, SEED + 1, ... until the timed total reaches ``seconds`` and at
    least EQUAL_WORK_REPEATS solvers have run; the totals over all of them.
    """
    done = visits = repeats = 0
    spent = 0.0
    while spent < seconds or repeats < EQUAL_WORK_REPEATS:
        solver = MCCFRSolver(case.config, algorithm=case.algorithm, key=key, seed=SEED + repeats)
        solver.run(warmup)
        visits0 = solver.node_visits
        start = time.perf_counter()
        solver.run(iterations)
        spent += time.perf_counter() - start
        visits += solver.node_visits - visits0
        done += iterations
        repeats += 1
    return Rate(done, spent, visits)


def bench_core(case: Case, seconds: float) -> float:
    """Steps per second of the rules core alone playing uniformly random games."""
    probe = simulate(case.config, PROBE_GAMES, SEED)  # also compiles
    games = max(PROBE_GAMES, int(probe.games_per_second * seconds))
    return simulate(case.config, games, SEED).moves_per_second


def bench_cases(chosen: list[Case], seconds: float = DEFAULT_SECONDS, key: str = "perfect") -> None:
    """Run every case in ``chosen`` and print one table row each (see the module docstring)."""
    print(f"our key: {key}; OpenSpiel: perfect recall (information_state_string)")
    print(f"{ROUNDS} interleaved rounds of {seconds / ROUNDS:g} s per solver; ratios of the")
    print("totals, with the lowest and highest round's ratio in brackets")
    header = (
        f"{'case':36s} {'ours it/s':>10s} {'visits/s':>10s} {'2 workers it/s':>15s} "
        f"{'OpenSpiel it/s':>15s} {'visits/s (est)':>15s} {'ratio':>16s} {'ratio 2w':>16s} "
        f"{'core steps/s':>13s} {'ceiling':>8s} {'work W+T':>9s} {'ours =work it/s':>16s} "
        f"{'ratio =work':>12s}"
    )
    print(header)
    round_seconds = seconds / ROUNDS
    for case in chosen:
        ours = ours_one_core(case, seconds, key)
        sync = max(1, int(ours.measure(round_seconds) * seconds / EPOCHS))
        ours.reset()  # that round only sized the two workers' epochs
        pair = ours_two_workers(case, seconds, key, sync)
        try:
            two = Timed(pair.step)
            theirs = openspiel_solver(case, seconds)
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
        work = ours_equal_work(case, key, theirs.warmup, theirs.iterations, round_seconds)
        ratio_work = work.iterations_per_second / other.iterations_per_second
        work_done = f"{theirs.warmup}+{theirs.iterations}"
        core_rate = bench_core(case, seconds / 2)
        ratio = mine.iterations_per_second / other.iterations_per_second
        ratio2 = both.iterations_per_second / other.iterations_per_second
        ceiling = core_rate / other.visits_per_second
        spread = f"[{min(ratios):.0f}-{max(ratios):.0f}]"
        spread2 = f"[{min(ratios2):.0f}-{max(ratios2):.0f}]"
        print(
            f"{case.label:36s} {mine.iterations_per_second:10.1f} {mine.visits_per_second:10.0f} "
            f"{both.iterations_per_second:15.1f} {other.iterations_per_second:15.2f} "
            f"{other.visits_per_second:15.0f} {ratio:5.0f}x {spread:>10s} "
            f"{ratio2:5.0f}x {spread2:>10s} {core_rate:13.0f} {ceiling:7.0f}x "
            f"{work_done:>9s} {work.iterations_per_second:16.1f} {ratio_work:11.0f}x",
            flush=True,
        )
