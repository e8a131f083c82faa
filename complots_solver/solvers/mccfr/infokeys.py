"""Information keys for Monte Carlo CFR: 64-bit keys computed incrementally inside numba.

:func:`step_keys` carries each seat's key material along a path, one row of
per-depth arrays per move, and :func:`key_of` gives the key of the player to
move. Three schemes (:data:`KEYS`; :data:`KEY_SCHEME_VERSION` versions their
definitions, so that tables saved under another version are refused):

``perfect``
    Perfect recall: a rolling hash of the player's observation tokens,
    ``h_0 = mix(PERFECT_SEED + seat)``, ``h_(k+1) = mix(h_k ^ (token_k + 1))``
    (:func:`mix`, the splitmix64 finaliser). Distinct sequences share a key
    only by a 64-bit collision; one between states with different numbers of
    legal actions is counted in ``key_conflicts``.
``markov``
    What the player to move knows that matters now (:func:`markov_key`).
``compact``
    A smaller summary, for learning speed on the full game (:func:`compact_key`).

Design notes and measurements:
``reports/mccfr-runs.md``, "Design notes moved from module docstrings".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import hot, inline
from complots_solver.rules.enums import NUM_CLANS, Clan, Context, Stage
from complots_solver.rules.layout import (
    A_COUNTER,
    A_KEEP,
    A_PASS,
    A_RETURN_CARD,
    C_EXTENDED,
    C_MAX_TURNS,
    C_PLAYERS,
    MS_FIRST,
    MS_SECOND,
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
    S_CTX,
    S_CUR,
    S_DRAW_N,
    S_DRAWER,
    S_HIDDEN,
    S_KEEP_N,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TURN,
    S_WITCH,
    X_WITCH,
)

KEY_PERFECT = 0
KEY_MARKOV = 1
KEY_BOTH = 2  # step_keys only: keep the material of both keys (two tables with different keys)
KEY_COMPACT = 3
KEYS = {"perfect": KEY_PERFECT, "markov": KEY_MARKOV, "compact": KEY_COMPACT}
KEY_SCHEME_VERSION = 2  # bump whenever a key's definition changes: saved tables become foreign

PERFECT_SEED = 0x5EED_0000_0000_0001
MARKOV_SEED = 0x5EED_0000_0000_0002
TURNS_LEFT_BUCKETS = 3
KNOWN_COURT_CAP = 3  # known-Court counts per clan are kept in 2 bits
KNOWN_SHIFT = 8  # first bit of the known-Court counts in a seat's memory word
CLAIM_BITS = (1 << NUM_CLANS) - 1
COMPACT_SEED = 0x5EED_0000_0000_0004
# compact key, at response stages (whose legal actions never depend on coins): any
# seat's coins -> bucket 0-2, 3-6, 7-9, 10+ (index = coins, capped at the last entry)
RESPONSE_BUCKETS = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3], dtype=np.int64)
_POLY = np.uint64(0x9E3779B97F4A7C15)  # odd multiplier of the compact key's polynomial hash
# compact key: an opponent's coins -> bucket (index = coins, capped at the last entry)
COIN_BUCKETS = np.array([0, 1, 2, 3, 3, 3, 3, 4, 4, 4, 5], dtype=np.int64)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_SH1 = np.uint64(30)
_SH2 = np.uint64(27)
_SH3 = np.uint64(31)
_ONE = np.uint64(1)
_NO_CLAIMS = 0


@inline
def mix(x: np.uint64) -> np.uint64:
    """The splitmix64 finaliser of ``x + golden ratio`` (a bijection on 64-bit words)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _SH1)) * _MUL1
    z = (z ^ (z >> _SH2)) * _MUL2
    return z ^ (z >> _SH3)


@inline
def chain(h: np.uint64, value: int) -> np.uint64:
    """Fold one small integer into a running hash."""
    return mix(h ^ (np.uint64(value) + _ONE))


@hot
def init_keys(cfg: np.ndarray, hashes: np.ndarray, memory: np.ndarray) -> None:
    """Initial per-seat perfect-recall hashes and empty claim memories (one depth row)."""
    for p in range(cfg[C_PLAYERS]):
        hashes[p] = mix(np.uint64(PERFECT_SEED + p))
        memory[p] = _NO_CLAIMS


@hot
def _known_add(memory: np.ndarray, p: int, clan: int) -> None:
    """Record that seat ``p`` saw a card of ``clan`` go into the Court (count capped)."""
    shift = KNOWN_SHIFT + 2 * clan
    count = (memory[p] >> shift) & 3
    if count < KNOWN_COURT_CAP:
        memory[p] += 1 << shift


