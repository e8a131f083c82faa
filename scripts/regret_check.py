"""Exact exploitability of sampled regret matching+'s average network on a ladder rung, by iteration.

python scripts/regret_check.py ladder-2-ambassador --iterations 200 --every 40 --games 2000

With ``--exploiter-share S`` a trained exploiter of the average network plays every other seat
in that share of each traverser's games (``lab.regret.exploiter``; ``--exploiter-every``,
``--exploiter-games``).

With ``--exact-average`` each point also gives the exact exploitability of the exact linear,
reach-weighted average of the current strategies (``lab.regret.exact_average``) and of the last
current strategy: what the average network stands for, without its fitting and sampling.

With ``--mixture K`` each point also gives the exact exploitability of the mixture of the last K
measured average networks (one drawn at the start of each game: a mixed strategy, so its
exploitability is at most the mean of theirs).

With ``--rehearse-share S`` a share S of each regret minibatch rehearses earlier iterations'
decisions against the network's held regrets (``lab.regret.rehearsal``; ``--rehearse-capacity``).

With ``--regret-memory N`` the regret network is fitted to a reservoir of N rows of every
iteration's sampled regrets, weighted by iteration, instead of to its own held output (Deep
CFR's way, ``lab.regret.regret_memory``; ``--regret-memory-uniform``: every row weighs alike).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields

from complots_solver.lab.regret.exact_average import ExactAverage
from complots_solver.lab.regret.exploiter import ExploiterLoop, ExploiterSettings
from complots_solver.lab.regret.regret_memory import RegretMemorySampler, RegretMemorySettings
from complots_solver.lab.regret.rehearsal import RehearsalSampler, RehearsalSettings
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.options import argument_type
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.nets.tablenet import THRESHOLD_KEY
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings
from complots_solver.solvers.selfplay.exact import mixture_strategy, table_tree_strategy


def main() -> None:
    """Parse the arguments, run, print one JSON line per measured point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--every", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mixture", type=int, default=0, help="mix the last K measured points")
    parser.add_argument(
        "--thresholds",
        default="",
        help="comma-separated: also measure the average network with probabilities below each "
        "dropped at play (TableNet.policy_value)",
    )
    parser.add_argument("--exact-average", action="store_true")
    parser.add_argument("--exploiter-share", type=float, default=0.0)
    parser.add_argument("--exploiter-every", type=int, default=ExploiterSettings.every)
    parser.add_argument("--exploiter-games", type=int, default=ExploiterSettings.games)
    parser.add_argument("--rehearse-share", type=float, default=0.0)
    parser.add_argument("--rehearse-capacity", type=int, default=RehearsalSettings.capacity)
    parser.add_argument("--regret-memory", type=int, default=0, help="rows; 0: the held target")
    parser.add_argument("--regret-memory-uniform", action="store_true")
    for f in fields(RegretSettings):
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", type=argument_type(f.default), default=f.default
        )
    args = parser.parse_args()
    config, _ = resolve_game(args.game)
    thresholds = [float(t) for t in args.thresholds.split(",") if t.strip()]
    settings = RegretSettings(**{f.name: getattr(args, f.name) for f in fields(RegretSettings)})
    loop = None
    record = {"game": args.game, "seed": args.seed, **settings.record()}
    if args.exploiter_share > 0.0:
        exploiter = ExploiterSettings(
            args.exploiter_share, args.exploiter_every, args.exploiter_games
        )
        loop = ExploiterLoop(config, exploiter, args.seed)
        record["exploiter"] = exploiter.record()
    tree = compile_complots_tree(config)
    exact = ExactAverage(config, tree) if args.exact_average else None

    def before(sampler: RegretSampler) -> None:
        if loop is not None:
            loop(sampler)
        if exact is not None:  # after the exploiter: the strategy this iteration plays
            exact.before(sampler)

    if args.regret_memory > 0 and args.rehearse_share > 0.0:
        parser.error("--regret-memory and --rehearse-share: one at a time")
    if args.regret_memory > 0:
        memory = RegretMemorySettings(args.regret_memory, not args.regret_memory_uniform)
        record["regret_memory"] = memory.record()
        run: RegretSampler = RegretMemorySampler(
            config, settings, memory, seed=args.seed, before_iteration=before
        )
    elif args.rehearse_share > 0.0:
        rehearsal = RehearsalSettings(args.rehearse_share, args.rehearse_capacity)
        record["rehearsal"] = rehearsal.record()
        run = RehearsalSampler(config, settings, rehearsal, seed=args.seed, before_iteration=before)
    else:
        run = RegretSampler(config, settings, seed=args.seed, before_iteration=before)
    print(json.dumps(record), flush=True)
    kept: list = []
    start = time.perf_counter()
    while run.iteration < args.iterations:
        run.step()
        if run.iteration % args.every == 0 or run.iteration == args.iterations:
            spent = time.perf_counter() - start
            strategy = table_tree_strategy(config, run.policy(), tree)
            row = {
                "iteration": run.iteration, "average": float(exploitability(tree, strategy)),
                "samples": run.samples, "seconds": round(spent, 1),
            }  # fmt: skip
            if exact is not None:
                row["exact_average"] = float(exploitability(tree, exact.strategy()))
                row["current"] = float(exploitability(tree, exact.last))
            for t in thresholds:
                net = run.policy().copy()
                net.net.meta[THRESHOLD_KEY] = str(t)
                cut = table_tree_strategy(config, net, tree)
                row[f"threshold_{t:g}"] = float(exploitability(tree, cut))
            if args.mixture > 0:
                kept = [*kept[-(args.mixture - 1) :], strategy] if args.mixture > 1 else [strategy]
                mixed = mixture_strategy(tree, kept)
                row[f"mixture_{len(kept)}"] = float(exploitability(tree, mixed))
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
