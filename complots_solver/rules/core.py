"""The rules of Complots as pure, numba-compiled functions over flat arrays.

This module is the single implementation of the rules: the OpenSpiel game,
the simulators and the solvers all step games through it. A state is an
``int32`` array laid out by :mod:`complots_solver.rules.layout`; ``cfg`` is the
configuration array built by :class:`complots_solver.rules.config.GameConfig`.

Decisions of ``docs/rules.md`` are marked ``D-n`` where they act.
Functions named ``_x`` mutate ``s`` in place; the public functions are
``initial_state``, ``legal_actions``, ``chance_outcomes``, ``apply_action``,
``returns``, ``observation_token`` and ``random_playouts``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.characters import kind_clan_table
from complots_solver.rules.compiled import borrow, hot, inline, keep_alive
from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Character,
    Clan,
    Context,
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
    C_CHARS,
    C_COPIES,
    C_COUNTERS,
    C_EXCHANGE_DRAW,
    C_EXTENDED,
    C_INFLUENCE,
    C_KIND_COST,
    C_MAX_TURNS,
    C_PLAYERS,
    C_SLOT_TARGETED,
    C_SLOT_UNTARGETED,
    C_START_COINS,
    C_TOTAL_COINS,
    C_VARIANT,
    HIDDEN_VALUE,
    KIND_SLOTS,
    MS_FIRST,
    MS_PAIR,
    MS_SECOND,
    MS_SIZE2_BASE,
    NUM_MULTISETS,
    NUM_TARGETED_KINDS,
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
    S_DEAD,
    S_DEAL_NEXT,
    S_DRAW_N,
    S_DRAWER,
    S_GIFT,
    S_HEIRS,
    S_HIDDEN,
    S_KEEP_N,
    S_LOSER,
    S_OUT,
    S_PENDING,
    S_POOL,
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
    S_TURN,
    S_WINNER,
    S_WITCH,
    S_WITCH_CLAN,
    STAGE_SLOTS,
    STATE_SIZE,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
    VALUE_SLOTS,
    WHO_SLOTS,
    X_CLAIM,
    X_GIVE,
    X_PAY,
    X_REFUSE,
    X_SPY_AGAIN,
    X_TITHE,
    X_WITCH,
)

COUP_COST = 7
ASSASSINATE_COST = 3
FORCED_COUP_COINS = 10  # D-1
INCOME_GAIN = 1
FOREIGN_AID_GAIN = 2
TAX_GAIN = 3
STEAL_AMOUNT = 2
# Complots 2 amounts (docs/rules.md section 7, inferred powers)
EXECUTE_PAYMENT = 3  # Bourreau pays the target
BLACKMAIL_AMOUNT = 3  # Maitre-Chanteur: paid by the target, or to the target on a refusal
JUSTICE_TAKE = 3  # Justicier takes from the richest opponent ...
JUSTICE_KEEP = 1  # ... keeps this much, and gives the rest to the poorest
TITHE_AMOUNT = 1  # Pape: from each opponent
SPY_DRAW_COST = 1  # Espion: each extra draw
DONATE_GAIN = 3  # Ursuline: from the treasury ...
DONATE_GIFT = 1  # ... this much of it to the target
ILLUSION_GAIN = 4  # Illusionniste: from the treasury
ILLUSION_SHARE = 1  # each co-claimant takes this from the actor
ILLUSION_KEEP = 1  # ... while the actor keeps at least this much
WITCH_GAIN = 5  # Sorciere: from the treasury
WITCH_MIN_CARDS = 2  # D-C2-6: a Sorciere claim needs a face-down card left after it
KIND_CLAN = kind_clan_table()


@hot
def c2_base(n):
    """First Complots 2 action id with n players (layout.c2_base, compiled)."""
    return A_TARGETED + NUM_TARGETED_KINDS * n


@hot
def c2_donate(n):
    """First id of the Ursuline's targeted block (layout.c2_donate, compiled)."""
    return c2_base(n) + X_GIVE + n


PUBLIC_VIEWER = -1  # a viewer who holds no cards: sees public information only
_CHANCE = int(PlayerId.CHANCE)
_KIND_INCOME = int(ActionKind.INCOME)
_KIND_FOREIGN_AID = int(ActionKind.FOREIGN_AID)
_KIND_COUP = int(ActionKind.COUP)
_TERMINAL = int(PlayerId.TERMINAL)


