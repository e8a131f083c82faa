"""MCCFR quality measurements for reports/mccfr-runs.md (issue 4, "Quality, measured").

Usage:
  python scripts/mccfr_quality.py openspiel [--game ladder-2-ambassador] [--budgets 1,2,5,10,20,40]
  python scripts/mccfr_quality.py markov [--seconds 30]
  python scripts/mccfr_quality.py bound DIR|uniform:GAME [--train-seconds 60 | --train-iterations N] [--games 20000]
  python scripts/mccfr_quality.py bots DIR [--bots honest,bluffer,counter] [--games 500]
  python scripts/mccfr_quality.py speedup GAME [--seconds 20] [--sync 1000] [--split seats] [--capacity N] [--round-epochs R]
  python scripts/mccfr_quality.py parallel-quality GAME [--syncs 100,1000] [--splits seats,iterations]
  python scripts/mccfr_quality.py parallel-sampled GAME [--seconds 120 | --iterations N] [--sync 10000] [--round-epochs R]
      [--against-sync N] [--against-round-epochs R] [--no-bounds]
  python scripts/mccfr_quality.py growth GAME [--seconds 100] [--algorithm os] [--chunk 10000]

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

``bound``: for a keyed strategy directory of a 2-player game, the sampled
best-response lower bound (``mccfr_eval.best_response_bound``) and the
turn-cap share in self-play; written into the directory's meta.json
(``exploitability_bound``, ``self_play``).

``bots``: the heuristic bots of :mod:`complots_solver.play.bots` as fixed
responders against a keyed strategy (each bot in each seat, the strategy in
the other), written into meta.json (``bot_responders``).

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

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.strategy_file import update_keyed_meta
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.run import compile_tree
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.evaluate import (
    RESPONDER_EPSILON,
    Z95,
    best_response_bound,
    play_games,
)
from complots_solver.solvers.mccfr.infokeys import KEYS
from complots_solver.solvers.mccfr.parallel.solver import (
    DEFAULT_SYNC_ITERATIONS,
    SPLITS,
    ParallelMCCFR,
)
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

SEED = 0
LADDERS = ("ladder-1", "ladder-2", "ladder-3")
LINEUPS = ("ambassador", "inquisitor")
DEFAULT_BUDGETS = "1,2,5,10,20,40"
WARMUP_ITERATIONS = 10
SLICE_SECONDS = 0.25  # our solver runs in slices of about this long between clock checks
SELF_PLAY_GAMES = 20000
UNIFORM_PREFIX = "uniform:"


def openspiel_strategy(tree: Tree, policy: pyspiel.Policy, states: list) -> np.ndarray:
    """OpenSpiel's policy on the tree's slots, read at each infoset's representative state."""
    out = np.empty(tree.num_slots)
    for i, state in enumerate(states):
        lo, hi = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
        probs = policy.action_probabilities(state)
        row = np.array([probs.get(int(a), 0.0) for a in tree.legal_actions[lo:hi]])
        out[lo:hi] = row / row.sum() if row.sum() > 0 else 1.0 / (hi - lo)
    return out


def cmd_openspiel(args: argparse.Namespace) -> None:
    """Exploitability against wall time: ours vs OpenSpiel's C++ ES-MCCFR."""
    config, _ = resolve_game(args.game)
    tree = compile_tree(config)
    budgets = [float(b) for b in args.budgets.split(",")]
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


def cmd_markov(args: argparse.Namespace) -> None:
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
                while time.perf_counter() - start < args.seconds:
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


