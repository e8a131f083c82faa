"""Where an MCCFR visit's time goes: the rules core, then each part a visit adds.

Usage:
    python scripts/visit_costs.py walk [GAME] [--seconds 1] [--rounds 4]
    python scripts/visit_costs.py pages [--megabytes 512]

``walk`` times, level by level, what an MCCFR visit adds to a rules step;
``pages`` random access on 4 KiB against huge pages. Both are described in
:mod:`complots_solver.lab.mccfr.visit_costs`.
"""

from __future__ import annotations

import argparse

from complots_solver.lab.mccfr.visit_costs import pages, walk


def main() -> None:
    """Parse the command line and run a measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("walk", help="cost of each part of a visit")
    w.add_argument("game", nargs="?", default="ladder-2-ambassador")
    w.add_argument("--seconds", type=float, default=1.0)
    w.add_argument("--rounds", type=int, default=4)
    p = sub.add_parser("pages", help="random access on 4 KiB against huge pages")
    p.add_argument("--megabytes", type=int, default=512)
    args = parser.parse_args()
    if args.command == "walk":
        walk(args.game, args.seconds, args.rounds)
    else:
        pages(args.megabytes)


if __name__ == "__main__":
    main()
