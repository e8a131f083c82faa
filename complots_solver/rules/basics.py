"""The rules core's amounts and the small steps every transition shares, numba-compiled.

The coin amounts of the actions and powers (``docs/rules.md``), the seats and
coins helpers, the Court, which action targets whom and claims what, the state
before the deal (:func:`initial_state`, :func:`reset_state`) and the start and
end of a turn. Part of the rules core: :mod:`complots_solver.rules.core` is
its public face, and its note on ``_x`` functions holds here too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.characters import kind_clan_table
from complots_solver.rules.compiled import hot, inline
from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Clan,
    PlayerId,
    Stage,
    Variant,
)
from complots_solver.rules.layout import (
    A_EXCHANGE,
    A_FOREIGN_AID,
    A_INCOME,
    A_TARGETED,
    A_TAX,
    C_CHARS,
    C_COPIES,
    C_MAX_TURNS,
    C_PLAYERS,
    C_SLOT_TARGETED,
    C_SLOT_UNTARGETED,
    C_START_COINS,
    C_TOTAL_COINS,
    C_VARIANT,
    NUM_TARGETED_KINDS,
    S_ACT,
    S_ACTOR,
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
    S_HIDDEN,
    S_KEEP_N,
    S_LOSER,
    S_OUT,
    S_POOL,
    S_RESP,
    S_RESUME_CLAIMANT,
    S_RESUME_CLAIMED,
    S_RESUME_CTX,
    S_RESUME_STAGE,
    S_RESUME_TRUE,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_TURN,
    S_WINNER,
    S_WITCH,
    S_WITCH_CLAN,
    STATE_SIZE,
    T_ASSASSINATE,
    T_COUP,
    T_STEAL,
    X_GIVE,
    X_TITHE,
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
    for f in (
        S_RESUME_STAGE,
        S_RESUME_CTX,
        S_RESUME_TRUE,
        S_RESUME_CLAIMANT,
        S_RESUME_CLAIMED,
    ):
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
