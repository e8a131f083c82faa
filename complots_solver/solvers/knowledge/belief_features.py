"""Features of a public belief state and per-hand values, for the value network (2 players).

Seen from the player to move ("me") at a turn start, a public belief state
is described by the public position (coins, cards left, face-up cards, turn)
and by each player's hand distribution under the belief (the marginal over
the 20 hands of one or two cards). The value network returns, for each
player, the expected utility of holding each hand; a hypothesis at a
depth-limit leaf takes the value of its hand for the player whose regrets
are being computed (a counterfactual value per information state, spread
over that state's hypotheses).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import (
    C_MAX_TURNS,
    MS_PAIR,
    NUM_MULTISETS,
    S_COINS,
    S_CUR,
    S_HIDDEN,
    S_REVEALED,
    S_TURN,
)

COIN_SCALE = 12.0
F_PUBLIC = 4 + 2 * NUM_CLANS + 1
F_HANDS = F_PUBLIC  # me: NUM_MULTISETS marginals, then the opponent's
NUM_FEATURES = F_PUBLIC + 2 * NUM_MULTISETS
NUM_OUTPUTS = 2 * NUM_MULTISETS  # my value per hand, then the opponent's


@njit(cache=True, inline="always")
def turn_scale(cfg: np.ndarray) -> float:
    """What the turn number is divided by in the features: the game's turn cap.

    The turn feature is then the share of the game played, which is what a
    value depends on near the cap (ladder rungs end after a few turns); on
    the 200-turn full game it equals the turn divided by 200, as the
    shipped networks were trained.
    """
    return float(cfg[C_MAX_TURNS])


@njit(cache=True, inline="always")
def hand_index(s, p):
    """Index (layout multisets) of player p's face-down cards; -1 with none."""
    first = -1
    second = -1
    total = 0
    for c in range(NUM_CLANS):
        n = s[S_HIDDEN + p * NUM_CLANS + c]
        for _ in range(n):
            if first < 0:
                first = c
            else:
                second = c
            total += 1
    if total == 0:
        return -1
    if total == 1:
        return first
    return MS_PAIR[first * NUM_CLANS + second]


@njit(cache=True)
def public_features(s, out, turn_scale):
    """Public part of the features of a turn-start state, seen by the player to move."""
    me = s[S_CUR]
    opp = 1 - me
    out[0] = s[S_COINS + me] / COIN_SCALE
    out[1] = s[S_COINS + opp] / COIN_SCALE
    alive_me = 0
    alive_opp = 0
    for c in range(NUM_CLANS):
        alive_me += s[S_HIDDEN + me * NUM_CLANS + c]
        alive_opp += s[S_HIDDEN + opp * NUM_CLANS + c]
        out[4 + c] = s[S_REVEALED + me * NUM_CLANS + c]
        out[4 + NUM_CLANS + c] = s[S_REVEALED + opp * NUM_CLANS + c]
    out[2] = 1.0 if alive_me >= 2 else 0.0
    out[3] = 1.0 if alive_opp >= 2 else 0.0
    out[4 + 2 * NUM_CLANS] = s[S_TURN] / turn_scale


@njit(cache=True)
def group_features(states, weights, group, num_groups, out, turn_scale):
    """Features of each group of hypotheses (one public node each), belief from ``weights``.

    Returns the total weight of each group (0: unreachable, features zero).
    """
    totals = np.zeros(num_groups)
    for g in range(num_groups):
        for f in range(out.shape[1]):
            out[g, f] = 0.0
    seen = np.zeros(num_groups, dtype=np.bool_)
    for h in range(states.shape[0]):
        g = group[h]
        s = states[h]
        if not seen[g]:
            public_features(s, out[g], turn_scale)
            seen[g] = True
        w = weights[h]
        if w <= 0.0:
            continue
        me = s[S_CUR]
        totals[g] += w
        hm = hand_index(s, me)
        ho = hand_index(s, 1 - me)
        if hm >= 0:
            out[g, F_HANDS + hm] += w
        if ho >= 0:
            out[g, F_HANDS + NUM_MULTISETS + ho] += w
    for g in range(num_groups):
        if totals[g] > 0.0:
            for f in range(F_HANDS, F_HANDS + 2 * NUM_MULTISETS):
                out[g, f] /= totals[g]
    return totals


@njit(cache=True)
def spread_values(states, group, outputs, player, values):
    """Seat-0 value of each hypothesis for ``player``'s pass: its hand's value in ``outputs``."""
    for h in range(states.shape[0]):
        s = states[h]
        me = s[S_CUR]
        row = outputs[group[h]]
        hand = hand_index(s, player)
        if hand < 0:
            values[h] = 0.0
            continue
        v = row[hand] if player == me else row[NUM_MULTISETS + hand]
        values[h] = v if player == 0 else -v


@njit(cache=True)
def hand_targets(states, weights, seat_values, out, mask):
    """Targets at a root: each player's expected utility per hand, seen by the player to move.

    ``seat_values[h, p]`` is seat 0's value of hypothesis h in player p's pass;
    ``weights[h, p]`` weighs h in player p's per-hand means; returns each
    output's total weight.
    """
    for f in range(out.shape[0]):
        out[f] = 0.0
        mask[f] = 0.0
    sums = np.zeros(2 * NUM_MULTISETS)
    for h in range(states.shape[0]):
        s = states[h]
        me = s[S_CUR]
        for p in range(2):
            w = weights[h, p]
            hand = hand_index(s, p)
            if w <= 0.0 or hand < 0:
                continue
            slot = hand if p == me else NUM_MULTISETS + hand
            u = seat_values[h, p] if p == 0 else -seat_values[h, p]
            out[slot] += w * u
            sums[slot] += w
    for f in range(out.shape[0]):
        if sums[f] > 0.0:
            out[f] /= sums[f]
            mask[f] = 1.0
    return sums
