"""A strategy against each bot (both seatings): python scripts/belief_gauntlet.py GAME BOT."""

from __future__ import annotations

import argparse
import json

import complots_solver  # noqa: F401  (configures numba and BLAS before numpy loads)
from complots_solver.lab.play.gauntlet import DEFAULT_OPPONENTS, gauntlet, markdown
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Print the gauntlet as markdown, then as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("bot", help="e.g. net:runs/belief/draft-amb or solved")
    parser.add_argument("--games", type=int, default=40, help="games per seating")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS))
    args = parser.parse_args()
    config, _ = resolve_game(args.game)
    rows = gauntlet(config, args.bot, args.opponents, args.games, args.seed, args.workers)
    print(markdown(rows))
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