# ---- small helpers -----------------------------------------------------------
@hot
def hidden_count(s, p):
    """Number of face-down cards of player p."""
    base = S_HIDDEN + p * NUM_CLANS
    total = 0
    for c in range(NUM_CLANS):
        total += s[base + c]
    return total


@hot
def is_alive(s, p):
    """Whether player p still has a face-down card."""
    return hidden_count(s, p) > 0


@hot
def court_size(s):
    """Number of cards in the Court."""
    total = 0
    for c in range(NUM_CLANS):
        total += s[S_COURT + c]
    return total


@hot
def _next_living(s, cfg, p, skip):
    """The next living seat clockwise after p, never `skip` (-1: none)."""
    n = cfg[C_PLAYERS]
    q = p
    for _ in range(n):
        q = (q + 1) % n
        if q != skip and is_alive(s, q):
            return q
    return p


@hot
def _gain(s, p, amount):
    """Pay p from the treasury; D-4: a gain is cut to what the treasury holds."""
    g = min(amount, s[S_TREASURY])
    s[S_TREASURY] -= g
    s[S_COINS + p] += g


@hot
def _pay(s, p, amount):
    s[S_COINS + p] -= amount
    s[S_TREASURY] += amount


@hot
def _pay_to(s, payer, payee, amount):
    """Move up to `amount` coins from payer to payee (cut to what the payer holds)."""
    g = min(amount, s[S_COINS + payer])
    s[S_COINS + payer] -= g
    s[S_COINS + payee] += g


@hot
def target_of_action(cfg, a):
    """(ActionKind, target) of an ACTION-stage action id.

    Character actions are per clan slot: the kind is the power of the
    character standing for that clan in this game.
    """
    n = cfg[C_PLAYERS]
    if a == A_INCOME:
        return _KIND_INCOME, -1
    if a == A_FOREIGN_AID:
        return _KIND_FOREIGN_AID, -1
    if a == A_TAX:
        return int(cfg[C_SLOT_UNTARGETED + Clan.COLLECTOR]), -1
    if a == A_EXCHANGE:
        return int(cfg[C_SLOT_UNTARGETED + Clan.NEGOTIATOR]), -1
    base = c2_base(n)
    if a < base:
        block = (a - A_TARGETED) // n
        target = (a - A_TARGETED) % n
        if block == T_COUP:
            return _KIND_COUP, int(target)
        if block == T_ASSASSINATE:
            return int(cfg[C_SLOT_TARGETED + Clan.ASSASSIN]), int(target)
        if block == T_STEAL:
            return int(cfg[C_SLOT_TARGETED + Clan.THIEF]), int(target)
        return int(cfg[C_SLOT_TARGETED + Clan.NEGOTIATOR]), int(target)
    if a == base + X_TITHE:
        return int(cfg[C_SLOT_UNTARGETED + Clan.THIEF]), -1
    return int(cfg[C_SLOT_TARGETED + Clan.COLLECTOR]), int(a - c2_donate(n))


@hot
def claim_of(kind):
    """Clan claimed by an action kind, -1 for the general actions."""
    return KIND_CLAN[kind]


@hot
def character_of(cfg, clan):
    """The Character standing for `clan` in this game."""
    return cfg[C_CHARS + clan]


