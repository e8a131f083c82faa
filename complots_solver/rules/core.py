"""The rules of Complots as pure, numba-compiled functions over flat arrays.

This module is the single entry to the rules: the OpenSpiel game, the
simulators and the solvers all step games through it. A state is an
``int32`` array laid out by :mod:`complots_solver.rules.layout`; ``cfg`` is the
configuration array built by :class:`complots_solver.rules.config.GameConfig`.

Decisions of ``docs/rules.md`` are marked ``D-n`` where they act.
Functions named ``_x`` mutate ``s`` in place; the public functions are
``initial_state``, ``legal_actions``, ``chance_outcomes``, ``apply_action``,
``returns``, ``observation_token`` and ``random_playouts``.

The rules core is split by what each part does, and this module offers every
public name of the parts: the amounts, small helpers, setup and turn flow
(:mod:`~complots_solver.rules.basics`), losing influence and the Complots 2
powers (:mod:`~complots_solver.rules.powers`), applying an action
(:mod:`~complots_solver.rules.transitions`) and the legal actions and chance
outcomes (:mod:`~complots_solver.rules.legal`). Returns, what each player
observes, chance sampling and random playouts are here. The ``_x`` steps are
shared between the parts, which import them from one another.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.basics import (
    _CHANCE,
    ASSASSINATE_COST,
    BLACKMAIL_AMOUNT,
    COUP_COST,
    DONATE_GAIN,
    DONATE_GIFT,
    EXECUTE_PAYMENT,
    FORCED_COUP_COINS,
    FOREIGN_AID_GAIN,
    ILLUSION_GAIN,
    ILLUSION_KEEP,
    ILLUSION_SHARE,
    INCOME_GAIN,
    JUSTICE_KEEP,
    JUSTICE_TAKE,
    KIND_CLAN,
    PUBLIC_VIEWER,
    SPY_DRAW_COST,
    STEAL_AMOUNT,
    TAX_GAIN,
    TITHE_AMOUNT,
    WITCH_GAIN,
    WITCH_MIN_CARDS,
    c2_base,
    c2_donate,
    character_of,
    claim_of,
    copy_state,
    court_size,
    hidden_count,
    initial_state,
    is_alive,
    reset_state,
    target_of_action,
)
from complots_solver.rules.compiled import borrow, hot, inline, keep_alive
from complots_solver.rules.enums import NUM_CLANS, Clan, Context, Stage, TokenKind
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_REVEAL,
    A_TARGETED,
    C_PLAYERS,
    HIDDEN_VALUE,
    KIND_SLOTS,
    MS_PAIR,
    S_ACTOR,
    S_CLAIM,
    S_CLAIMANT,
    S_CLAIMED,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_COURT,
    S_CTX,
    S_CUR,
    S_DEAL_NEXT,
    S_DRAWER,
    S_HIDDEN,
    S_STAGE,
    S_TURN,
    S_WINNER,
    S_WITCH_CLAN,
    STAGE_SLOTS,
    VALUE_SLOTS,
    WHO_SLOTS,
)
from complots_solver.rules.legal import (
    chance_outcomes_into,
    chance_size,
    legal_actions_into,
)
from complots_solver.rules.powers import (
    REVEAL_GAME_OVER,
    REVEAL_GOES_ON,
    REVEAL_WINDOW,
    is_poorest,
)
from complots_solver.rules.transitions import apply_action

__all__ = [
    "ASSASSINATE_COST",
    "BLACKMAIL_AMOUNT",
    "COUP_COST",
    "DONATE_GAIN",
    "DONATE_GIFT",
    "EXECUTE_PAYMENT",
    "FORCED_COUP_COINS",
    "FOREIGN_AID_GAIN",
    "ILLUSION_GAIN",
    "ILLUSION_KEEP",
    "ILLUSION_SHARE",
    "INCOME_GAIN",
    "JUSTICE_KEEP",
    "JUSTICE_TAKE",
    "KIND_CLAN",
    "PUBLIC_VIEWER",
    "REVEAL_GAME_OVER",
    "REVEAL_GOES_ON",
    "REVEAL_WINDOW",
    "SPY_DRAW_COST",
    "STEAL_AMOUNT",
    "TAX_GAIN",
    "TITHE_AMOUNT",
    "WITCH_GAIN",
    "WITCH_MIN_CARDS",
    "apply_action",
    "c2_base",
    "c2_donate",
    "chance_outcomes_into",
    "chance_size",
    "character_of",
    "claim_of",
    "copy_state",
    "court_size",
    "hidden_count",
    "initial_state",
    "is_alive",
    "is_poorest",
    "legal_actions_into",
    "observation_token",
    "observation_tokens_into",
    "random_playouts",
    "reset_state",
    "return_of",
    "returns_into",
    "sample_chance",
    "sample_chance_fast",
    "target_of_action",
]


@inline
def return_of(s, cfg, p):
    """Terminal utility of seat ``p`` (D-10: +1 to the winner, -1/(n-1) to the others)."""
    w = s[S_WINNER]
    if s[S_STAGE] != Stage.TERMINAL or w < 0:
        return 0.0
    return 1.0 if p == w else -1.0 / (cfg[C_PLAYERS] - 1)


@hot
def returns_into(s, cfg, out):
    """Terminal utilities of every seat (see :func:`return_of`)."""
    for p in range(cfg[C_PLAYERS]):
        out[p] = return_of(s, cfg, p)


# ---- what each player sees (docs/rules.md section 6) -----------------
@inline
def _token(kind, stage, who, value):
    # Complots 2 stages (>= STAGE_SLOTS) set kind + KIND_SLOTS: Complots 1 tokens keep their values.
    hi = stage // STAGE_SLOTS
    kind = kind + KIND_SLOTS * hi
    stage = stage - STAGE_SLOTS * hi
    return ((kind * STAGE_SLOTS + stage) * WHO_SLOTS + who) * VALUE_SLOTS + value


@inline
def observation_token(s, a, viewer):
    """What `viewer` observes when `a` is applied to `s` (before applying).

    A player's perfect-recall information state is the sequence of these
    tokens; private values are replaced by HIDDEN_VALUE for other viewers.
    """
    st = s[S_STAGE]
    cur = s[S_CUR]
    if cur == _CHANCE:
        if st == Stage.DEAL:
            who = s[S_DEAL_NEXT]
        else:
            who = s[S_DRAWER]
        if viewer == who:
            return _token(TokenKind.PRIVATE, st, who, a)
        return _token(TokenKind.HIDDEN, st, who, HIDDEN_VALUE)
    if st == Stage.PICK or st == Stage.EXCHANGE_KEEP:
        if viewer == cur:
            return _token(TokenKind.PRIVATE, st, cur, a)
        return _token(TokenKind.HIDDEN, st, cur, HIDDEN_VALUE)
    if st == Stage.EXAMINE_SHOW:
        if viewer == cur or viewer == s[S_ACTOR]:
            return _token(TokenKind.PRIVATE, st, cur, a)
        return _token(TokenKind.HIDDEN, st, cur, HIDDEN_VALUE)
    if (st == Stage.CHALLENGE_LOSS or st == Stage.EFFECT_LOSS) and a >= A_TARGETED:
        # a Sorciere claim: everyone sees the claim, only the claimant the card lost
        if viewer == cur:
            return _token(TokenKind.PRIVATE, st, cur, a)
        return _token(TokenKind.HIDDEN, st, cur, HIDDEN_VALUE)
    if a == A_CHALLENGE:
        if st == Stage.CHALLENGE:
            true_claim = s[S_HIDDEN + s[S_ACTOR] * NUM_CLANS + s[S_CLAIM]] > 0
        elif st == Stage.COUNTER_CHALLENGE:
            true_claim = s[S_HIDDEN + s[S_COUNTERER] * NUM_CLANS + s[S_COUNTER_CLAN]] > 0
        elif s[S_CTX] == Context.WITCH:
            # the card lost face down is turned face up: the token names it
            shown = A_REVEAL + s[S_WITCH_CLAN]
            if s[S_WITCH_CLAN] == Clan.UNTOUCHABLE:
                return _token(TokenKind.CHALLENGE_TRUE, st, cur, shown)
            return _token(TokenKind.CHALLENGE_FALSE, st, cur, shown)
        else:
            true_claim = s[S_HIDDEN + s[S_CLAIMANT] * NUM_CLANS + s[S_CLAIMED]] > 0
        if true_claim:
            return _token(TokenKind.CHALLENGE_TRUE, st, cur, a)
        return _token(TokenKind.CHALLENGE_FALSE, st, cur, a)
    return _token(TokenKind.PUBLIC, st, cur, a)


@hot
def observation_tokens_into(s, cfg, a, out):
    """observation_token for every seat, then the public view at out[players]."""
    n = cfg[C_PLAYERS]
    for p in range(n):
        out[p] = observation_token(s, a, p)
    out[n] = observation_token(s, a, PUBLIC_VIEWER)


# ---- random playouts (benchmarks, simulation) --------------------------------
@inline
def sample_chance(s, cfg, rng, outcomes, probs):
    """Sample one chance outcome with its exact probability."""
    k = chance_outcomes_into(s, cfg, outcomes, probs)
    r = rng.random()
    acc = 0.0
    for i in range(k):
        acc += probs[i]
        if r < acc:
            return outcomes[i]
    return outcomes[k - 1]


@hot
def _draw_one(s, rng, total, skip):
    """A clan drawn uniformly from the Court's cards, one card of `skip` set aside."""
    r = int(rng.random() * total)
    for c in range(NUM_CLANS):
        r -= s[S_COURT + c] - (1 if c == skip else 0)
        if r < 0:
            return c
    return NUM_CLANS - 1


