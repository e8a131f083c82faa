"""The MCCFR table: a hash index over information-state rows and their pool of regrets.

The arrays of :data:`TABLE_ARRAYS`: the hash index ``slots`` (open
addressing, linear probing, power-of-two capacity, load <= 1/2), one row per
information state in ``row_info`` and ``row_key``, and the pool of the rows'
legal actions, regrets and strategy sums. This module holds what the walk,
the parallel workers and the evaluators share: look-up, insertion and growth,
the epoch journal and touched-row list, regret matching, sampling and DCFR
discounting. Rows and pool slots are appended in order of first visit, so a
row's id never changes; only rows that a visit writes are stored (an absent
row plays uniformly, exactly like a zero row). Layout, growth and their
measurements: the ``Storage`` notes in ``reports/mccfr-runs.md``, "Design
notes moved from module docstrings".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.compiled import advise_huge_pages, hot, inline

DEFAULT_CAPACITY = 1 << 12
MIN_CAPACITY = 16
NO_ROW = -1
GROWTH = 2  # the hash index doubles (it must be written whole: empty slots are marked)
# the row and pool arrays grow 4x into memory left unwritten: the walk writes a row's and its
# pool slots' every field when it inserts them, so untouched capacity costs address space
# only, never a copy or a page (see "Storage" above)
ARRAY_GROWTH = 4
MAX_LOAD_DEN = 2  # the table is grown when rows * MAX_LOAD_DEN >= capacity

# counters[...]
CT_ROWS = 0
CT_POOL = 1
CT_ITER = 2
CT_VISITS = 3
CT_CONFLICTS = 4
CT_DISCOUNTS = 5
NUM_COUNTERS = 6

# slots[i, ...]: the hash index, one 32-byte entry per slot (a row's pool start and
# length sit beside its key, so a look-up touches one cache line, then the pool)
SL_KEY = 0
SL_ROW = 1  # NO_ROW: an empty slot
SL_START = 2
SL_LEN = 3
SL_WIDTH = 4

# row_info[r, ...]
RI_START = 0
RI_LEN = 1
RI_PLAYER = 2
RI_STAMP = 3  # the last epoch (params[P_STAMP]) that inserted or updated the row
RI_WIDTH = 4

TABLE_ARRAYS = (
    "slots",
    "row_info",
    "row_key",
    "pool_action",
    "regret",
    "strategy_sum",
    "counters",
    "baseline",
)


# ---- the hash table ---------------------------------------------------------------
@inline
def probe(slots: np.ndarray, key: np.int64) -> int:
    """Position of ``key`` in the slots, or of the empty slot where it would go."""
    mask = slots.shape[0] - 1
    i = key & mask
    while slots[i, SL_ROW] != NO_ROW and slots[i, SL_KEY] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _new_slots(cap):
    """An empty hash index of ``cap`` slots on huge pages where the system allows."""
    slots = np.empty((cap, SL_WIDTH), dtype=np.int64)
    advise_huge_pages(slots)
    for i in range(cap):  # one pass over the memory (growth time is mostly memory traffic)
        slots[i, SL_KEY] = 0
        slots[i, SL_ROW] = NO_ROW
        slots[i, SL_START] = 0
        slots[i, SL_LEN] = 0
    return slots


def empty_slots(capacity: int) -> np.ndarray:
    """An empty hash index of ``capacity`` (a power of two) slots."""
    return _new_slots(capacity)


@njit(cache=True)
def _rehash(slots):
    """The slots re-indexed at twice the capacity."""
    new = _new_slots(slots.shape[0] * GROWTH)
    for i in range(slots.shape[0]):
        if slots[i, SL_ROW] != NO_ROW:
            j = probe(new, slots[i, SL_KEY])
            for f in range(SL_WIDTH):
                new[j, f] = slots[i, f]
    return new


@njit(cache=True)
def slots_of_rows(row_key, row_info, rows, cap):
    """A hash index of ``cap`` slots over the first ``rows`` rows (tables saved without one)."""
    slots = _new_slots(cap)
    for r in range(rows):
        i = probe(slots, row_key[r])
        slots[i, SL_KEY] = row_key[r]
        slots[i, SL_ROW] = r
        slots[i, SL_START] = row_info[r, RI_START]
        slots[i, SL_LEN] = row_info[r, RI_LEN]
    return slots


@njit(cache=True)
def _grow_rows(row_info, row_key, used):
    """Row arrays of :data:`ARRAY_GROWTH` times the length; the first ``used`` rows copied.

    The rest is left unwritten (an insertion writes all of a row).
    """
    n = max(row_info.shape[0] * ARRAY_GROWTH, MIN_CAPACITY)
    info = np.empty((n, RI_WIDTH), dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    advise_huge_pages(info)
    advise_huge_pages(keys)
    info[:used] = row_info[:used]
    keys[:used] = row_key[:used]
    return info, keys


@njit(cache=True)
def _grow_pool(pool_action, regret, strategy_sum, used, needed):
    """Pool arrays of at least ``needed`` slots (growing 4x); the first ``used`` copied.

    The rest is left unwritten (an insertion writes its action, regret and strategy sum).
    """
    cap = max(pool_action.shape[0] * ARRAY_GROWTH, needed, MIN_CAPACITY)
    act = np.empty(cap, dtype=np.int32)
    reg = np.empty(cap)
    ssum = np.empty(cap)
    advise_huge_pages(act)
    advise_huge_pages(reg)
    advise_huge_pages(ssum)
    act[:used] = pool_action[:used]
    reg[:used] = regret[:used]
    ssum[:used] = strategy_sum[:used]
    return act, reg, ssum


@njit(cache=True)
def grow_baseline(baseline, needed):
    """The baseline array grown (zeros) to at least ``needed`` slots."""
    if baseline.shape[0] >= needed:
        return baseline
    out = np.empty(max(needed, baseline.shape[0] * GROWTH))
    advise_huge_pages(out)
    out[: baseline.shape[0]] = baseline
    out[baseline.shape[0] :] = 0.0
    return out


@inline
def regret_matching(regret, start, k, out):
    """Current strategy of a row (positive regrets normalised, else uniform)."""
    total = 0.0
    for j in range(k):
        r = regret[start + j]
        if r > 0.0:
            total += r
    if total > 0.0:
        for j in range(k):
            r = regret[start + j]
            out[j] = r / total if r > 0.0 else 0.0
    else:
        for j in range(k):
            out[j] = 1.0 / k


@inline
def sample(probs, k, rng):
    """Index drawn from the first ``k`` entries of ``probs``."""
    r = rng.random()
    acc = 0.0
    for j in range(k):
        acc += probs[j]
        if r < acc:
            return j
    return k - 1


@hot
def discount_pool(regret, strategy_sum, used, step, alpha, beta, gamma):
    """Apply DCFR discount step ``step`` (1-based) to the first ``used`` pool slots."""
    ka = step**alpha
    kb = step**beta
    pos = ka / (ka + 1.0)
    neg = kb / (kb + 1.0)
    avg = (step / (step + 1.0)) ** gamma
    for j in range(used):
        r = regret[j]
        regret[j] = r * (pos if r > 0.0 else neg)
        strategy_sum[j] *= avg


@inline
def insert_row(slots, i, row_info, row_key, r, key, start, k, player, stamp):
    """Index row ``r`` (pool start, ``k`` actions, player, stamp) as ``key`` at empty slot ``i``."""
    slots[i, SL_KEY] = key
    slots[i, SL_ROW] = r
    slots[i, SL_START] = start
    slots[i, SL_LEN] = k
    row_key[r] = key
    row_info[r, RI_START] = start
    row_info[r, RI_LEN] = k
    row_info[r, RI_PLAYER] = player
    row_info[r, RI_STAMP] = stamp


@inline
def lookup(slots, key, k):
    """Row of ``key`` in a table if it is there with ``k`` actions, else NO_ROW."""
    i = probe(slots, key)
    if slots[i, SL_ROW] != NO_ROW and slots[i, SL_LEN] != k:
        return NO_ROW
    return slots[i, SL_ROW]


@njit(cache=True)
def grow_journal(journal, needed):
    """The journal (regrets row 0, strategy sums row 1) grown to at least ``needed`` slots."""
    if journal.shape[1] >= needed:
        return journal
    out = np.empty((2, max(needed, journal.shape[1] * GROWTH)))
    advise_huge_pages(out)
    # the rest is left unwritten: a row's entries are written when it is inserted or
    # first updated in an epoch, before they are ever read
    out[:, : journal.shape[1]] = journal
    return out


@inline
def stamp_row(row_info, r, stamp, regret, strategy_sum, journal, journaling, touched):
    """Stamp row ``r`` as updated in this epoch; at its first update, journal and list it.

    Serial runs (stamp 0) skip all of it. ``touched[0]`` counts the rows listed
    in ``touched[1:]`` since the stamp was set, so a parallel epoch's packet is
    gathered without scanning the table.
    """
    if stamp != 0 and row_info[r, RI_STAMP] != stamp:
        if journaling:
            st = row_info[r, RI_START]
            for j in range(row_info[r, RI_LEN]):
                journal[0, st + j] = regret[st + j]
                journal[1, st + j] = strategy_sum[st + j]
        row_info[r, RI_STAMP] = stamp
        list_touched(touched, r)


@inline
def list_touched(touched, r):
    """Append row ``r`` to the rows touched under the current stamp."""
    n = touched[0] + 1
    touched[n] = r
    touched[0] = n


@njit(cache=True)
def grow_touched(touched, rows):
    """The touched-row list with room for ``rows`` rows (each listed at most once per stamp)."""
    if touched.shape[0] > rows:
        return touched
    out = np.empty(rows + 1, dtype=np.int64)  # read only up to the count touched[0]
    out[: touched[0] + 1] = touched[: touched[0] + 1]
    return out


@njit(cache=True, nogil=True)
def grow_to(
    rows, pool, used_rows, used_pool, slots, row_info, row_key, pool_action, regret, strategy_sum
):
    """The table arrays grown until ``rows`` rows and ``pool`` pool slots fit.

    ``used_rows`` and ``used_pool`` (the table's counts) are what a growth copies.
    """
    while slots.shape[0] // MAX_LOAD_DEN - 1 < rows:
        slots = _rehash(slots)
    while row_info.shape[0] < rows:
        row_info, row_key = _grow_rows(row_info, row_key, used_rows)
    if pool > pool_action.shape[0]:
        pool_action, regret, strategy_sum = _grow_pool(
            pool_action, regret, strategy_sum, used_pool, pool
        )
    return slots, row_info, row_key, pool_action, regret, strategy_sum


def capacity_for(n: int) -> int:
    """Smallest power of two >= max(n, MIN_CAPACITY)."""
    cap = MIN_CAPACITY
    while cap < n:
        cap *= GROWTH
    return cap
