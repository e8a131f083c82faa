"""The table features' floor on a ladder rung: CFR+ over the information sets they merge, exact.

python scripts/selfplay_floor_check.py ladder-3-ambassador --iterations 1000 --every 100
"""

from __future__ import annotations

import argparse
import json
import time

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.selfplay.floor import AbstractCFR, feature_abstraction


def main() -> None:
    """Parse the arguments, run, print one JSON line per measured point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    config, _ = resolve_game(args.game)
    tree = compile_complots_tree(config)
    abstraction = feature_abstraction(config, tree)
    print(json.dumps({
        "game": args.game, "infosets": int(tree.num_infosets),
        "groups": abstraction.num_groups, "seconds": round(time.perf_counter() - start, 1),
    }), flush=True)  # fmt: skip
    solver = AbstractCFR(tree, abstraction)
    while solver.iteration < args.iterations:
        solver.run(min(args.every, args.iterations - solver.iteration))
        print(json.dumps({
            "iteration": solver.iteration, "exploitability": solver.exploitability(),
            "seconds": round(time.perf_counter() - start, 1),
        }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
