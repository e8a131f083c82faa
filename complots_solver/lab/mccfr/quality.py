"""MCCFR quality and speed measurements behind reports/mccfr-runs.md (``scripts/mccfr_quality.py``).

Each public function is one subcommand of the script and prints its table.

``openspiel``: exact exploitability (compiled tree + exact best response)
against solver wall time for our ES-MCCFR and OpenSpiel's C++
``ExternalSamplingMCCFRSolver`` on the registered game, both single-threaded
in this process, each evaluated at the same cumulative time budgets
(evaluation time excluded). OpenSpiel's average policy is read with
``action_probabilities`` at a representative state of each infoset of the
compiled tree (OpenSpiel plays uniformly where it has no entry).

``markov``: exact exploitability of ES-MCCFR with the ``perfect`` and the
``markov`` key after the same wall time, on ladder-1..3, both line-ups, with
the number of information states each key produced.

``speedup``: iterations per second of one core (``MCCFRSolver``) and of two
workers (``ParallelMCCFR``, threads) on GAME, in interleaved rounds (each
round runs both for the same iterations, so a change in the VM's speed hits
both alike), with the ratio of the totals and the rounds' range; the two
workers' *balance* (``ParallelMCCFR.balance``: each worker's time in the
walk over the slowest worker's, per epoch; below 1 the faster one waits) and
the walk's share of the two workers' wall time (the rest is exchanging
packets). ``--capacity`` pre-sizes both tables: a run's table doublings copy
it, and while the table is young they weigh far more than in a long run.

``parallel-sampled``: on a game too large for the exact tree, one core and two
workers (outcome sampling, ``--split``) each train for ``--seconds`` of
wall time, or for ``--iterations`` (``--against-sync N``: two workers at sync N
instead of one core; ``--round-epochs`` and ``--against-round-epochs``:
pipelined rounds of split "shared"); then their strategies play each other
in both seatings, and each gets a sampled best-response lower bound
(responders trained a fixed number of iterations, so both bounds are
comparable; ``--no-bounds`` skips them).

``growth``: one core runs GAME in chunks of ``--chunk`` iterations for
``--seconds``; every chunk in which the table grew is listed with its time
against the median of the five chunks before it, and the excess, summed,
is the share of the run that table growths took (the index is rehashed
into twice its size, the used rows and pool copied, and on a VM first
touches of new memory are slow). With two workers, each
grows its own table at its own moment while the other waits.

``parallel-quality``: exact exploitability (compiled tree) against
iterations and solving time, for one core and for two workers with each
``--splits`` and ``--syncs``: what the epoch lag costs in convergence.
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.stats import Z95
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.run import compile_tree
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.evaluate import best_response_bound, play_games
from complots_solver.solvers.mccfr.parallel.solver import DEFAULT_SYNC_ITERATIONS, ParallelMCCFR
from complots_solver.solvers.mccfr.solver import MCCFRSolver

SEED = 0
LADDERS = ("ladder-1", "ladder-2", "ladder-3")
LINEUPS = ("ambassador", "inquisitor")
DEFAULT_BUDGETS = "1,2,5,10,20,40"
WARMUP_ITERATIONS = 10
SLICE_SECONDS = 0.25  # our solver runs in slices of about this long between clock checks


def openspiel_strategy(tree: Tree, policy: pyspiel.Policy, states: list) -> np.ndarray:
    """OpenSpiel's policy on the tree's slots, read at each infoset's representative state."""
    out = np.empty(tree.num_slots)
    for i, state in enumerate(states):
        lo, hi = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
        probs = policy.action_probabilities(state)
        row = np.array([probs.get(int(a), 0.0) for a in tree.legal_actions[lo:hi]])
        out[lo:hi] = row / row.sum() if row.sum() > 0 else 1.0 / (hi - lo)
    return out


