"""Exact exploitability of sampled regret matching+'s average network on a ladder rung, by iteration.

python scripts/regret_check.py ladder-2-ambassador --iterations 200 --every 40 --games 2000
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings
from complots_solver.solvers.selfplay.exact import table_exploitability


def main() -> None:
    """Parse the arguments, run, print one JSON line per measured point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--every", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    for f in fields(RegretSettings):
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default
        )
    args = parser.parse_args()
    config, _ = resolve_game(args.game)
    settings = RegretSettings(**{f.name: getattr(args, f.name) for f in fields(RegretSettings)})
    print(json.dumps({"game": args.game, "seed": args.seed, **settings.record()}), flush=True)
    tree = compile_complots_tree(config)
    run = RegretSampler(config, settings, seed=args.seed)
    start = time.perf_counter()
    while run.iteration < args.iterations:
        run.step()
        if run.iteration % args.every == 0 or run.iteration == args.iterations:
            spent = time.perf_counter() - start
            exact = table_exploitability(config, run.policy(), tree)
            print(json.dumps({
                "iteration": run.iteration, "average": exact["exploitability"],
                "samples": run.samples, "seconds": round(spent, 1),
            }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
