"""How often a strategy bluffs and challenges: claims by truth and challenge decisions, per seat.

Usage: python scripts/claim_challenge_stats.py GAME BOT0 BOT1 [--games 300] [--seed 11]

Bots are `complots evaluate` specs (e.g. ``policy:runs/long/draft-ambassador``,
``honest``). Counts the action-claim challenge windows: whether the claim was
true (the actor held the clan) and whether the responder challenged. An
equilibrium strategy cannot lose most games to a never-bluffing bot, so a
high challenge rate on true claims is a quick sign of a far-from-equilibrium
strategy (reports/mccfr-runs.md, third session).
"""

from __future__ import annotations

import argparse
from collections import Counter

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.play.tournament import game_rngs, play_game_bots
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import A_CHALLENGE, S_ACTOR, S_CLAIM, S_HIDDEN, S_STAGE
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Play the games and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("bots", nargs=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    config, _ = resolve_game(args.game)
    if config.players != 2:
        raise SystemExit("two-player games only")
    game = pyspiel.load_game(config.game_string())
    counts: Counter[tuple[int, bool, bool]] = Counter()
    wins: Counter[int] = Counter()

    def record(state: pyspiel.State, _bot: object, action: int) -> None:
        if int(state.s[S_STAGE]) == Stage.CHALLENGE:
            actor, clan = int(state.s[S_ACTOR]), int(state.s[S_CLAIM])
            true = bool(state.s[S_HIDDEN + actor * NUM_CLANS + clan] > 0)
            counts[(state.current_player(), true, action == A_CHALLENGE)] += 1

    for g in range(args.games):
        winner, _, _ = play_game_bots(game, args.bots, game_rngs(args.seed, 0, g, 2), record)
        wins[winner] += 1
    print(f"{args.game}: {args.games} games, seat 0 = {args.bots[0]}, seat 1 = {args.bots[1]}")
    print(f"wins: seat 0 {wins[0]}, seat 1 {wins[1]}, draws {wins[-1]}")
    print(f"{'responder':>10s} {'claim':>6s} {'windows':>8s} {'challenged':>11s} {'rate':>6s}")
    for seat in (0, 1):
        for true in (True, False):
            n = counts[(seat, true, True)] + counts[(seat, true, False)]
            c = counts[(seat, true, True)]
            rate = f"{c / n:6.2f}" if n else "     -"
            print(
                f"{'seat ' + str(seat):>10s} {'true' if true else 'bluff':>6s} {n:8d} {c:11d} {rate}"
            )


if __name__ == "__main__":
    main()
