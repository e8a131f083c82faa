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
C_CHARS = C_START_COINS + MAX_PLAYERS  # Character of each clan, NUM_CLANS entries
C_EXTENDED = C_CHARS + NUM_CLANS  # 1 if a Complots 2 character is in play
NUM_KINDS = 15  # len(ActionKind)
C_COUNTERS = C_EXTENDED + 1  # per ActionKind: bitmask of the clans that counter it
C_KIND_COST = C_COUNTERS + NUM_KINDS  # per ActionKind: coins needed to announce it
C_SLOT_UNTARGETED = C_KIND_COST + NUM_KINDS  # per clan: its untargeted ActionKind, -1 none
C_SLOT_TARGETED = C_SLOT_UNTARGETED + NUM_CLANS  # per clan: its targeted ActionKind, -1 none
CFG_SIZE = C_SLOT_TARGETED + NUM_CLANS

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
# Complots 2 fields, appended after the Complots 1 ones.
S_BURIED = S_OUT + NUM_CLANS  # lost face down (Sorciere claims), same indexing as S_HIDDEN
S_CLAIMANT = S_BURIED + MAX_PLAYERS * NUM_CLANS  # claimant in a CLAIM_CHALLENGE window
S_CLAIMED = S_CLAIMANT + 1  # clan claimed in a CLAIM_CHALLENGE window
S_POOL = S_CLAIMED + 1  # Illusionniste: coins of this action the actor still holds
S_DEAD = S_POOL + 1  # Croque-Mort: the player just eliminated (coins kept until shared), -1 none
S_HEIRS = S_DEAD + 1  # Croque-Mort: bitmask of players whose claim stood
S_WITCH = S_HEIRS + 1  # Sorciere: the claimant, -1 none
S_WITCH_CLAN = S_WITCH + 1  # Sorciere: clan of the card lost face down (private)
S_RESUME_STAGE = S_WITCH_CLAN + 1  # loss stage to resume after a Sorciere/Croque-Mort window
S_RESUME_CTX = S_RESUME_STAGE + 1  # S_CTX to restore then
S_RESUME_TRUE = S_RESUME_CTX + 1  # S_CLAIM_TRUE to restore then
S_RESUME_CLAIMANT = S_RESUME_TRUE + 1  # S_CLAIMANT to restore then
S_RESUME_CLAIMED = S_RESUME_CLAIMANT + 1  # S_CLAIMED to restore then
S_GIFT = S_RESUME_CLAIMED + 1  # Justicier: coins (still in the actor's hand) to give
S_PENDING = S_GIFT + 1  # 1 while a window has closed and the interrupted loss must resume
STATE_SIZE = S_PENDING + 1

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


# Targeted blocks are per clan slot: T_ASSASSINATE is the Assassin clan's
# targeted power (Assassinate, Bourreau, Maitre-Chanteur), T_STEAL the Thief
# clan's (Steal, Justicier), T_EXAMINE the Negotiator's (Examine). Likewise
# A_TAX is the Collector clan's untargeted power (Tax, Illusionniste) and
# A_EXCHANGE the Negotiator's (Exchange, Espion).
#
# Complots 2 ids follow the Complots 1 ones (only when a Complots 2 character
# is in play), at c2_base(players) + X_*:
X_TITHE = 0  # the Pape (Thief clan, untargeted)
X_CLAIM = 1  # co-claim the Illusionniste / claim the Croque-Mort
X_PAY = 2  # Maitre-Chanteur's target pays 3
X_REFUSE = 3  # ... or refuses
X_SPY_AGAIN = 4  # the Espion pays 1 coin to draw again
X_WITCH = 5  # + clan: lose that card face down, claiming it is the Sorciere
X_GIVE = X_WITCH + NUM_CLANS  # + player: the Justicier's gift to a tied poorest player
# then X_GIVE + players: one block of `players` ids for the Ursuline's target


def c2_base(players: int) -> int:
    """First Complots 2 action id for a game of `players` seats."""
    return A_TARGETED + NUM_TARGETED_KINDS * players


def c2_donate(players: int) -> int:
    """First id of the Ursuline's targeted block."""
    return c2_base(players) + X_GIVE + players


def num_distinct_actions(players: int, extended: bool = False) -> int:
    """Number of distinct player action ids (`extended`: a Complots 2 character is in play)."""
    if not extended:
        return A_TARGETED + NUM_TARGETED_KINDS * players
    return c2_donate(players) + players


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
# Stages from STAGE_SLOTS on (Complots 2) are packed as stage - STAGE_SLOTS with
# kind + KIND_SLOTS, so Complots 1 tokens keep their values.
STAGE_SLOTS = 16
WHO_SLOTS = 16
VALUE_SLOTS = 128
KIND_SLOTS = 8
HIDDEN_VALUE = VALUE_SLOTS - 1
TOKEN_SPACE = 2 * KIND_SLOTS * STAGE_SLOTS * WHO_SLOTS * VALUE_SLOTS
