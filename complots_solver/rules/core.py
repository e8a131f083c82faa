"""The rules of Complots as pure, numba-compiled functions over flat arrays.

This module is the single implementation of the rules: the OpenSpiel game,
the simulators and the solvers all step games through it. A state is an
``int32`` array laid out by :mod:`complots_solver.rules.layout`; ``cfg`` is the
configuration array built by :class:`complots_solver.rules.config.GameConfig`.

Decisions of ``../shared/RULES.md`` are marked ``D-n`` where they act.
Functions named ``_x`` mutate ``s`` in place; the public functions are
``initial_state``, ``legal_actions``, ``chance_outcomes``, ``apply_action``,
``returns``, ``observation_token`` and ``random_playouts``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Clan,
    Context,
    Lineup,
    PlayerId,
    Stage,
    TokenKind,
    Variant,
)
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_EXCHANGE,
    A_FORCE_SWAP,
    A_FOREIGN_AID,
    A_INCOME,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_RETURN_CARD,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    A_TAX,
    C_COPIES,
    C_EXCHANGE_DRAW,
    C_INFLUENCE,
    C_LINEUP,
    C_MAX_TURNS,
    C_PLAYERS,
    C_START_COINS,
    C_TOTAL_COINS,
    C_VARIANT,
    HIDDEN_VALUE,
    MS_FIRST,
    MS_PAIR,
    MS_SECOND,
    MS_SIZE2_BASE,
    NUM_MULTISETS,
    S_ACT,
    S_ACTOR,
    S_CHALLENGER,
    S_CLAIM,
    S_CLAIM_TRUE,
    S_COINS,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_COURT,
    S_CTX,
    S_CUR,
    S_DEAL_NEXT,
    S_DRAW_N,
    S_DRAWER,
    S_HIDDEN,
    S_KEEP_N,
    S_LOSER,
    S_OUT,
    S_RESP,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_TURN,
    S_WINNER,
    STAGE_SLOTS,
    STATE_SIZE,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
    VALUE_SLOTS,
    WHO_SLOTS,
)

COUP_COST = 7
ASSASSINATE_COST = 3
FORCED_COUP_COINS = 10  # D-1
INCOME_GAIN = 1
FOREIGN_AID_GAIN = 2
TAX_GAIN = 3
STEAL_AMOUNT = 2

PUBLIC_VIEWER = -1  # a viewer who holds no cards: sees public information only
_CHANCE = int(PlayerId.CHANCE)
_TERMINAL = int(PlayerId.TERMINAL)


# ---- small helpers -----------------------------------------------------------
@njit(cache=True)
def hidden_count(s, p):
    """Number of face-down cards of player p."""
    base = S_HIDDEN + p * NUM_CLANS
    total = 0
    for c in range(NUM_CLANS):
        total += s[base + c]
    return total


@njit(cache=True)
def is_alive(s, p):
    """Whether player p still has a face-down card."""
    return hidden_count(s, p) > 0


@njit(cache=True)
def court_size(s):
    """Number of cards in the Court."""
    total = 0
    for c in range(NUM_CLANS):
        total += s[S_COURT + c]
    return total


@njit(cache=True)
def _next_living(s, cfg, p, skip):
    """The next living seat clockwise after p, never `skip` (-1: none)."""
    n = cfg[C_PLAYERS]
    q = p
    for _ in range(n):
        q = (q + 1) % n
        if q != skip and is_alive(s, q):
            return q
    return p


@njit(cache=True)
def _gain(s, p, amount):
    """Pay p from the treasury; D-4: a gain is cut to what the treasury holds."""
    g = min(amount, s[S_TREASURY])
    s[S_TREASURY] -= g
    s[S_COINS + p] += g


@njit(cache=True)
def _pay(s, p, amount):
    s[S_COINS + p] -= amount
    s[S_TREASURY] += amount


@njit(cache=True)
def target_of_action(cfg, a):
    """(ActionKind, target) of an ACTION-stage action id."""
    if a == A_INCOME:
        return ActionKind.INCOME, -1
    if a == A_FOREIGN_AID:
        return ActionKind.FOREIGN_AID, -1
    if a == A_TAX:
        return ActionKind.TAX, -1
    if a == A_EXCHANGE:
        return ActionKind.EXCHANGE, -1
    n = cfg[C_PLAYERS]
    block = (a - A_TARGETED) // n
    target = (a - A_TARGETED) % n
    if block == T_COUP:
        return ActionKind.COUP, target
    if block == T_ASSASSINATE:
        return ActionKind.ASSASSINATE, target
    if block == T_STEAL:
        return ActionKind.STEAL, target
    return ActionKind.EXAMINE, target


@njit(cache=True)
def claim_of(kind):
    """Clan claimed by an action kind, -1 for the general actions."""
    if kind == ActionKind.TAX:
        return Clan.COLLECTOR
    if kind == ActionKind.ASSASSINATE:
        return Clan.ASSASSIN
    if kind == ActionKind.STEAL:
        return Clan.THIEF
    if kind == ActionKind.EXCHANGE or kind == ActionKind.EXAMINE:
        return Clan.NEGOTIATOR
    return -1


# ---- setup -------------------------------------------------------------------
@njit(cache=True)
def initial_state(cfg):
    """The state before the deal: coins handed out, deck in Court (and piles)."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    reset_state(s, cfg)
    return s


