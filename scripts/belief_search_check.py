"""Exact exploitability of the search player of ladder runs (their value networks, one-turn subgames).

Usage: python scripts/belief_search_check.py ladder-3-ambassador RUN_DIR|none [...] [--iterations N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.belief.search_exact import search_exploitability
from complots_solver.solvers.belief.valuenet import ValueNet


def main() -> None:
    """Print each run's exact search exploitability and seat 0's value."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset")
    parser.add_argument(
        "runs", nargs="+", help="run folders with value-net.npz, or 'none' (leaf 0)"
    )
    parser.add_argument("--iterations", type=int, default=48, help="CFR+ iterations per subgame")
    args = parser.parse_args()
    config, _ = resolve_game(args.preset)
    for run in args.runs:
        net = None if run == "none" else ValueNet.load(Path(run) / "value-net.npz")
        start = time.perf_counter()
        out = search_exploitability(config, net, SearchSettings(iterations=args.iterations))
        print(run, out, f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
