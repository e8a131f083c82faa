"""MCCFR speed: our numba ES/OS-MCCFR versus OpenSpiel's C++ MCCFR solvers, same process.

Usage: python scripts/bench_mccfr.py [--seconds 10] [--key perfect|markov|compact] [--case TEXT]

OpenSpiel's solvers run on the registered Python game ``complots``; ours on
one core and on two workers. The cases, the interleaved rounds, the equal-time
and equal-work ratios and the ceiling are described in
:mod:`complots_solver.lab.mccfr.benchmark`.

Columns: "ratio" (one core) and "ratio 2w" (two workers) at equal time,
"ratio =work" (one core) at equal work. The old goal "ours >= 1000x
OpenSpiel" is retired: on our Python-registered game it measured OpenSpiel's
Python adapter, not the solver; strength per core-hour is measured by
scripts/bench_strength.py.
"""

from __future__ import annotations

import argparse

from complots_solver.lab.mccfr.benchmark import DEFAULT_SECONDS, bench_cases, cases
from complots_solver.solvers.mccfr.infokeys import KEYS


def main() -> None:
    """Run every case and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="time budget per solver"
    )
    parser.add_argument("--key", default="perfect", choices=list(KEYS), help="our information key")
    parser.add_argument(
        "--case",
        action="append",
        help="run only the cases whose label contains this text (repeatable)",
    )
    args = parser.parse_args()
    chosen = [c for c in cases() if not args.case or any(x in c.label for x in args.case)]
    if not chosen:
        parser.error(f"--case matches no case; cases: {[c.label for c in cases()]}")
    bench_cases(chosen, args.seconds, args.key)


if __name__ == "__main__":
    main()