@njit(cache=True)
def reset_state(s, cfg):
    """Overwrite `s` with the state before the deal (no allocation)."""
    s[:] = -1
    s[S_COINS:] = 0
    n = cfg[C_PLAYERS]
    handed = 0
    for p in range(n):
        s[S_COINS + p] = cfg[C_START_COINS + p]
        handed += cfg[C_START_COINS + p]
    s[S_TREASURY] = cfg[C_TOTAL_COINS] - handed
    s[S_TURN] = 0
    s[S_DEAL_NEXT] = 0
    s[S_DRAW_N] = 0
    s[S_KEEP_N] = 0
    copies = cfg[C_COPIES]
    for c in range(NUM_CLANS):
        if cfg[C_VARIANT] == Variant.DRAFT:
            # Pile 3 is the only pile chance deals from; piles 1 and 2 are
            # the players' own piles, out of the game unless picked.
            s[S_COURT + c] = 1
            s[S_OUT + c] = copies - 1
        else:
            s[S_COURT + c] = copies
    s[S_STAGE] = Stage.DEAL
    s[S_CUR] = _CHANCE


@njit(cache=True)
def _start_turn(s, p):
    s[S_STAGE] = Stage.ACTION
    s[S_CUR] = p
    s[S_ACTOR] = p
    s[S_ACT] = -1
    s[S_TARGET] = -1
    s[S_CLAIM] = -1
    s[S_RESP] = -1
    s[S_CHALLENGER] = -1
    s[S_COUNTERER] = -1
    s[S_COUNTER_CLAN] = -1
    s[S_LOSER] = -1
    s[S_CTX] = -1
    s[S_CLAIM_TRUE] = -1
    s[S_DRAWER] = -1
    s[S_DRAW_N] = 0
    s[S_KEEP_N] = 0
    s[S_SHOWN] = -1


@njit(cache=True)
def _end_turn(s, cfg):
    s[S_TURN] += 1
    if s[S_TURN] >= cfg[C_MAX_TURNS]:  # D-11: the turn cap ends in a draw
        s[S_STAGE] = Stage.TERMINAL
        s[S_CUR] = _TERMINAL
        s[S_WINNER] = -1
        return
    _start_turn(s, _next_living(s, cfg, s[S_ACTOR], -1))


# ---- influence loss ------------------------------------------------------------
@njit(cache=True)
def _begin_loss(s, stage, p):
    s[S_STAGE] = stage
    s[S_LOSER] = p
    s[S_CUR] = p


@njit(cache=True)
def _reveal(s, cfg, p, c):
    """Turn p's card c face up; eliminate p and end the game if it follows."""
    s[S_HIDDEN + p * NUM_CLANS + c] -= 1
    s[S_REVEALED + p * NUM_CLANS + c] += 1
    if hidden_count(s, p) > 0:
        return False
    s[S_TREASURY] += s[S_COINS + p]  # an eliminated player's coins go back
    s[S_COINS + p] = 0
    n = cfg[C_PLAYERS]
    alive = 0
    last = -1
    for q in range(n):
        if is_alive(s, q):
            alive += 1
            last = q
    if alive == 1:
        s[S_STAGE] = Stage.TERMINAL
        s[S_CUR] = _TERMINAL
        s[S_WINNER] = last
        return True
    return False


