"""A first value network for the belief solver, fitted to the results of games between the bots.

Self-play training starts from a network that knows nothing: it must learn
from the end of the game backwards, one turn per round. Fitting it first to
who won games between the heuristic bots (from each turn start, the two
hands held and the result) gives it the broad facts at once (cards and coins
are worth having, some hands are better than others); self-play then
corrects it towards the values of equilibrium play. The belief part of the
features is set to the uniform distribution over the hands each player could
hold (the bots' games carry no equilibrium belief).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from complots_solver.play.tournament import play_game_bots
from complots_solver.rules import view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import MS_SIZE2_BASE, NUM_MULTISETS
from complots_solver.solvers.knowledge.belief_features import (
    F_HANDS,
    NUM_FEATURES,
    NUM_OUTPUTS,
    hand_index,
    public_features,
    turn_scale,
)
from complots_solver.solvers.nets.valuenet import Adam, ValueNet

DEFAULT_BOTS = ("counter", "honest", "bluffer", "skeptic", "brazen", "trusting")


def _uniform_hands(cards: int) -> np.ndarray:
    out = np.zeros(NUM_MULTISETS, dtype=np.float32)
    if cards == 1:
        out[:MS_SIZE2_BASE] = 1.0 / MS_SIZE2_BASE
    elif cards == 2:
        out[MS_SIZE2_BASE:] = 1.0 / (NUM_MULTISETS - MS_SIZE2_BASE)
    return out


def bot_game_examples(
    config: GameConfig, games: int, seed: int = 0, bots: tuple[str, ...] = DEFAULT_BOTS
) -> tuple[np.ndarray, ...]:
    """(features, targets, masks) from every turn start of ``games`` games between random pairs of bots."""
    if config.players != 2:
        raise ValueError("players: bot pretraining is for 2-player games")
    game = pyspiel.load_game(config.game_string())
    rng = np.random.default_rng([seed, 11])
    scale = turn_scale(config.to_array())
    feats, targets, masks = [], [], []
    for g in range(games):
        specs = [bots[int(rng.integers(len(bots)))] for _ in range(2)]
        starts: list[np.ndarray] = []
        last_turn = [-1]

        def record(state, bot, action, starts=starts, last_turn=last_turn):
            s = state.s
            if view.stage(s) == Stage.ACTION and view.turn(s) != last_turn[0]:
                last_turn[0] = view.turn(s)
                starts.append(np.array(s, dtype=np.int32))

        rngs = [np.random.default_rng([seed, g, i]) for i in range(3)]
        winner, _, _ = play_game_bots(game, specs, rngs, on_decision=record)
        for s in starts:
            me = view.current_player(s)
            u_me = 0.0 if winner < 0 else (1.0 if winner == me else -1.0)
            f = np.zeros(NUM_FEATURES, dtype=np.float32)
            public_features(s, f, scale)
            cards_me = view.hand_size(s, me)
            cards_opp = view.hand_size(s, 1 - me)
            f[F_HANDS : F_HANDS + NUM_MULTISETS] = _uniform_hands(cards_me)
            f[F_HANDS + NUM_MULTISETS :] = _uniform_hands(cards_opp)
            t = np.zeros(NUM_OUTPUTS, dtype=np.float32)
            m = np.zeros(NUM_OUTPUTS, dtype=np.float32)
            hm, ho = hand_index(s, me), hand_index(s, 1 - me)
            t[hm], m[hm] = u_me, 1.0
            t[NUM_MULTISETS + ho], m[NUM_MULTISETS + ho] = -u_me, 1.0
            feats.append(f)
            targets.append(t)
            masks.append(m)
    return np.stack(feats), np.stack(targets), np.stack(masks)


def pretrain(
    net: ValueNet,
    examples: tuple[np.ndarray, ...],
    steps: int,
    batch: int = 256,
    lr: float = 1e-3,
    seed: int = 0,
    through_zero_sum: bool = True,
) -> float:
    """Fit ``net`` to bot-game examples; the mean loss of the last tenth of the steps."""
    feats, targets, masks = examples
    opt = Adam(net, lr=lr, through_zero_sum=through_zero_sum)
    rng = np.random.default_rng([seed, 13])
    losses = []
    for _ in range(steps):
        idx = rng.integers(len(feats), size=min(batch, len(feats)))
        losses.append(opt.step(feats[idx], targets[idx], masks[idx]))
    return float(np.mean(losses[-max(1, steps // 10) :]))