def cmd_bound(args: argparse.Namespace) -> None:
    """Sampled best-response lower bound and self-play turn-cap share of a keyed strategy."""
    uniform = args.directory.startswith(UNIFORM_PREFIX)
    if uniform:  # the uniformly random strategy: an empty table (every lookup misses)
        config, _ = resolve_game(args.directory[len(UNIFORM_PREFIX) :])
        table = PolicyTable.empty()
    else:
        policy = KeyedPolicy.load(args.directory)
        config, table = policy.config, policy.table
    start = time.perf_counter()
    bound = best_response_bound(
        config,
        table,
        args.train_seconds,
        args.games,
        seed=SEED,
        responder_key=args.responder_key,
        responder_epsilon=args.responder_epsilon,
        train_iterations=args.train_iterations,
    )
    selfplay = play_games(config, [table] * config.players, args.self_play_games, seed=SEED)
    result = {
        "exploitability_bound": bound.to_dict(),
        "self_play": {
            "games": selfplay.games,
            "turn_cap_share": selfplay.capped_share,
            "mean_return": list(selfplay.mean),
            "stderr": list(selfplay.stderr),
            "miss_share": list(selfplay.miss_share),
        },
    }
    if not uniform:
        update_keyed_meta(Path(args.directory), **result)
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result, indent=2))


def bot_values(directory: str, bots: list[str], games: int) -> dict[str, object]:
    """Each heuristic bot's mean return against the keyed strategy, per seat, with a 95% CI.

    Every bot is a fixed responder, so each bot's ``(v_0 + v_1) / 2`` is on its
    own a valid estimate of a lower bound on the exploitability.
    """
    from complots_solver.play.bots import make_bot

    policy = KeyedPolicy.load(directory)
    config = policy.config
    game = pyspiel.load_game(config.game_string())
    rng = np.random.default_rng(SEED)
    out: dict[str, object] = {}
    for name in bots:
        values, errors = [], []
        for seat in range(config.players):
            bot = make_bot(name, config, np.random.default_rng(SEED + seat))
            returns = []
            for _ in range(games):
                bot.restart()
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                        state.apply_action(int(rng.choice(outcomes, p=probs)))
                    elif state.current_player() == seat:
                        state.apply_action(bot.step(state))
                    else:
                        probs = policy.probabilities(state, state.current_player())
                        actions = list(probs)
                        weights = np.array([probs[a] for a in actions])
                        state.apply_action(int(rng.choice(actions, p=weights / weights.sum())))
                returns.append(state.returns()[seat])
            values.append(float(np.mean(returns)))
            errors.append(float(np.std(returns, ddof=1) / np.sqrt(games)))
        bound = sum(values) / 2
        half = Z95 * float(np.sqrt(sum(e * e for e in errors))) / 2
        out[name] = {
            "lower_bound": bound,
            "ci95": [bound - half, bound + half],
            "values": values,
            "stderr": errors,
            "games_per_seat": games,
        }
        print(name, out[name], flush=True)
    return out


def cmd_bots(args: argparse.Namespace) -> None:
    """Heuristic bots as fixed responders against a keyed strategy; written into meta.json."""
    result = bot_values(args.directory, args.bots.split(","), args.games)
    update_keyed_meta(Path(args.directory), bot_responders=result)
    print(json.dumps(result, indent=2))


def cmd_speedup(args: argparse.Namespace) -> None:
    """Iterations per second of one core and of two workers, in interleaved rounds."""
    config, _ = resolve_game(args.game)
    kwargs = {"algorithm": args.algorithm, "key": args.key, "seed": SEED}
    if args.capacity:
        kwargs["capacity"] = args.capacity
    one = MCCFRSolver(config, **kwargs)
    two = ParallelMCCFR(
        config,
        workers=2,
        sync_iterations=args.sync,
        split=args.split,
        round_epochs=args.round_epochs,
        **kwargs,
    )
    per_round = two.epoch_iterations * args.epochs_per_round
    for _ in range(args.warm):  # compile, and a table past its first growths
        one.run(per_round)
        two.run(per_round)
    two.walk_seconds = two.slowest_walk_seconds = 0.0
    t_one = t_two = 0.0
    ratios = []
    while t_one + t_two < args.seconds:
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
        f"{args.game} {args.algorithm.upper()} key {args.key}, split {args.split}, sync "
        f"{args.sync}, round epochs {args.round_epochs}, capacity {args.capacity or 'grown'}: {rounds} rounds of {per_round:,} "
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


