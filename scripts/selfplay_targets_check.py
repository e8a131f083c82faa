"""Update rules and weights for a table network's targets, with exact values on a ladder rung.

python scripts/selfplay_targets_check.py ladder-3-ambassador --iterations 300 --every 100
python scripts/selfplay_targets_check.py ladder-3-ambassador --normalise --pooling on-policy \
    --explore 0.1                      # what a sampler exploring 10% would learn from
python scripts/selfplay_targets_check.py ladder-2-ambassador --regret-net --steps 100
"""

from __future__ import annotations

import argparse
import json
import time

from complots_solver.lab.selfplay.floor import feature_abstraction
from complots_solver.lab.selfplay.targets import (
    GroupIteration,
    RegretNetIteration,
    SampledRegretNet,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.complots_tree import compile_complots_tree


def main() -> None:
    """Parse the arguments, run, print one JSON line per measured point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--rule", choices=["rm+", "rm", "linear-rm", "hedge"], default="rm+")
    parser.add_argument("--eta", type=float, default=1.0, help="Hedge's step")
    parser.add_argument("--normalise", action="store_true", help="values per unit of reach")
    parser.add_argument(
        "--pooling", choices=["counterfactual", "on-policy"], default="counterfactual"
    )
    parser.add_argument(
        "--explore", type=float, default=None, help="uniform share (0; sampled, regret net: 0.1)"
    )
    parser.add_argument("--memory", type=int, default=0, help="groups also split by M observations")
    parser.add_argument(
        "--regret-net", action="store_true", help="a table network holds the regrets"
    )
    parser.add_argument("--sampled", action="store_true", help="regret net from sampled games")
    parser.add_argument("--games", type=int, default=2000, help="sampled: games per seat")
    parser.add_argument("--rollouts", type=int, default=1, help="sampled: per action")
    parser.add_argument("--alternate", action="store_true", help="sampled: one seat an iteration")
    parser.add_argument("--polyak", type=float, default=1.0, help="sampled: target copy share")
    parser.add_argument("--plus", action="store_true", help="sampled: regret matching+")
    parser.add_argument("--keep-all", action="store_true", help="sampled: fit to every sample")
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument(
        "--steps", type=int, default=100, help="regret net: Adam steps an iteration"
    )
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.explore is None:
        args.explore = 0.1 if args.regret_net or args.sampled else 0.0
    start = time.perf_counter()
    config, _ = resolve_game(args.game)
    tree = compile_complots_tree(config)
    abstraction = feature_abstraction(
        config, tree, keep_rows=args.regret_net or args.sampled, memory=args.memory
    )
    if args.sampled:
        solver: GroupIteration = SampledRegretNet(
            tree, abstraction, config.num_distinct_actions(), args.games, args.rollouts,
            args.explore, args.steps, args.minibatch, args.lr, seed=args.seed,
            keep_all=args.keep_all, plus=args.plus, alternate=args.alternate,
            polyak=args.polyak,
        )  # fmt: skip
    elif args.regret_net:
        solver = RegretNetIteration(
            tree, abstraction, config.num_distinct_actions(), args.normalise, args.pooling,
            args.explore, steps=args.steps, lr=args.lr, seed=args.seed,
        )  # fmt: skip
    else:
        solver = GroupIteration(
            tree, abstraction, args.rule, args.normalise, args.pooling, args.explore, args.eta
        )
    if args.regret_net or args.sampled:  # the rule and values these methods use, whatever given
        args.rule = (
            "rm+" if args.regret_net or args.plus else "linear-rm" if args.keep_all else "rm"
        )
    if args.sampled:
        args.normalise, args.pooling = True, "on-policy"
    print(json.dumps({**vars(args), "groups": abstraction.num_groups}), flush=True)
    while solver.iteration < args.iterations:
        solver.run(min(args.every, args.iterations - solver.iteration))
        print(json.dumps({
            "iteration": solver.iteration, **solver.exploitability(),
            "samples": getattr(solver, "samples", None),
            "seconds": round(time.perf_counter() - start, 1),
        }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