@hot
def sample_chance_fast(s, cfg, rng):
    """Sample a chance outcome by drawing cards one at a time (no probability table).

    Same distribution as `sample_chance` (drawing two cards in turn without
    replacement gives the multiset's hypergeometric probability), but a
    different random stream; used by random playouts.
    """
    total = court_size(s)
    a = _draw_one(s, rng, total, -1)
    if chance_size(s, cfg) == 1:
        return a
    b = _draw_one(s, rng, total - 1, a)
    return MS_PAIR[min(a, b) * NUM_CLANS + max(a, b)]


@njit(cache=True)
def random_playouts(cfg, games, rng, stats, wins):
    """Play `games` uniformly random games; return the total transitions.

    stats[0] += games that hit the turn cap, stats[1] += total turns;
    wins[p] += games won by seat p.
    """
    buf_own = np.empty(256, dtype=np.int32)
    s_own = initial_state(cfg)
    buf = borrow(buf_own)
    s = borrow(s_own)
    cfg = borrow(cfg)
    steps = 0
    for _ in range(games):
        reset_state(s, cfg)
        while s[S_STAGE] != Stage.TERMINAL:
            if s[S_CUR] == _CHANCE:
                a = sample_chance_fast(s, cfg, rng)
            else:
                k = legal_actions_into(s, cfg, buf)
                a = buf[int(rng.random() * k)]
            apply_action(s, cfg, a)
            steps += 1
        if s[S_WINNER] < 0:
            stats[0] += 1
        else:
            wins[s[S_WINNER]] += 1
        stats[1] += s[S_TURN]
    keep_alive(buf_own, s_own)
    return steps
