"""Information keys for Monte Carlo CFR: 64-bit keys computed inside numba.

Two abstractions are offered; both are computed incrementally along a path
of the game (one row of per-depth arrays per move) by :func:`step_keys`.

``perfect`` (:data:`KEY_PERFECT`)
    Perfect recall. A player's information state is exactly the sequence of
    observation tokens ``core.observation_token(s, a, player)`` they have
    seen; the key is a rolling 64-bit hash of that sequence,
    ``h_0 = mix(PERFECT_SEED + seat)`` and ``h_{k+1} = mix(h_k ^ (token_k + 1))``
    with ``mix`` the splitmix64 finaliser (a bijection on 64-bit words). Two
    distinct sequences share a key only by a hash collision; treating the keys
    of ``N`` distinct information states as independent uniform 64-bit values,
    the probability that any two collide is at most ``N**2 / 2**65``: about
    ``3e-8`` for a million states, ``3e-4`` for 10**8, ``0.03`` for 10**9.
    A collision merges two information states (they share regrets); when the
    two have different numbers of legal actions it is detected and counted in
    ``key_conflicts`` (the node then plays uniformly and is not updated).

``markov`` (:data:`KEY_MARKOV`)
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
      action or a counter) since its last exchange or replacement draw: an
      exchange, a replacement after a true challenge, or an Examine swap clear
      the mask of the player who got new cards.

    Forgotten: the order and number of claims, claims made before the last
    exchange or replacement, the Court cards the player saw during their own
    exchanges or Examines (and which cards they put back), which card an
    opponent showed to an Inquisitor once the turn is over, the exact turn
    number beyond :data:`TURNS_LEFT_BUCKETS`, and the draft picks of the
    opponent (only their face-up cards remain). The key is not perfect-recall:
    exact best responses on the compiled tree still apply, since the strategy
    is mapped onto the tree's perfect-recall information sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import (
    A_COUNTER,
    A_PASS,
    C_MAX_TURNS,
    C_PLAYERS,
    S_ACT,
    S_ACTOR,
    S_CHALLENGER,
    S_CLAIM_TRUE,
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
)

KEY_PERFECT = 0
KEY_MARKOV = 1
KEY_BOTH = 2  # step_keys only: keep the material of both keys (two tables with different keys)
KEYS = {"perfect": KEY_PERFECT, "markov": KEY_MARKOV}
KEY_SCHEME_VERSION = 1  # bump whenever a key's definition changes: saved tables become foreign

PERFECT_SEED = 0x5EED_0000_0000_0001
MARKOV_SEED = 0x5EED_0000_0000_0002
TURNS_LEFT_BUCKETS = 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_SH1 = np.uint64(30)
_SH2 = np.uint64(27)
_SH3 = np.uint64(31)
_ONE = np.uint64(1)
_NO_CLAIMS = 0


@njit(cache=True)
def mix(x: np.uint64) -> np.uint64:
    """The splitmix64 finaliser of ``x + golden ratio`` (a bijection on 64-bit words)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _SH1)) * _MUL1
    z = (z ^ (z >> _SH2)) * _MUL2
    return z ^ (z >> _SH3)


@njit(cache=True)
def chain(h: np.uint64, value: int) -> np.uint64:
    """Fold one small integer into a running hash."""
    return mix(h ^ (np.uint64(value) + _ONE))


@njit(cache=True)
def init_keys(cfg: np.ndarray, hashes: np.ndarray, memory: np.ndarray) -> None:
    """Initial per-seat perfect-recall hashes and empty claim memories (one depth row)."""
    for p in range(cfg[C_PLAYERS]):
        hashes[p] = mix(np.uint64(PERFECT_SEED + p))
        memory[p] = _NO_CLAIMS


@njit(cache=True)
def _update_memory(s: np.ndarray, cfg: np.ndarray, a: int, memory: np.ndarray) -> None:
    """Record the public claim made (or the new cards drawn) when ``a`` is applied to ``s``."""
    st = s[S_STAGE]
    cur = s[S_CUR]
    if st == Stage.ACTION:
        kind, _ = core.target_of_action(cfg, a)
        claim = core.claim_of(kind)
        if claim >= 0:
            memory[cur] |= 1 << claim
    elif st == Stage.COUNTER:
        if a != A_PASS:
            memory[cur] |= 1 << (a - A_COUNTER)
    elif st == Stage.EXCHANGE_KEEP:
        memory[cur] = _NO_CLAIMS
    elif st == Stage.CHALLENGE_DRAW or st == Stage.EXAMINE_DRAW:
        memory[s[S_DRAWER]] = _NO_CLAIMS


@njit(cache=True)
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
    if key_kind != KEY_MARKOV:
        for p in range(n):
            new_hashes[p] = chain(hashes[p], core.observation_token(s, a, p))
    if key_kind != KEY_PERFECT:
        for p in range(n):
            new_memory[p] = memory[p]
        _update_memory(s, cfg, a, new_memory)


@njit(cache=True)
def markov_key(s: np.ndarray, cfg: np.ndarray, memory: np.ndarray) -> np.int64:
    """The ``markov`` key of the player to move (see the module docstring)."""
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
    for q in range(n):
        h = chain(h, s[S_COINS + q])
        h = chain(h, memory[q])
        for c in range(NUM_CLANS):
            h = chain(h, s[S_REVEALED + q * NUM_CLANS + c])
    return np.int64(h)


@njit(cache=True)
def key_of(
    s: np.ndarray, cfg: np.ndarray, key_kind: int, hashes: np.ndarray, memory: np.ndarray
) -> np.int64:
    """The key of the player to move at ``s`` under ``key_kind``."""
    if key_kind == KEY_PERFECT:
        return np.int64(hashes[s[S_CUR]])
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
