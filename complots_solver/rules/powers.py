"""Losing influence and the Complots 2 powers, as numba-compiled steps of the rules core.

A revealed card (:func:`_reveal`), the loss windows it may open (Croque-Mort,
Sorciere) and where the interrupted turn resumes, and one small hook per
Complots 2 power (``_power_*``, ``docs/complots2.md``) with the claims and
turns around them. Part of the rules core (:mod:`complots_solver.rules.core`).
"""

from __future__ import annotations

from complots_solver.rules.basics import (
    _CHANCE,
    _TERMINAL,
    BLACKMAIL_AMOUNT,
    DONATE_GAIN,
    DONATE_GIFT,
    EXECUTE_PAYMENT,
    ILLUSION_GAIN,
    ILLUSION_KEEP,
    ILLUSION_SHARE,
    JUSTICE_KEEP,
    JUSTICE_TAKE,
    TITHE_AMOUNT,
    WITCH_GAIN,
    _end_turn,
    _gain,
    _next_living,
    _pay_to,
    character_of,
    court_size,
    hidden_count,
    is_alive,
)
from complots_solver.rules.compiled import hot
from complots_solver.rules.enums import NUM_CLANS, Character, Clan, Context, Stage
from complots_solver.rules.layout import (
    C_EXTENDED,
    C_PLAYERS,
    S_ACTOR,
    S_BURIED,
    S_CHALLENGER,
    S_CLAIM_TRUE,
    S_CLAIMANT,
    S_CLAIMED,
    S_COINS,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_CTX,
    S_CUR,
    S_DEAD,
    S_DRAW_N,
    S_DRAWER,
    S_GIFT,
    S_HEIRS,
    S_HIDDEN,
    S_KEEP_N,
    S_LOSER,
    S_PENDING,
    S_POOL,
    S_RESP,
    S_RESUME_CLAIMANT,
    S_RESUME_CLAIMED,
    S_RESUME_CTX,
    S_RESUME_STAGE,
    S_RESUME_TRUE,
    S_REVEALED,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_WINNER,
    S_WITCH,
    S_WITCH_CLAN,
)

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
