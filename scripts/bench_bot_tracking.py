"""A heuristic bot's card tracking: the whole history copied each decision versus the new moves.

Usage: python scripts/bench_bot_tracking.py [--games 20] [--preset complots-ambassador-6]

Plays games of heuristic bots and, at every decision, brings two trackers of the seat to move
up to date side by side: one given the seat's whole token list (what the bots did until
2026-12-06), one given only the tokens since its last call (what they do now). Prints the
time of each and their ratio, and checks that both know the same.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.play.bots import make_bot
from complots_solver.play.cards import CardTracker
from complots_solver.rules.presets import resolve_game


def main() -> None:
    """Time both ways of tracking over the same games and print the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--preset", default="complots-ambassador-6")
    args = ap.parse_args()
    config = resolve_game(args.preset)[0]
    game = pyspiel.load_game(config.game_string())
    n = config.players
    rng = np.random.default_rng(0)
    whole = incremental = 0.0
    decisions = 0
    for g in range(args.games):
        bots = [make_bot("brazen", config, np.random.default_rng([g, p])) for p in range(n)]
        full = [CardTracker(config, p) for p in range(n)]
        tail = [CardTracker(config, p) for p in range(n)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outs, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outs[rng.choice(len(outs), p=np.asarray(probs) / sum(probs))])
                continue
            p = state.current_player()
            t0 = time.perf_counter()
            full[p].update(state.view_tokens(p))
            t1 = time.perf_counter()
            tail[p].extend(state.view_tokens(p, tail[p].processed))
            t2 = time.perf_counter()
            whole += t1 - t0
            incremental += t2 - t1
            decisions += 1
            assert (full[p].hand == tail[p].hand).all() and full[p].processed == tail[p].processed
            state.apply_action(bots[p].step(state))
    print(f"{args.preset}: {args.games} games of brazen bots, {decisions} decisions")
    print(f"whole history each decision: {whole * 1e6 / decisions:8.1f} us a decision")
    print(f"new moves only:              {incremental * 1e6 / decisions:8.1f} us a decision")
    print(f"ratio: {whole / incremental:.1f}x")


if __name__ == "__main__":
    main()
