"""Strength per core-hour: time to an exact exploitability on the ladder, as ratios to OS-MCCFR.

python scripts/bench_strength.py [--games ...] [--seconds S] [--targets ...] [--plot PNG]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import complots_solver  # noqa: F401  (configures numba and BLAS before numpy loads)
from complots_solver.lab.compare.strength import (
    ALL_METHODS,
    METHODS,
    ladder_curves,
    plot_curves,
    ratio_rows,
    read_points,
    write_points,
)
from complots_solver.play.bots import make_bot


def main() -> None:
    """Run (or re-read) the curves, print the ratios, optionally plot."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--games", nargs="+", default=["ladder-3-ambassador", "ladder-3-inquisitor"]
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=list(METHODS),
        choices=ALL_METHODS,
        help="deep-cfr (OpenSpiel's PyTorch Deep CFR) needs the deepcfr extra",
    )
    parser.add_argument("--seconds", type=float, default=120.0, help="solving budget per method")
    parser.add_argument("--targets", nargs="+", type=float, default=[0.05, 0.01, 0.001])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a selfplay setting (as complots solve --option); labels the curve",
    )
    parser.add_argument("--csv", type=Path, help="write the points here")
    parser.add_argument("--from-csv", type=Path, help="re-read points instead of running")
    parser.add_argument("--plot", type=Path, help="write the exploitability-vs-time plot here")
    args = parser.parse_args()
    if args.from_csv:
        points = read_points(args.from_csv)
    else:
        print("one process, one core; exact exploitability on the history tree after each chunk")
        points = ladder_curves(
            args.games,
            args.methods,
            args.seconds,
            min(args.targets),
            args.seed,
            log=lambda p: print(json.dumps(p.__dict__ | {"total_s": round(p.total_s, 3)})),
            make_bot=make_bot,
            selfplay_options=dict(o.split("=", 1) for o in args.option),
        )
    if args.csv:
        write_points(points, args.csv)
    print("| game | method | target | seconds | best reached | speed-up vs OS-MCCFR |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for r in ratio_rows(points, args.targets):
        print(
            f"| {r['game']} | {r['method']} | {r['target']:g} | {r['seconds']:.1f} | "
            f"{r['best']:.2e} | {r['speedup_vs_os_mccfr']} |"
        )
    if args.plot:
        plot_curves(points, args.plot, min(args.targets))


if __name__ == "__main__":
    main()
