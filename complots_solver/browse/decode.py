"""Decode a player's observation token sequence into what they know (numba).

A player's perfect-recall information state is the sequence of observation
tokens they received (:func:`complots_solver.rules.core.observation_token`).
:func:`decode_tokens` replays such a sequence through the rules core on a
*completed* state: the viewer's own cards and every public move are applied
as observed, and each hidden value (an opponent's card dealt, drawn, picked,
kept or shown) is filled in with some value consistent with what the viewer
saw (a card an opponent reveals, or shows when a challenge finds the claim
true, is put into that opponent's hand first; a caught bluff takes the
claimed card out of it). Every field the viewer can know (stage, turn,
coins, face-up cards, face-down counts, the pending action, claim, target,
counter and challenge, their own hand, the card shown to them by Examine)
is then read exactly from the completed state; the invented cards are never
reported. ``F_OK`` is 0 if a token did not fit the replay (a foreign
sequence).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core, view
from complots_solver.rules.enums import NUM_CLANS, PlayerId, Stage, TokenKind, Variant
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_PICK,
    A_REVEAL,
    A_SHOW,
    C_PLAYERS,
    C_VARIANT,
    HIDDEN_VALUE,
    KIND_SLOTS,
    MAX_CHANCE_OUTCOMES,
    MAX_PLAYERS,
    STAGE_SLOTS,
    STATE_SIZE,
    VALUE_SLOTS,
    WHO_SLOTS,
)

# Columns of the decoded array (one row per token sequence).
F_OK = 0
F_STAGE = 1
F_TURN = 2
F_ACTOR = 3
F_ACT = 4  # ActionKind announced this turn, -1 before
F_TARGET = 5
F_CLAIM = 6  # clan claimed by the action, -1 if none
F_CHALLENGER = 7
F_CTX = 8  # Context of the challenge, -1 if none
F_CLAIM_TRUE = 9
F_COUNTERER = 10
F_COUNTER_CLAN = 11
F_SHOWN = 12  # clan shown to the Inquisitor, if the viewer saw it and it is pending
F_TREASURY = 13
F_DRAFT_CARD = 14  # the viewer's random draft card, -1 if none (deal variant)
F_OWN_TURNS = 15  # actions the viewer has announced before this point
F_DRAWN = 16  # multiset the viewer drew for a pending exchange, -1 if none
F_SETUP_DONE = 17  # 1 once the deal (and draft) is over
F_COINS = 18  # MAX_PLAYERS entries
F_HAND = F_COINS + MAX_PLAYERS  # NUM_CLANS: the viewer's face-down cards
F_START_HAND = F_HAND + NUM_CLANS  # NUM_CLANS: the viewer's hand when play began
F_FACE_UP = F_START_HAND + NUM_CLANS  # MAX_PLAYERS * NUM_CLANS
F_FACE_DOWN = F_FACE_UP + MAX_PLAYERS * NUM_CLANS  # MAX_PLAYERS: face-down counts
NUM_FIELDS = F_FACE_DOWN + MAX_PLAYERS

_CHANCE = int(PlayerId.CHANCE)


@njit(cache=True)
def _split(token: int):
    """(kind, stage, who, value) of a token."""
    rest, value = divmod(token, VALUE_SLOTS)
    rest, who = divmod(rest, WHO_SLOTS)
    kind, stage = divmod(rest, STAGE_SLOTS)
    hi, kind = divmod(kind, KIND_SLOTS)  # Complots 2 stages are packed with kind + KIND_SLOTS
    return kind, stage + hi * STAGE_SLOTS, who, value


@njit(cache=True)
def _force_has(s: np.ndarray, p: int, clan: int) -> None:
    """Make p's invented hand hold ``clan``."""
    if view.hidden(s, p, clan) > 0:
        return
    for c in range(NUM_CLANS):
        if view.hidden(s, p, c) > 0:
            view.swap_with_court(s, p, clan, c)
            return


@njit(cache=True)
def _force_lacks(s: np.ndarray, p: int, clan: int) -> None:
    """Make p's invented hand hold no ``clan``."""
    while view.hidden(s, p, clan) > 0:
        other = (clan + 1) % NUM_CLANS
        for c in range(NUM_CLANS):
            if c != clan and view.court_count(s, c) > 0:
                other = c
                break
        view.swap_with_court(s, p, other, clan)


