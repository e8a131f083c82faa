"""Public-tree build speed: the compiled build_public_tree against the pure-Python reference.

Usage: python scripts/bench_belief_build.py [--game draft-ambassador] [--subgames 20] [--repeats 3] [--seed 0]

Builds the one-turn CANONICAL subgame (what belief search solves at every
decision) from self-play-like roots: the initial state and the exact
beliefs at the turn starts of random games. Both implementations build every
subgame alternately in this one process; each time is the best of
``--repeats``.
"""

from __future__ import annotations

import argparse

import numpy as np

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.public_tree import random_beliefs, time_builds

MS_PER_S = 1e3


def main() -> None:
    """Print each subgame's size and both build times, then the totals and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="draft-ambassador")
    parser.add_argument("--subgames", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cfg = resolve_game(args.game)[0].to_array()
    roots = random_beliefs(cfg, args.subgames, args.seed)
    fast, reference = time_builds(cfg, roots, repeats=args.repeats)
    print(f"{args.game}: {len(roots)} one-turn subgames, best of {args.repeats}")
    print(f"{'root hyps':>9} {'compiled ms':>12} {'reference ms':>13} {'ratio':>7}")
    for root, f, r in zip(roots, fast, reference, strict=True):
        print(f"{len(root):>9} {f * MS_PER_S:>12.1f} {r * MS_PER_S:>13.1f} {r / f:>7.1f}")
    print(
        f"mean per subgame: compiled {np.mean(fast) * MS_PER_S:.1f} ms, "
        f"reference {np.mean(reference) * MS_PER_S:.1f} ms, "
        f"ratio {np.sum(reference) / np.sum(fast):.1f}x (median per subgame "
        f"{np.median(reference / fast):.1f}x)"
    )


if __name__ == "__main__":
    main()
