"""Hypothesis sets: every hidden state consistent with a public history, stepped by the rules core.

A hypothesis is a full rules state (an ``int32`` row) plus one private-state
id per player. Stepping a set of hypotheses applies every legal move (or
chance outcome) to each of them and records, for each child, the public
token everybody sees and each player's new private-state id, so that
children can be grouped into public nodes and into information states.

Private-state ids (``Memory``):

``PERFECT``
    A hash chain of the tokens the player saw that differ from the public
    token: together with the public history this is the player's
    perfect-recall information state (the same token sequence as the
    OpenSpiel information state).
``SUMMARY``
    A hash of what the player holds and knows for certain now: their
    face-down cards and the Court cards they know to be there
    (see :func:`summary_id`). Small, but it forgets Examine results and the
    draft's pile: a baseline to measure against.
``CANONICAL``
    Perfect recall up to what is still possible: after each move, the
    player's id is a hash of the set of hidden states they cannot tell
    apart. Two histories that leave the player
    unable to tell apart exactly the same situations share an id. Everything
    the player knows for certain (cards, Court cards they put back, Examine
    results, the draft) is kept exactly; what is merged is only how likely
    each possibility was (carried by the hypothesis weights).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.enums import NUM_CLANS, PlayerId, Stage, Variant
from complots_solver.rules.layout import (
    A_KEEP,
    A_SHOW,
    C_PLAYERS,
    C_VARIANT,
    MAX_CHANCE_OUTCOMES,
    MS_FIRST,
    MS_SECOND,
    S_ACTOR,
    S_COURT,
    S_CUR,
    S_DRAWER,
    S_HIDDEN,
    S_STAGE,
    S_TARGET,
    STATE_SIZE,
    num_distinct_actions,
)


class Memory(IntEnum):
    """How a player's private-state id is formed (see the module note)."""

    PERFECT = 0
    SUMMARY = 1
    CANONICAL = 2


CHANCE = int(PlayerId.CHANCE)
TERMINAL = int(PlayerId.TERMINAL)
_MIX_A = np.uint64(0xBF58476D1CE4E5B9)
_MIX_B = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Knowledge vector per player: the Court cards they know to be there, then
# their own cards the others are known to have seen (Examine), as lower bounds.
KNOW_COURT = 0
KNOW_EXPOSED = NUM_CLANS
KNOW_SIZE = 2 * NUM_CLANS


def max_moves(players: int, extended: bool) -> int:
    """Upper bound on the moves (actions or chance outcomes) at one node."""
    return num_distinct_actions(players, extended) + MAX_CHANCE_OUTCOMES


@njit(cache=True, inline="always")
def mix(h, v):
    """Combine a 64-bit hash with one integer (splitmix64 finaliser)."""
    z = np.uint64(h) ^ (np.uint64(v) + _GOLDEN + (np.uint64(h) << np.uint64(6)))
    z = (z ^ (z >> np.uint64(30))) * _MIX_A
    z = (z ^ (z >> np.uint64(27))) * _MIX_B
    return np.int64(z ^ (z >> np.uint64(31)))


@njit(cache=True)
def row_hash(s, x, players):
    """Hash of a state row and the players' private-state ids."""
    h = np.int64(0x2545F4914F6CDD1D)
    for i in range(s.shape[0]):
        h = mix(h, s[i])
    for p in range(players):
        h = mix(h, x[p])
    return h


@njit(cache=True)
def summary_id(s, know, p):
    """SUMMARY id of player ``p``: a hash of their face-down cards and known Court cards."""
    h = np.int64(p + 1)
    for c in range(NUM_CLANS):
        h = mix(h, s[S_HIDDEN + p * NUM_CLANS + c])
    for c in range(KNOW_SIZE):
        h = mix(h, know[c])
    return h


@njit(cache=True)
def _expose_removal(before, after, players, know, seen):
    """Lower the exposure of every hand that lost cards (by clan if ``seen``, else by count)."""
    for p in range(players):
        lost_total = 0
        for c in range(NUM_CLANS):
            d = before[S_HIDDEN + p * NUM_CLANS + c] - after[S_HIDDEN + p * NUM_CLANS + c]
            if d > 0:
                lost_total += d
        if lost_total == 0:
            continue
        for c in range(NUM_CLANS):
            if seen:
                d = before[S_HIDDEN + p * NUM_CLANS + c] - after[S_HIDDEN + p * NUM_CLANS + c]
                lost = d if d > 0 else 0
            else:
                lost = lost_total
            know[p, KNOW_EXPOSED + c] = max(0, know[p, KNOW_EXPOSED + c] - lost)


