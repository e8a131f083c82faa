"""Exact exploitability of the search player of ladder runs (their value networks, one-turn subgames).

Usage: python scripts/belief_search_check.py ladder-3-ambassador RUN_DIR|none [...] [--iterations N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from complots_solver.lab.belief.continuation import Bias
from complots_solver.lab.belief.search_exact import (
    continuation_exploitability,
    iterate_mixture_exploitability,
    search_exploitability,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.nets.valuenet import ValueEnsemble, ValueNet


def main() -> None:
    """Print each run's exact search exploitability and seat 0's value."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset")
    parser.add_argument(
        "runs", nargs="+", help="run folders with value-net.npz, or 'none' (leaf 0)"
    )
    parser.add_argument("--iterations", type=int, default=48, help="CFR+ iterations per subgame")
    parser.add_argument(
        "--leaf-average", action="store_true", help="leaf beliefs from the average (CFR-AVG)"
    )
    parser.add_argument("--depth", type=int, default=1, help="turns per subgame (0: to the end)")
    parser.add_argument(
        "--exact-from", type=int, default=None, help="solve subgames from this turn to the end"
    )
    parser.add_argument(
        "--safe", action="store_true", help="re-solve each player alone with a gadget"
    )
    parser.add_argument("--first-depth", type=int, default=None, help="turns in the first subgame")
    parser.add_argument("--promise", choices=("auto", "written", "net", "average"), default="auto")
    parser.add_argument(
        "--exact-leaves",
        type=int,
        default=0,
        help="value the first subgame's leaves exactly with N CFR+ iterations (run 'none')",
    )
    parser.add_argument(
        "--per-hypothesis", action="store_true", help="exact leaf values per hypothesis, not hand"
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=0,
        help="play a drawn CFR iteration per subgame (unsafe); measure the mix of N such players",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn iterations")
    parser.add_argument(
        "--cf-roots", action="store_true", help="re-solve roots carry counterfactual reach"
    )
    parser.add_argument(
        "--perspectives",
        action="store_true",
        help="with --samples: each player's draws from its own passes' profiles",
    )
    parser.add_argument(
        "--keep-exact",
        action="store_true",
        help="with --exact-from: play the solves to the end through, no later re-solves",
    )
    parser.add_argument(
        "--iterate-mixture",
        action="store_true",
        help="with --exact-leaves: the player who draws a first-subgame iteration, exactly",
    )
    parser.add_argument("--cfr", default="cfr+", help="regret rule: cfr+, pcfr+ or dcfr")
    parser.add_argument(
        "--continuations",
        type=int,
        default=0,
        help="continuation leaves over a blueprint of N whole-game CFR+ iterations (run 'none')",
    )
    parser.add_argument("--no-bias", action="store_true", help="continuations: the blueprint only")
    parser.add_argument(
        "--best-response",
        action="store_true",
        help="continuations: the opponent's best response too",
    )
    parser.add_argument(
        "--own-choice", action="store_true", help="continuations: the re-solver chooses too"
    )
    parser.add_argument("--factor", type=float, default=5.0, help="continuations: bias factor")
    args = parser.parse_args()
    config, _ = resolve_game(args.preset)
    for run in args.runs:
        if run == "none":
            net = None
        else:  # RUN_A+RUN_B: the mean of their value networks
            nets = [ValueNet.load(Path(r) / "value-net.npz") for r in run.split("+")]
            net = nets[0] if len(nets) == 1 else ValueEnsemble(nets)
        start = time.perf_counter()
        if args.continuations:
            if net is not None:
                parser.error("--continuations needs 'none'")
            out = continuation_exploitability(
                config,
                SearchSettings(iterations=args.iterations, safe=True, cfr=args.cfr),
                args.continuations,
                () if args.no_bias else tuple(Bias),
                args.factor,
                args.best_response,
                own_choice=args.own_choice,
            )
            print(run, out, f"{time.perf_counter() - start:.0f} s", flush=True)
            continue
        if args.iterate_mixture:
            if net is not None or args.exact_leaves <= 0:
                parser.error("--iterate-mixture needs 'none' and --exact-leaves N")
            out = iterate_mixture_exploitability(
                config,
                SearchSettings(iterations=args.iterations, cfr=args.cfr),
                args.exact_leaves,
                per_hand=not args.per_hypothesis,
            )
            print(run, out, f"{time.perf_counter() - start:.0f} s", flush=True)
            continue
        out = search_exploitability(
            config,
            net,
            SearchSettings(
                iterations=args.iterations,
                leaf_average=args.leaf_average,
                depth=args.depth,
                safe=args.safe,
                cfr=args.cfr,
            ),
            exact_from=args.exact_from,
            first_depth=args.first_depth,
            promise=args.promise,
            exact_leaves=args.exact_leaves,
            per_hand=not args.per_hypothesis,
            samples=args.samples,
            seed=args.seed,
            cf_roots=args.cf_roots,
            perspectives=args.perspectives,
            keep_exact=args.keep_exact,
        )
        print(run, out, f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
