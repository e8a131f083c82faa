"""What a seat at a table of 3 or more reads: the public position seen from its chair, a
summary of each seat's public record, and its own private cards and knowledge.

At 3+ players the joint belief over every hand is too large to track at
play time (docs/lab/2026-full-game-journal.md section 10). The table network
reads instead, for every seat in clockwise order from its own, the public
position (coins, face-down count, face-up cards, the seat's role in the
pending action) and that seat's **public record**: the clans it claimed
since its hand last changed and in all, the counters it declined when it
could have made them, its challenges, the bluffs it was caught in and the
claims it proved. A network trained on these learns what they say about
the hands behind them; the record is the same for every viewer except the
cards an Inquisitor was shown (``seen``).

Actions are read and written **seat-relative**: a targeted action on the
seat ``k`` places clockwise from the actor has the same output whoever
acts, so one network plays every chair.

:class:`TableMemory` is the one place the record is kept; self-play
training and the playing bot both update it move by move with
:func:`observe_move`, so they feed the network the same features.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.enums import NUM_CLANS, Stage, Variant
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_FORCE_SWAP,
    A_PASS,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    C_COPIES,
    C_COUNTERS,
    C_EXTENDED,
    C_MAX_TURNS,
    C_PLAYERS,
    C_VARIANT,
    MAX_CHANCE_OUTCOMES,
    NUM_MULTISETS,
    S_ACT,
    S_ACTOR,
    S_BURIED,
    S_CLAIM,
    S_CLAIM_TRUE,
    S_CLAIMANT,
    S_CLAIMED,
    S_COINS,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_COURT,
    S_CUR,
    S_HIDDEN,
    S_LOSER,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TURN,
    STAGE_SLOTS,
    VALUE_SLOTS,
    WHO_SLOTS,
    X_GIVE,
)
from complots_solver.solvers.knowledge.belief_features import COIN_SCALE, hand_index
from complots_solver.solvers.knowledge.hypotheses import (
    KNOW_COURT,
    KNOW_SIZE,
    note_draft,
    update_knowledge,
)

FEATURE_VERSION = 1

# 2-player draft only, after the seats: the clan the viewer was dealt from the
# Court's pile and the clan it picked from its own pile (what it knows of the
# Court and of the cards out of the game follows from the two)
DRAFT_DEALT = 0
DRAFT_PICKED = NUM_CLANS
DRAFT_SIZE = 2 * NUM_CLANS

# the public record of one seat (TableMemory.record[seat])
R_CLAIM_RECENT = 0  # per clan: claims since the seat's hand last changed
R_CLAIM_ALL = R_CLAIM_RECENT + NUM_CLANS  # per clan: claims in the game
R_DECLINED = R_CLAIM_ALL + NUM_CLANS  # per clan: counters it could have made and did not
R_CHALLENGES = R_DECLINED + NUM_CLANS
R_BLUFFS = R_CHALLENGES + 1  # claims of its that a challenge proved false
R_TRUTHS = R_BLUFFS + 1  # claims of its that a challenge proved true
RECORD_SIZE = R_TRUTHS + 1
RECORD_SCALE = np.array(
    [2.0] * NUM_CLANS + [4.0] * NUM_CLANS + [2.0] * NUM_CLANS + [4.0, 2.0, 2.0], dtype=np.float32
)

# per seat, in clockwise order from the viewer
P_COINS = 0
P_CARDS = 1
P_FACEUP = 2
P_ALIVE = P_FACEUP + NUM_CLANS
P_ROLES = P_ALIVE + 1  # to move, actor, target, counterer, loser, claimant
NUM_ROLES = 6
P_RECORD = P_ROLES + NUM_ROLES
P_SEEN = P_RECORD + RECORD_SIZE  # clans of this seat's cards the viewer was shown
SEAT_SIZE = P_SEEN + NUM_CLANS

NUM_STAGES = 21
NUM_KINDS = 15
G_STAGE = 0
G_KIND = G_STAGE + NUM_STAGES
G_CLAIM = G_KIND + NUM_KINDS + 1
G_COUNTER = G_CLAIM + NUM_CLANS + 1
G_TRUE = G_COUNTER + NUM_CLANS + 1
G_SHOWN = G_TRUE + 3
G_TURN = G_SHOWN + NUM_CLANS + 1
G_COURT = G_TURN + 1
G_HAND = G_COURT + 1  # own hand: counts by clan, then the multiset one-hot
G_KNOW = G_HAND + NUM_CLANS + NUM_MULTISETS
GLOBAL_SIZE = G_KNOW + KNOW_SIZE


# The seat's memory (issue 50): its own view of the last moves, in order, newest last. Every
# TableMemory keeps the last MAX_MEMORY observation tokens of each seat (chance moves included,
# private values only for the seats that see them: rules.core.observation_token), stored
# relative to that seat (the actor's chair counted from the viewer's, actions seat-relative).
# A network reading a memory of m moves has m token blocks after the features; m is read
# from its input width (memory_of), so networks without one read exactly what they read before.
# A block: present, kind, stage, the mover's chair from the viewer's, then the value (an action
# id or chance outcome, the last slot for a value the viewer does not see).
MAX_MEMORY = 16
NO_TOKEN = -1
TOKEN_KINDS = 16  # TokenKind, with the Complots 2 stages' offset (rules.core._token)
T_PRESENT = 0
T_KIND = T_PRESENT + 1
T_STAGE = T_KIND + TOKEN_KINDS
T_WHO = T_STAGE + STAGE_SLOTS

# The card-count odds (issue 50): the belief about the other seats' hands that follows from the
# cards the viewer knows the place of, when every unseen card is equally likely to be anywhere
# unseen (the prior of a uniformly random deal, before anyone's play is read). Exact
# combinatorics, from the viewer's own information only: the same arithmetic as the card
# counting bot's (play.cards), computed here from the certain knowledge the table memory keeps.
# The block follows the features (and the draft clans), before any memory:
O_UNSEEN = 0  # per clan: copies whose place the viewer does not know, over the copies
O_CLAIM = O_UNSEEN + NUM_CLANS  # the action claim, the counter claim, the co-claim on the table:
O_CLAIM_SIZE = 2  # P(its claimant holds the clan), 1 if impossible (no unseen copy)
O_HOLD = O_CLAIM + 3 * O_CLAIM_SIZE  # per seat clockwise from the viewer: P(>= 1 card of a clan)


@njit(cache=True)
def token_values(n, extended):
    """Value slots of a token block at ``n`` seats: every action id and chance outcome, then
    the hidden value."""
    actions = core.c2_donate(n) + n if extended else core.c2_base(n)
    return max(actions, MAX_CHANCE_OUTCOMES) + 1


@njit(cache=True)
def token_size(n, extended):
    """Inputs of one remembered move at ``n`` seats."""
    return T_WHO + n + token_values(n, extended)


@njit(cache=True)
def base_size(n, draft):
    """Inputs every table network reads at ``n`` seats (``draft``: the 2-player draft's clans),
    before the card-count odds and the memory."""
    return GLOBAL_SIZE + n * SEAT_SIZE + (DRAFT_SIZE if draft else 0)


@njit(cache=True)
def odds_size(n):
    """Inputs of the card-count odds block (:func:`odds_features`) at ``n`` seats."""
    return O_HOLD + n * NUM_CLANS


def num_features(
    players: int, draft: bool = False, memory: int = 0, extended: bool = False, odds: bool = False
) -> int:
    """Length of the feature vector at a table of ``players`` seats (``draft``: the 2-player
    draft; ``odds``: the card-count odds block after the features; ``memory``: the seat's last
    ``memory`` observations after those, whose size depends on ``extended``, a Complots 2
    character in play)."""
    base = int(base_size(players, draft)) + (int(odds_size(players)) if odds else 0)
    return base + (memory * int(token_size(players, extended)) if memory else 0)


def config_features(cfg: np.ndarray, memory: int = 0, odds: bool = False) -> int:
    """Length of the feature vector for the game of the config array ``cfg``."""
    return num_features(
        int(cfg[C_PLAYERS]),
        int(cfg[C_VARIANT]) == Variant.DRAFT,
        memory,
        bool(cfg[C_EXTENDED]),
        odds,
    )


def inputs_of(width: int, cfg: np.ndarray) -> tuple[int, bool]:
    """(memory length, odds block) of a network reading ``width`` features in the game of
    ``cfg``; ValueError if no memory length, with or without the odds, gives that width. The
    odds block is smaller than one remembered move, so the two never give the same width."""
    base = config_features(cfg)
    n = int(cfg[C_PLAYERS])
    size = int(token_size(n, bool(cfg[C_EXTENDED])))
    for odds in (False, True):
        extra = width - base - (int(odds_size(n)) if odds else 0)
        if extra >= 0 and extra % size == 0 and extra // size <= MAX_MEMORY:
            return extra // size, odds
    raise ValueError(
        f"net: reads {width} features, this game's seats read {base} (plus {int(odds_size(n))} "
        f"with the card-count odds, and {size} for each remembered move, at most {MAX_MEMORY})"
    )


def memory_of(width: int, cfg: np.ndarray) -> int:
    """The memory length of a network reading ``width`` features in the game of ``cfg``;
    ValueError if no input layout gives that width."""
    return inputs_of(width, cfg)[0]


@njit(cache=True)
def push_tokens(before, a, cfg, ring):
    """Each seat's view of move ``a`` from ``before``, pushed onto its row of ``ring`` (oldest
    dropped), relative to that seat: the mover's chair counted from it, decisions' action ids
    seat-relative (as the network's outputs are)."""
    n = cfg[C_PLAYERS]
    extended = cfg[C_EXTENDED] != 0
    k = ring.shape[1]
    if k == 0:
        return
    decision = before[S_CUR] >= 0
    for v in range(n):
        tok = core.observation_token(before, a, v)
        value = tok % VALUE_SLOTS
        rest = tok // VALUE_SLOTS
        who = rest % WHO_SLOTS
        high = rest // WHO_SLOTS
        if 0 <= who < n:
            who = (who - v) % n
        if decision and value != VALUE_SLOTS - 1:
            value = relative_action(value, v, n, extended)
        for j in range(k - 1):
            ring[v, j] = ring[v, j + 1]
        ring[v, k - 1] = (high * WHO_SLOTS + who) * VALUE_SLOTS + value


@njit(cache=True)
def memory_features(ring, me, memory, cfg, out):
    """Seat ``me``'s last ``memory`` tokens (newest last) as one-hot blocks ending ``out``."""
    n = cfg[C_PLAYERS]
    values = token_values(n, cfg[C_EXTENDED] != 0)
    size = T_WHO + n + values
    offset = out.shape[0] - memory * size
    k = ring.shape[1]
    for j in range(memory):
        base = offset + j * size
        for i in range(size):
            out[base + i] = 0.0
        tok = ring[me, k - memory + j] if k - memory + j >= 0 else NO_TOKEN
        if tok < 0:
            continue
        value = tok % VALUE_SLOTS
        rest = tok // VALUE_SLOTS
        who = rest % WHO_SLOTS
        rest = rest // WHO_SLOTS
        stage = rest % STAGE_SLOTS
        kind = rest // STAGE_SLOTS
        out[base + T_PRESENT] = 1.0
        out[base + T_KIND + min(kind, TOKEN_KINDS - 1)] = 1.0
        out[base + T_STAGE + stage] = 1.0
        out[base + T_WHO + who] = 1.0
        slot = values - 1 if value == VALUE_SLOTS - 1 else min(value, values - 2)
        out[base + T_WHO + n + slot] = 1.0


@njit(cache=True)
def _clear_seen(seen, players, q, c):
    for v in range(players):
        seen[v, q, c] = 0


@njit(cache=True)
def _refresh(record, seen, players, q):
    """Seat q's hand changed as a whole: what its recent claims said is gone."""
    for c in range(NUM_CLANS):
        record[q, R_CLAIM_RECENT + c] = 0.0
        record[q, R_DECLINED + c] = 0.0
        _clear_seen(seen, players, q, c)


@njit(cache=True)
def _claim(record, q, c):
    record[q, R_CLAIM_RECENT + c] += 1.0
    record[q, R_CLAIM_ALL + c] += 1.0


@njit(cache=True)
def observe_move(before, a, after, cfg, record, seen, know, draft):
    """Update the public record, what each seat was shown, certain knowledge and the draft, across one move."""
    players = cfg[C_PLAYERS]
    update_knowledge(before, a, after, players, know)
    note_draft(before, after, cfg, draft)
    st = before[S_STAGE]
    p = before[S_CUR]
    if p < 0:
        return
    if st == Stage.ACTION:
        kind, _ = core.target_of_action(cfg, a)
        clan = core.claim_of(kind)
        if clan >= 0:
            _claim(record, p, clan)
    elif st == Stage.COUNTER:
        if a == A_PASS:
            mask = cfg[C_COUNTERS + before[S_ACT]]
            for c in range(NUM_CLANS):
                if (mask >> c) & 1:
                    record[p, R_DECLINED + c] += 1.0
        elif A_COUNTER <= a < A_COUNTER + NUM_CLANS:
            _claim(record, p, a - A_COUNTER)
    elif a == A_CHALLENGE and (
        st == Stage.CHALLENGE or st == Stage.COUNTER_CHALLENGE or st == Stage.CLAIM_CHALLENGE
    ):
        record[p, R_CHALLENGES] += 1.0
        if st == Stage.CHALLENGE:
            claimant = before[S_ACTOR]
            clan = before[S_CLAIM]
        elif st == Stage.COUNTER_CHALLENGE:
            claimant = before[S_COUNTERER]
            clan = before[S_COUNTER_CLAN]
        else:
            claimant = before[S_CLAIMANT]
            clan = before[S_CLAIMED]
        if claimant >= 0:
            if after[S_CLAIM_TRUE] == 1:
                record[claimant, R_TRUTHS] += 1.0
            else:
                record[claimant, R_BLUFFS] += 1.0
            if 0 <= clan < NUM_CLANS:
                # shown and replaced, or shown not to be there: the claim says nothing now
                record[claimant, R_CLAIM_RECENT + clan] = 0.0
                _clear_seen(seen, players, claimant, clan)
    elif st == Stage.EXCHANGE_KEEP:
        _refresh(record, seen, players, before[S_ACTOR])
    elif st == Stage.EXAMINE_SHOW and A_SHOW <= a < A_SHOW + NUM_CLANS:
        seen[before[S_ACTOR], p, a - A_SHOW] = 1
    elif st == Stage.EXAMINE_DECIDE and a == A_FORCE_SWAP:
        target = before[S_TARGET]
        shown = before[S_SHOWN]
        if target >= 0 and shown >= 0:
            # The shown clan is known to the Inquisitor and its target only: the public
            # record may forget the claim only where nobody else is at the table, and
            # only the Inquisitor's own flag is cleared: no leak to third seats.
            if players == 2:
                record[target, R_CLAIM_RECENT + shown] = 0.0
            seen[before[S_ACTOR], target, shown] = 0
    if A_REVEAL <= a < A_REVEAL + NUM_CLANS:
        # Cleared whatever the revealer still holds: a viewer shown one card of this clan
        # cannot tell whether the revealed card was that one, and keeping the flag only
        # when a second copy remains would read the hidden hand.
        _clear_seen(seen, players, p, a - A_REVEAL)


@njit(cache=True)
def table_features(s, cfg, me, record, seen, know, draft, out):
    """Features of seat ``me``'s decision in state ``s`` (see the module note)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    n = cfg[C_PLAYERS]
    stage = s[S_STAGE]
    out[G_STAGE + stage] = 1.0
    kind = s[S_ACT]
    out[G_KIND + (kind if kind >= 0 else NUM_KINDS)] = 1.0
    claim = s[S_CLAIM]
    out[G_CLAIM + (claim if claim >= 0 else NUM_CLANS)] = 1.0
    counter = s[S_COUNTER_CLAN] if s[S_COUNTERER] >= 0 else -1
    out[G_COUNTER + (counter if counter >= 0 else NUM_CLANS)] = 1.0
    out[G_TRUE + s[S_CLAIM_TRUE] + 1] = 1.0
    shown = s[S_SHOWN]
    out[G_SHOWN + (shown if shown >= 0 else NUM_CLANS)] = 1.0
    out[G_TURN] = s[S_TURN] / float(cfg[C_MAX_TURNS])
    court = 0
    for c in range(NUM_CLANS):
        court += s[S_COURT + c]
        out[G_HAND + c] = s[S_HIDDEN + me * NUM_CLANS + c]
    out[G_COURT] = court / 5.0
    h = hand_index(s, me)
    if h >= 0:
        out[G_HAND + NUM_CLANS + h] = 1.0
    for k in range(KNOW_SIZE):
        out[G_KNOW + k] = know[me, k]
    for r in range(n):
        q = (me + r) % n
        base = GLOBAL_SIZE + r * SEAT_SIZE
        out[base + P_COINS] = s[S_COINS + q] / COIN_SCALE
        cards = 0
        for c in range(NUM_CLANS):
            cards += s[S_HIDDEN + q * NUM_CLANS + c]
            out[base + P_FACEUP + c] = s[S_REVEALED + q * NUM_CLANS + c]
            out[base + P_SEEN + c] = seen[me, q, c]
        out[base + P_CARDS] = cards / 2.0
        out[base + P_ALIVE] = 1.0 if cards > 0 else 0.0
        out[base + P_ROLES + 0] = 1.0 if s[S_CUR] == q else 0.0
        out[base + P_ROLES + 1] = 1.0 if s[S_ACTOR] == q else 0.0
        out[base + P_ROLES + 2] = 1.0 if s[S_TARGET] == q else 0.0
        out[base + P_ROLES + 3] = 1.0 if s[S_COUNTERER] == q else 0.0
        out[base + P_ROLES + 4] = 1.0 if s[S_LOSER] == q else 0.0
        out[base + P_ROLES + 5] = 1.0 if s[S_CLAIMANT] == q else 0.0
        for k in range(RECORD_SIZE):
            out[base + P_RECORD + k] = min(record[q, k] / RECORD_SCALE[k], 2.0)
    if cfg[C_VARIANT] == Variant.DRAFT:
        base = GLOBAL_SIZE + n * SEAT_SIZE
        if draft[me, 0] >= 0:
            out[base + DRAFT_DEALT + draft[me, 0]] = 1.0
        if draft[me, 1] >= 0:
            out[base + DRAFT_PICKED + draft[me, 1]] = 1.0


@njit(cache=True)
def relative_action(a, me, n, extended):
    """The seat-relative id of action ``a`` taken by seat ``me`` (targets counted from ``me``)."""
    base = core.c2_base(n)
    if A_TARGETED <= a < base:
        block = (a - A_TARGETED) // n
        t = (a - A_TARGETED) % n
        return A_TARGETED + block * n + (t - me) % n
    if extended:
        give = base + X_GIVE
        donate = core.c2_donate(n)
        if give <= a < give + n:
            return give + (a - give - me) % n
        if donate <= a < donate + n:
            return donate + (a - donate - me) % n
    return a


@njit(cache=True)
def absolute_action(r, me, n, extended):
    """The inverse of :func:`relative_action`."""
    base = core.c2_base(n)
    if A_TARGETED <= r < base:
        block = (r - A_TARGETED) // n
        t = (r - A_TARGETED) % n
        return A_TARGETED + block * n + (t + me) % n
    if extended:
        give = base + X_GIVE
        donate = core.c2_donate(n)
        if give <= r < give + n:
            return give + (r - give + me) % n
        if donate <= r < donate + n:
            return donate + (r - donate + me) % n
    return r


@njit(cache=True)
def decision_row(s, cfg, me, record, seen, know, draft, feats, legal, moves, extended):
    """Features and the seat-relative legal mask of seat ``me``'s decision."""
    table_features(s, cfg, me, record, seen, know, draft, feats)
    for i in range(legal.shape[0]):
        legal[i] = 0.0
    k = core.legal_actions_into(s, cfg, moves)
    n = cfg[C_PLAYERS]
    for j in range(k):
        legal[relative_action(moves[j], me, n, extended)] = 1.0
    return k


@njit(cache=True)
def _holds(unseen_total, unseen_c, h):
    """P(a uniformly random ``h``-subset of ``unseen_total`` cards has one of ``unseen_c``)."""
    if h <= 0 or unseen_c <= 0:
        return 0.0
    none = 1.0
    for i in range(h):
        if unseen_total - unseen_c - i <= 0:
            return 1.0
        none *= (unseen_total - unseen_c - i) / (unseen_total - i)
    return 1.0 - none


@njit(cache=True)
def odds_features(s, cfg, me, know, draft, out, offset):
    """Seat ``me``'s card-count odds (see O_*) written at ``out[offset:]``."""
    n = cfg[C_PLAYERS]
    copies = cfg[C_COPIES]
    unseen = np.empty(NUM_CLANS, dtype=np.int64)
    is_draft = cfg[C_VARIANT] == Variant.DRAFT
    # in the draft, each other seat's pile is out of the game until that seat has picked,
    # which its public card count tells (face down, face up or lost face down: 2 once picked)
    unpicked = 0
    if is_draft:
        for q in range(n):
            cards = 0
            for i in range(q * NUM_CLANS, (q + 1) * NUM_CLANS):
                cards += s[S_HIDDEN + i] + s[S_REVEALED + i] + s[S_BURIED + i]
            if q != me and cards < 2:
                unpicked += 1
    total = 0
    for c in range(NUM_CLANS):
        u = copies - s[S_HIDDEN + me * NUM_CLANS + c] - know[me, KNOW_COURT + c]
        if cfg[C_EXTENDED] != 0:
            u -= s[S_BURIED + me * NUM_CLANS + c]  # its own cards lost face down
        for q in range(n):
            u -= s[S_REVEALED + q * NUM_CLANS + c]
        if is_draft:
            # out of the game: the viewer's own pile but its pick, and the unpicked piles
            u -= (0 if draft[me, 1] == c else 1) + unpicked
        if u < 0:
            u = 0
        unseen[c] = u
        total += u
    for c in range(NUM_CLANS):
        out[offset + O_UNSEEN + c] = unseen[c] / float(copies)
    for r in range(n):
        q = (me + r) % n
        base = offset + O_HOLD + r * NUM_CLANS
        h = 0
        for c in range(NUM_CLANS):
            h += s[S_HIDDEN + q * NUM_CLANS + c]
        for c in range(NUM_CLANS):
            if q == me:
                out[base + c] = 1.0 if s[S_HIDDEN + me * NUM_CLANS + c] > 0 else 0.0
            else:
                out[base + c] = _holds(total, unseen[c], h)
    for j in range(3):
        if j == 0:
            claimant, clan = s[S_ACTOR], s[S_CLAIM]
        elif j == 1:
            claimant, clan = s[S_COUNTERER], s[S_COUNTER_CLAN]
        else:
            claimant, clan = s[S_CLAIMANT], s[S_CLAIMED]
        base = offset + O_CLAIM + j * O_CLAIM_SIZE
        out[base] = 0.0
        out[base + 1] = 0.0
        if claimant < 0 or clan < 0 or clan >= NUM_CLANS:
            continue
        r = (claimant - me) % n
        out[base] = out[offset + O_HOLD + r * NUM_CLANS + clan]
        if claimant != me and unseen[clan] == 0:
            out[base + 1] = 1.0


@njit(cache=True)
def decision_row_memory(
    s, cfg, me, record, seen, know, draft, ring, memory, feats, legal, moves, extended
):  # fmt: skip
    """:func:`decision_row`, then the card-count odds if ``feats`` is wide enough to hold them
    (a network's width says which inputs it reads: :func:`inputs_of`), then seat ``me``'s last
    ``memory`` observations."""
    k = decision_row(s, cfg, me, record, seen, know, draft, feats, legal, moves, extended)
    n = cfg[C_PLAYERS]
    base = base_size(n, cfg[C_VARIANT] == Variant.DRAFT)
    tail = feats.shape[0] - base - memory * token_size(n, extended)
    if tail == odds_size(n):
        odds_features(s, cfg, me, know, draft, feats, base)
    if memory > 0:
        memory_features(ring, me, memory, cfg, feats)
    return k


class TableMemory:
    """The public record, what each seat was shown, certain knowledge and each seat's last
    observations, for one game."""

    def __init__(self, cfg: np.ndarray) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        n = int(self.cfg[C_PLAYERS])
        self.players = n
        self.record = np.zeros((n, RECORD_SIZE), dtype=np.float32)
        self.seen = np.zeros((n, n, NUM_CLANS), dtype=np.float32)
        self.know = np.zeros((n, KNOW_SIZE), dtype=np.int32)
        self.draft = np.full((n, 2), -1, dtype=np.int32)  # clan dealt, clan picked
        self.ring = np.full((n, MAX_MEMORY), NO_TOKEN, dtype=np.int64)

    def observe(self, before: np.ndarray, action: int, after: np.ndarray) -> None:
        """Account for one move (chance moves included) from ``before`` to ``after``."""
        push_tokens(before, int(action), self.cfg, self.ring)
        observe_move(
            before, int(action), after, self.cfg, self.record, self.seen, self.know, self.draft
        )

    def row(
        self, s: np.ndarray, me: int, memory: int, feats: np.ndarray, legal: np.ndarray,
        moves: np.ndarray,
    ) -> int:  # fmt: skip
        """Seat ``me``'s features (with ``memory`` remembered moves) and legal mask in ``s``."""
        return int(
            decision_row_memory(
                s, self.cfg, me, self.record, self.seen, self.know, self.draft, self.ring,
                memory, feats, legal, moves, bool(self.cfg[C_EXTENDED]),
            )
        )  # fmt: skip
