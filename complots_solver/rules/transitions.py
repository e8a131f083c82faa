"""Applying an action: :func:`apply_action` and the claims, counters, challenges and effects.

The numba-compiled transition of the rules core: an action announced, claimed,
countered or challenged, the challenge resolved, the effect applied, and the
Complots 2 actions (:func:`_apply_complots2`). Part of the rules core
(:mod:`complots_solver.rules.core`).
"""

from __future__ import annotations

from complots_solver.rules.basics import (
    _CHANCE,
    ASSASSINATE_COST,
    BLACKMAIL_AMOUNT,
    COUP_COST,
    EXECUTE_PAYMENT,
    FOREIGN_AID_GAIN,
    INCOME_GAIN,
    SPY_DRAW_COST,
    STEAL_AMOUNT,
    TAX_GAIN,
    _end_turn,
    _gain,
    _next_living,
    _pay,
    _pay_to,
    _start_turn,
    c2_base,
    claim_of,
    court_size,
    hidden_count,
    is_alive,
    target_of_action,
)
from complots_solver.rules.compiled import hot, inline
from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Clan,
    Context,
    Stage,
    Variant,
)
from complots_solver.rules.layout import (
    A_COUNTER,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_RETURN_CARD,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    C_COUNTERS,
    C_EXCHANGE_DRAW,
    C_EXTENDED,
    C_INFLUENCE,
    C_PLAYERS,
    C_VARIANT,
    MS_FIRST,
    MS_SECOND,
    S_ACT,
    S_ACTOR,
    S_BURIED,
    S_CHALLENGER,
    S_CLAIM,
    S_CLAIM_TRUE,
    S_CLAIMANT,
    S_CLAIMED,
    S_COINS,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_COURT,
    S_CTX,
    S_CUR,
    S_DEAL_NEXT,
    S_DRAW_N,
    S_DRAWER,
    S_HEIRS,
    S_HIDDEN,
    S_KEEP_N,
    S_LOSER,
    S_OUT,
    S_PENDING,
    S_RESP,
    S_RESUME_CLAIMANT,
    S_RESUME_CLAIMED,
    S_RESUME_CTX,
    S_RESUME_STAGE,
    S_RESUME_TRUE,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_WITCH_CLAN,
    X_GIVE,
    X_PAY,
    X_WITCH,
)
from complots_solver.rules.powers import (
    REVEAL_GOES_ON,
    _begin_loss,
    _blackmail_refused,
    _claim_unchallenged,
    _illusion_next,
    _illusion_share,
    _justice_give,
    _open_claim_challenge,
    _power_blackmail,
    _power_donate,
    _power_execute,
    _power_illusion,
    _power_justice,
    _power_spy,
    _power_tithe_from,
    _power_witch,
    _reveal,
    _tithe_next,
    _undertaker_next,
    _witch_claim,
    _witch_done,
)


@hot
def _resume(s, cfg):
    """Go on after the loss that a Sorciere or Croque-Mort window interrupted."""
    stage = s[S_RESUME_STAGE]
    s[S_CTX] = s[S_RESUME_CTX]
    s[S_CLAIM_TRUE] = s[S_RESUME_TRUE]
    s[S_CLAIMANT] = s[S_RESUME_CLAIMANT]
    s[S_CLAIMED] = s[S_RESUME_CLAIMED]
    s[S_RESUME_STAGE] = -1
    s[S_RESUME_CTX] = -1
    s[S_RESUME_TRUE] = -1
    if stage == Stage.CHALLENGE_LOSS:
        _after_challenge(s, cfg)
    else:
        _end_turn(s, cfg)  # every effect loss ends the turn


# ---- turn flow ---------------------------------------------------------------
@hot
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


@hot
def _claim_stands(s, cfg):
    """The action survived its challenge window: counters, then the effect."""
    kind = s[S_ACT]
    actor = s[S_ACTOR]
    if cfg[C_EXTENDED] and not is_alive(s, actor):
        _end_turn(s, cfg)  # D-9: the actor is gone (a Croque-Mort window can do that)
        return
    counters = cfg[C_COUNTERS + kind]
    if kind == ActionKind.FOREIGN_AID:
        s[S_STAGE] = Stage.COUNTER
        s[S_RESP] = _next_living(s, cfg, actor, -1)
        s[S_CUR] = s[S_RESP]
    elif kind == ActionKind.TITHE:
        s[S_TARGET] = -1
        _tithe_next(s, cfg)  # each opponent in turn may counter for themselves
    elif counters != 0 and s[S_TARGET] >= 0:
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