# ---- turn flow ---------------------------------------------------------------
@njit(cache=True)
def _announce(s, cfg, a):
    actor = s[S_ACTOR]
    kind, target = target_of_action(cfg, a)
    s[S_ACT] = kind
    s[S_TARGET] = target
    claim = claim_of(kind)
    s[S_CLAIM] = claim
    if kind == ActionKind.COUP:
        _pay(s, actor, COUP_COST)
    elif kind == ActionKind.ASSASSINATE:
        _pay(s, actor, ASSASSINATE_COST)  # paid at announcement
    if claim >= 0:
        # D-12: the challenge window comes first, clockwise after the actor.
        s[S_STAGE] = Stage.CHALLENGE
        s[S_RESP] = _next_living(s, cfg, actor, -1)
        s[S_CUR] = s[S_RESP]
    else:
        _claim_stands(s, cfg)


@njit(cache=True)
def _claim_stands(s, cfg):
    """The action survived its challenge window: counters, then the effect."""
    kind = s[S_ACT]
    actor = s[S_ACTOR]
    if kind == ActionKind.FOREIGN_AID:
        s[S_STAGE] = Stage.COUNTER
        s[S_RESP] = _next_living(s, cfg, actor, -1)
        s[S_CUR] = s[S_RESP]
    elif kind == ActionKind.ASSASSINATE or kind == ActionKind.STEAL:
        target = s[S_TARGET]
        if not is_alive(s, target):
            _end_turn(s, cfg)  # D-9: the target is gone, no effect
            return
        s[S_STAGE] = Stage.COUNTER
        s[S_RESP] = target  # only the target may counter
        s[S_CUR] = target
    else:
        # Tax, Exchange and Examine cannot be countered (D-2 for Examine).
        _resolve_effect(s, cfg)


@njit(cache=True)
def _resolve_challenge(s, cfg, claimant, clan, challenger, ctx):
    s[S_CTX] = ctx
    s[S_CHALLENGER] = challenger
    idx = S_HIDDEN + claimant * NUM_CLANS + clan
    if s[idx] > 0:
        # D-6: a claimant who holds the card shows it; D-7: it goes back to
        # the Court and a replacement is drawn before anything else resolves.
        s[S_CLAIM_TRUE] = 1
        s[idx] -= 1
        s[S_COURT + clan] += 1
        s[S_DRAWER] = claimant
        s[S_LOSER] = challenger
        s[S_STAGE] = Stage.CHALLENGE_DRAW
        s[S_CUR] = _CHANCE
    else:
        s[S_CLAIM_TRUE] = 0
        _begin_loss(s, Stage.CHALLENGE_LOSS, claimant)


@njit(cache=True)
def _after_challenge(s, cfg):
    actor = s[S_ACTOR]
    if s[S_CTX] == Context.ACTION:
        if s[S_CLAIM_TRUE] == 1:
            _claim_stands(s, cfg)
        else:
            # A bluff caught: the action is cancelled, an Assassinate refunded
            # (an actor eliminated by the loss already returned all coins).
            if s[S_ACT] == ActionKind.ASSASSINATE and is_alive(s, actor):
                s[S_TREASURY] -= ASSASSINATE_COST
                s[S_COINS + actor] += ASSASSINATE_COST
            _end_turn(s, cfg)
    else:
        if s[S_CLAIM_TRUE] == 1:
            _end_turn(s, cfg)  # a true counter: the action fails
        else:
            _resolve_effect(s, cfg)  # a false counter: the action goes on


@njit(cache=True)
def _resolve_effect(s, cfg):
    kind = s[S_ACT]
    actor = s[S_ACTOR]
    target = s[S_TARGET]
    if kind == ActionKind.INCOME:
        _gain(s, actor, INCOME_GAIN)
    elif kind == ActionKind.FOREIGN_AID:
        _gain(s, actor, FOREIGN_AID_GAIN)
    elif kind == ActionKind.TAX:
        _gain(s, actor, TAX_GAIN)
    elif kind == ActionKind.STEAL:
        if is_alive(s, target):  # D-9; D-3: stealing from 0 coins takes nothing
            amount = min(STEAL_AMOUNT, s[S_COINS + target])
            s[S_COINS + target] -= amount
            s[S_COINS + actor] += amount
    elif kind == ActionKind.COUP or kind == ActionKind.ASSASSINATE:
        if is_alive(s, target):  # D-9
            _begin_loss(s, Stage.EFFECT_LOSS, target)
            return
    elif kind == ActionKind.EXCHANGE:
        draw = min(cfg[C_EXCHANGE_DRAW], court_size(s))
        if draw > 0:
            s[S_KEEP_N] = hidden_count(s, actor)
            s[S_DRAW_N] = draw
            s[S_DRAWER] = actor
            s[S_STAGE] = Stage.EXCHANGE_DRAW
            s[S_CUR] = _CHANCE
            return
    elif kind == ActionKind.EXAMINE and is_alive(s, target):  # D-9
        s[S_STAGE] = Stage.EXAMINE_SHOW
        s[S_CUR] = target
        return
    _end_turn(s, cfg)