def openspiel_race(game: str = "ladder-2-ambassador", budgets: str = DEFAULT_BUDGETS) -> None:
    """Exploitability against wall time: ours vs OpenSpiel's C++ ES-MCCFR."""
    config, _ = resolve_game(game)
    tree = compile_tree(config)
    budgets = [float(b) for b in budgets.split(",")]
    rows = []
    ours = MCCFRSolver(config, algorithm="es", key="perfect", seed=SEED)
    ours.run(WARMUP_ITERATIONS)  # compile; a fresh solver is timed below
    ours = MCCFRSolver(config, algorithm="es", key="perfect", seed=SEED)
    spent, chunk = 0.0, 1
    for budget in budgets:
        while spent < budget:
            t0 = time.perf_counter()
            ours.run(chunk)
            dt = time.perf_counter() - t0
            spent += dt
            if dt < SLICE_SECONDS:
                chunk *= 2
        rows.append(("ours", budget, spent, ours.iteration, ours.exploitability(tree)))
        print(rows[-1], flush=True)
    game = pyspiel.load_game(config.game_string())
    theirs = pyspiel.ExternalSamplingMCCFRSolver(game, seed=SEED)
    states = [tree.keys.state(i) for i in range(tree.num_infosets)]
    spent, iterations = 0.0, 0
    for budget in budgets:
        while spent < budget:
            t0 = time.perf_counter()
            theirs.run_iteration()
            spent += time.perf_counter() - t0
            iterations += 1
        strategy = openspiel_strategy(tree, theirs.average_policy(), states)
        rows.append(("openspiel", budget, spent, iterations, exploitability(tree, strategy)))
        print(rows[-1], flush=True)
    print(f"\n{config.game_string()} (exact exploitability; solver seconds, evaluation excluded)")
    print(
        f"{'budget s':>9s} {'ours it':>10s} {'ours expl':>10s} {'OS it':>8s} {'OS expl':>9s} {'ratio':>7s}"
    )
    for budget in budgets:
        a = next(r for r in rows if r[0] == "ours" and r[1] == budget)
        b = next(r for r in rows if r[0] == "openspiel" and r[1] == budget)
        print(f"{budget:9g} {a[3]:10d} {a[4]:10.4f} {b[3]:8d} {b[4]:9.4f} {b[4] / a[4]:7.1f}x")


def markov_against_perfect(seconds: float = 30.0) -> None:
    """Exact exploitability of perfect vs markov keys after the same time."""
    print(
        f"{'game':24s} {'key':8s} {'iterations':>11s} {'infostates':>11s} {'tree infosets':>13s} {'expl':>8s}"
    )
    for ladder in LADDERS:
        for lineup in LINEUPS:
            name = f"{ladder}-{lineup}"
            config, _ = resolve_game(name)
            tree = compile_tree(config)
            for key in ("perfect", "markov"):
                MCCFRSolver(config, algorithm="es", key=key).run(WARMUP_ITERATIONS)  # compile
                solver = MCCFRSolver(config, algorithm="es", key=key, seed=SEED)
                start, chunk = time.perf_counter(), 1
                while time.perf_counter() - start < seconds:
                    t0 = time.perf_counter()
                    solver.run(chunk)
                    if time.perf_counter() - t0 < SLICE_SECONDS:
                        chunk *= 2
                expl = solver.exploitability(tree)
                print(
                    f"{name:24s} {key:8s} {solver.iteration:11d} {solver.num_infostates:11d} "
                    f"{tree.num_infosets:13d} {expl:8.4f}",
                    flush=True,
                )