# ---- setup -------------------------------------------------------------------
@inline
def copy_state(dst, src):
    """Copy state ``src`` into ``dst`` (an element loop: numba's slice copy is 7x slower)."""
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@njit(cache=True)
def initial_state(cfg):
    """The state before the deal: coins handed out, deck in Court (and piles)."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    reset_state(s, cfg)
    return s


@hot
def reset_state(s, cfg):
    """Overwrite `s` with the state before the deal (no allocation)."""
    for i in range(S_COINS):
        s[i] = -1
    for i in range(S_COINS, STATE_SIZE):
        s[i] = 0
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
    for f in (S_CLAIMANT, S_CLAIMED, S_DEAD, S_WITCH, S_WITCH_CLAN):
        s[f] = -1
    for f in (S_RESUME_STAGE, S_RESUME_CTX, S_RESUME_TRUE, S_RESUME_CLAIMANT, S_RESUME_CLAIMED):
        s[f] = -1
    s[S_STAGE] = Stage.DEAL
    s[S_CUR] = _CHANCE


@hot
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
    s[S_CLAIMANT] = -1
    s[S_CLAIMED] = -1
    s[S_POOL] = 0
    s[S_GIFT] = 0


@hot
def _end_turn(s, cfg):
    s[S_TURN] += 1
    if s[S_TURN] >= cfg[C_MAX_TURNS]:  # D-11: the turn cap ends in a draw
        s[S_STAGE] = Stage.TERMINAL
        s[S_CUR] = _TERMINAL
        s[S_WINNER] = -1
        return
    _start_turn(s, _next_living(s, cfg, s[S_ACTOR], -1))


# ---- influence loss ------------------------------------------------------------
REVEAL_GOES_ON = 0  # _reveal: the caller continues
REVEAL_GAME_OVER = 1  # _reveal: the game ended
REVEAL_WINDOW = 2  # _reveal: a Croque-Mort window opened; it resumes the caller later


@hot
def _begin_loss(s, stage, p):
    s[S_STAGE] = stage
    s[S_LOSER] = p
    s[S_CUR] = p


@hot
def _save_resume(s):
    """Remember the loss stage and challenge being resolved, to resume after a window."""
    s[S_RESUME_STAGE] = s[S_STAGE]
    s[S_RESUME_CTX] = s[S_CTX]
    s[S_RESUME_TRUE] = s[S_CLAIM_TRUE]
    s[S_RESUME_CLAIMANT] = s[S_CLAIMANT]
    s[S_RESUME_CLAIMED] = s[S_CLAIMED]


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


@hot
def _reveal(s, cfg, p, c):
    """Turn p's card c face up; eliminate p and end the game if it follows."""
    s[S_HIDDEN + p * NUM_CLANS + c] -= 1
    s[S_REVEALED + p * NUM_CLANS + c] += 1
    if hidden_count(s, p) > 0:
        return REVEAL_GOES_ON
    n = cfg[C_PLAYERS]
    alive = 0
    last = -1
    for q in range(n):
        if is_alive(s, q):
            alive += 1
            last = q
    if alive == 1:
        s[S_TREASURY] += s[S_COINS + p]  # an eliminated player's coins go back
        s[S_COINS + p] = 0
        s[S_STAGE] = Stage.TERMINAL
        s[S_CUR] = _TERMINAL
        s[S_WINNER] = last
        return REVEAL_GAME_OVER
    if (
        character_of(cfg, Clan.UNTOUCHABLE) == Character.CROQUE_MORT
        and s[S_DEAD] < 0
        and s[S_COINS + p] > 0
    ):
        return _undertaker_open(s, cfg, p)
    s[S_TREASURY] += s[S_COINS + p]  # an eliminated player's coins go back
    s[S_COINS + p] = 0
    return REVEAL_GOES_ON


# ---- Complots 2 passive powers (docs/rules.md section 7, inferred) --------------
@hot
def _undertaker_open(s, cfg, dead):
    """Croque-Mort: the eliminated player's coins wait (in their hands) for claims (D-C2-8)."""
    _save_resume(s)
    s[S_DEAD] = dead
    s[S_HEIRS] = 0
    s[S_STAGE] = Stage.UNDERTAKER_CLAIM
    s[S_RESP] = _next_living(s, cfg, dead, -1)
    s[S_CUR] = s[S_RESP]
    return REVEAL_WINDOW


@hot
def _undertaker_next(s, cfg, after):
    """Next responder of the Croque-Mort window after `after`, or close it."""
    n = cfg[C_PLAYERS]
    dead = s[S_DEAD]
    q = _next_living(s, cfg, after, -1)
    if (q - dead) % n > (after - dead) % n and q != after:
        s[S_STAGE] = Stage.UNDERTAKER_CLAIM
        s[S_RESP] = q
        s[S_CUR] = q
        return
    _power_undertaker(s, cfg)


@hot
def _power_undertaker(s, cfg):
    """Croque-Mort: living claimants whose claim stood share the coins; the rest to the treasury."""
    n = cfg[C_PLAYERS]
    heirs = 0
    for q in range(n):
        if (s[S_HEIRS] >> q) & 1 and is_alive(s, q):
            heirs += 1
    dead = s[S_DEAD]
    estate = s[S_COINS + dead]
    s[S_COINS + dead] = 0
    if heirs > 0:
        share = estate // heirs  # D-C2-8: equal shares, the remainder to the treasury
        for q in range(n):
            if (s[S_HEIRS] >> q) & 1 and is_alive(s, q):
                s[S_COINS + q] += share
                estate -= share
    s[S_TREASURY] += estate
    s[S_HEIRS] = 0
    s[S_DEAD] = -1
    s[S_PENDING] = 1  # apply_action resumes the interrupted loss


