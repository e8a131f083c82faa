"""How two strategies play each other: action mix, bluffs, counters and challenges, by truth.

Usage: python scripts/claim_challenge_stats.py GAME BOT0 BOT1 [--games 300] [--seed 11]

Bots are `complots evaluate` specs (``solved``, ``net:DIR`` such as a responder kept
by ``complots bound --save-responder DIR``, ``honest``...); each plays ``--games``
games in each seat. Prints a Markdown table (complots_solver/lab/play/behaviour.py).
"""

from __future__ import annotations

import argparse

from complots_solver.lab.play.behaviour import behaviour, behaviour_table
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Play the games and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("bots", nargs=2)
    parser.add_argument("--games", type=int, default=300, help="games per seating")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    config, _ = resolve_game(args.game)
    sides = behaviour(config, (args.bots[0], args.bots[1]), args.games, args.seed)
    print(f"{args.game}: {args.games} games in each seating, seed {args.seed}\n")
    print(behaviour_table(sides))


if __name__ == "__main__":
    main()