@njit(cache=True)
def _add_multiset(s, p, m, sign):
    """Move multiset m between the Court and p's hand (sign +1: to the hand)."""
    a = MS_FIRST[m]
    s[S_HIDDEN + p * NUM_CLANS + a] += sign
    s[S_COURT + a] -= sign
    b = MS_SECOND[m]
    if b >= 0:
        s[S_HIDDEN + p * NUM_CLANS + b] += sign
        s[S_COURT + b] -= sign


@njit(cache=True)
def apply_action(s, cfg, a):
    """Apply a player action or chance outcome `a` to state `s` in place."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    if st == Stage.DEAL:
        p = s[S_DEAL_NEXT]
        _add_multiset(s, p, a, 1)
        s[S_DEAL_NEXT] = p + 1
        if p + 1 == cfg[C_PLAYERS]:
            if cfg[C_VARIANT] == Variant.DRAFT and cfg[C_INFLUENCE] == 2:
                s[S_STAGE] = Stage.PICK
                s[S_CUR] = 0
            else:
                _start_turn(s, 0)  # D-13: one influence means no pick
    elif st == Stage.PICK:
        c = a - A_PICK
        s[S_HIDDEN + cur * NUM_CLANS + c] += 1
        s[S_OUT + c] -= 1
        if cur == 0:
            s[S_CUR] = 1
        else:
            _start_turn(s, 0)
    elif st == Stage.ACTION:
        _announce(s, cfg, a)
    elif st == Stage.CHALLENGE:
        if a == A_PASS:
            nxt = _next_living(s, cfg, cur, -1)
            if nxt == s[S_ACTOR]:
                _claim_stands(s, cfg)
            else:
                s[S_RESP] = nxt
                s[S_CUR] = nxt
        else:
            # D-5: the first in clockwise order to challenge is the challenger.
            _resolve_challenge(s, cfg, s[S_ACTOR], s[S_CLAIM], cur, Context.ACTION)
    elif st == Stage.CHALLENGE_DRAW:
        _add_multiset(s, s[S_DRAWER], a, 1)
        _begin_loss(s, Stage.CHALLENGE_LOSS, s[S_LOSER])
    elif st == Stage.CHALLENGE_LOSS:
        if not _reveal(s, cfg, cur, a - A_REVEAL):
            _after_challenge(s, cfg)
    elif st == Stage.COUNTER:
        if a == A_PASS:
            if s[S_ACT] == ActionKind.FOREIGN_AID:
                nxt = _next_living(s, cfg, cur, -1)
                if nxt == s[S_ACTOR]:
                    _resolve_effect(s, cfg)
                else:
                    s[S_RESP] = nxt
                    s[S_CUR] = nxt
            else:
                _resolve_effect(s, cfg)
        else:
            # D-8: one counter per action; the window for challenging it
            # opens with the actor and goes clockwise, skipping the counterer.
            s[S_COUNTERER] = cur
            s[S_COUNTER_CLAN] = a - A_COUNTER
            s[S_STAGE] = Stage.COUNTER_CHALLENGE
            s[S_RESP] = s[S_ACTOR]
            s[S_CUR] = s[S_ACTOR]
    elif st == Stage.COUNTER_CHALLENGE:
        if a == A_PASS:
            nxt = _next_living(s, cfg, cur, s[S_COUNTERER])
            if nxt == s[S_ACTOR]:
                _end_turn(s, cfg)  # the counter stands: the action fails
            else:
                s[S_RESP] = nxt
                s[S_CUR] = nxt
        else:
            _resolve_challenge(s, cfg, s[S_COUNTERER], s[S_COUNTER_CLAN], cur, Context.COUNTER)
    elif st == Stage.EFFECT_LOSS:
        if not _reveal(s, cfg, cur, a - A_REVEAL):
            _end_turn(s, cfg)
    elif st == Stage.EXCHANGE_DRAW:
        _add_multiset(s, s[S_ACTOR], a, 1)
        s[S_STAGE] = Stage.EXCHANGE_KEEP
        s[S_CUR] = s[S_ACTOR]
    elif st == Stage.EXCHANGE_KEEP:
        actor = s[S_ACTOR]
        base = S_HIDDEN + actor * NUM_CLANS
        m = a - A_KEEP
        for c in range(NUM_CLANS):  # everything goes back, then the kept cards
            s[S_COURT + c] += s[base + c]
            s[base + c] = 0
        _add_multiset(s, actor, m, 1)
        _end_turn(s, cfg)
    elif st == Stage.EXAMINE_SHOW:
        s[S_SHOWN] = a - A_SHOW
        s[S_STAGE] = Stage.EXAMINE_DECIDE
        s[S_CUR] = s[S_ACTOR]
    elif st == Stage.EXAMINE_DECIDE:
        if a == A_RETURN_CARD:
            _end_turn(s, cfg)
        else:
            target = s[S_TARGET]
            shown = s[S_SHOWN]
            s[S_HIDDEN + target * NUM_CLANS + shown] -= 1
            s[S_COURT + shown] += 1
            s[S_DRAWER] = target
            s[S_STAGE] = Stage.EXAMINE_DRAW
            s[S_CUR] = _CHANCE
    elif st == Stage.EXAMINE_DRAW:
        _add_multiset(s, s[S_DRAWER], a, 1)
        _end_turn(s, cfg)


# ---- legal moves -------------------------------------------------------------
@njit(cache=True)
def _has_multiset(s, p, m):
    base = S_HIDDEN + p * NUM_CLANS
    a = MS_FIRST[m]
    b = MS_SECOND[m]
    if b < 0:
        return s[base + a] >= 1
    if a == b:
        return s[base + a] >= 2
    return s[base + a] >= 1 and s[base + b] >= 1


@njit(cache=True)
def legal_actions_into(s, cfg, out):
    """Write the sorted legal action ids of the player to move; return count."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    n = cfg[C_PLAYERS]
    k = 0
    if st == Stage.ACTION:
        coins = s[S_COINS + cur]
        forced = coins >= FORCED_COUP_COINS  # D-1: 10 coins or more must Coup
        if not forced:
            out[0] = A_INCOME
            out[1] = A_FOREIGN_AID
            out[2] = A_TAX
            out[3] = A_EXCHANGE
            k = 4
        for block in range(4):
            if block == T_COUP and coins < COUP_COST:
                continue
            if block != T_COUP and forced:
                continue
            if block == T_ASSASSINATE and coins < ASSASSINATE_COST:
                continue
            if block == T_EXAMINE and cfg[C_LINEUP] != Lineup.INQUISITOR:
                continue
            for t in range(n):
                if t != cur and is_alive(s, t):
                    out[k] = A_TARGETED + block * n + t
                    k += 1
    elif st == Stage.CHALLENGE or st == Stage.COUNTER_CHALLENGE:
        out[0] = A_PASS
        out[1] = A_CHALLENGE
        k = 2
    elif st == Stage.COUNTER:
        out[0] = A_PASS
        k = 1
        kind = s[S_ACT]
        if kind == ActionKind.FOREIGN_AID:
            out[1] = A_COUNTER + Clan.COLLECTOR
            k = 2
        elif kind == ActionKind.ASSASSINATE:
            out[1] = A_COUNTER + Clan.UNTOUCHABLE
            k = 2
        else:
            out[1] = A_COUNTER + Clan.THIEF
            out[2] = A_COUNTER + Clan.NEGOTIATOR
            k = 3
    elif st == Stage.CHALLENGE_LOSS or st == Stage.EFFECT_LOSS:
        base = S_HIDDEN + cur * NUM_CLANS
        for c in range(NUM_CLANS):
            if s[base + c] > 0:
                out[k] = A_REVEAL + c
                k += 1
    elif st == Stage.EXAMINE_SHOW:
        base = S_HIDDEN + cur * NUM_CLANS
        for c in range(NUM_CLANS):
            if s[base + c] > 0:
                out[k] = A_SHOW + c
                k += 1
    elif st == Stage.EXAMINE_DECIDE:
        out[0] = A_RETURN_CARD
        out[1] = A_FORCE_SWAP
        k = 2
    elif st == Stage.PICK:
        for c in range(NUM_CLANS):
            out[k] = A_PICK + c
            k += 1
    elif st == Stage.EXCHANGE_KEEP:
        keep = s[S_KEEP_N]
        lo = 0 if keep == 1 else MS_SIZE2_BASE
        hi = MS_SIZE2_BASE if keep == 1 else NUM_MULTISETS
        for m in range(lo, hi):
            if _has_multiset(s, cur, m):
                out[k] = A_KEEP + m
                k += 1
    return k