@njit(cache=True)
def _decode_one(
    cfg: np.ndarray,
    seat: int,
    tokens: np.ndarray,
    length: int,
    s: np.ndarray,
    moves: np.ndarray,
    probs: np.ndarray,
    out: np.ndarray,
) -> None:
    """Replay one token sequence of ``seat`` and fill ``out`` (a NUM_FIELDS row)."""
    core.reset_state(s, cfg)
    ok = 1
    draft_card = -1
    own_turns = 0
    drawn = -1
    setup_done = 0
    for c in range(NUM_CLANS):
        out[F_START_HAND + c] = 0
    for j in range(length):
        kind, stage, who, value = _split(tokens[j])
        if view.stage(s) != stage:
            ok = 0
            break
        cur = view.current_player(s)
        if cur == _CHANCE:
            if value == HIDDEN_VALUE:
                k = core.chance_outcomes_into(s, cfg, moves, probs)
                if k == 0:
                    ok = 0
                    break
                value = moves[0]
            elif who == seat:
                if stage == Stage.DEAL and cfg[C_VARIANT] == Variant.DRAFT:
                    draft_card = value
                if stage == Stage.EXCHANGE_DRAW:
                    drawn = value
            core.apply_action(s, cfg, value)
        else:
            if cur != who:
                ok = 0
                break
            if value == HIDDEN_VALUE:
                if stage == Stage.PICK:
                    value = A_PICK
                    for c in range(NUM_CLANS):
                        if view.out_count(s, c) > 0:
                            value = A_PICK + c
                            break
                else:
                    k = core.legal_actions_into(s, cfg, moves)
                    if k == 0:
                        ok = 0
                        break
                    value = moves[0]
            elif who != seat:
                if stage == Stage.EXAMINE_SHOW:
                    _force_has(s, who, value - A_SHOW)
                elif stage == Stage.CHALLENGE_LOSS or stage == Stage.EFFECT_LOSS:
                    _force_has(s, who, value - A_REVEAL)
            if value == A_CHALLENGE and (
                kind == TokenKind.CHALLENGE_TRUE or kind == TokenKind.CHALLENGE_FALSE
            ):
                if stage == Stage.CHALLENGE:
                    claimant = view.actor(s)
                    clan = view.claim(s)
                else:
                    claimant = view.counterer(s)
                    clan = view.counter_clan(s)
                if claimant != seat:
                    if kind == TokenKind.CHALLENGE_TRUE:
                        _force_has(s, claimant, clan)
                    else:
                        _force_lacks(s, claimant, clan)
            if stage == Stage.ACTION and who == seat:
                own_turns += 1
            if stage == Stage.EXCHANGE_KEEP and who == seat:
                drawn = -1
            core.apply_action(s, cfg, value)
        if setup_done == 0 and view.stage(s) != Stage.DEAL and view.stage(s) != Stage.PICK:
            setup_done = 1
            for c in range(NUM_CLANS):
                out[F_START_HAND + c] = view.hidden(s, seat, c)
    out[F_OK] = ok
    read_fields(s, cfg, seat, draft_card, own_turns, drawn, setup_done, out)


@njit(cache=True)
def read_fields(
    s: np.ndarray,
    cfg: np.ndarray,
    seat: int,
    draft_card: int,
    own_turns: int,
    drawn: int,
    setup_done: int,
    out: np.ndarray,
) -> None:
    """Fill what ``seat`` knows at ``s`` into ``out`` (all but F_OK and F_START_HAND).

    Reads only fields the seat can know (public ones, its own cards, the card
    shown to it); ``draft_card``, ``own_turns``, ``drawn`` and ``setup_done``
    are the seat's own memory of the game so far (see the F_* columns).
    """
    n = cfg[C_PLAYERS]
    stage_now = view.stage(s)
    announced = view.announced(s) >= 0
    challenged = view.challenger(s) >= 0
    out[F_STAGE] = stage_now
    out[F_TURN] = view.turn(s)
    out[F_ACTOR] = view.actor(s) if stage_now != Stage.DEAL and stage_now != Stage.PICK else -1
    out[F_ACT] = view.announced(s)
    out[F_TARGET] = view.target(s) if announced else -1
    out[F_CLAIM] = view.claim(s) if announced else -1
    out[F_CHALLENGER] = view.challenger(s) if announced else -1
    out[F_CTX] = view.challenge_context(s) if challenged else -1
    out[F_CLAIM_TRUE] = view.claim_true(s) if challenged else -1
    out[F_COUNTERER] = view.counterer(s) if announced else -1
    out[F_COUNTER_CLAN] = view.counter_clan(s) if view.counterer(s) >= 0 else -1
    shown = -1
    if stage_now == Stage.EXAMINE_DECIDE and (seat == view.actor(s) or seat == view.target(s)):
        shown = view.shown(s)
    out[F_SHOWN] = shown
    out[F_TREASURY] = view.treasury(s)
    out[F_DRAFT_CARD] = draft_card
    out[F_OWN_TURNS] = own_turns
    out[F_DRAWN] = drawn if stage_now == Stage.EXCHANGE_KEEP else -1
    out[F_SETUP_DONE] = setup_done
    for p in range(MAX_PLAYERS):
        out[F_COINS + p] = view.coins(s, p) if p < n else 0
        down = 0
        for c in range(NUM_CLANS):
            if p < n:
                down += view.hidden(s, p, c)
                out[F_FACE_UP + p * NUM_CLANS + c] = view.revealed(s, p, c)
            else:
                out[F_FACE_UP + p * NUM_CLANS + c] = 0
        out[F_FACE_DOWN + p] = down
    for c in range(NUM_CLANS):
        out[F_HAND + c] = view.hidden(s, seat, c)


@njit(cache=True)
def _decode_all(
    cfg: np.ndarray, seats: np.ndarray, tokens: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """Decode every row of ``tokens``; see the module docstring."""
    rows = tokens.shape[0]
    out = np.zeros((rows, NUM_FIELDS), dtype=np.int32)
    s = np.empty(STATE_SIZE, dtype=np.int32)
    moves = np.empty(max(MAX_CHANCE_OUTCOMES, 256), dtype=np.int32)
    probs = np.empty(moves.shape[0], dtype=np.float64)
    for i in range(rows):
        _decode_one(cfg, seats[i], tokens[i], lengths[i], s, moves, probs, out[i])
    return out


def decode_tokens(
    cfg: np.ndarray, seats: np.ndarray, tokens: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """int32[rows, NUM_FIELDS]: what each seat knows after its token sequence."""
    return _decode_all(
        np.ascontiguousarray(cfg, dtype=np.int32),
        np.ascontiguousarray(seats, dtype=np.int64),
        np.ascontiguousarray(tokens, dtype=np.int32),
        np.ascontiguousarray(lengths, dtype=np.int64),
    )