def speedup(
    game: str,
    seconds: float = 20.0,
    sync: int = DEFAULT_SYNC_ITERATIONS,
    algorithm: str = "os",
    key: str = "markov",
    split: str = "seats",
    capacity: int = 0,
    epochs_per_round: int = 2,
    round_epochs: int = 1,
    warm: int = 3,
) -> None:
    """Iterations per second of one core and of two workers, in interleaved rounds."""
    config, _ = resolve_game(game)
    kwargs = {"algorithm": algorithm, "key": key, "seed": SEED}
    if capacity:
        kwargs["capacity"] = capacity
    one = MCCFRSolver(config, **kwargs)
    two = ParallelMCCFR(
        config,
        workers=2,
        sync_iterations=sync,
        split=split,
        round_epochs=round_epochs,
        **kwargs,
    )
    per_round = two.epoch_iterations * epochs_per_round
    for _ in range(warm):  # compile, and a table past its first growths
        one.run(per_round)
        two.run(per_round)
    two.walk_seconds = two.slowest_walk_seconds = 0.0
    t_one = t_two = 0.0
    ratios = []
    while t_one + t_two < seconds:
        t0 = time.perf_counter()
        one.run(per_round)
        t1 = time.perf_counter()
        two.run(per_round)
        t2 = time.perf_counter()
        t_one, t_two = t_one + t1 - t0, t_two + t2 - t1
        ratios.append((t1 - t0) / (t2 - t1))
    two.close()
    rounds = len(ratios)
    print(
        f"{game} {algorithm.upper()} key {key}, split {split}, sync "
        f"{sync}, round epochs {round_epochs}, capacity {capacity or 'grown'}: {rounds} rounds of {per_round:,} "
        f"iterations each"
    )
    print(f"1 core:    {rounds * per_round / t_one:12,.0f} it/s, {one.num_infostates:,} infostates")
    print(
        f"2 workers: {rounds * per_round / t_two:12,.0f} it/s, {two.master.num_infostates:,} "
        f"infostates, balance {two.balance:.3f}, walk share of wall "
        f"{two.slowest_walk_seconds / t_two:.3f}"
    )
    print(
        f"speed-up 2 workers / 1 core: {t_one / t_two:.2f}x (totals; rounds "
        f"{min(ratios):.2f}-{max(ratios):.2f}, median {float(np.median(ratios)):.2f})"
    )


def parallel_quality(
    game: str,
    iterations: str = "52000,156000,520000",
    syncs: str = "100,1000",
    splits: str = "seats,iterations",
    algorithm: str = "es",
    key: str = "perfect",
    seeds: int = 2,
) -> None:
    """Exact exploitability against iterations and wall time: one core, and two workers per split."""
    config, _ = resolve_game(game)
    tree = compile_tree(config)
    marks = [int(x) for x in iterations.split(",")]
    kwargs = {"algorithm": algorithm, "key": key}
    runs = [("1 core", 1, "seats", 1)] + [
        (f"2 workers, {split}, sync {sync}", 2, split, sync)
        for split in splits.split(",")
        for sync in (int(x) for x in syncs.split(","))
    ]
    print(f"{game} {algorithm.upper()} key {key}; exact exploitability at")
    print("iterations " + ", ".join(f"{m:,}" for m in marks) + " (seconds of solving in brackets)")
    for seed in range(seeds):
        for label, workers, split, sync in runs:
            solver = ParallelMCCFR(
                config, workers=workers, sync_iterations=sync, split=split, seed=seed, **kwargs
            )
            solver.run(solver.epoch_iterations)  # compile and warm up, not counted
            done, wall, cells = solver.master.iteration, 0.0, []
            for mark in marks:
                t0 = time.perf_counter()
                solver.run(max(0, mark - done))
                wall += time.perf_counter() - t0
                done = solver.master.iteration
                cells.append(f"{solver.master.exploitability(tree):.4f} ({wall:.1f} s)")
            solver.close()
            print(f"seed {seed}  {label:32s} " + "  ".join(cells), flush=True)