@njit(cache=True)
def chance_size(s, cfg):
    """Number of cards drawn at the current chance node."""
    st = s[S_STAGE]
    if st == Stage.DEAL:
        return 1 if cfg[C_VARIANT] == Variant.DRAFT else cfg[C_INFLUENCE]
    if st == Stage.EXCHANGE_DRAW:
        return s[S_DRAW_N]
    return 1


@njit(cache=True)
def chance_outcomes_into(s, cfg, outcomes, probs):
    """Write the chance outcomes (multiset ids) and exact probabilities."""
    size = chance_size(s, cfg)
    total = court_size(s)
    k = 0
    if size == 1:
        for c in range(NUM_CLANS):
            cnt = s[S_COURT + c]
            if cnt > 0:
                outcomes[k] = c
                probs[k] = cnt / total
                k += 1
    else:
        pairs = total * (total - 1) / 2.0
        for m in range(MS_SIZE2_BASE, NUM_MULTISETS):
            a = MS_FIRST[m]
            b = MS_SECOND[m]
            na = s[S_COURT + a]
            if a == b:
                ways = na * (na - 1) / 2.0
            else:
                ways = na * s[S_COURT + b] * 1.0
            if ways > 0:
                outcomes[k] = m
                probs[k] = ways / pairs
                k += 1
    return k