@hot
def _witch_claim(s, cfg, p, c):
    """Sorciere: p loses card c face down, claiming it is the Sorciere (D-C2-6)."""
    s[S_HIDDEN + p * NUM_CLANS + c] -= 1
    s[S_BURIED + p * NUM_CLANS + c] += 1
    _save_resume(s)
    s[S_WITCH] = p
    s[S_WITCH_CLAN] = c
    _open_claim_challenge(s, cfg, p, Clan.UNTOUCHABLE, Context.WITCH)


@hot
def _power_witch(s, cfg):
    """Sorciere: the claim stood (or was shown true): take 5 from the treasury."""
    p = s[S_WITCH]
    if is_alive(s, p):
        _gain(s, p, WITCH_GAIN)


@hot
def _witch_done(s, cfg):
    s[S_WITCH] = -1
    s[S_WITCH_CLAN] = -1
    s[S_PENDING] = 1  # apply_action resumes the interrupted loss


@hot
def _open_claim_challenge(s, cfg, claimant, clan, ctx):
    """A claim that every other living player may challenge, clockwise after the claimant."""
    s[S_CLAIMANT] = claimant
    s[S_CLAIMED] = clan
    s[S_CTX] = ctx
    s[S_CHALLENGER] = -1
    s[S_STAGE] = Stage.CLAIM_CHALLENGE
    s[S_RESP] = _next_living(s, cfg, claimant, -1)
    s[S_CUR] = s[S_RESP]


@hot
def _claim_unchallenged(s, cfg):
    """Everyone passed on a co-claim or Sorciere claim: it stands."""
    ctx = s[S_CTX]
    if ctx == Context.WITCH:
        _power_witch(s, cfg)
        _witch_done(s, cfg)
    elif ctx == Context.ILLUSION:
        _illusion_share(s, s[S_CLAIMANT])
        _illusion_next(s, cfg, s[S_CLAIMANT])
    else:
        s[S_HEIRS] |= 1 << s[S_CLAIMANT]
        _undertaker_next(s, cfg, s[S_CLAIMANT])


# ---- Complots 2 action powers (docs/rules.md section 7, inferred): one hook each ---
@hot
def _power_execute(s, cfg, actor, target):
    """Bourreau: pay 3 to the target, who loses 1 influence."""
    _pay_to(s, actor, target, EXECUTE_PAYMENT)
    _begin_loss(s, Stage.EFFECT_LOSS, target)


@hot
def _power_blackmail(s, cfg, actor, target):
    """Maitre-Chanteur: the target chooses to pay 3 (if they can) or to refuse."""
    if s[S_COINS + target] >= BLACKMAIL_AMOUNT:
        s[S_STAGE] = Stage.BLACKMAIL_CHOICE
        s[S_CUR] = target
        return
    _blackmail_refused(s, cfg, actor, target)  # D-C2-3: unable to pay, the target refuses


@hot
def _blackmail_refused(s, cfg, actor, target):
    """Maitre-Chanteur refused: the actor pays the target 3; the target loses 1 influence."""
    _pay_to(s, actor, target, BLACKMAIL_AMOUNT)
    _begin_loss(s, Stage.EFFECT_LOSS, target)


@hot
def _poorest(s, cfg, target, actor, gift):
    """(fewest coins, how many tie) among living players other than `target` (D-C2-4).

    The actor is counted without the `gift` still in their hand.
    """
    n = cfg[C_PLAYERS]
    low = 1 << 30
    ties = 0
    for q in range(n):
        if q == target or not is_alive(s, q):
            continue
        c = s[S_COINS + q] - (gift if q == actor else 0)
        if c < low:
            low = c
            ties = 1
        elif c == low:
            ties += 1
    return low, ties


@hot
def is_poorest(s, cfg, q):
    """Whether q may receive the pending Justicier gift (a tied poorest player)."""
    actor = s[S_ACTOR]
    target = s[S_TARGET]
    gift = s[S_GIFT]
    if q == target or not is_alive(s, q):
        return False
    low, _ = _poorest(s, cfg, target, actor, gift)
    return s[S_COINS + q] - (gift if q == actor else 0) == low


@hot
def _justice_give(s, cfg, q):
    """Justicier: the gift goes from the actor's hand to q; the turn ends."""
    s[S_COINS + s[S_ACTOR]] -= s[S_GIFT]
    s[S_COINS + q] += s[S_GIFT]
    s[S_GIFT] = 0
    _end_turn(s, cfg)