@njit(cache=True)
def note_draft(before, after, cfg, draft):
    """Which clan each seat's hand gained at a 2-player draft's deal (``draft[q, 0]``) or pick (``draft[q, 1]``)."""
    if cfg[C_VARIANT] != Variant.DRAFT:
        return
    st = before[S_STAGE]
    if st == Stage.DEAL:
        slot = 0
    elif st == Stage.PICK:
        slot = 1
    else:
        return
    for q in range(cfg[C_PLAYERS]):
        for c in range(NUM_CLANS):
            if after[S_HIDDEN + q * NUM_CLANS + c] > before[S_HIDDEN + q * NUM_CLANS + c]:
                draft[q, slot] = c


@njit(cache=True)
def update_knowledge(before, a, after, players, know):
    """Update every player's certain knowledge (``know[p]``, see KNOW_*) across one move.

    Court: cards that leave it lower every player's certain count (the
    drawer's by the cards seen, the others' by the number drawn); cards a
    player puts back themselves, or sees shown and shuffled in, raise it.
    Exposure: a card shown to an Inquisitor raises its owner's count; cards
    leaving the hand lower it (by clan when everybody sees which, by count
    after an exchange).
    """
    st = before[S_STAGE]
    if st == Stage.EXAMINE_SHOW:
        target = before[S_CUR]
        c = a - A_SHOW
        if know[target, KNOW_EXPOSED + c] < 1:
            know[target, KNOW_EXPOSED + c] = 1
        return
    if st == Stage.EXCHANGE_KEEP:
        actor = before[S_ACTOR]
        m = a - A_KEEP
        for c in range(NUM_CLANS):
            kept = 0
            if MS_FIRST[m] == c:
                kept += 1
            if MS_SECOND[m] == c:
                kept += 1
            returned = before[S_HIDDEN + actor * NUM_CLANS + c] - kept
            if returned > 0:
                know[actor, KNOW_COURT + c] += returned
        _expose_removal(before, after, players, know, False)
        return
    drawn_total = 0
    for c in range(NUM_CLANS):
        d = before[S_COURT + c] - after[S_COURT + c]
        if d > 0:
            drawn_total += d
    if drawn_total > 0 and before[S_CUR] == CHANCE:
        drawer = before[S_DRAWER] if st != Stage.DEAL else -1
        for p in range(players):
            for c in range(NUM_CLANS):
                d = before[S_COURT + c] - after[S_COURT + c]
                if p == drawer:
                    seen = d if d > 0 else 0
                    know[p, KNOW_COURT + c] = max(0, know[p, KNOW_COURT + c] - seen)
                else:
                    know[p, KNOW_COURT + c] = max(0, know[p, KNOW_COURT + c] - drawn_total)
        return
    # a card shown after a true claim goes in seen by all; one forced out by
    # Examine is seen by the Inquisitor and its owner only
    for c in range(NUM_CLANS):
        d = after[S_COURT + c] - before[S_COURT + c]
        if d > 0:
            for p in range(players):
                if st != Stage.EXAMINE_DECIDE or p == before[S_ACTOR] or p == before[S_TARGET]:
                    know[p, KNOW_COURT + c] += d
    _expose_removal(before, after, players, know, True)
    # every certain count is capped by what the Court holds
    for p in range(players):
        for c in range(NUM_CLANS):
            if know[p, KNOW_COURT + c] > after[S_COURT + c]:
                know[p, KNOW_COURT + c] = after[S_COURT + c]


@njit(cache=True)
def expand(
    states,
    xs,
    knows,
    cfg,
    memory,
    width,
    out_states,
    out_xs,
    out_knows,
    out_parent,
    out_move,
    out_token,
    out_prob,
):
    """Every move of every hypothesis: child rows, ids, knowledge, parent, move, public token, probability.

    Returns the number of children written. Moves of one parent are written
    in the order of the rules core (sorted legal actions, or chance outcomes).
    """
    players = cfg[0]
    moves = np.empty(width, dtype=np.int32)
    probs = np.empty(width, dtype=np.float64)
    toks = np.empty(players, dtype=np.int64)
    k = 0
    for h in range(states.shape[0]):
        s = states[h]
        cur = s[S_CUR]
        if cur == CHANCE:
            m = core.chance_outcomes_into(s, cfg, moves, probs)
        else:
            m = core.legal_actions_into(s, cfg, moves)
            for j in range(m):
                probs[j] = 1.0
        for j in range(m):
            a = moves[j]
            child = out_states[k]
            for i in range(STATE_SIZE):
                child[i] = s[i]
            for p in range(players):
                toks[p] = core.observation_token(s, a, p)
            pub = core.observation_token(s, a, core.PUBLIC_VIEWER)
            core.apply_action(child, cfg, a)
            for p in range(players):
                for c in range(KNOW_SIZE):
                    out_knows[k, p, c] = knows[h, p, c]
            update_knowledge(s, a, child, players, out_knows[k])
            if memory == 1:
                for p in range(players):
                    out_xs[k, p] = summary_id(child, out_knows[k, p], p)
            else:
                for p in range(players):
                    if toks[p] != pub:
                        out_xs[k, p] = mix(xs[h, p], toks[p])
                    else:
                        out_xs[k, p] = xs[h, p]
            out_parent[k] = h
            out_move[k] = a
            out_token[k] = pub
            out_prob[k] = probs[j]
            k += 1
    return k


