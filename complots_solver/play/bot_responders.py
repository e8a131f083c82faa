"""The heuristic bots as fixed responders to a strategy: each gives an exploitability lower bound.

A fixed bot is one particular strategy of the responder's seat, so its mean
return against the strategy, averaged over the two seats, is on its own a
lower bound on the strategy's exploitability (NashConv / 2); the largest
over several bots is the strongest such bound.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.play.bots import make_bot
from complots_solver.rules.config import GameConfig
from complots_solver.rules.stats import combined_bound
from complots_solver.solvers.bounds.measure import Bound, bound_from_returns
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

SEED = 0


def bot_values(directory: str | Path, bots: list[str], games: int) -> dict[str, Any]:
    """Each heuristic bot's mean return against the keyed strategy, per seat, with a 95% CI.

    Every bot is a fixed responder, so each bot's ``(v_0 + v_1) / 2`` is on its
    own a valid estimate of a lower bound on the exploitability.
    """
    if games < 2:
        raise ValueError(f"games must be >= 2 (a standard error needs two), got {games}")
    policy = KeyedPolicy.load(directory)
    config = policy.config
    game = pyspiel.load_game(config.game_string())
    rng = np.random.default_rng(SEED)
    out: dict[str, Any] = {}
    for name in bots:
        values, errors = [], []
        for seat in range(config.players):
            bot = make_bot(name, config, np.random.default_rng(SEED + seat))
            returns = []
            for _ in range(games):
                bot.restart()
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                        state.apply_action(int(rng.choice(outcomes, p=probs)))
                    elif state.current_player() == seat:
                        state.apply_action(bot.step(state))
                    else:
                        probs = policy.probabilities(state, state.current_player())
                        actions = list(probs)
                        weights = np.array([probs[a] for a in actions])
                        state.apply_action(int(rng.choice(actions, p=weights / weights.sum())))
                returns.append(state.returns()[seat])
            values.append(float(np.mean(returns)))
            errors.append(float(np.std(returns, ddof=1) / np.sqrt(games)))
        bound, low, high = combined_bound(values, errors)
        out[name] = {
            "lower_bound": bound,
            "ci95": [low, high],
            "values": values,
            "stderr": errors,
            "games_per_seat": games,
        }
        print(name, out[name], flush=True)
    return out


def bot_bound(
    config: GameConfig,
    strategy: str,
    bot: str,
    games: int,
    seed: int,
    value: tuple[float, float, str],
    workers: int = 1,
) -> Bound:
    """``bot`` as a fixed responder to the bot spec ``strategy``, ``games`` games in each seat.

    The games are the tournament's (:func:`~complots_solver.play.tournament.run_tournament`
    with the two bots: the same seed gives the same games for any ``workers``);
    ``value`` is the strategy's own seat-0 value, its standard error and how
    it was computed (for the per-seat gains; the bound itself needs none).
    """
    from complots_solver.play.tournament import run_tournament

    if config.players != 2:
        raise ValueError(f"players: bot bounds are for 2-player games, not {config.players}")
    if games < 2:
        raise ValueError(f"games: at least 2, got {games}")
    start = time.perf_counter()
    result = run_tournament(config, [strategy, bot], games, seed, workers)
    seconds = (time.perf_counter() - start) / 2  # both seats' games, played together
    per_seat: list[tuple[np.ndarray, float, dict[str, object]]] = [
        (
            np.array(
                [
                    0.0 if r.capped else (1.0 if r.winner == seat else -1.0)
                    for r in result.records
                    if r.seats[seat] == bot
                ]
            ),
            seconds,
            {},
        )
        for seat in (0, 1)
    ]
    how = (
        f"the '{bot}' bot as a fixed responder (a heuristic strategy, not a best response): "
        f"{games} games per seat, tournament seed {seed}"
    )
    return bound_from_returns(f"bot:{bot}", how, per_seat, value)