def cmd_parallel_quality(args: argparse.Namespace) -> None:
    """Exact exploitability against iterations and wall time: one core, and two workers per split."""
    config, _ = resolve_game(args.game)
    tree = compile_tree(config)
    marks = [int(x) for x in args.iterations.split(",")]
    kwargs = {"algorithm": args.algorithm, "key": args.key}
    runs = [("1 core", 1, "seats", 1)] + [
        (f"2 workers, {split}, sync {sync}", 2, split, sync)
        for split in args.splits.split(",")
        for sync in (int(x) for x in args.syncs.split(","))
    ]
    print(f"{args.game} {args.algorithm.upper()} key {args.key}; exact exploitability at")
    print("iterations " + ", ".join(f"{m:,}" for m in marks) + " (seconds of solving in brackets)")
    for seed in range(args.seeds):
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


def cmd_parallel_sampled(args: argparse.Namespace) -> None:
    """Equal wall time for two contenders (one core or two workers); then head to head and bounds."""
    config, _ = resolve_game(args.game)
    kwargs = {"algorithm": "os", "key": args.key, "seed": SEED}
    if args.capacity:
        kwargs["capacity"] = args.capacity
    policies = {}

    def two_workers(sync: int, rounds: int) -> tuple[str, int, int, int]:
        label = f"2 workers, sync {sync:,}" + (f", rounds of {rounds}" if rounds > 1 else "")
        return label, 2, sync, rounds

    if args.against_sync:  # two workers at another setting instead of one core
        contenders = (two_workers(args.against_sync, args.against_round_epochs),)
    else:
        contenders = (("1 core", 1, args.sync, 1),)
    contenders += (two_workers(args.sync, args.round_epochs),)
    for label, workers, sync, rounds in contenders:
        split = args.split if workers > 1 else "seats"
        solver = ParallelMCCFR(
            config,
            workers=workers,
            sync_iterations=sync,
            split=split,
            round_epochs=rounds,
            **kwargs,
        )
        solver.run(solver.epoch_iterations)  # compile and warm up (counted in the iterations)
        t0 = time.perf_counter()
        if args.iterations:  # equal work instead of equal time
            solver.run(args.iterations - solver.master.iteration)
        while time.perf_counter() - t0 < args.seconds and not args.iterations:
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
    a = play_games(config, [two, one], args.games, seed=1)
    b = play_games(config, [one, two], args.games, seed=2)
    edge = (a.mean[0] + b.mean[1]) / 2  # the second's mean return over both seats
    err = 0.5 * float(np.hypot(a.stderr[0], b.stderr[1]))
    print(
        f"head to head, {args.games:,} games per seating: {second} wins against {first} "
        f"{edge:+.4f} per game (95% CI {edge - Z95 * err:+.4f} to {edge + Z95 * err:+.4f})"
    )
    for label, policy in policies.items():
        if args.no_bounds:
            break
        bound = best_response_bound(
            config, policy, 0.0, args.br_games, train_iterations=args.br_iterations
        )
        print(
            f"{label}: best-response lower bound {bound.lower_bound:.4f} "
            f"(95% CI {bound.ci95[0]:.4f} to {bound.ci95[1]:.4f}; responders trained "
            f"{args.br_iterations:,} iterations per seat, {args.br_games:,} games per seat)",
            flush=True,
        )


def capacities(solver: MCCFRSolver) -> tuple[int, int, int]:
    """Lengths of a table's hash index, row arrays and pool."""
    return solver.slots.shape[0], solver.row_info.shape[0], solver.pool_action.shape[0]


