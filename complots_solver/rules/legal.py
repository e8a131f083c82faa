"""The legal actions of a state and its chance outcomes, numba-compiled.

:func:`legal_actions_into` lists what the player to move may do (the targets,
the forced coup, the Complots 2 actions); :func:`chance_outcomes_into` the
cards chance may deal or draw, with their exact probabilities. Part of the
rules core (:mod:`complots_solver.rules.core`).
"""

from __future__ import annotations

from complots_solver.rules.basics import (
    COUP_COST,
    FORCED_COUP_COINS,
    WITCH_MIN_CARDS,
    c2_base,
    c2_donate,
    character_of,
    court_size,
    hidden_count,
    is_alive,
)
from complots_solver.rules.compiled import hot, inline
from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Character,
    Clan,
    Stage,
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
    C_COUNTERS,
    C_EXTENDED,
    C_INFLUENCE,
    C_KIND_COST,
    C_PLAYERS,
    C_SLOT_TARGETED,
    C_SLOT_UNTARGETED,
    C_VARIANT,
    MS_FIRST,
    MS_SECOND,
    MS_SIZE2_BASE,
    NUM_MULTISETS,
    S_ACT,
    S_COINS,
    S_COURT,
    S_CUR,
    S_DRAW_N,
    S_HIDDEN,
    S_KEEP_N,
    S_STAGE,
    S_WITCH,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    X_CLAIM,
    X_GIVE,
    X_PAY,
    X_REFUSE,
    X_SPY_AGAIN,
    X_TITHE,
    X_WITCH,
)
from complots_solver.rules.powers import is_poorest


# ---- legal moves -------------------------------------------------------------
@hot
def _has_multiset(s, p, m):
    base = S_HIDDEN + p * NUM_CLANS
    a = MS_FIRST[m]
    b = MS_SECOND[m]
    if b < 0:
        return s[base + a] >= 1
    if a == b:
        return s[base + a] >= 2
    return s[base + a] >= 1 and s[base + b] >= 1


@hot
def _richest_opponent(s, cfg, p):
    """Most coins among p's living opponents (the Justicier's targets, D-C2-4)."""
    n = cfg[C_PLAYERS]
    high = -1
    for q in range(n):
        if q != p and is_alive(s, q) and s[S_COINS + q] > high:
            high = s[S_COINS + q]
    return high


@hot
def _targets_into(s, cfg, cur, first, kind, out, k):
    """Append the ids first + t of the legal targets t of `kind`."""
    n = cfg[C_PLAYERS]
    if kind == ActionKind.JUSTICE:
        high = _richest_opponent(s, cfg, cur)
        for t in range(n):
            if t != cur and is_alive(s, t) and s[S_COINS + t] == high:
                out[k] = first + t
                k += 1
        return k
    for t in range(n):
        if t != cur and is_alive(s, t):
            out[k] = first + t
            k += 1
    return k


@hot
def _can_witch(s, cfg, p):
    """Whether p, about to lose influence, may claim the Sorciere instead (D-C2-6)."""
    return (
        character_of(cfg, Clan.UNTOUCHABLE) == Character.SORCIERE
        and s[S_WITCH] < 0
        and hidden_count(s, p) >= WITCH_MIN_CARDS
    )


@inline
def legal_actions_into(s, cfg, out):
    """Write the sorted legal action ids of the player to move; return count."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    n = cfg[C_PLAYERS]
    base = c2_base(n)
    k = 0
    if st == Stage.ACTION:
        coins = s[S_COINS + cur]
        forced = coins >= FORCED_COUP_COINS  # D-1: 10 coins or more must Coup
        if not forced:
            out[0] = A_INCOME
            out[1] = A_FOREIGN_AID
            k = 2
            if cfg[C_SLOT_UNTARGETED + Clan.COLLECTOR] >= 0:
                out[k] = A_TAX  # the Collector's power (Tax, Illusionniste)
                k += 1
            if cfg[C_SLOT_UNTARGETED + Clan.NEGOTIATOR] >= 0:
                out[k] = A_EXCHANGE  # the Negotiator's power (Exchange, Espion)
                k += 1
        for block in range(4):
            if block == T_COUP:
                if coins >= COUP_COST:
                    k = _targets_into(s, cfg, cur, A_TARGETED, ActionKind.COUP, out, k)
                continue
            if forced:
                continue
            clan = Clan.ASSASSIN if block == T_ASSASSINATE else Clan.THIEF
            if block == T_EXAMINE:
                clan = Clan.NEGOTIATOR
            kind = cfg[C_SLOT_TARGETED + clan]
            if kind < 0 or coins < cfg[C_KIND_COST + kind]:
                continue
            k = _targets_into(s, cfg, cur, A_TARGETED + block * n, kind, out, k)
        if cfg[C_EXTENDED] and not forced:
            if cfg[C_SLOT_UNTARGETED + Clan.THIEF] >= 0:
                out[k] = base + X_TITHE
                k += 1
            kind = cfg[C_SLOT_TARGETED + Clan.COLLECTOR]
            if kind >= 0:
                k = _targets_into(s, cfg, cur, c2_donate(n), kind, out, k)
    elif st == Stage.CHALLENGE or st == Stage.COUNTER_CHALLENGE or st == Stage.CLAIM_CHALLENGE:
        out[0] = A_PASS
        out[1] = A_CHALLENGE
        k = 2
    elif st == Stage.COUNTER:
        out[0] = A_PASS
        k = 1
        mask = cfg[C_COUNTERS + s[S_ACT]]
        for c in range(NUM_CLANS):
            if (mask >> c) & 1:
                out[k] = A_COUNTER + c
                k += 1
    elif st == Stage.CHALLENGE_LOSS or st == Stage.EFFECT_LOSS:
        base_h = S_HIDDEN + cur * NUM_CLANS
        for c in range(NUM_CLANS):
            if s[base_h + c] > 0:
                out[k] = A_REVEAL + c
                k += 1
        if _can_witch(s, cfg, cur):
            holds = s[base_h + Clan.UNTOUCHABLE] > 0
            for c in range(NUM_CLANS):
                # a holder loses the Sorciere itself (as D-6); otherwise any card, bluffing
                if s[base_h + c] > 0 and (not holds or c == Clan.UNTOUCHABLE):
                    out[k] = base + X_WITCH + c
                    k += 1
    elif st == Stage.EXAMINE_SHOW:
        base_h = S_HIDDEN + cur * NUM_CLANS
        for c in range(NUM_CLANS):
            if s[base_h + c] > 0:
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
    elif st == Stage.JUSTICE_GIVE:
        for q in range(n):
            if is_poorest(s, cfg, q):
                out[k] = base + X_GIVE + q
                k += 1
    elif st == Stage.BLACKMAIL_CHOICE:
        out[0] = base + X_PAY
        out[1] = base + X_REFUSE
        k = 2
    elif st == Stage.SPY_AGAIN:
        out[0] = A_PASS
        out[1] = base + X_SPY_AGAIN
        k = 2
    elif st == Stage.ILLUSION_CLAIM or st == Stage.UNDERTAKER_CLAIM:
        out[0] = A_PASS
        out[1] = base + X_CLAIM
        k = 2
    return k


@hot
def chance_size(s, cfg):
    """Number of cards drawn at the current chance node."""
    st = s[S_STAGE]
    if st == Stage.DEAL:
        return 1 if cfg[C_VARIANT] == Variant.DRAFT else cfg[C_INFLUENCE]
    if st == Stage.EXCHANGE_DRAW:
        return s[S_DRAW_N]
    return 1


@inline
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