@hot
def _countered(s, cfg):
    """A counter stood: the action fails (with the Assassins' payment, docs/rules.md section 7)."""
    kind = s[S_ACT]
    actor = s[S_ACTOR]
    if kind == ActionKind.TITHE:
        _tithe_next(s, cfg)  # this opponent keeps their coin
        return
    if (kind == ActionKind.EXECUTE or kind == ActionKind.BLACKMAIL) and is_alive(s, actor):
        # Booklet example 2 / docs/rules.md section 7: the 3 coins still go to the target.
        _pay_to(s, actor, s[S_TARGET], EXECUTE_PAYMENT)
    _end_turn(s, cfg)


@hot
def _resolve_challenge(s, cfg, claimant, clan, challenger, ctx):
    s[S_CTX] = ctx
    s[S_CHALLENGER] = challenger
    if ctx == Context.WITCH:
        # the card lost face down is shown either way (D-C2-6)
        c = s[S_WITCH_CLAN]
        s[S_BURIED + claimant * NUM_CLANS + c] -= 1
        s[S_REVEALED + claimant * NUM_CLANS + c] += 1
        if c == Clan.UNTOUCHABLE:
            s[S_CLAIM_TRUE] = 1
            _power_witch(s, cfg)
            _begin_loss(s, Stage.CHALLENGE_LOSS, challenger)
        else:
            s[S_CLAIM_TRUE] = 0  # a caught bluff costs a further influence
            _begin_loss(s, Stage.CHALLENGE_LOSS, claimant)
        return
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


@hot
def _after_challenge(s, cfg):
    actor = s[S_ACTOR]
    ctx = s[S_CTX]
    if ctx == Context.ACTION:
        if s[S_CLAIM_TRUE] == 1:
            _claim_stands(s, cfg)
        else:
            # A bluff caught: the action is cancelled, an Assassinate refunded
            # (an actor eliminated by the loss already returned all coins).
            if s[S_ACT] == ActionKind.ASSASSINATE and is_alive(s, actor):
                s[S_TREASURY] -= ASSASSINATE_COST
                s[S_COINS + actor] += ASSASSINATE_COST
            _end_turn(s, cfg)
    elif ctx == Context.COUNTER:
        if s[S_CLAIM_TRUE] == 1:
            _countered(s, cfg)  # a true counter: the action fails
        elif s[S_ACT] == ActionKind.TITHE:
            _power_tithe_from(s, cfg, s[S_COUNTERER])  # a false counter: this one pays
            _tithe_next(s, cfg)
        else:
            _resolve_effect(s, cfg)  # a false counter: the action goes on
    elif ctx == Context.ILLUSION:
        if s[S_CLAIM_TRUE] == 1:
            _illusion_share(s, s[S_CLAIMANT])
        _illusion_next(s, cfg, s[S_CLAIMANT])
    elif ctx == Context.UNDERTAKER:
        if s[S_CLAIM_TRUE] == 1:
            s[S_HEIRS] |= 1 << s[S_CLAIMANT]
        _undertaker_next(s, cfg, s[S_CLAIMANT])
    else:
        _witch_done(s, cfg)


@hot
def _resolve_effect(s, cfg):
    kind = s[S_ACT]
    actor = s[S_ACTOR]
    target = s[S_TARGET]
    if cfg[C_EXTENDED] and not is_alive(s, actor):
        _end_turn(s, cfg)  # D-9: the actor is gone, the action ends
        return
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
    elif kind == ActionKind.EXAMINE:
        if is_alive(s, target):  # D-9
            s[S_STAGE] = Stage.EXAMINE_SHOW
            s[S_CUR] = target
            return
    # Complots 2 powers: the target must still be alive (D-9)
    elif kind == ActionKind.EXECUTE:
        if is_alive(s, target):
            _power_execute(s, cfg, actor, target)
            return
    elif kind == ActionKind.BLACKMAIL:
        if is_alive(s, target):
            _power_blackmail(s, cfg, actor, target)
            return
    elif kind == ActionKind.JUSTICE:
        if is_alive(s, target):
            _power_justice(s, cfg, actor, target)
            return
    elif kind == ActionKind.SPY:
        _power_spy(s, cfg, actor)
        return
    elif kind == ActionKind.DONATE:
        if is_alive(s, target):
            _power_donate(s, cfg, actor, target)
    elif kind == ActionKind.ILLUSION:
        _power_illusion(s, cfg, actor)
        return
    _end_turn(s, cfg)


