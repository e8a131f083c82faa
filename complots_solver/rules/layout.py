"""Flat integer layouts of the game configuration, the state, actions and tokens.

The rules core works on two ``int32`` arrays: ``cfg`` (the game's parameters,
fixed for a game) and ``s`` (the state). Field offsets live here so that the
compiled core and the Python adapter agree on one layout.
"""

from __future__ import annotations

import numpy as np

from complots_solver.rules.enums import NUM_CLANS

MAX_PLAYERS = 8
MIN_PLAYERS = 2

# ---- configuration array -------------------------------------------------
C_PLAYERS = 0
C_LINEUP = 1  # Lineup
C_COPIES = 2
C_INFLUENCE = 3
C_VARIANT = 4  # Variant
C_MAX_TURNS = 5
C_TOTAL_COINS = 6
C_EXCHANGE_DRAW = 7  # 2 for the Ambassador, 1 for the Inquisitor
C_START_COINS = 8  # MAX_PLAYERS entries
CFG_SIZE = C_START_COINS + MAX_PLAYERS

# ---- state array -----------------------------------------------------------
S_STAGE = 0  # Stage
S_CUR = 1  # player to move, or PlayerId.CHANCE / PlayerId.TERMINAL
S_ACTOR = 2
S_ACT = 3  # ActionKind announced this turn, -1 before
S_TARGET = 4
S_CLAIM = 5  # clan claimed by the action, -1 if none
S_RESP = 6  # responder in the current window
S_CHALLENGER = 7
S_COUNTERER = 8
S_COUNTER_CLAN = 9
S_LOSER = 10  # player who must turn a card face up
S_CTX = 11  # Context of the current challenge
S_CLAIM_TRUE = 12  # 1 if the challenged claim was true, 0 if a bluff, -1 none
S_DRAWER = 13  # player who draws at a chance node
S_DRAW_N = 14  # cards drawn at an EXCHANGE_DRAW node
S_KEEP_N = 15  # cards kept in an exchange
S_SHOWN = 16  # clan shown to the Inquisitor, -1 none
S_TURN = 17  # turns completed
S_TREASURY = 18
S_WINNER = 19  # winning seat, -1 while none (or on a draw)
S_DEAL_NEXT = 20  # next seat to be dealt
S_COINS = 21
S_HIDDEN = S_COINS + MAX_PLAYERS  # face-down counts, [player * NUM_CLANS + clan]
S_REVEALED = S_HIDDEN + MAX_PLAYERS * NUM_CLANS  # face-up counts, same indexing
S_COURT = S_REVEALED + MAX_PLAYERS * NUM_CLANS  # Court counts by clan
S_OUT = S_COURT + NUM_CLANS  # out of the game (the draft's unpicked cards)
STATE_SIZE = S_OUT + NUM_CLANS

# ---- action ids ------------------------------------------------------------
# Untargeted actions and responses have fixed ids; targeted actions follow,
# one block of `players` ids per kind, so the action space grows with players.
A_INCOME = 0
A_FOREIGN_AID = 1
A_TAX = 2
A_EXCHANGE = 3
A_PASS = 4
A_CHALLENGE = 5
A_COUNTER = 6  # + clan
A_REVEAL = A_COUNTER + NUM_CLANS  # + clan
A_SHOW = A_REVEAL + NUM_CLANS  # + clan
A_RETURN_CARD = A_SHOW + NUM_CLANS
A_FORCE_SWAP = A_RETURN_CARD + 1
A_PICK = A_FORCE_SWAP + 1  # + clan
A_KEEP = A_PICK + NUM_CLANS  # + multiset index
NUM_MULTISETS = NUM_CLANS + NUM_CLANS * (NUM_CLANS + 1) // 2  # sizes 1 and 2
A_TARGETED = A_KEEP + NUM_MULTISETS
# targeted kinds in block order
T_COUP = 0
T_ASSASSINATE = 1
T_STEAL = 2
T_EXAMINE = 3
NUM_TARGETED_KINDS = 4


def num_distinct_actions(players: int) -> int:
    """Number of distinct player action ids for a game of `players` seats."""
    return A_TARGETED + NUM_TARGETED_KINDS * players


# ---- multisets of clans (hands, draws, kept cards) --------------------------
def _multiset_tables() -> tuple[np.ndarray, np.ndarray]:
    """Index -> (first clan, second clan or -1); sizes 1 then 2, sorted."""
    first, second = [], []
    for a in range(NUM_CLANS):
        first.append(a)
        second.append(-1)
    for a in range(NUM_CLANS):
        for b in range(a, NUM_CLANS):
            first.append(a)
            second.append(b)
    return np.array(first, dtype=np.int32), np.array(second, dtype=np.int32)


MS_FIRST, MS_SECOND = _multiset_tables()
# (a, b) with a <= b -> size-2 multiset index, at [a * NUM_CLANS + b]
MS_PAIR = np.full(NUM_CLANS * NUM_CLANS, -1, dtype=np.int32)
for _m in range(NUM_CLANS, len(MS_FIRST)):
    MS_PAIR[MS_FIRST[_m] * NUM_CLANS + MS_SECOND[_m]] = _m
MS_SIZE2_BASE = NUM_CLANS  # first index of the size-2 multisets
MAX_CHANCE_OUTCOMES = NUM_MULTISETS


def multiset_index(clans: tuple[int, ...]) -> int:
    """Index of a multiset of one or two clans."""
    if len(clans) == 1:
        return int(clans[0])
    a, b = sorted(int(c) for c in clans)
    for i in range(MS_SIZE2_BASE, NUM_MULTISETS):
        if MS_FIRST[i] == a and MS_SECOND[i] == b:
            return i
    raise ValueError(f"clans must be one or two clan indices, got {clans}")


# ---- observation tokens ----------------------------------------------------
# token = ((kind * STAGE_SLOTS + stage) * WHO_SLOTS + who) * VALUE_SLOTS + value
STAGE_SLOTS = 16
WHO_SLOTS = 16
VALUE_SLOTS = 128
HIDDEN_VALUE = VALUE_SLOTS - 1