def parallel_sampled(
    game: str,
    seconds: float = 120.0,
    sync: int = 10000,
    key: str = "markov",
    capacity: int = 0,
    games: int = 200000,
    br_iterations: int = 300000,
    br_games: int = 20000,
    split: str = "seats",
    against_sync: int = 0,
    round_epochs: int = 1,
    against_round_epochs: int = 1,
    iterations: int = 0,
    no_bounds: bool = False,
) -> None:
    """Equal wall time for two contenders (one core or two workers); then head to head and bounds."""
    config, _ = resolve_game(game)
    kwargs = {"algorithm": "os", "key": key, "seed": SEED}
    if capacity:
        kwargs["capacity"] = capacity
    policies = {}

    def two_workers(sync: int, rounds: int) -> tuple[str, int, int, int]:
        label = f"2 workers, sync {sync:,}" + (f", rounds of {rounds}" if rounds > 1 else "")
        return label, 2, sync, rounds

    if against_sync:  # two workers at another setting instead of one core
        contenders = (two_workers(against_sync, against_round_epochs),)
    else:
        contenders = (("1 core", 1, sync, 1),)
    contenders += (two_workers(sync, round_epochs),)
    for label, workers, sync, rounds in contenders:
        solver = ParallelMCCFR(
            config,
            workers=workers,
            sync_iterations=sync,
            split=split if workers > 1 else "seats",
            round_epochs=rounds,
            **kwargs,
        )
        solver.run(solver.epoch_iterations)  # compile and warm up (counted in the iterations)
        t0 = time.perf_counter()
        if iterations:  # equal work instead of equal time
            solver.run(iterations - solver.master.iteration)
        while time.perf_counter() - t0 < seconds and not iterations:
            solver.step()
        spent = time.perf_counter() - t0
        solver.close()
        policies[label] = solver.master.policy_table()
        print(
            f"{label}: {solver.master.iteration:,} iterations in {spent:.1f} s, "
            f"{solver.master.num_infostates:,} infostates",
            flush=True,
        )
    (first, one), (second, two) = policies.items()
    a = play_games(config, [two, one], games, seed=1)
    b = play_games(config, [one, two], games, seed=2)
    edge = (a.mean[0] + b.mean[1]) / 2  # the second's mean return over both seats
    err = 0.5 * float(np.hypot(a.stderr[0], b.stderr[1]))
    print(
        f"head to head, {games:,} games per seating: {second} wins against {first} "
        f"{edge:+.4f} per game (95% CI {edge - Z95 * err:+.4f} to {edge + Z95 * err:+.4f})"
    )
    for label, policy in policies.items():
        if no_bounds:
            break
        bound = best_response_bound(config, policy, 0.0, br_games, train_iterations=br_iterations)
        print(
            f"{label}: best-response lower bound {bound.lower_bound:.4f} "
            f"(95% CI {bound.ci95[0]:.4f} to {bound.ci95[1]:.4f}; responders trained "
            f"{br_iterations:,} iterations per seat, {br_games:,} games per seat)",
            flush=True,
        )


def capacities(solver: MCCFRSolver) -> tuple[int, int, int]:
    """Lengths of a table's hash index, row arrays and pool."""
    return solver.slots.shape[0], solver.row_info.shape[0], solver.pool_action.shape[0]


def growth(
    game: str,
    seconds: float = 100.0,
    chunk: int = 10000,
    algorithm: str = "os",
    key: str = "markov",
) -> None:
    """What share of a one-core run its table growths take."""
    config, _ = resolve_game(game)
    solver = MCCFRSolver(config, algorithm=algorithm, key=key, seed=SEED)
    total = excess = 0.0
    plain: list[float] = []
    while total < seconds:
        before = capacities(solver)
        t0 = time.perf_counter()
        solver.run(chunk)
        spent = time.perf_counter() - t0
        total += spent
        if capacities(solver) == before:
            plain.append(spent)
            continue
        usual = float(np.median(plain[-5:])) if plain else 0.0
        excess += max(0.0, spent - usual)
        print(
            f"{total:7.1f} s  iteration {solver.iteration:>11,}  rows {solver.num_infostates:>11,}"
            f"  grew (slots, rows, pool) {before} -> {capacities(solver)}: chunk {spent:.2f} s,"
            f" usually {usual:.2f} s",
            flush=True,
        )
    print(
        f"{game} {algorithm.upper()} key {key}: {solver.iteration:,} iterations in "
        f"{total:.1f} s; growth took {excess:.1f} s beyond the usual chunk time "
        f"({excess / total:.1%} of the run)"
    )