@hot
def _add_multiset(s, p, m, sign):
    """Move multiset m between the Court and p's hand (sign +1: to the hand)."""
    a = MS_FIRST[m]
    s[S_HIDDEN + p * NUM_CLANS + a] += sign
    s[S_COURT + a] -= sign
    b = MS_SECOND[m]
    if b >= 0:
        s[S_HIDDEN + p * NUM_CLANS + b] += sign
        s[S_COURT + b] -= sign


@inline
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
        if a >= A_TARGETED:
            _witch_claim(s, cfg, cur, a - c2_base(cfg[C_PLAYERS]) - X_WITCH)
        elif _reveal(s, cfg, cur, a - A_REVEAL) == REVEAL_GOES_ON:
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
            elif s[S_ACT] == ActionKind.TITHE:
                _power_tithe_from(s, cfg, cur)
                _tithe_next(s, cfg)
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
                _countered(s, cfg)  # the counter stands: the action fails
            else:
                s[S_RESP] = nxt
                s[S_CUR] = nxt
        else:
            _resolve_challenge(s, cfg, s[S_COUNTERER], s[S_COUNTER_CLAN], cur, Context.COUNTER)
    elif st == Stage.EFFECT_LOSS:
        if a >= A_TARGETED:
            _witch_claim(s, cfg, cur, a - c2_base(cfg[C_PLAYERS]) - X_WITCH)
        elif _reveal(s, cfg, cur, a - A_REVEAL) == REVEAL_GOES_ON:
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
        if s[S_ACT] == ActionKind.SPY and s[S_COINS + actor] >= SPY_DRAW_COST and court_size(s) > 0:
            s[S_STAGE] = Stage.SPY_AGAIN  # the Espion may pay to draw again
        else:
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
    else:
        _apply_complots2(s, cfg, a)
    while s[S_PENDING] == 1:  # a Sorciere or Croque-Mort window closed (no recursion)
        s[S_PENDING] = 0
        _resume(s, cfg)


@hot
def _apply_complots2(s, cfg, a):
    """apply_action for the Complots 2 stages."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    x = a - c2_base(cfg[C_PLAYERS])
    if st == Stage.JUSTICE_GIVE:
        _justice_give(s, cfg, x - X_GIVE)
    elif st == Stage.BLACKMAIL_CHOICE:
        if x == X_PAY:
            _pay_to(s, cur, s[S_ACTOR], BLACKMAIL_AMOUNT)
            _end_turn(s, cfg)
        else:
            _blackmail_refused(s, cfg, s[S_ACTOR], cur)
    elif st == Stage.SPY_AGAIN:
        if a == A_PASS:
            _end_turn(s, cfg)
        else:
            _pay(s, cur, SPY_DRAW_COST)
            _power_spy(s, cfg, cur)
    elif st == Stage.ILLUSION_CLAIM:
        if a == A_PASS:
            _illusion_next(s, cfg, cur)
        else:
            _open_claim_challenge(s, cfg, cur, Clan.COLLECTOR, Context.ILLUSION)
    elif st == Stage.UNDERTAKER_CLAIM:
        if a == A_PASS:
            _undertaker_next(s, cfg, cur)
        else:
            _open_claim_challenge(s, cfg, cur, Clan.UNTOUCHABLE, Context.UNDERTAKER)
    elif st == Stage.CLAIM_CHALLENGE:
        if a == A_PASS:
            nxt = _next_living(s, cfg, cur, -1)
            if nxt == s[S_CLAIMANT]:
                _claim_unchallenged(s, cfg)
            else:
                s[S_RESP] = nxt
                s[S_CUR] = nxt
        else:
            _resolve_challenge(s, cfg, s[S_CLAIMANT], s[S_CLAIMED], cur, s[S_CTX])
