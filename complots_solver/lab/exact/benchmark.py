"""CFR speed: our numba tree solvers versus OpenSpiel's C++ and Python CFR (``scripts/bench_solvers.py``).

By default it runs OpenSpiel's C++ Leduc and our registered ``complots`` game
on the smallest exact-ladder rung (``ladder-1-ambassador``); Complots trees are
compiled with our numba walker over the rules core (identical arrays to the
pyspiel walk, see tests/solvers/test_complots_tree.py), OpenSpiel's solvers
step the registered Python game.

Node visits per iteration are counted the same way for every solver: the number
of tree nodes times the traversals per iteration (2 with alternating updates,
which all solvers here use except ``ours cfr (simultaneous)``).  OpenSpiel skips
subtrees where both players' reach is 0, so its real visit count can be lower;
the nominal count keeps the ratio a like-for-like time comparison.
Goals (issue 3): >= 300x OpenSpiel's C++ CFR on the registered complots game,
>= 10x on its own C++ Leduc, <= 20 ns per node visit for our CFR.

Time to reach the target exploitability: iterations needed (checked every
``CHECK_EVERY`` iterations with the exact exploitability) times the measured
seconds per iteration, for our CFR+ and OpenSpiel's C++ CFRPlusSolver.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pyspiel
from open_spiel.python.algorithms import cfr as python_cfr

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.tree import NUM_PLAYERS, Tree, compile_openspiel_tree

COMPLOTS_BENCH = resolve_game("ladder-1-ambassador")[0].game_string()
DEFAULT_GAMES = ("leduc_poker", COMPLOTS_BENCH)
DEFAULT_TARGET = 1e-3
CHECK_EVERY = 10
MAX_TARGET_ITERATIONS = 5000
DEFAULT_SECONDS = 2.0
DEFAULT_TARGET_BUDGET = 600.0
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


def iterations_to_target_ours(tree: Tree, target: float) -> int | None:
    """CFR+ iterations until our exact exploitability is <= target."""
    solver = TreeSolver(tree, "cfr+")
    while solver.iteration < MAX_TARGET_ITERATIONS:
        solver.run(CHECK_EVERY)
        if exploitability(tree, solver.average_strategy()) <= target:
            return solver.iteration
    return None


def iterations_to_target_openspiel(
    game: pyspiel.Game, target: float, budget_s: float
) -> int | None:
    """C++ CFRPlusSolver iterations until pyspiel.exploitability <= target (within budget)."""
    solver = pyspiel.CFRPlusSolver(game)
    start = time.perf_counter()
    iteration = 0
    while iteration < MAX_TARGET_ITERATIONS and time.perf_counter() - start < budget_s:
        for _ in range(CHECK_EVERY):
            solver.evaluate_and_update_policy()
        iteration += CHECK_EVERY
        if pyspiel.exploitability(game, solver.average_policy()) <= target:
            return iteration
    return None


def compile_tree(game_string: str) -> Tree:
    """Our numba compiler for complots, the generic pyspiel walk for other games."""
    if game_string.startswith("complots("):
        return compile_complots_tree(resolve_game(game_string)[0])
    return compile_openspiel_tree(pyspiel.load_game(game_string))


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


def bench_game(
    game_string: str,
    seconds: float = DEFAULT_SECONDS,
    target: float = DEFAULT_TARGET,
    target_budget: float = DEFAULT_TARGET_BUDGET,
) -> None:
    """Time every solver on one game and print the table, then the time to the target."""
    game = pyspiel.load_game(game_string)
    start = time.perf_counter()
    tree = compile_tree(game_string)
    print(f"\n{game_string}: compiled in {time.perf_counter() - start:.2f} s")
    results = [
        bench_ours(tree, "cfr", True, seconds),
        bench_ours(tree, "cfr", False, seconds),
        bench_ours(tree, "cfr+", True, seconds),
        bench_ours(tree, "dcfr", True, seconds),
        bench_openspiel(REFERENCE_ROW, pyspiel.CFRSolver(game), tree, seconds),
        bench_openspiel("openspiel C++ CFRPlusSolver", pyspiel.CFRPlusSolver(game), tree, seconds),
        bench_openspiel("openspiel Python CFRSolver", python_cfr.CFRSolver(game), tree, seconds),
    ]
    print_table(tree, results)
    ours_plus = next(r for r in results if r.name == "ours cfr+").seconds_per_iteration
    theirs_plus = next(
        r for r in results if r.name == "openspiel C++ CFRPlusSolver"
    ).seconds_per_iteration
    ours_n = iterations_to_target_ours(tree, target)
    theirs_n = iterations_to_target_openspiel(game, target, target_budget)
    print(f"time to exploitability <= {target:g} (CFR+, checked every {CHECK_EVERY}):")
    ours_t = ours_n * ours_plus if ours_n else None
    theirs_t = theirs_n * theirs_plus if theirs_n else None
    fmt = lambda n, s: f"{n} iterations, {s:.3f} s" if n else "not reached"  # noqa: E731
    print(f"  ours                   : {fmt(ours_n, ours_t)}")
    print(f"  openspiel C++ CFR+     : {fmt(theirs_n, theirs_t)}")
    if ours_t and theirs_t:
        print(f"  ratio                  : {theirs_t / ours_t:.0f}x")
