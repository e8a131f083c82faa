"""CFR speed: our numba tree solvers versus OpenSpiel's C++ and Python CFR, same process.

Usage: python scripts/bench_solvers.py [--game leduc_poker] [--seconds 2]

Node visits per iteration are counted the same way for every solver: the number
of tree nodes times the traversals per iteration (2 with alternating updates,
which all solvers here use except ``ours cfr (simultaneous)``).  OpenSpiel skips
subtrees where both players' reach is 0, so its real visit count can be lower;
the nominal count keeps the ratio a like-for-like time comparison.
Goal: <= 20 ns per node visit for our CFR.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import pyspiel
from open_spiel.python.algorithms import cfr as python_cfr

from complots_solver.solvers.cfr import TreeSolver
from complots_solver.solvers.tree import NUM_PLAYERS, Tree, compile_openspiel_tree

DEFAULT_GAMES = ("leduc_poker",)
DEFAULT_SECONDS = 2.0
WARMUP_ITERATIONS = 2
NS_PER_S = 1e9
MS_PER_S = 1e3
BATCH_SECONDS = 0.01
MIN_PROBE_SECONDS = 1e-7
REFERENCE_ROW = "openspiel C++ CFRSolver"


@dataclass(frozen=True)
class Result:
    """Timing of one solver on one game."""

    name: str
    iterations: int
    seconds: float
    visits_per_iteration: int

    @property
    def seconds_per_iteration(self) -> float:
        """Wall time per iteration."""
        return self.seconds / self.iterations

    @property
    def ns_per_visit(self) -> float:
        """Nanoseconds per (nominal) node visit."""
        return self.seconds_per_iteration / self.visits_per_iteration * NS_PER_S


def time_steps(step: Callable[[int], None], seconds: float, batch: int) -> tuple[int, float]:
    """Call ``step(batch)`` until ``seconds`` have elapsed; return (iterations, elapsed)."""
    step(WARMUP_ITERATIONS)  # JIT compilation / caches outside the clock
    iterations = 0
    start = time.perf_counter()
    while True:
        step(batch)
        iterations += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return iterations, elapsed


def bench_ours(tree: Tree, algorithm: str, alternating: bool, seconds: float) -> Result:
    """Time our numba solver; iterations run in batches inside njit code."""
    solver = TreeSolver(tree, algorithm, alternating=alternating)
    solver.run(WARMUP_ITERATIONS)  # JIT compilation outside the probe
    probe = time.perf_counter()
    solver.run(WARMUP_ITERATIONS)
    per_iteration = max((time.perf_counter() - probe) / WARMUP_ITERATIONS, MIN_PROBE_SECONDS)
    # Batches of ~BATCH_SECONDS keep Python overhead negligible.
    batch = max(1, int(BATCH_SECONDS / per_iteration))
    iterations, elapsed = time_steps(solver.run, seconds, batch)
    label = f"ours {algorithm}" + ("" if alternating else " (simultaneous)")
    return Result(label, iterations, elapsed, solver.node_visits_per_iteration)


def bench_openspiel(name: str, solver: object, tree: Tree, seconds: float) -> Result:
    """Time an OpenSpiel solver exposing ``evaluate_and_update_policy``."""

    def step(count: int) -> None:
        for _ in range(count):
            solver.evaluate_and_update_policy()

    iterations, elapsed = time_steps(step, seconds, batch=1)
    return Result(name, iterations, elapsed, tree.num_nodes * NUM_PLAYERS)


def print_table(tree: Tree, results: list[Result]) -> None:
    """Print one table of results with ratios against OpenSpiel's C++ CFR."""
    reference = next(r for r in results if r.name == REFERENCE_ROW).seconds_per_iteration
    print(f"\n{tree.summary()}")
    header = (
        f"{'solver':<32} {'iters':>7} {'ms/iter':>10} {'visits/iter':>12} "
        f"{'Mvisits/s':>10} {'ns/visit':>9} {'speedup vs C++ CFR':>19}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.name:<32} {r.iterations:>7} {r.seconds_per_iteration * MS_PER_S:>10.3f} "
            f"{r.visits_per_iteration:>12,} {1e3 / r.ns_per_visit:>10.1f} "
            f"{r.ns_per_visit:>9.2f} {reference / r.seconds_per_iteration:>18.1f}x"
        )


def main() -> None:
    """Run the benchmark for each requested game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="pyspiel game string (repeatable)")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="time per solver")
    args = parser.parse_args()
    for game_string in args.game or DEFAULT_GAMES:
        game = pyspiel.load_game(game_string)
        start = time.perf_counter()
        tree = compile_openspiel_tree(game)
        print(f"\n{game_string}: compiled in {time.perf_counter() - start:.2f} s")
        results = [
            bench_ours(tree, "cfr", True, args.seconds),
            bench_ours(tree, "cfr", False, args.seconds),
            bench_ours(tree, "cfr+", True, args.seconds),
            bench_ours(tree, "dcfr", True, args.seconds),
            bench_openspiel(REFERENCE_ROW, pyspiel.CFRSolver(game), tree, args.seconds),
            bench_openspiel(
                "openspiel C++ CFRPlusSolver", pyspiel.CFRPlusSolver(game), tree, args.seconds
            ),
            bench_openspiel(
                "openspiel Python CFRSolver", python_cfr.CFRSolver(game), tree, args.seconds
            ),
        ]
        print_table(tree, results)


if __name__ == "__main__":
    main()