@njit(cache=True)
def hashes(states, xs, players):
    """row_hash of every hypothesis."""
    out = np.empty(states.shape[0], dtype=np.int64)
    for h in range(states.shape[0]):
        out[h] = row_hash(states[h], xs[h], players)
    return out


class Hypotheses:
    """A set of hypotheses: states, private-state ids, knowledge and weights (numpy arrays)."""

    def __init__(
        self,
        states: np.ndarray,
        xs: np.ndarray,
        knows: np.ndarray,
        weights: np.ndarray,
    ) -> None:
        self.states = states
        self.xs = xs
        self.knows = knows
        self.weights = weights

    def __len__(self) -> int:
        """Number of hypotheses."""
        return int(self.states.shape[0])

    @classmethod
    def initial(cls, cfg: np.ndarray) -> Hypotheses:
        """The single hypothesis of a game's initial state (before the deal)."""
        players = int(cfg[0])
        state = core.initial_state(cfg)
        return cls(
            state[None, :].copy(),
            np.zeros((1, players), dtype=np.int64),
            np.zeros((1, players, KNOW_SIZE), dtype=np.int32),
            np.ones(1, dtype=np.float64),
        )


def step_buffers(n: int, players: int, width: int) -> dict[str, np.ndarray]:
    """Output buffers for :func:`expand` of ``n`` hypotheses with ``width`` moves each at most."""
    size = max(1, n * width)
    return {
        "out_states": np.empty((size, STATE_SIZE), dtype=np.int32),
        "out_xs": np.empty((size, players), dtype=np.int64),
        "out_knows": np.empty((size, players, KNOW_SIZE), dtype=np.int32),
        "out_parent": np.empty(size, dtype=np.int32),
        "out_move": np.empty(size, dtype=np.int32),
        "out_token": np.empty(size, dtype=np.int64),
        "out_prob": np.empty(size, dtype=np.float64),
    }


@njit(cache=True)
def canonical_ids(state_hash, knows, raw, players, out):
    """CANONICAL ids of one public node's rows: per player, a hash of the group's (state, others) set.

    Rows of player p with equal raw ids form one group; the group's id hashes
    its sorted set of (state hash, the player's exposure) pairs: which
    hidden states are possible, and which of the player's own cards the
    others have seen, not the rest of what the others know.
    """
    n = state_hash.shape[0]
    keys = np.empty(n, dtype=np.int64)
    for p in range(players):
        order = np.argsort(raw[:, p], kind="mergesort")
        i = 0
        while i < n:
            j = i
            while j < n and raw[order[j], p] == raw[order[i], p]:
                j += 1
            for k in range(i, j):
                r = order[k]
                key = state_hash[r]
                for c in range(NUM_CLANS):
                    key = mix(key, knows[r, p, KNOW_EXPOSED + c])
                for q in range(players):
                    if q != p:
                        for c in range(KNOW_SIZE):
                            key = mix(key, knows[r, q, c])
                keys[k - i] = key
            group = np.sort(keys[: j - i])
            h = np.int64(p + 7)
            prev = np.int64(0)
            for k in range(j - i):
                if k == 0 or group[k] != prev:
                    h = mix(h, group[k])
                prev = group[k]
            for k in range(i, j):
                out[order[k], p] = h
            i = j


@njit(cache=True)
def state_hashes(states):
    """Hash of every state row alone."""
    out = np.empty(states.shape[0], dtype=np.int64)
    for h in range(states.shape[0]):
        v = np.int64(0x51ED270B27A3F0A1)
        for i in range(states.shape[1]):
            v = mix(v, states[h, i])
        out[h] = v
    return out
