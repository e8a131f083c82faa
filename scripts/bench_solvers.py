"""CFR speed: our numba tree solvers versus OpenSpiel's C++ and Python CFR, same process.

Usage: python scripts/bench_solvers.py [--game leduc_poker] [--seconds 2] [--target 1e-3]

By default it runs OpenSpiel's C++ Leduc and our registered ``complots`` game
on the smallest exact-ladder rung (``ladder-1-ambassador``); what is timed and
how visits are counted: :mod:`complots_solver.lab.exact.benchmark`.
Goals (issue 3): >= 300x OpenSpiel's C++ CFR on the registered complots game,
>= 10x on its own C++ Leduc, <= 20 ns per node visit for our CFR.
"""

from __future__ import annotations

import argparse

from complots_solver.lab.exact.benchmark import (
    DEFAULT_GAMES,
    DEFAULT_SECONDS,
    DEFAULT_TARGET,
    DEFAULT_TARGET_BUDGET,
    bench_game,
)


def main() -> None:
    """Run the benchmark for each requested game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="pyspiel game string (repeatable)")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="time per solver")
    parser.add_argument(
        "--target", type=float, default=DEFAULT_TARGET, help="exploitability target"
    )
    parser.add_argument(
        "--target-budget",
        type=float,
        default=DEFAULT_TARGET_BUDGET,
        help="seconds for OpenSpiel's run to the target",
    )
    args = parser.parse_args()
    for game_string in args.game or DEFAULT_GAMES:
        bench_game(game_string, args.seconds, args.target, args.target_budget)


if __name__ == "__main__":
    main()
