"""The value network of a ladder run against the exact equilibrium values at the equilibrium's beliefs.

Usage: python scripts/belief_value_check.py ladder-3-ambassador RUN_DIR [RUN_DIR ...] [--iterations N]
[--counterfactual]  (each hand's value weighted by its counterfactual reach: where deviations look)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from complots_solver.lab.belief.value_check import turn_start_examples, value_errors
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.nets.valuenet import ValueNet


def main() -> None:
    """Print each run's weighted error overall and per turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset")
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument(
        "--counterfactual",
        action="store_true",
        help="weigh each hand by its counterfactual reach (every hand a deviation reaches)",
    )
    args = parser.parse_args()
    config, _ = resolve_game(args.preset)
    feats, targets, masks, weights, turns, expl = turn_start_examples(
        config, args.iterations, args.counterfactual
    )
    print(
        f"{args.preset}: {len(feats)} reached turn starts, CFR+ {args.iterations} iterations "
        f"(exploitability {expl:.2e} on the public tree)"
    )
    for run in args.runs:
        net = ValueNet.load(run / "value-net.npz")
        used = turns >= 1  # the first subgame covers the deal, the draft and turn 0 itself
        print(
            run,
            "turns 1+ (search leaves)",
            value_errors(net, feats[used], targets[used], masks[used], weights[used]),
        )
        for t in np.unique(turns):
            keep = turns == t
            print(
                f"  turn {t}:",
                value_errors(net, feats[keep], targets[keep], masks[keep], weights[keep]),
            )


if __name__ == "__main__":
    main()