@njit(cache=True)
def returns_into(s, cfg, out):
    """Terminal utilities (D-10: +1 to the winner, -1/(n-1) to the others)."""
    n = cfg[C_PLAYERS]
    w = s[S_WINNER]
    for p in range(n):
        out[p] = 0.0
    if s[S_STAGE] != Stage.TERMINAL or w < 0:
        return
    for p in range(n):
        out[p] = 1.0 if p == w else -1.0 / (n - 1)


# ---- what each player sees (RULES.md section 6) ------------------------------
@njit(cache=True)
def _token(kind, stage, who, value):
    return ((kind * STAGE_SLOTS + stage) * WHO_SLOTS + who) * VALUE_SLOTS + value


@njit(cache=True)
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
    if a == A_CHALLENGE:
        if st == Stage.CHALLENGE:
            claimant = s[S_ACTOR]
            clan = s[S_CLAIM]
        else:
            claimant = s[S_COUNTERER]
            clan = s[S_COUNTER_CLAN]
        if s[S_HIDDEN + claimant * NUM_CLANS + clan] > 0:
            return _token(TokenKind.CHALLENGE_TRUE, st, cur, a)
        return _token(TokenKind.CHALLENGE_FALSE, st, cur, a)
    return _token(TokenKind.PUBLIC, st, cur, a)


@njit(cache=True)
def observation_tokens_into(s, cfg, a, out):
    """observation_token for every seat, then the public view at out[players]."""
    n = cfg[C_PLAYERS]
    for p in range(n):
        out[p] = observation_token(s, a, p)
    out[n] = observation_token(s, a, PUBLIC_VIEWER)


# ---- random playouts (benchmarks, simulation) --------------------------------
@njit(cache=True)
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


@njit(cache=True)
def _draw_one(s, rng, total, skip):
    """A clan drawn uniformly from the Court's cards, one card of `skip` set aside."""
    r = int(rng.random() * total)
    for c in range(NUM_CLANS):
        r -= s[S_COURT + c] - (1 if c == skip else 0)
        if r < 0:
            return c
    return NUM_CLANS - 1


@njit(cache=True)
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
    buf = np.empty(256, dtype=np.int32)
    steps = 0
    s = initial_state(cfg)
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
    return steps