@hot
def _forget_court(memory: np.ndarray, p: int) -> None:
    """Seat ``p`` drew new cards: clear its claim mask and its known-Court counts."""
    memory[p] = _NO_CLAIMS


@hot
def _update_memory(s: np.ndarray, cfg: np.ndarray, a: int, memory: np.ndarray) -> None:
    """Record the public claim made, the cards seen entering the Court, or a draw, for ``a`` at ``s``."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    n = cfg[C_PLAYERS]
    if st == Stage.ACTION:
        kind, _ = core.target_of_action(cfg, a)
        claim = core.claim_of(kind)
        if claim >= 0:
            memory[cur] |= 1 << claim
    elif st == Stage.COUNTER:
        if a != A_PASS:
            memory[cur] |= 1 << (a - A_COUNTER)
    elif st == Stage.ILLUSION_CLAIM and a != A_PASS:  # Complots 2 co-claim
        memory[cur] |= 1 << Clan.COLLECTOR
    elif st == Stage.UNDERTAKER_CLAIM and a != A_PASS:  # Complots 2 Croque-Mort claim
        memory[cur] |= 1 << Clan.UNTOUCHABLE
    elif (
        st == Stage.CHALLENGE or st == Stage.COUNTER_CHALLENGE or st == Stage.CLAIM_CHALLENGE
    ) and a != A_PASS:
        if st == Stage.CHALLENGE:
            claimant = s[S_ACTOR]
            clan = s[S_CLAIM]
        elif st == Stage.COUNTER_CHALLENGE:
            claimant = s[S_COUNTERER]
            clan = s[S_COUNTER_CLAN]
        elif s[S_CTX] == Context.WITCH:
            return  # a challenged Sorciere claim turns the card face up: nothing enters the Court
        else:
            claimant = s[S_CLAIMANT]
            clan = s[S_CLAIMED]
        if s[S_HIDDEN + claimant * NUM_CLANS + clan] > 0:  # a true claim: the card goes in
            for q in range(n):
                if q != claimant:
                    _known_add(memory, q, clan)
    elif (st == Stage.CHALLENGE_LOSS or st == Stage.EFFECT_LOSS) and cfg[C_EXTENDED] != 0:
        witch = core.c2_base(n) + X_WITCH
        if witch <= a < witch + NUM_CLANS:  # Complots 2: a loss claimed as the Sorciere
            memory[cur] |= 1 << Clan.UNTOUCHABLE
    elif st == Stage.EXCHANGE_DRAW:
        _forget_court(memory, s[S_ACTOR])
    elif st == Stage.EXCHANGE_KEEP:
        memory[cur] = _NO_CLAIMS
        base = S_HIDDEN + cur * NUM_CLANS
        for c in range(NUM_CLANS):  # returned = hand (with the drawn cards) - kept
            back = s[base + c]
            if MS_FIRST[a - A_KEEP] == c:
                back -= 1
            if MS_SECOND[a - A_KEEP] == c:
                back -= 1
            for _ in range(back):
                _known_add(memory, cur, c)
    elif st == Stage.EXAMINE_DECIDE and a != A_RETURN_CARD:
        _known_add(memory, cur, s[S_SHOWN])
    elif st == Stage.CHALLENGE_DRAW or st == Stage.EXAMINE_DRAW:
        _forget_court(memory, s[S_DRAWER])


@inline
def step_keys(
    s: np.ndarray,
    cfg: np.ndarray,
    a: int,
    key_kind: int,
    hashes: np.ndarray,
    memory: np.ndarray,
    new_hashes: np.ndarray,
    new_memory: np.ndarray,
) -> None:
    """Key material after applying ``a`` to ``s`` (call before applying it)."""
    n = cfg[C_PLAYERS]
    if key_kind == KEY_PERFECT or key_kind == KEY_BOTH:
        for p in range(n):
            new_hashes[p] = chain(hashes[p], core.observation_token(s, a, p))
    if key_kind != KEY_PERFECT:
        for p in range(n):
            new_memory[p] = memory[p]
        _update_memory(s, cfg, a, new_memory)


@hot
def markov_key(s: np.ndarray, cfg: np.ndarray, memory: np.ndarray) -> np.int64:
    """The ``markov`` key of the player to move.

    An imperfect-recall summary of what the player to move knows that matters
    now. It is a 64-bit hash (same ``mix`` chain, :data:`MARKOV_SEED`) of this
    fixed tuple of small integers, all read from the state or from a small
    public memory kept alongside it:

    * the seat of the player to move;
    * the turn's public context: stage, actor, announced action kind, target,
      challenger, counterer, counter clan, challenge context, whether the
      challenged claim was true, the clan shown to the Inquisitor (only ever
      set when the viewer is the actor who saw it), cards drawn and to keep;
    * turns left before the cap, truncated at :data:`TURNS_LEFT_BUCKETS`
      ("1, 2, ..., or that many or more");
    * the player's own face-down cards (counts per clan);
    * every seat's face-up cards (counts per clan) and coins;
    * for every seat, the set (5-bit mask) of clans it has claimed (by an
      action, a counter, or a Complots 2 co-claim, Croque-Mort or Sorciere
      claim) since its last exchange or replacement draw: an
      exchange, a replacement after a true challenge, or an Examine swap clear
      the mask of the player who got new cards;
    * the Court cards the player knows (version 2 of the scheme): for each
      clan, how many cards of it (capped at :data:`KNOWN_COURT_CAP`) the
      player has *seen go into the Court* since their own last draw from it.
      Cards are seen going in when the player returns them after an exchange
      (known to them only), when a challenged claimant shows the card and
      shuffles it in (public: every other player adds it; the claimant then
      draws and forgets), and when an Inquisitor forces a swap (the Inquisitor
      adds the shown card; the target draws and forgets). The player's own
      draw from the Court (exchange, replacement, forced swap) clears it,
      since they cannot tell which copy they drew; a draw by someone else does
      not (the card is then only probably still there).

    Forgotten: the order and number of claims, claims made before the last
    exchange or replacement, which copy of a known Court card another
    player's later draw may have taken, which card an opponent showed to an
    Inquisitor once the turn is over (beyond it entering the Court in a
    swap), the exact turn number beyond :data:`TURNS_LEFT_BUCKETS`, the
    draft's out-of-game cards (one's own unpicked pile) and the draft picks of
    the opponent (only their face-up cards remain). Of the draft, what this
    loses is which of one's two cards was dealt from pile 3: one's own
    unpicked pile is fixed by one's pick and says nothing about the other
    cards, but pile 3 holds one card of each clan, so the dealt card's clan
    is in neither the Court nor the opponent's dealt card (their pick may
    still be of it). The key keeps one's cards by clan only, so whenever
    one's two cards differ it cannot tell which was dealt. The key is not perfect-recall:
    exact best responses on the compiled tree still apply, since the strategy
    is mapped onto the tree's perfect-recall information sets.

    The per-seat memory is one int64: bits 0-4 hold the claim mask (public),
    bits 8 and up the known-Court counts, 2 bits per clan (private: only the
    seat's own counts enter its key).
    """
    n = cfg[C_PLAYERS]
    p = s[S_CUR]
    h = mix(np.uint64(MARKOV_SEED))
    h = chain(h, p)
    for f in (S_STAGE, S_ACTOR, S_ACT, S_TARGET, S_CHALLENGER, S_COUNTERER, S_COUNTER_CLAN):
        h = chain(h, s[f] + 1)
    for f in (S_CTX, S_CLAIM_TRUE, S_SHOWN, S_DRAW_N, S_KEEP_N):
        h = chain(h, s[f] + 1)
    h = chain(h, min(cfg[C_MAX_TURNS] - s[S_TURN], TURNS_LEFT_BUCKETS))
    for c in range(NUM_CLANS):
        h = chain(h, s[S_HIDDEN + p * NUM_CLANS + c])
    h = chain(h, memory[p] >> KNOWN_SHIFT)  # the player's own known-Court counts
    for q in range(n):
        h = chain(h, s[S_COINS + q])
        h = chain(h, memory[q] & CLAIM_BITS)
        for c in range(NUM_CLANS):
            h = chain(h, s[S_REVEALED + q * NUM_CLANS + c])
    return np.int64(h)


@hot
def _poly(h: np.uint64, value: int) -> np.uint64:
    """One multiply-add step of the compact key's polynomial hash (``value >= -1``)."""
    return h * _POLY + np.uint64(value + 2)


@hot
def _bucket(table: np.ndarray, coins: int, base: int) -> int:
    """``base`` plus the bucket of ``coins`` in ``table`` (coins capped at its last entry)."""
    return base + table[min(coins, table.shape[0] - 1)]


@hot
def compact_key(s: np.ndarray, cfg: np.ndarray, memory: np.ndarray) -> np.int64:
    """The ``compact`` key of the player to move.

    The smallest summary, built for learning speed on the full game (many
    times fewer information states than ``markov``). It keeps, for the player
    to move:

    * the seat, the stage, the turn's other seats *relative to the mover*
      (actor, target, challenger, counterer, co-claimant, Sorciere claimant),
      and the turn's pending context as ``markov`` (action, counter clan,
      challenge context, claim truth, clan shown, cards drawn and kept, and
      the clan of a Complots 2 co-claim);
    * the player's own face-down cards, and the number of face-up cards of
      each clan over all seats (who turned them up is forgotten);
    * for each opponent in seat order after the mover: how many face-down
      cards they hold, and their coins in :data:`COIN_BUCKETS` (0, 1, 2,
      3-6, 7-9, 10+: steal yield, Assassin cost, Coup cost, forced Coup;
      exact in Complots 2 line-ups, whose Justicier targets depend on them);
    * the player's own exact coins, except at response stages (challenge,
      counter, co-claim windows), whose legal actions never depend on coins:
      there every seat's coins are in :data:`RESPONSE_BUCKETS` (0-2, 3-6,
      7-9, 10+).

    Forgotten (beyond ``markov``): every claim mask, the known Court cards,
    the turns left, whose face-up card is whose, and coins within a bucket.
    Its hash is one multiply-add per field and a final ``mix`` (a polynomial
    hash modulo 2**64 with an odd multiplier), cheaper than the ``markov``
    chain of ``mix`` calls.
    """
    n = cfg[C_PLAYERS]
    p = s[S_CUR]
    h = np.uint64(COMPACT_SEED)
    h = _poly(h, p)
    h = _poly(h, s[S_STAGE])
    for f in (S_ACTOR, S_TARGET, S_CHALLENGER, S_COUNTERER, S_CLAIMANT, S_WITCH):
        x = s[f]
        h = _poly(h, -1 if x < 0 else (x - p) % n)  # seats relative to the mover
    for f in (S_ACT, S_COUNTER_CLAN, S_CTX, S_CLAIM_TRUE, S_SHOWN, S_DRAW_N, S_KEEP_N, S_CLAIMED):
        h = _poly(h, s[f])
    for c in range(NUM_CLANS):
        h = _poly(h, s[S_HIDDEN + p * NUM_CLANS + c])
        up = 0
        for q in range(n):
            up += s[S_REVEALED + q * NUM_CLANS + c]
        h = _poly(h, up)
    st = s[S_STAGE]
    respond = (
        st == Stage.CHALLENGE
        or st == Stage.COUNTER
        or st == Stage.COUNTER_CHALLENGE
        or st == Stage.CLAIM_CHALLENGE
        or st == Stage.ILLUSION_CLAIM
        or st == Stage.UNDERTAKER_CLAIM
    )
    coins = s[S_COINS + p]
    h = _poly(h, _bucket(RESPONSE_BUCKETS, coins, 200) if respond else coins)
    exact = cfg[C_EXTENDED] != 0
    for i in range(1, n):
        q = (p + i) % n
        h = _poly(h, core.hidden_count(s, q))
        coins = s[S_COINS + q]
        if respond:
            h = _poly(h, _bucket(RESPONSE_BUCKETS, coins, 200))
        else:
            h = _poly(h, coins if exact else _bucket(COIN_BUCKETS, coins, 100))
    return np.int64(mix(h))


@inline
def key_of(
    s: np.ndarray, cfg: np.ndarray, key_kind: int, hashes: np.ndarray, memory: np.ndarray
) -> np.int64:
    """The key of the player to move at ``s`` under ``key_kind``."""
    if key_kind == KEY_PERFECT:
        return np.int64(hashes[s[S_CUR]])
    if key_kind == KEY_COMPACT:
        return compact_key(s, cfg, memory)
    return markov_key(s, cfg, memory)


@njit(cache=True)
def key_after_history(cfg: np.ndarray, key_kind: int, history: np.ndarray) -> tuple[np.int64, int]:
    """Replay ``history`` (actions and chance outcomes) from the start: (key, player to move).

    The history must be legal (as a pyspiel state's ``history()`` is); the key is
    that of the player to move at the end, as :func:`key_of` computes it during a run.
    """
    n = cfg[C_PLAYERS]
    s = core.initial_state(cfg)
    nxt = np.empty_like(s)
    hashes = np.zeros(n, dtype=np.uint64)
    memory = np.zeros(n, dtype=np.int64)
    new_hashes = np.zeros(n, dtype=np.uint64)
    new_memory = np.zeros(n, dtype=np.int64)
    init_keys(cfg, hashes, memory)
    for a in history:
        step_keys(s, cfg, a, key_kind, hashes, memory, new_hashes, new_memory)
        nxt[:] = s
        core.apply_action(nxt, cfg, a)
        s[:] = nxt
        hashes[:] = new_hashes
        memory[:] = new_memory
    return key_of(s, cfg, key_kind, hashes, memory), s[S_CUR]
