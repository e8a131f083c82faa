"""Search size per turn start (hypotheses, one-turn public tree) for each game given.

python scripts/belief_subgame_sizes.py "complots(players=3,lineup=ambassador)" draft-c2-expert
"""

from __future__ import annotations

import argparse

from complots_solver.lab.belief.sizes import turn_sizes
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Print one line per turn start of each game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", help="presets or game strings")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--first-turn", type=int, default=0)
    args = parser.parse_args()
    for name in args.games:
        config, _ = resolve_game(name)
        for t in turn_sizes(config.game_string(), args.seeds, args.turns, args.first_turn):
            rows = (
                "over the cap" if t.rows is None else f"{t.rows:,} rows, {t.public_nodes:,} nodes"
            )
            print(
                f"{name} seed {t.seed} turn {t.turn}: {t.hypotheses:,} hypotheses, {rows}, "
                f"{t.seconds:.2f} s"
            )


if __name__ == "__main__":
    main()