def cmd_growth(args: argparse.Namespace) -> None:
    """What share of a one-core run its table growths take."""
    config, _ = resolve_game(args.game)
    solver = MCCFRSolver(config, algorithm=args.algorithm, key=args.key, seed=SEED)
    total = excess = 0.0
    plain: list[float] = []
    while total < args.seconds:
        before = capacities(solver)
        t0 = time.perf_counter()
        solver.run(args.chunk)
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
        f"{args.game} {args.algorithm.upper()} key {args.key}: {solver.iteration:,} iterations in "
        f"{total:.1f} s; growth took {excess:.1f} s beyond the usual chunk time "
        f"({excess / total:.1%} of the run)"
    )


def main() -> None:
    """Parse the command line and run one measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("openspiel")
    p.add_argument("--game", default="ladder-2-ambassador")
    p.add_argument("--budgets", default=DEFAULT_BUDGETS)
    p.set_defaults(func=cmd_openspiel)
    p = sub.add_parser("markov")
    p.add_argument("--seconds", type=float, default=30.0)
    p.set_defaults(func=cmd_markov)
    p = sub.add_parser("bound")
    p.add_argument("directory")
    p.add_argument("--train-seconds", type=float, default=60.0)
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--train-iterations", type=int, default=None)
    p.add_argument("--self-play-games", type=int, default=SELF_PLAY_GAMES)
    p.add_argument("--responder-key", default="markov", choices=list(KEYS))
    p.add_argument("--responder-epsilon", type=float, default=RESPONDER_EPSILON)
    p.set_defaults(func=cmd_bound)
    p = sub.add_parser("bots")
    p.add_argument("directory")
    p.add_argument("--bots", default="honest,bluffer,counter")
    p.add_argument("--games", type=int, default=500)
    p.set_defaults(func=cmd_bots)
    p = sub.add_parser("speedup")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--sync", type=int, default=DEFAULT_SYNC_ITERATIONS)
    p.add_argument("--algorithm", default="os", choices=["es", "os"])
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.add_argument("--split", default="seats", choices=list(SPLITS))
    p.add_argument("--capacity", type=int, default=0, help="pre-sized table slots (0: grown)")
    p.add_argument("--epochs-per-round", type=int, default=2)
    p.add_argument("--round-epochs", type=int, default=1, help="pipelined rounds (split shared)")
    p.add_argument("--warm", type=int, default=3, help="rounds before measuring")
    p.set_defaults(func=cmd_speedup)
    p = sub.add_parser("parallel-quality")
    p.add_argument("game")
    p.add_argument("--iterations", default="52000,156000,520000")
    p.add_argument("--syncs", default="100,1000")
    p.add_argument("--splits", default="seats,iterations")
    p.add_argument("--algorithm", default="es", choices=["es", "os"])
    p.add_argument("--key", default="perfect", choices=list(KEYS))
    p.add_argument("--seeds", type=int, default=2)
    p.set_defaults(func=cmd_parallel_quality)
    p = sub.add_parser("parallel-sampled")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--sync", type=int, default=10000)
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.add_argument("--capacity", type=int, default=0)
    p.add_argument("--games", type=int, default=200000)
    p.add_argument("--br-iterations", type=int, default=300000)
    p.add_argument("--br-games", type=int, default=20000)
    p.add_argument("--split", default="seats", choices=list(SPLITS))
    p.add_argument(
        "--against-sync", type=int, default=0, help="two workers at this sync instead of one core"
    )
    p.add_argument("--round-epochs", type=int, default=1, help="pipelined rounds (split shared)")
    p.add_argument("--against-round-epochs", type=int, default=1, help="... for --against-sync")
    p.add_argument("--iterations", type=int, default=0, help="train this many, not --seconds")
    p.add_argument("--no-bounds", action="store_true", help="head to head only")
    p.set_defaults(func=cmd_parallel_sampled)
    p = sub.add_parser("growth")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=100.0)
    p.add_argument("--chunk", type=int, default=10000)
    p.add_argument("--algorithm", default="os", choices=["es", "os"])
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.set_defaults(func=cmd_growth)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
