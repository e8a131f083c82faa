"""The belief core on the exact ladder: `memories` (sizes and losses of each memory) or `curve`."""

from __future__ import annotations

import argparse
import json

import complots_solver  # noqa: F401  (configures numba and BLAS before numpy loads)
from complots_solver.lab.belief.ladder import curve_rows, memory_rows
from complots_solver.solvers.knowledge.hypotheses import Memory

RUNGS = ["ladder-1-ambassador", "ladder-1-inquisitor", "ladder-2-ambassador", "ladder-2-inquisitor"]


def main() -> None:
    """Print one JSON line per measurement."""
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    mem = sub.add_parser("memories")
    mem.add_argument("--games", nargs="+", default=RUNGS)
    mem.add_argument("--iterations", type=int, default=300)
    cur = sub.add_parser("curve")
    cur.add_argument("game")
    cur.add_argument("--target", type=float, default=1e-3)
    cur.add_argument("--memory", choices=[m.name for m in Memory], default="CANONICAL")
    cur.add_argument("--exact", action="store_true", help="also map onto the history tree")
    args = parser.parse_args()
    if args.command == "memories":
        rows = memory_rows(args.games, args.iterations)
    else:
        rows = curve_rows(args.game, args.target, Memory[args.memory], exact=args.exact)
    for row in rows:
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
