"""Monte Carlo CFR (external and outcome sampling) over the numba rules core.

Everything per node runs in numba: the game is stepped with
``core.apply_action`` on a stack of state rows (an explicit stack, no
recursion; a sampled node's child steps its parent's row in place, only the
external-sampling traverser's nodes, walked once per action, give each child a
copy), information keys come from :mod:`complots_solver.solvers.mccfr.infokeys`
and regrets live in a compiled open-addressing hash table. The walk
(``_walk``) is a ``@hot`` function, so no array reference counting happens
per node (:mod:`complots_solver.rules.compiled`); when the table must grow it
returns, and ``_run`` grows it and resumes the walk at the same node.

Algorithms (both iterate over every seat as the traverser in turn, like
OpenSpiel's Python and C++ solvers):

* ``es`` - external sampling (Lanctot et al. 2009): chance and the other
  players' actions are sampled, all of the traverser's actions are walked;
  regrets get ``v(a) - v``. The average strategy is accumulated as in
  OpenSpiel's ``ExternalSamplingMCCFRSolver`` with simple averaging: at the
  nodes of seat ``(traverser + 1) % players``, the current strategy is added.
* ``os`` - outcome sampling with epsilon-on-policy exploration at the
  traverser's nodes (default 0.6), importance-weighted regrets and
  ``my_reach * sigma / sample_reach`` average-strategy increments, as in
  OpenSpiel's ``OutcomeSamplingSolver`` (zero baseline unless ``baseline``).

Variance reduction (``baseline=alpha``, outcome sampling only): VR-MCCFR
(Schmid et al. 2019) with one learned baseline per (information state,
action), an exponentially decaying average (weight ``alpha``) of the sampled
values of that action, kept in the acting player's utility. Sampled actions
get ``b + (value - b) / q``, the others ``b``; any baseline keeps the
estimates unbiased. ``baseline=0`` is the zero baseline (OpenSpiel's).

Options: ``regret_floor=True`` floors each cumulative regret at 0 after every
update (regret matching+, as in CFR+; with sampling this is a heuristic without
MCCFR's convergence guarantee, measured in ``reports/mccfr-runs.md``).
``averaging="linear"`` weights the average-strategy increments of
iteration ``t`` by ``t``. ``discount=Discount(alpha, beta, gamma, interval)``
applies DCFR-style discounting in bulk every ``interval`` iterations (as
Pluribus does for linear CFR): with ``k`` the number of discount steps so far,
positive regrets are multiplied by ``k^alpha / (k^alpha + 1)``, negative ones
by ``k^beta / (k^beta + 1)`` and the strategy sums by ``(k / (k + 1))^gamma``.

Storage (the arrays of ``TABLE_ARRAYS``): a hash index ``slots`` (open
addressing, linear probing, power-of-two capacity, load <= 1/2, grown by
rehashing), each slot 32 bytes holding a key, its row, and the row's pool
start and length, so that a visit's look-up reads one cache line before the
regrets (two dependent cache misses instead of four with separate key and
row arrays and a row look-up; measured: about 6% more progress on the
4-turn draft ES case, none on ladder-2, whose table fits the L2 cache); one
row per information state in ``row_info`` (pool start, number of actions,
player, and the stamp of the last parallel epoch that inserted or updated it,
see ``set_stamp``) and ``row_key``; and a slot pool holding the action id,
regret and strategy sum of each (information state, legal action). Rows and pool slots are appended
in order of first visit, so a row's id never changes. Only rows that a visit
writes are inserted: the traverser's, and the next seat's with external
sampling (its strategy sums) or the opponent's with outcome-sampling baselines
in a 2-player game. Other information states are read as absent rows, which
play uniformly exactly like zero rows; with outcome sampling on the draft game
this halves the table (half the rows used to be zero rows of seats that had
only been sampled, never traversed, at that information state). Arrays grown inside the
compiled loop ask for huge pages (``rules.compiled.advise_huge_pages``).
The index doubles and is written whole (its empty slots are marked). The row
and pool arrays grow 4x (:data:`ARRAY_GROWTH`) and only their used part is
copied: the rest is left unwritten, and an insertion writes every field of its
row and pool slots before anything reads them. Unwritten capacity takes
address space, not memory, so a growth costs a copy of what is used and no
zeroing; ``table()``, checkpoints and ``nbytes()`` hold or count only the used
part.
A visit prefetches its key's slot before listing the legal actions, and with
the ``perfect`` key an index larger than :data:`PREFETCH_SLOTS` also gets
every seat's next slot prefetched as soon as a step's keys are known
(``rules.compiled.prefetch``), so the cache misses overlap the rules' work.
Checkpoints written before the ``slots`` layout (``slot_key``/``slot_row``)
still load: the index is rebuilt from the rows.

Frozen seats (:meth:`MCCFRSolver.freeze`, outcome sampling): the seats in a
mask follow a fixed :class:`PolicyTable` (a keyed average strategy with a
hash index, possibly under another key scheme) and are neither traversers nor
updated, so the other seats learn a best response to it. The walk then keeps
the material of both key schemes (``infokeys.KEY_BOTH``).

Parallel workers and Ray: :mod:`complots_solver.solvers.mccfr.parallel.solver`;
runs, checkpoints and keyed strategy files:
:mod:`complots_solver.solvers.mccfr.run`; playing a saved table from live
pyspiel states: :mod:`complots_solver.solvers.policies.mccfr_policy`; sampled
evaluation: :mod:`complots_solver.solvers.mccfr.evaluate`.

Randomness comes only from the ``np.random.Generator`` passed in (its bit
generator state is saved in checkpoints), so runs are reproducible and a
resumed run is bit-identical to an uninterrupted one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import advise_huge_pages, hot, inline, prefetch
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import PlayerId, Stage
from complots_solver.rules.layout import (
    C_PLAYERS,
    MAX_CHANCE_OUTCOMES,
    S_CUR,
    S_STAGE,
    STATE_SIZE,
)
from complots_solver.solvers.common.atomic import atomic_write_npz
from complots_solver.solvers.exact.tree import NodeKind, Tree
from complots_solver.solvers.mccfr.infokeys import (
    KEY_BOTH,
    KEY_PERFECT,
    KEYS,
    init_keys,
    key_of,
    step_keys,
)

ALGORITHMS = ("es", "os")
ALGO_ES = 0
ALGO_OS = 1
AVERAGING = ("simple", "linear")
DEFAULT_EPSILON = 0.6
DEFAULT_CAPACITY = 1 << 12
MIN_CAPACITY = 16
NO_ROW = -1
GROWTH = 2  # the hash index doubles (it must be written whole: empty slots are marked)
# the row and pool arrays grow 4x into memory left unwritten: the walk writes a row's and its
# pool slots' every field when it inserts them, so untouched capacity costs address space
# only, never a copy or a page (see "Storage" above)
ARRAY_GROWTH = 4
MAX_LOAD_DEN = 2  # the table is grown when rows * MAX_LOAD_DEN >= capacity
# an index this large (2 MiB of slots) outgrows the L2 cache of the benchmark machine: a
# step then prefetches every seat's next slot (measured: +11% on the draft ES case)
PREFETCH_SLOTS = 1 << 16

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

# params[...] (float64)
P_LINEAR = 0
P_INTERVAL = 1
P_ALPHA = 2
P_BETA = 3
P_GAMMA = 4
P_EPSILON = 5
P_STAMP = 6  # epoch stamp written into the rows a run touches (parallel synchronisation)
P_TRAVERSERS = 7  # bit mask of the seats that traverse (0: every seat; parallel workers)
P_INSERT = 8  # bit mask of the seats whose new rows are inserted (0: every seat)
P_FLOOR = 9  # 1: regret matching+ (cumulative regrets floored at 0 after each update)
P_BASELINE = 10  # os: decay of the learned action baselines (VR-MCCFR); 0 = zero baseline
P_STRIDE = 11  # iteration numbers advance by this much per iteration (parallel workers)
P_JOURNAL = 12  # 1: a row's first update in an epoch saves its values in `journal` first
P_SHARED = 13  # 1: seats outside P_INSERT are read from another worker's table (`share_with`)
P_OTHER_ROWS = 14  # that table's rows below this id are visible (its rows at the epoch's start)
NUM_PARAMS = 15

# what a depth of the walk is
F_CHANCE = 0
F_SAMPLED = 1  # a decision node where one action is sampled
F_WALKED = 2  # the traverser's node in external sampling: every action walked

_CHANCE = int(PlayerId.CHANCE)
_TERMINAL_STAGE = int(Stage.TERMINAL)
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


@dataclass(frozen=True)
class Discount:
    """DCFR-style discounting applied every ``interval`` iterations."""

    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    interval: int = 1000


# ---- the hash table ---------------------------------------------------------------
@inline
def _probe(slots: np.ndarray, key: np.int64) -> int:
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
            j = _probe(new, slots[i, SL_KEY])
            for f in range(SL_WIDTH):
                new[j, f] = slots[i, f]
    return new


@njit(cache=True)
def _slots_of_rows(row_key, row_info, rows, cap):
    """A hash index of ``cap`` slots over the first ``rows`` rows (tables saved without one)."""
    slots = _new_slots(cap)
    for r in range(rows):
        i = _probe(slots, row_key[r])
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
def _grow_baseline(baseline, needed):
    """The baseline array grown (zeros) to at least ``needed`` slots."""
    if baseline.shape[0] >= needed:
        return baseline
    out = np.empty(max(needed, baseline.shape[0] * GROWTH))
    advise_huge_pages(out)
    out[: baseline.shape[0]] = baseline
    out[baseline.shape[0] :] = 0.0
    return out


@inline
def _regret_matching(regret, start, k, out):
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
def _sample(probs, k, rng):
    """Index drawn from the first ``k`` entries of ``probs``."""
    r = rng.random()
    acc = 0.0
    for j in range(k):
        acc += probs[j]
        if r < acc:
            return j
    return k - 1


@hot
def _discount(regret, strategy_sum, used, step, alpha, beta, gamma):
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
def _insert_row(slots, i, row_info, row_key, r, key, start, k, player, stamp):
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
def _find(slots, s, cfg, key_kind, hashes, memory, acts):
    """The mover's key, legal actions (listed into ``acts``) and slot in ``slots``: (key, k, i).

    The key's slot is fetched while the legal actions are listed.
    """
    key = key_of(s, cfg, key_kind, hashes, memory)
    prefetch(slots, key & (slots.shape[0] - 1))
    k = core.legal_actions_into(s, cfg, acts)
    return key, k, _probe(slots, key)


@inline
def _lookup(slots, key, k):
    """Row of ``key`` in a table if it is there with ``k`` actions, else NO_ROW."""
    i = _probe(slots, key)
    if slots[i, SL_ROW] != NO_ROW and slots[i, SL_LEN] != k:
        return NO_ROW
    return slots[i, SL_ROW]


@njit(cache=True)
def _grow_journal(journal, needed):
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
def _stamp(row_info, r, stamp, regret, strategy_sum, journal, journaling, touched):
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
        _list_touched(touched, r)


@inline
def _list_touched(touched, r):
    """Append row ``r`` to the rows touched under the current stamp."""
    n = touched[0] + 1
    touched[n] = r
    touched[0] = n


@njit(cache=True)
def _grow_touched(touched, rows):
    """The touched-row list with room for ``rows`` rows (each listed at most once per stamp)."""
    if touched.shape[0] > rows:
        return touched
    out = np.empty(rows + 1, dtype=np.int64)  # read only up to the count touched[0]
    out[: touched[0] + 1] = touched[: touched[0] + 1]
    return out


@njit(cache=True, nogil=True)
def _grow_to(
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


# ---- the walk ----------------------------------------------------------------------
@inline
def _step_child(states, srow, d, cfg, a, walk_keys, hashes, memory, copy, slots):
    """Enter the child of depth ``d`` by ``a``: keys, then the state (copied, or in place)."""
    s = states[srow[d]]
    step_keys(s, cfg, a, walk_keys, hashes[d], memory[d], hashes[d + 1], memory[d + 1])
    if walk_keys == KEY_PERFECT and slots.shape[0] >= PREFETCH_SLOTS:
        # the child's mover is not known yet: fetch every seat's slot while the rules run
        mask = slots.shape[0] - 1
        for p in range(cfg[C_PLAYERS]):
            prefetch(slots, np.int64(hashes[d + 1, p]) & mask)
    if copy:
        srow[d + 1] = srow[d] + 1
        core.copy_state(states[srow[d + 1]], s)
    else:
        srow[d + 1] = srow[d]
    core.apply_action(states[srow[d + 1]], cfg, a)


# _walk's saved position (regs) and results
R_ITER = 0  # iterations of this call done
R_TRAV = 1  # traverser of the interrupted walk
R_DEPTH = 2  # depth of the node to enter again
R_RESUME = 3  # 1: the walk stopped inside an iteration
R_POOL_NEEDED = 4  # pool slots the interrupted insertion needs
NUM_REGS = 5
WALK_DONE = 0
WALK_GROW = 1


@hot
def _walk(
    cfg, algorithm, key_kind, iterations, params, rng,
    slots, row_info, row_key, pool_action, regret, strategy_sum, counters,
    frozen_mask, f_key_kind, f_slots, f_row_info, f_probs, baseline, journal, touched,
    o_slots, o_regret, walk_keys, states, hashes, memory, acts, sigma, values, nact, nxt, row,
    start, frame, mover, chosen, srow, samp_p, my_reach, opp_reach, samp_reach, outcomes, probs,
    regs,
):  # fmt: skip
    """Run MCCFR iterations from the position in ``regs``: WALK_DONE, or WALK_GROW.

    ``_walk`` allocates nothing, so it is compiled without reference counting
    (``hot``); when a new row does not fit the table it saves its position in
    ``regs`` and returns WALK_GROW, and :func:`_run` grows the table and calls
    it again. (A walk that grew the table itself would hold owned arrays that
    numba reference-counts at every step of the loop: measured with perf,
    eight atomic increments and decrements per visit, a quarter of the time.)
    """
    n = cfg[C_PLAYERS]
    linear = params[P_LINEAR] != 0.0
    interval = int(params[P_INTERVAL])
    eps = params[P_EPSILON]
    stamp = np.int64(params[P_STAMP])
    trav_mask = np.int64(params[P_TRAVERSERS])
    insert_mask = np.int64(params[P_INSERT])
    floor = params[P_FLOOR] != 0.0
    balpha = params[P_BASELINE]
    stride = max(1, int(params[P_STRIDE]))
    journaling = params[P_JOURNAL] != 0.0
    it = regs[R_ITER]
    first_trav = regs[R_TRAV]
    shared = params[P_SHARED] != 0.0
    o_rows = np.int64(params[P_OTHER_ROWS])
    # besides the traverser's rows, a traversal writes the strategy sums of the next seat
    # (ES) or, with baselines in a 2-player game, the opponent's baselines (OS)
    os_opponent = n == 2 and balpha > 0.0
    resume = regs[R_RESUME] != 0
    while it < iterations:
        if not resume:
            counters[CT_ITER] += stride
        weight = float(counters[CT_ITER]) if linear else 1.0
        for trav in range(first_trav, n):
            if frozen_mask & (1 << trav):
                continue
            if trav_mask != 0 and not trav_mask & (1 << trav):
                continue
            avg_seat = (trav + 1) % n
            write_seat = avg_seat if algorithm == ALGO_ES or os_opponent else trav
            if resume:  # back after the table grew: enter the node where the walk stopped
                d = regs[R_DEPTH]
                resume = False
            else:
                core.reset_state(states[0], cfg)
                init_keys(cfg, hashes[0], memory[0])
                d = 0
                srow[0] = 0
            entering = True
            val = 0.0
            while True:
                if entering:
                    s = states[srow[d]]
                    counters[CT_VISITS] += 1
                    a = -1
                    cur = s[S_CUR]
                    if s[S_STAGE] == _TERMINAL_STAGE:
                        val = core.return_of(s, cfg, trav)
                        entering = False
                    elif cur == _CHANCE:
                        frame[d] = F_CHANCE
                        a = core.sample_chance(s, cfg, rng, outcomes, probs)
                    elif frozen_mask & (1 << cur):
                        mover[d] = cur
                        k = core.legal_actions_into(s, cfg, acts[d])
                        nact[d] = k
                        row[d] = NO_ROW
                        key = key_of(s, cfg, f_key_kind, hashes[d], memory[d])
                        fr = _lookup(f_slots, key, k)
                        sig = sigma[d]
                        for j in range(k):
                            sig[j] = (
                                1.0 / k if fr == NO_ROW else f_probs[f_row_info[fr, RI_START] + j]
                            )
                        frame[d] = F_SAMPLED
                        j = _sample(sig, k, rng)
                        samp_p[d] = sig[j]
                        chosen[d] = j
                        a = acts[d, j]
                    elif shared and not insert_mask & (1 << cur):
                        # another worker's seat (outcome sampling, split "shared"): its
                        # rows as they were at the epoch's start, read-only; the owner
                        # may be inserting meanwhile, but only rows >= o_rows, ignored here
                        mover[d] = cur
                        key, k, i = _find(o_slots, s, cfg, key_kind, hashes[d], memory[d], acts[d])
                        nact[d] = k
                        r = o_slots[i, SL_ROW]
                        row[d] = NO_ROW
                        sig = sigma[d]
                        if r != NO_ROW and r < o_rows and o_slots[i, SL_LEN] == k:
                            _regret_matching(o_regret, o_slots[i, SL_START], k, sig)
                        else:
                            if r != NO_ROW and r < o_rows:
                                counters[CT_CONFLICTS] += 1
                            for j in range(k):
                                sig[j] = 1.0 / k
                        frame[d] = F_SAMPLED
                        j = _sample(sig, k, rng)
                        samp_p[d] = sig[j]
                        chosen[d] = j
                        a = acts[d, j]
                    else:
                        mover[d] = cur
                        key, k, i = _find(slots, s, cfg, key_kind, hashes[d], memory[d], acts[d])
                        nact[d] = k
                        r = slots[i, SL_ROW]
                        if r == NO_ROW and (
                            (insert_mask != 0 and not insert_mask & (1 << cur))
                            or not (cur == trav or cur == write_seat)
                        ):
                            # a row this visit does not write (or a seat this worker does
                            # not own) stays absent: an absent row plays uniformly, exactly
                            # like a zero row, so only rows that get values are stored
                            pass
                        elif r == NO_ROW:
                            rows = counters[CT_ROWS]
                            used = counters[CT_POOL]
                            if (
                                (rows + 1) * MAX_LOAD_DEN >= slots.shape[0]
                                or rows >= row_info.shape[0]
                                or used + k > pool_action.shape[0]
                            ):
                                # the caller grows the table; this node is then entered
                                # again (nothing random has been drawn at it yet)
                                counters[CT_VISITS] -= 1
                                regs[R_ITER] = it
                                regs[R_TRAV] = trav
                                regs[R_DEPTH] = d
                                regs[R_RESUME] = 1
                                regs[R_POOL_NEEDED] = used + k
                                return WALK_GROW
                            r = rows
                            _insert_row(slots, i, row_info, row_key, r, key, used, k, cur, stamp)
                            if stamp != 0:
                                _list_touched(touched, r)
                            for j in range(k):
                                pool_action[used + j] = acts[d, j]
                                regret[used + j] = 0.0  # the pool grows unwritten
                                strategy_sum[used + j] = 0.0
                                if journaling:  # a new row starts the epoch at zero
                                    journal[0, used + j] = 0.0
                                    journal[1, used + j] = 0.0
                            counters[CT_ROWS] = rows + 1
                            counters[CT_POOL] = used + k
                        elif slots[i, SL_LEN] != k:
                            counters[CT_CONFLICTS] += 1
                            r = NO_ROW
                        row[d] = r
                        sig = sigma[d]
                        if r == NO_ROW:
                            for j in range(k):
                                sig[j] = 1.0 / k
                        else:
                            if stamp != 0:
                                # a parallel epoch stamps the row when it updates it, after
                                # the subtree: fetch its info line now (measured: stamping
                                # cost 2.3-4.4% of a draft OS walk without this, 1.0-2.6% with)
                                prefetch(row_info, r)
                            start[d] = slots[i, SL_START]
                            _regret_matching(regret, start[d], k, sig)
                        if algorithm == ALGO_ES:
                            if cur == trav:
                                frame[d] = F_WALKED
                                nxt[d] = 0
                                a = acts[d, 0]
                            else:
                                frame[d] = F_SAMPLED
                                if cur == avg_seat and r != NO_ROW:
                                    st = start[d]
                                    _stamp(
                                        row_info,
                                        r,
                                        stamp,
                                        regret,
                                        strategy_sum,
                                        journal,
                                        journaling,
                                        touched,
                                    )
                                    for j in range(k):
                                        strategy_sum[st + j] += weight * sig[j]
                                j = _sample(sig, k, rng)
                                chosen[d] = j
                                a = acts[d, j]
                        else:
                            frame[d] = F_SAMPLED
                            if cur == trav:
                                # epsilon-on-policy sampling at the traverser's nodes
                                sp = values[d]
                                for j in range(k):
                                    sp[j] = eps / k + (1.0 - eps) * sig[j]
                                j = _sample(sp, k, rng)
                                samp_p[d] = sp[j]
                            else:
                                j = _sample(sig, k, rng)
                                samp_p[d] = sig[j]
                            chosen[d] = j
                            a = acts[d, j]
                    if a >= 0:
                        if algorithm == ALGO_OS:
                            my_reach[d + 1] = my_reach[d]
                            opp_reach[d + 1] = opp_reach[d]
                            samp_reach[d + 1] = samp_reach[d]
                            if frame[d] == F_SAMPLED:
                                p_act = sigma[d, chosen[d]]
                                if mover[d] == trav:
                                    my_reach[d + 1] *= p_act
                                else:
                                    opp_reach[d + 1] *= p_act
                                samp_reach[d + 1] *= samp_p[d]
                        # a walked node's state is needed again: every child but the last
                        # copies it; a node left for good lets its child step it in place
                        _step_child(
                            states, srow, d, cfg, a, walk_keys, hashes, memory,
                            frame[d] == F_WALKED and nact[d] > 1, slots,
                        )  # fmt: skip
                        d += 1
                    continue
                # returning `val` from depth d to its parent
                if d == 0:
                    break
                d -= 1
                f = frame[d]
                if f == F_CHANCE:
                    continue
                r = row[d]
                k = nact[d]
                if f == F_WALKED:
                    values[d, nxt[d]] = val
                    nxt[d] += 1
                    if nxt[d] < k:
                        a = acts[d, nxt[d]]
                        # the last child steps the state in place: it is not needed again
                        _step_child(
                            states,
                            srow,
                            d,
                            cfg,
                            a,
                            walk_keys,
                            hashes,
                            memory,
                            nxt[d] < k - 1,
                            slots,
                        )
                        d += 1
                        entering = True
                        continue
                    v = 0.0
                    for j in range(k):
                        v += sigma[d, j] * values[d, j]
                    if r != NO_ROW:
                        st = start[d]
                        _stamp(
                            row_info, r, stamp, regret, strategy_sum, journal, journaling, touched
                        )
                        for j in range(k):
                            regret[st + j] += values[d, j] - v
                            if floor and regret[st + j] < 0.0:
                                regret[st + j] = 0.0
                    val = v
                elif algorithm == ALGO_ES:
                    continue  # sampled node: the sampled child's value passes up
                else:
                    # outcome sampling: estimates of the child values with baseline
                    # b (VR-MCCFR): b + (value - b) / q for the sampled action, b for
                    # the others; b = 0 without baselines. Baselines are kept in the
                    # acting player's utility; the traverser's is its negation at an
                    # opponent's node in a 2-player (zero-sum) game, and other
                    # players' nodes use b = 0 with more players.
                    j0 = chosen[d]
                    use_b = balpha > 0.0 and r != NO_ROW and (mover[d] == trav or n == 2)
                    if use_b:
                        st = start[d]
                        sgn = 1.0 if mover[d] == trav else -1.0
                        b0 = sgn * baseline[st + j0]
                        child = b0 + (val - b0) / samp_p[d]
                        v = 0.0
                        for j in range(k):
                            v += sigma[d, j] * (child if j == j0 else sgn * baseline[st + j])
                        baseline[st + j0] += balpha * (sgn * val - baseline[st + j0])
                    else:
                        child = val / samp_p[d]
                        v = sigma[d, j0] * child
                    if mover[d] == trav and r != NO_ROW:
                        st = start[d]
                        _stamp(
                            row_info, r, stamp, regret, strategy_sum, journal, journaling, touched
                        )
                        w = opp_reach[d] / samp_reach[d]
                        for j in range(k):
                            if j == j0:
                                cv = child
                            elif use_b:
                                cv = baseline[st + j]
                            else:
                                cv = 0.0
                            regret[st + j] += (cv - v) * w
                            if floor and regret[st + j] < 0.0:
                                regret[st + j] = 0.0
                        inc = weight * my_reach[d] / samp_reach[d]
                        for j in range(k):
                            strategy_sum[st + j] += inc * sigma[d, j]
                    val = v
        if interval > 0 and counters[CT_ITER] % interval == 0:
            counters[CT_DISCOUNTS] += 1
            _discount(
                regret,
                strategy_sum,
                counters[CT_POOL],
                float(counters[CT_DISCOUNTS]),
                params[P_ALPHA],
                params[P_BETA],
                params[P_GAMMA],
            )
        first_trav = 0
        it += 1
    regs[R_RESUME] = 0
    return WALK_DONE


@njit(cache=True, nogil=True)
def _run(
    cfg,
    algorithm,
    key_kind,
    iterations,
    params,
    rng,
    slots,
    row_info,
    row_key,
    pool_action,
    regret,
    strategy_sum,
    counters,
    max_depth,
    width,
    frozen_mask,
    f_key_kind,
    f_slots,
    f_row_info,
    f_probs,
    baseline,
    journal,
    touched,
    o_slots,
    o_regret,
):
    """Run ``iterations`` MCCFR iterations; return the (possibly regrown) table arrays.

    Seats in the bit mask ``frozen_mask`` play the fixed policy table ``f_*``
    (keyed by ``f_key_kind``) and are neither traversers nor updated.
    """
    n = cfg[C_PLAYERS]
    walk_keys = key_kind if frozen_mask == 0 or f_key_kind == key_kind else KEY_BOTH
    depth_cap = max_depth + 2
    # per-depth arrays of the walk
    states = np.empty((depth_cap, STATE_SIZE), dtype=np.int32)
    hashes = np.zeros((depth_cap, n), dtype=np.uint64)
    memory = np.zeros((depth_cap, n), dtype=np.int64)
    acts = np.empty((depth_cap, width), dtype=np.int32)
    sigma = np.empty((depth_cap, width))
    values = np.empty((depth_cap, width))
    nact = np.zeros(depth_cap, dtype=np.int64)
    nxt = np.zeros(depth_cap, dtype=np.int64)
    row = np.zeros(depth_cap, dtype=np.int64)
    start = np.zeros(depth_cap, dtype=np.int64)  # pool start of row[d]
    frame = np.zeros(depth_cap, dtype=np.int64)
    mover = np.zeros(depth_cap, dtype=np.int64)
    chosen = np.zeros(depth_cap, dtype=np.int64)
    srow = np.zeros(depth_cap, dtype=np.int64)  # row of `states` holding depth d's state
    samp_p = np.zeros(depth_cap)
    my_reach = np.ones(depth_cap)
    opp_reach = np.ones(depth_cap)
    samp_reach = np.ones(depth_cap)
    outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    probs = np.empty(MAX_CHANCE_OUTCOMES)
    regs = np.zeros(NUM_REGS, dtype=np.int64)
    # the counters change at every visit: a private copy (this thread's allocation), so
    # that parallel workers' counters never share a cache line; written back at the end
    work = counters.copy()
    balpha = params[P_BASELINE]
    journaling = params[P_JOURNAL] != 0.0
    if balpha > 0.0:
        baseline = _grow_baseline(baseline, pool_action.shape[0])
    if journaling:
        journal = _grow_journal(journal, pool_action.shape[0])
    stamping = params[P_STAMP] != 0.0
    if stamping:
        touched = _grow_touched(touched, row_info.shape[0])
    while True:
        status = _walk(
            cfg, algorithm, key_kind, iterations, params, rng,
            slots, row_info, row_key, pool_action, regret, strategy_sum, work,
            frozen_mask, f_key_kind, f_slots, f_row_info, f_probs, baseline, journal, touched,
            o_slots, o_regret, walk_keys, states, hashes, memory, acts, sigma, values, nact, nxt,
            row, start, frame, mover, chosen, srow, samp_p, my_reach, opp_reach, samp_reach,
            outcomes, probs, regs,
        )  # fmt: skip
        if status == WALK_DONE:
            break
        slots, row_info, row_key, pool_action, regret, strategy_sum = _grow_to(
            work[CT_ROWS] + 1, regs[R_POOL_NEEDED], work[CT_ROWS], work[CT_POOL],
            slots, row_info, row_key, pool_action, regret, strategy_sum,
        )  # fmt: skip
        if stamping:
            touched = _grow_touched(touched, row_info.shape[0])
        if balpha > 0.0:
            baseline = _grow_baseline(baseline, pool_action.shape[0])
        if journaling:
            journal = _grow_journal(journal, pool_action.shape[0])
    counters[:] = work
    return slots, row_info, row_key, pool_action, regret, strategy_sum, baseline, journal, touched


# ---- mapping onto a compiled tree ------------------------------------------------
ERR_NONE = 0
ERR_CHANCE = 1
ERR_ACTIONS = 2
ERR_PLAYER = 3
ERR_KEY = 4
_ERRORS = {
    ERR_CHANCE: "the tree's chance outcomes differ from the rules core's",
    ERR_ACTIONS: "the tree's legal actions differ from the rules core's",
    ERR_PLAYER: "the tree's acting player differs from the rules core's",
    ERR_KEY: "two nodes of one information set have different keys",
}
PROB_TOLERANCE = 1e-9


@njit(cache=True)
def _infoset_keys(
    cfg, key_kind, max_depth, width, kind, player, infoset, child_offsets, children,
    chance_prob, action_offsets, legal_actions, keys, seen,
):  # fmt: skip
    """Walk the tree on the rules core; write each infoset's key into ``keys``; error code.

    Checks the tree against the core (players, legal actions, chance outcomes
    and probabilities) and that every node of an infoset gives the same key.
    """
    n = cfg[C_PLAYERS]
    depth_cap = max_depth + 2
    states = np.empty((depth_cap, STATE_SIZE), dtype=np.int32)
    hashes = np.zeros((depth_cap, n), dtype=np.uint64)
    memory = np.zeros((depth_cap, n), dtype=np.int64)
    node = np.zeros(depth_cap, dtype=np.int64)
    edge = np.zeros(depth_cap, dtype=np.int64)
    outs = np.empty((depth_cap, MAX_CHANCE_OUTCOMES), dtype=np.int32)
    probs = np.empty(MAX_CHANCE_OUTCOMES)
    acts = np.empty(width, dtype=np.int32)
    core.reset_state(states[0], cfg)
    init_keys(cfg, hashes[0], memory[0])
    d = 0
    node[0] = 0
    entering = True
    while True:
        nd = node[d]
        s = states[d]
        if entering:
            entering = False
            edge[d] = 0
            if kind[nd] == NodeKind.CHANCE:
                k = core.chance_outcomes_into(s, cfg, outs[d], probs)
                e0 = child_offsets[nd]
                if k != child_offsets[nd + 1] - e0:
                    return ERR_CHANCE
                for j in range(k):
                    if abs(probs[j] - chance_prob[e0 + j]) > PROB_TOLERANCE:
                        return ERR_CHANCE
            elif kind[nd] == NodeKind.DECISION:
                if s[S_CUR] != player[nd]:
                    return ERR_PLAYER
                i = infoset[nd]
                k = core.legal_actions_into(s, cfg, acts)
                a0 = action_offsets[i]
                if k != action_offsets[i + 1] - a0:
                    return ERR_ACTIONS
                for j in range(k):
                    if acts[j] != legal_actions[a0 + j]:
                        return ERR_ACTIONS
                key = key_of(s, cfg, key_kind, hashes[d], memory[d])
                if not seen[i]:
                    seen[i] = True
                    keys[i] = key
                elif keys[i] != key:
                    return ERR_KEY
        e = child_offsets[nd] + edge[d]
        if e >= child_offsets[nd + 1]:
            if d == 0:
                return ERR_NONE
            d -= 1
            edge[d] += 1
            continue
        if kind[nd] == NodeKind.CHANCE:
            a = outs[d, edge[d]]
        else:
            a = legal_actions[action_offsets[infoset[nd]] + edge[d]]
        step_keys(s, cfg, a, key_kind, hashes[d], memory[d], hashes[d + 1], memory[d + 1])
        core.copy_state(states[d + 1], s)
        core.apply_action(states[d + 1], cfg, a)
        node[d + 1] = children[e]
        d += 1
        entering = True


def tree_infoset_keys(config: GameConfig, tree: Tree, key: str) -> np.ndarray:
    """The ``key`` information key of every infoset of ``tree`` (a tree of ``config``)."""
    num = tree.action_offsets.shape[0] - 1
    keys = np.zeros(num, dtype=np.int64)
    seen = np.zeros(num, dtype=np.bool_)
    err = _infoset_keys(
        config.to_array(), KEYS[key], config.max_game_length(), config.num_distinct_actions(),
        tree.kind, tree.player, tree.infoset, tree.child_offsets, tree.children,
        tree.chance_prob, tree.action_offsets, tree.legal_actions, keys, seen,
    )  # fmt: skip
    if err != ERR_NONE:
        raise ValueError(f"tree does not match {config.game_string()}: {_ERRORS[err]}")
    if not seen.all():
        raise ValueError(f"{int((~seen).sum())} infosets of the tree were never reached")
    return keys


@njit(cache=True)
def _rows_onto_tree(
    keys, action_offsets, legal_actions, slots, pool_action, weights, out, stats,
):  # fmt: skip
    """Normalised table rows of each tree infoset into ``out`` (uniform if missing); error code.

    stats[0] += infosets found in the table, stats[1] += infosets missing.
    """
    for i in range(keys.shape[0]):
        a0 = action_offsets[i]
        k = action_offsets[i + 1] - a0
        x = _probe(slots, keys[i])
        total = 0.0
        st = 0
        if slots[x, SL_ROW] != NO_ROW and slots[x, SL_LEN] == k:
            st = slots[x, SL_START]
            for j in range(k):
                if pool_action[st + j] != legal_actions[a0 + j]:
                    return ERR_ACTIONS
                total += weights[st + j]
        if total > 0.0:
            stats[0] += 1
            for j in range(k):
                out[a0 + j] = weights[st + j] / total
        else:
            stats[1] += 1
            for j in range(k):
                out[a0 + j] = 1.0 / k
    return ERR_NONE


# ---- fixed policy tables ---------------------------------------------------------
def _capacity(n: int) -> int:
    """Smallest power of two >= max(n, MIN_CAPACITY)."""
    cap = MIN_CAPACITY
    while cap < n:
        cap *= GROWTH
    return cap


@njit(cache=True)
def _index_rows(keys, offsets, players, slots, row_info):
    """Fill a hash index over rows given by keys and action offsets; return duplicate keys."""
    dup = 0
    for r in range(keys.shape[0]):
        i = _probe(slots, keys[r])
        if slots[i, SL_ROW] != NO_ROW:
            dup += 1
            continue
        slots[i, SL_KEY] = keys[r]
        slots[i, SL_ROW] = r
        slots[i, SL_START] = offsets[r]
        slots[i, SL_LEN] = offsets[r + 1] - offsets[r]
        row_info[r, RI_START] = offsets[r]
        row_info[r, RI_LEN] = offsets[r + 1] - offsets[r]
        row_info[r, RI_PLAYER] = players[r]
    return dup


@dataclass(frozen=True)
class PolicyTable:
    """A fixed keyed strategy (per row: key, legal actions, probabilities) with a hash index."""

    key: str
    keys: np.ndarray
    players: np.ndarray
    action_offsets: np.ndarray
    legal_actions: np.ndarray
    probs: np.ndarray
    slots: np.ndarray
    row_info: np.ndarray

    @property
    def key_kind(self) -> int:
        """Numeric key scheme (infokeys.KEYS)."""
        return KEYS[self.key]

    @property
    def num_rows(self) -> int:
        """Information states in the table."""
        return int(self.keys.shape[0])

    @classmethod
    def empty(cls) -> PolicyTable:
        """A table with no rows (every lookup misses)."""
        return cls.from_arrays(
            "perfect",
            np.zeros(0, np.int64),
            np.zeros(0, np.int8),
            np.zeros(1, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0),
        )

    @classmethod
    def from_average(cls, table: dict[str, np.ndarray], key: str) -> PolicyTable:
        """Index an :meth:`MCCFRSolver.average_table` dictionary (or a keyed strategy file)."""
        return cls.from_arrays(
            key,
            table["key"],
            table["player"],
            table["action_offsets"],
            table["legal_actions"],
            table["average"],
        )

    @classmethod
    def from_arrays(
        cls,
        key: str,
        keys: np.ndarray,
        players: np.ndarray,
        action_offsets: np.ndarray,
        legal_actions: np.ndarray,
        probs: np.ndarray,
    ) -> PolicyTable:
        """Check the arrays and build the hash index."""
        if key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, got {key!r}")
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        offsets = np.ascontiguousarray(action_offsets, dtype=np.int64)
        rows = keys.shape[0]
        if offsets.shape != (rows + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) < 1):
            raise ValueError("action_offsets must start at 0 and grow by >= 1 per row")
        slots = int(offsets[-1])
        legal = np.ascontiguousarray(legal_actions, dtype=np.int32)
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        if legal.shape != (slots,) or probs.shape != (slots,):
            raise ValueError(f"legal_actions and probabilities need {slots} entries")
        cap = _capacity(rows * MAX_LOAD_DEN + 1)
        slots = empty_slots(cap)
        row_info = np.zeros((max(rows, 1), RI_WIDTH), dtype=np.int64)
        players = np.ascontiguousarray(players, dtype=np.int8)
        if _index_rows(keys, offsets, players, slots, row_info):
            raise ValueError("duplicate information keys in the table")
        return cls(key, keys, players, offsets, legal, probs, slots, row_info)

    def greedy(self) -> PolicyTable:
        """The same table playing each row's likeliest action (the first one on ties)."""
        probs = np.zeros_like(self.probs)
        offsets = self.action_offsets
        if self.num_rows:
            lens = np.diff(offsets)
            row_max = np.maximum.reduceat(self.probs, offsets[:-1])
            is_max = self.probs == np.repeat(row_max, lens)
            ranks = np.arange(self.probs.shape[0]) - np.repeat(offsets[:-1], lens)
            first = np.minimum.reduceat(np.where(is_max, ranks, lens.max()), offsets[:-1])
            probs[offsets[:-1] + first] = 1.0
        return PolicyTable.from_arrays(
            self.key, self.keys, self.players, offsets, self.legal_actions, probs
        )

    def row_of(self, key: int) -> int:
        """Row of ``key``, or -1 when the table lacks it."""
        return int(self.slots[_probe(self.slots, np.int64(key)), SL_ROW])

    def tree_strategy(self, config: GameConfig, tree: Tree) -> tuple[np.ndarray, int, int]:
        """This table mapped onto a compiled tree of ``config``; (strategy, found, missing)."""
        return _map_to_tree(
            config, self.key, self.slots, self.legal_actions, self.probs, tree
        )  # fmt: skip


