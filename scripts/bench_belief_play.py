"""Per-decision cost of the full-game players on one core: python scripts/bench_belief_play.py."""

from __future__ import annotations

import argparse

import complots_solver  # noqa: F401  (configures numba and BLAS before numpy loads)
from complots_solver.lab.play.timing import decision_timing
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Print one line per (game, bot): mean milliseconds per decision with its interval."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=["draft-ambassador", "draft-inquisitor"])
    parser.add_argument("--bots", nargs="+", default=["solved", "honest"])
    parser.add_argument("--opponent", default="honest")
    parser.add_argument("-n", "--num-games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"{args.num_games} games per line, the timed bot in each seat in turn, one process (one core)"
    )
    for name in args.games:
        config, _ = resolve_game(name)
        for bot in args.bots:
            print(
                name, decision_timing(config, bot, args.opponent, args.num_games, args.seed).line()
            )


if __name__ == "__main__":
    main()
