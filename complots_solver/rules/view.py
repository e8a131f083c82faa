"""Named accessors over the flat state array, so that layers above the rules never index it.

Each accessor takes the ``int32`` state array ``s`` of
:mod:`complots_solver.rules.layout` and reads one field. They are plain
Python functions, and numba compiles them inline into any compiled caller
(``register_jitable(inline="always")``), so the compiled browsers use the
same names at no cost. Scalars come back as ``int``; ``hand``, ``face_up``,
``court`` and ``out_of_game`` return views of the per-clan counts (numpy
arrays indexed by clan).

``swap_with_court`` is the one write: the token decoder uses it to change
an opponent's invented hand while keeping the card counts whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba.extending import register_jitable

from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import (
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
    S_DRAWER,
    S_HIDDEN,
    S_KEEP_N,
    S_OUT,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_TURN,
    S_WINNER,
)

F = TypeVar("F", bound=Callable[..., Any])


def accessor(fn: F) -> F:
    """Make ``fn`` an accessor: a plain function that compiled callers inline."""
    return register_jitable(inline="always")(fn)


# ---- whose move, which stage --------------------------------------------------
@accessor
def stage(s: np.ndarray) -> int:
    """The Stage of the state (as an int)."""
    return int(s[S_STAGE])


@accessor
def current_player(s: np.ndarray) -> int:
    """The seat to move, or PlayerId.CHANCE / PlayerId.TERMINAL."""
    return int(s[S_CUR])


@accessor
def turn(s: np.ndarray) -> int:
    """Turns completed so far."""
    return int(s[S_TURN])


@accessor
def winner(s: np.ndarray) -> int:
    """The winning seat, -1 while none (and on a turn-cap draw)."""
    return int(s[S_WINNER])


@accessor
def deal_next(s: np.ndarray) -> int:
    """The next seat to be dealt (during the deal)."""
    return int(s[S_DEAL_NEXT])


# ---- the turn in progress -------------------------------------------------------
@accessor
def actor(s: np.ndarray) -> int:
    """The seat whose turn it is."""
    return int(s[S_ACTOR])


@accessor
def announced(s: np.ndarray) -> int:
    """The ActionKind announced this turn, -1 before the announcement."""
    return int(s[S_ACT])


@accessor
def target(s: np.ndarray) -> int:
    """The target of the announced action, -1 if none."""
    return int(s[S_TARGET])


@accessor
def claim(s: np.ndarray) -> int:
    """The clan the announced action claims, -1 if none."""
    return int(s[S_CLAIM])


@accessor
def challenger(s: np.ndarray) -> int:
    """The seat that challenged this turn, -1 if none."""
    return int(s[S_CHALLENGER])


@accessor
def counterer(s: np.ndarray) -> int:
    """The seat that countered the announced action, -1 if none."""
    return int(s[S_COUNTERER])


@accessor
def counter_clan(s: np.ndarray) -> int:
    """The clan the counter claims, -1 if none."""
    return int(s[S_COUNTER_CLAN])


@accessor
def challenge_context(s: np.ndarray) -> int:
    """The Context of the current challenge."""
    return int(s[S_CTX])


@accessor
def claim_true(s: np.ndarray) -> int:
    """1 if the challenged claim was true, 0 if a bluff, -1 if no challenge was resolved."""
    return int(s[S_CLAIM_TRUE])


@accessor
def drawer(s: np.ndarray) -> int:
    """The seat that draws at an exchange chance node."""
    return int(s[S_DRAWER])


@accessor
def keep_count(s: np.ndarray) -> int:
    """How many cards the exchanging seat keeps."""
    return int(s[S_KEEP_N])


@accessor
def shown(s: np.ndarray) -> int:
    """The clan shown to the Inquisitor, -1 if none."""
    return int(s[S_SHOWN])


@accessor
def claimant(s: np.ndarray) -> int:
    """The claimant of a Complots 2 claim window (CLAIM_CHALLENGE)."""
    return int(s[S_CLAIMANT])


@accessor
def claimed(s: np.ndarray) -> int:
    """The clan claimed in a Complots 2 claim window (CLAIM_CHALLENGE)."""
    return int(s[S_CLAIMED])


@accessor
def dead(s: np.ndarray) -> int:
    """The seat just eliminated whose coins the Croque-Mort may share, -1 if none."""
    return int(s[S_DEAD])


# ---- coins and cards ------------------------------------------------------------------
@accessor
def treasury(s: np.ndarray) -> int:
    """Coins in the treasury."""
    return int(s[S_TREASURY])


@accessor
def coins(s: np.ndarray, p: int) -> int:
    """Coins of seat ``p``."""
    return int(s[S_COINS + p])


@accessor
def all_coins(s: np.ndarray, players: int) -> np.ndarray:
    """Coins of seats 0 .. players-1 (a view)."""
    return s[S_COINS : S_COINS + players]


@accessor
def hidden(s: np.ndarray, p: int, c: int) -> int:
    """Face-down cards of clan ``c`` that seat ``p`` holds."""
    return int(s[S_HIDDEN + p * NUM_CLANS + c])


@accessor
def hand(s: np.ndarray, p: int) -> np.ndarray:
    """Seat ``p``'s face-down cards, counted by clan (a view)."""
    return s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS]


@accessor
def hand_size(s: np.ndarray, p: int) -> int:
    """Number of face-down cards of seat ``p``."""
    total = 0
    for c in range(NUM_CLANS):
        total += s[S_HIDDEN + p * NUM_CLANS + c]
    return int(total)


@accessor
def alive(s: np.ndarray, p: int) -> bool:
    """Whether seat ``p`` still has a face-down card."""
    return hand_size(s, p) > 0


@accessor
def revealed(s: np.ndarray, p: int, c: int) -> int:
    """Face-up cards of clan ``c`` in front of seat ``p``."""
    return int(s[S_REVEALED + p * NUM_CLANS + c])


@accessor
def face_up(s: np.ndarray, p: int) -> np.ndarray:
    """Seat ``p``'s face-up cards, counted by clan (a view)."""
    return s[S_REVEALED + p * NUM_CLANS : S_REVEALED + (p + 1) * NUM_CLANS]


@accessor
def court_count(s: np.ndarray, c: int) -> int:
    """Cards of clan ``c`` in the Court (the deck)."""
    return int(s[S_COURT + c])


@accessor
def court(s: np.ndarray) -> np.ndarray:
    """The Court's cards, counted by clan (a view)."""
    return s[S_COURT : S_COURT + NUM_CLANS]


@accessor
def out_count(s: np.ndarray, c: int) -> int:
    """Cards of clan ``c`` out of the game (the draft's unpicked cards)."""
    return int(s[S_OUT + c])


@accessor
def out_of_game(s: np.ndarray) -> np.ndarray:
    """The cards out of the game, counted by clan (a view)."""
    return s[S_OUT : S_OUT + NUM_CLANS]


# ---- the one write ----------------------------------------------------------------------
@accessor
def swap_with_court(s: np.ndarray, p: int, give: int, take: int) -> None:
    """Move one card of clan ``take`` from seat ``p``'s hand to the Court, and one ``give`` back."""
    s[S_HIDDEN + p * NUM_CLANS + take] -= 1
    s[S_HIDDEN + p * NUM_CLANS + give] += 1
    s[S_COURT + take] += 1
    s[S_COURT + give] -= 1