@hot
def _power_justice(s, cfg, actor, target):
    """Justicier: take 3 (or all) from the richest, keep 1, give the rest to the poorest."""
    take = min(JUSTICE_TAKE, s[S_COINS + target])
    s[S_COINS + target] -= take
    s[S_COINS + actor] += take
    gift = take - min(JUSTICE_KEEP, take)
    if gift <= 0:
        _end_turn(s, cfg)
        return
    s[S_GIFT] = gift
    low, ties = _poorest(s, cfg, target, actor, gift)
    if ties > 1:
        s[S_STAGE] = Stage.JUSTICE_GIVE  # the actor picks among ties
        s[S_CUR] = actor
        return
    n = cfg[C_PLAYERS]
    for q in range(n):
        if is_poorest(s, cfg, q):
            _justice_give(s, cfg, q)
            return


@hot
def _power_tithe_from(s, cfg, q):
    """Pape: take 1 coin from opponent q (nothing from 0 coins, as D-3)."""
    if is_alive(s, q) and is_alive(s, s[S_ACTOR]):
        _pay_to(s, q, s[S_ACTOR], TITHE_AMOUNT)


@hot
def _tithe_next(s, cfg):
    """Pape: open the counter window of the next opponent clockwise, or end the turn."""
    actor = s[S_ACTOR]
    if cfg[C_EXTENDED] and not is_alive(s, actor):
        _end_turn(s, cfg)  # D-9: the actor is gone, the action ends
        return
    n = cfg[C_PLAYERS]
    prev = s[S_TARGET] if s[S_TARGET] >= 0 else actor
    q = _next_living(s, cfg, prev, -1)
    if q == actor or (q - actor) % n <= (prev - actor) % n:
        _end_turn(s, cfg)
        return
    s[S_TARGET] = q
    s[S_COUNTERER] = -1
    s[S_COUNTER_CLAN] = -1
    s[S_CHALLENGER] = -1
    s[S_CTX] = -1
    s[S_CLAIM_TRUE] = -1
    s[S_STAGE] = Stage.COUNTER
    s[S_RESP] = q
    s[S_CUR] = q


@hot
def _power_spy(s, cfg, actor):
    """Espion: draw 1 from the Court, then keep as many cards as before (return 1)."""
    if court_size(s) == 0:
        _end_turn(s, cfg)
        return
    s[S_KEEP_N] = hidden_count(s, actor)
    s[S_DRAW_N] = 1
    s[S_DRAWER] = actor
    s[S_STAGE] = Stage.EXCHANGE_DRAW
    s[S_CUR] = _CHANCE


@hot
def _power_donate(s, cfg, actor, target):
    """Ursuline: take 3 from the treasury and give 1 of them to the target."""
    before = s[S_COINS + actor]
    _gain(s, actor, DONATE_GAIN)
    _pay_to(s, actor, target, min(DONATE_GIFT, s[S_COINS + actor] - before))


@hot
def _power_illusion(s, cfg, actor):
    """Illusionniste: take 4 from the treasury, then opponents may co-claim."""
    before = s[S_COINS + actor]
    _gain(s, actor, ILLUSION_GAIN)
    s[S_POOL] = s[S_COINS + actor] - before
    _illusion_next(s, cfg, actor)


@hot
def _illusion_share(s, q):
    """A co-claim of the Illusionniste stood: q takes 1 of the actor's coins of this action."""
    actor = s[S_ACTOR]
    if s[S_POOL] > ILLUSION_KEEP and is_alive(s, q) and is_alive(s, actor):
        _pay_to(s, actor, q, ILLUSION_SHARE)
        s[S_POOL] -= ILLUSION_SHARE


@hot
def _illusion_next(s, cfg, after):
    """Next opponent who may co-claim the Illusionniste, or end the turn (D-C2-7)."""
    actor = s[S_ACTOR]
    n = cfg[C_PLAYERS]
    if not is_alive(s, actor) or s[S_POOL] <= ILLUSION_KEEP:
        _end_turn(s, cfg)
        return
    q = _next_living(s, cfg, after, -1)
    if q == actor or (q - actor) % n <= (after - actor) % n:
        _end_turn(s, cfg)
        return
    s[S_STAGE] = Stage.ILLUSION_CLAIM
    s[S_RESP] = q
    s[S_CUR] = q


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