def _map_to_tree(
    config: GameConfig,
    key: str,
    slots: np.ndarray,
    pool_action: np.ndarray,
    weights: np.ndarray,
    tree: Tree,
) -> tuple[np.ndarray, int, int]:
    """Normalised ``weights`` of every tree infoset's row; (strategy, found, missing)."""
    keys = tree_infoset_keys(config, tree, key)
    out = np.zeros(tree.num_slots)
    stats = np.zeros(2, dtype=np.int64)
    err = _rows_onto_tree(
        keys, tree.action_offsets, tree.legal_actions, slots, pool_action, weights, out, stats,
    )  # fmt: skip
    if err != ERR_NONE:
        raise ValueError(f"tree does not match {config.game_string()}: {_ERRORS[err]}")
    return out, int(stats[0]), int(stats[1])


# ---- the solver ------------------------------------------------------------------


class MCCFRSolver:
    """External- or outcome-sampling MCCFR on one Complots configuration."""

    def __init__(
        self,
        config: GameConfig,
        algorithm: str = "es",
        key: str = "perfect",
        averaging: str = "simple",
        discount: Discount | None = None,
        epsilon: float = DEFAULT_EPSILON,
        seed: int = 0,
        capacity: int = DEFAULT_CAPACITY,
        regret_floor: bool = False,
        baseline: float = 0.0,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
        if key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, got {key!r}")
        if averaging not in AVERAGING:
            raise ValueError(f"averaging must be one of {', '.join(AVERAGING)}, got {averaging!r}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon}")
        if not 0.0 <= baseline <= 1.0:
            raise ValueError(f"baseline must be in [0, 1] (0: no baseline), got {baseline}")
        if baseline > 0.0 and algorithm != "os":
            raise ValueError("baseline applies to algorithm 'os' only")
        if discount is not None and discount.interval < 1:
            raise ValueError(f"discount.interval must be >= 1, got {discount.interval}")
        self.config = config
        self.algorithm = algorithm
        self.key = key
        self.averaging = averaging
        self.discount = discount
        self.epsilon = epsilon
        self.seed = seed
        self.regret_floor = regret_floor
        self.baseline_decay = baseline
        self._cfg = config.to_array()
        self._width = config.num_distinct_actions()
        self._max_depth = config.max_game_length()
        self._params = np.zeros(NUM_PARAMS)
        self._params[P_LINEAR] = 1.0 if averaging == "linear" else 0.0
        if discount is not None:
            self._params[P_INTERVAL] = discount.interval
            self._params[P_ALPHA] = discount.alpha
            self._params[P_BETA] = discount.beta
            self._params[P_GAMMA] = discount.gamma
        self._params[P_EPSILON] = epsilon
        self._params[P_FLOOR] = 1.0 if regret_floor else 0.0
        self._params[P_BASELINE] = baseline
        self._params[P_STRIDE] = 1
        self.journal = np.zeros((2, 0))  # epoch-start values of updated rows (set_journaling)
        self.touched = np.zeros(1, dtype=np.int64)  # count, then rows touched (set_stamp)
        self._other_slots = empty_slots(MIN_CAPACITY)  # share_with: another worker's table
        self._other_regret = np.zeros(0)
        self.rng = np.random.default_rng(seed)
        self._allocate(_capacity(capacity))
        self.counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self._frozen_mask = 0
        self._frozen = PolicyTable.empty()

    def freeze(self, policy: PolicyTable, seats: list[int]) -> None:
        """Let ``seats`` play the fixed ``policy`` (not updated, never traversers).

        With the other seats learning, this trains a best response to ``policy``;
        outcome sampling only (external sampling accumulates a seat's average
        strategy at the nodes of the seat before it, which would be frozen).
        """
        if self.algorithm != "os":
            raise ValueError("freezing seats needs algorithm 'os'")
        if not seats or not all(0 <= s < self.config.players for s in seats):
            raise ValueError(f"seats must be a non-empty list of seats, got {seats}")
        if len(set(seats)) == self.config.players:
            raise ValueError("at least one seat must learn")
        self._frozen = policy
        self._frozen_mask = sum(1 << s for s in set(seats))

    # -- running -------------------------------------------------------------------
    def run(self, iterations: int) -> None:
        """Run ``iterations`` iterations (each walks once per seat as traverser)."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        (
            self.slots,
            self.row_info,
            self.row_key,
            self.pool_action,
            self.regret,
            self.strategy_sum,
            self.baseline,  # stays empty without baselines
            self.journal,  # stays empty unless journaling (parallel workers)
            self.touched,  # stays [0] unless stamping (parallel workers)
        ) = _run(
            self._cfg,
            ALGORITHMS.index(self.algorithm),
            KEYS[self.key],
            iterations,
            self._params,
            self.rng,
            self.slots,
            self.row_info,
            self.row_key,
            self.pool_action,
            self.regret,
            self.strategy_sum,
            self.counters,
            self._max_depth,
            self._width,
            self._frozen_mask,
            self._frozen.key_kind,
            self._frozen.slots,
            self._frozen.row_info,
            self._frozen.probs,
            self.baseline,
            self.journal,
            self.touched,
            self._other_slots,
            self._other_regret,
        )

    def set_stamp(self, stamp: int) -> None:
        """Epoch stamp written into every row the next runs insert or update (0: updates do not restamp).

        Setting it also empties the list of touched rows (:meth:`touched_rows`).
        """
        self._params[P_STAMP] = stamp
        self.touched[0] = 0

    def touched_rows(self) -> np.ndarray:
        """Rows inserted or updated since the stamp was set, in order of first touch (a copy)."""
        return self.touched[1 : self.touched[0] + 1].copy()

    def set_iteration_numbers(self, first: int, stride: int) -> None:
        """Number the next iterations ``first, first + stride, ...`` (linear averaging weights).

        A parallel worker that runs every ``stride``-th iteration of an epoch
        uses this; discounting (numbered steps) must then be off.
        """
        if stride < 1 or first < 1:
            raise ValueError(f"first and stride must be >= 1, got {first} and {stride}")
        self._params[P_STRIDE] = stride
        self.counters[CT_ITER] = first - stride

    def set_journaling(self, on: bool) -> None:
        """Save a row's regrets and strategy sums in ``journal`` at its first update per stamp.

        ``journal[:, start:start + len]`` then holds, for every row the runs of
        one stamp updated or inserted, its values from before that stamp (zero
        for inserted rows): a parallel worker sends deltas from them.
        """
        self._params[P_JOURNAL] = 1.0 if on else 0.0

    def share_with(self, slots: np.ndarray, regret: np.ndarray, rows: int) -> None:
        """Read the seats this solver does not insert from another worker's table.

        Outcome sampling only, with ``set_traversers(seats, owned)``: at a node
        of a seat outside ``owned`` the walk reads that seat's strategy from
        ``slots`` (the other table's index) and ``regret`` (a copy of its
        regrets that its owner leaves alone during the epoch), seeing only the
        rows with ids below ``rows``. The owner may insert rows meanwhile:
        its index only ever fills empty slots, so a row present at the epoch's
        start is found as before, and a newer row (id >= ``rows``) is treated
        as absent. The result is exactly what a table holding a copy of those
        rows would give (split "shared" of ``ParallelMCCFR``).
        """
        if self.algorithm != "os" or self.baseline_decay > 0.0:
            raise ValueError("a shared table needs algorithm 'os' without baselines")
        self._other_slots = slots
        self._other_regret = regret
        self._params[P_SHARED] = 1.0
        self._params[P_OTHER_ROWS] = rows

    def set_traversers(self, seats: list[int], owned: list[int] | None = None) -> None:
        """Traverse only for ``seats`` and insert only rows of ``owned`` seats (all if empty).

        A row that is never inserted plays uniformly, exactly like a zero row,
        so skipping the rows of seats whose values come from elsewhere (another
        worker) changes no iterate.
        """
        self._params[P_TRAVERSERS] = sum(1 << s for s in set(seats))
        self._params[P_INSERT] = sum(1 << s for s in set(owned or []))

    # -- sizes ---------------------------------------------------------------------
    @property
    def iteration(self) -> int:
        """Iterations done."""
        return int(self.counters[CT_ITER])

    @property
    def node_visits(self) -> int:
        """Game states entered so far (decision, chance and terminal)."""
        return int(self.counters[CT_VISITS])

    @property
    def num_infostates(self) -> int:
        """Information states stored so far (rows: those a visit wrote, see the module doc)."""
        return int(self.counters[CT_ROWS])

    @property
    def num_slots(self) -> int:
        """(Information state, legal action) pairs stored."""
        return int(self.counters[CT_POOL])

    @property
    def key_conflicts(self) -> int:
        """Visits where a key's stored action count disagreed with the node's (collisions)."""
        return int(self.counters[CT_CONFLICTS])

    def infostates_per_player(self) -> np.ndarray:
        """Number of information states of each seat."""
        rows = self.row_info[: self.num_infostates, RI_PLAYER]
        return np.bincount(rows, minlength=self.config.players)

    def nbytes(self) -> int:
        """Bytes the table occupies: the whole index, the used rows and pool, and the lists.

        The journal and the touched-row list count for the used pool and rows.
        Capacity beyond is not counted: it is never written, so the system
        gives it no memory (see the module's "Storage").
        """
        rows, used = self.num_infostates, self.num_slots
        lists = self.journal[:, :used].nbytes + self.touched[: rows + 1].nbytes
        return int(sum(arr.nbytes for arr in self.table().values()) + lists)

    def bytes_per_infostate(self) -> float:
        """Bytes the table needs per information state at its current fill.

        Counts the used rows and pool slots, plus the hash slots at the maximum
        load factor (1/2). The index itself takes up to twice that (it doubles
        when half full); the spare capacity of the row and pool arrays is never
        written, so it takes no memory.
        """
        rows = max(self.num_infostates, 1)
        per_row = (self.row_info.itemsize * RI_WIDTH + self.row_key.itemsize) + MAX_LOAD_DEN * (
            self.slots.itemsize * SL_WIDTH
        )
        per_slot = self.pool_action.itemsize + self.regret.itemsize + self.strategy_sum.itemsize
        if self.baseline_decay > 0.0:
            per_slot += self.baseline.itemsize
        return (rows * per_row + self.num_slots * per_slot) / rows

    # -- strategies ----------------------------------------------------------------
    def average_table(self) -> dict[str, np.ndarray]:
        """Average strategy per stored row: keys, players, offsets, actions, probabilities."""
        return self._row_table(self.strategy_sum[: self.num_slots])

    def current_table(self) -> dict[str, np.ndarray]:
        """The current (regret-matching) strategy in the layout of :meth:`average_table`."""
        return self._row_table(np.maximum(self.regret[: self.num_slots], 0.0))

    def _row_table(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Each row's non-negative ``weights`` normalised (uniform where they sum to 0)."""
        rows = self.num_infostates
        used = self.num_slots
        starts = self.row_info[:rows, RI_START]
        lens = self.row_info[:rows, RI_LEN]
        totals = np.add.reduceat(weights, starts) if rows else np.zeros(0)
        per_slot_total = np.repeat(totals, lens)
        per_slot_len = np.repeat(lens, lens).astype(np.float64)
        probs = np.where(
            per_slot_total > 0, weights / np.where(per_slot_total > 0, per_slot_total, 1), 0
        )
        probs = np.where(per_slot_total > 0, probs, 1.0 / np.maximum(per_slot_len, 1))
        return {
            "key": self.row_key[:rows].copy(),
            "player": self.row_info[:rows, RI_PLAYER].astype(np.int8),
            "action_offsets": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
            "legal_actions": self.pool_action[:used].copy(),
            "average": probs,
        }

    def policy_table(self) -> PolicyTable:
        """The average strategy as a compiled lookup table (for play and frozen opponents)."""
        return PolicyTable.from_average(self.average_table(), self.key)

    def tree_strategy(self, tree: Tree) -> tuple[np.ndarray, int, int]:
        """The average strategy on ``tree``'s infosets; (strategy, found, missing).

        Infosets the table lacks (or with no strategy weight yet) play uniformly.
        The tree must be a compiled tree of this configuration (2 players).
        """
        return _map_to_tree(
            self.config, self.key, self.slots, self.pool_action, self.strategy_sum, tree
        )

    def exploitability(self, tree: Tree) -> float:
        """Exact exploitability of the average strategy on a compiled 2-player tree."""
        from complots_solver.solvers.exact.best_response import exploitability

        return exploitability(tree, self.tree_strategy(tree)[0])

    # -- checkpoints ---------------------------------------------------------------
    def table(self) -> dict[str, np.ndarray]:
        """The table arrays and counters (references, not copies): the index whole, the rest used.

        The row and pool arrays are cut to the rows and pool slots in use: their
        capacity beyond is unwritten memory (and a loaded table grows again).
        """
        rows, used = self.num_infostates, self.num_slots
        cut = {"row_info": rows, "row_key": rows, "pool_action": used, "regret": used,
               "strategy_sum": used, "baseline": used}  # fmt: skip
        return {name: getattr(self, name)[: cut.get(name)] for name in TABLE_ARRAYS}

    def _allocate(self, cap: int) -> None:
        """Empty table arrays for ``cap`` slots."""
        self.slots = empty_slots(cap)
        self.row_info = np.zeros((cap // MAX_LOAD_DEN, RI_WIDTH), dtype=np.int64)
        self.row_key = np.zeros(cap // MAX_LOAD_DEN, dtype=np.int64)
        self.pool_action = np.zeros(cap, dtype=np.int32)
        self.regret = np.zeros(cap)
        self.strategy_sum = np.zeros(cap)
        self.baseline = np.zeros(cap if self.baseline_decay > 0.0 else 0)

    def drop_table(self) -> None:
        """Free the table, keeping the iteration, visit, conflict and discount counts.

        A parallel run's master between merges: the workers hold the live table.
        """
        self._allocate(MIN_CAPACITY)
        kept = self.counters[[CT_ITER, CT_VISITS, CT_CONFLICTS, CT_DISCOUNTS]]
        self.counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self.counters[[CT_ITER, CT_VISITS, CT_CONFLICTS, CT_DISCOUNTS]] = kept

    def load_table(self, table: dict[str, np.ndarray], copy: bool = True) -> None:
        """Replace the table arrays and counters (copied unless ``copy`` is False)."""
        for name in TABLE_ARRAYS:
            current = getattr(self, name)
            if name not in table and name == "baseline":  # written before baselines existed
                self.baseline = np.zeros(0)
                continue
            if name not in table and name == "slots":  # written before the slot layout
                continue  # rebuilt from the rows below
            arr = np.ascontiguousarray(table[name], dtype=current.dtype)
            if name == "row_info" and arr.shape[1] < RI_WIDTH:  # checkpoints without stamps
                arr = np.pad(arr, ((0, 0), (0, RI_WIDTH - arr.shape[1])))
            elif copy:
                arr = arr.copy()
            setattr(self, name, arr)
        if "slots" not in table:
            rows = int(self.counters[CT_ROWS])
            cap = np.asarray(table["slot_key"]).shape[0]
            self.slots = _slots_of_rows(self.row_key, self.row_info, rows, cap)

    def get_state(self, copy: bool = True) -> dict[str, np.ndarray]:
        """All solver state as arrays (table, counters, RNG state, settings).

        With ``copy=False`` the table arrays are the live ones (write them out
        before running further).
        """
        state = self.table()
        if copy:
            state = {name: arr.copy() for name, arr in state.items()}
        state["rng_state"] = np.array(json.dumps(self.rng.bit_generator.state))
        state["settings"] = np.array(json.dumps(self._settings()))
        return state

    def set_state(self, state: dict[str, np.ndarray], copy: bool = True) -> None:
        """Restore what :meth:`get_state` returned (the settings must match).

        With ``copy=False`` the arrays are adopted (when they are fresh, e.g. read from a file).
        """
        saved = json.loads(str(state["settings"]))
        if saved != self._settings():
            raise ValueError(f"checkpoint settings {saved} differ from this solver's")
        self.load_table(state, copy=copy)
        self.rng.bit_generator.state = json.loads(str(state["rng_state"]))

    def save_checkpoint(self, path: Path) -> None:
        """Write :meth:`get_state` atomically to an .npz file."""
        atomic_write_npz(Path(path), self.get_state())

    def load_checkpoint(self, path: Path) -> None:
        """Restore a checkpoint written by :meth:`save_checkpoint`."""
        with np.load(Path(path)) as npz:
            self.set_state({name: npz[name] for name in npz.files})

    def _settings(self) -> dict[str, object]:
        """Settings a checkpoint must agree on."""
        return {
            "game": self.config.game_string(),
            "algorithm": self.algorithm,
            "key": self.key,
            "averaging": self.averaging,
            "discount": None if self.discount is None else list(vars(self.discount).values()),
            "epsilon": self.epsilon,
            # recorded only when set, so that checkpoints written before the option still resume
            **({"regret_floor": True} if self.regret_floor else {}),
            **({"baseline": self.baseline_decay} if self.baseline_decay > 0.0 else {}),
        }
