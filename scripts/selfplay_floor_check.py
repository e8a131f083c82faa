"""The table features' floor on a ladder rung: CFR+ over the information sets they merge, exact.

python scripts/selfplay_floor_check.py ladder-3-ambassador --iterations 1000 --every 100
python scripts/selfplay_floor_check.py ladder-3-ambassador --iterations 500 --every 500 \
    --fit-steps 1000 3000 7000 15000   # then a table network fitted to that strategy
"""

from __future__ import annotations

import argparse
import json
import time

from complots_solver.lab.selfplay.floor import (
    AbstractCFR,
    feature_abstraction,
    fit_table_net,
    group_targets,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.selfplay.exact import table_tree_strategy


def main() -> None:
    """Parse the arguments, run, print one JSON line per measured point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--fit-steps", type=int, nargs="*", default=[], metavar="S")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--fit-lr", type=float, default=1e-3)
    parser.add_argument(
        "--memory", type=int, default=0, help="also tell sets apart by the last M observations"
    )
    parser.add_argument("--uniform-share", type=float, default=0.1)
    parser.add_argument(
        "--public-memory", action="store_true", help="the memory holds the public view of moves"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    config, _ = resolve_game(args.game)
    tree = compile_complots_tree(config)
    abstraction = feature_abstraction(
        config, tree, keep_rows=bool(args.fit_steps), memory=args.memory,
        public_memory=args.public_memory,
    )  # fmt: skip
    print(json.dumps({
        "game": args.game, "memory": args.memory, "public": args.public_memory, "infosets": int(tree.num_infosets),
        "groups": abstraction.num_groups, "seconds": round(time.perf_counter() - start, 1),
    }), flush=True)  # fmt: skip
    solver = AbstractCFR(tree, abstraction)
    while solver.iteration < args.iterations:
        solver.run(min(args.every, args.iterations - solver.iteration))
        print(json.dumps({
            "iteration": solver.iteration, "exploitability": solver.exploitability(),
            "seconds": round(time.perf_counter() - start, 1),
        }), flush=True)  # fmt: skip
    if not args.fit_steps:
        return
    target, weight = group_targets(tree, abstraction, solver.average_strategy())
    net, done = None, 0
    for steps in sorted(args.fit_steps):
        net = fit_table_net(
            abstraction, target, weight, config.num_distinct_actions(), steps - done,
            width=args.width, uniform_share=args.uniform_share, seed=done, net=net,
            lr=args.fit_lr,
        )  # fmt: skip
        done = steps
        value = exploitability(tree, table_tree_strategy(config, net, tree))
        print(json.dumps({
            "fit_steps": done, "exploitability": float(value),
            "seconds": round(time.perf_counter() - start, 1),
        }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
