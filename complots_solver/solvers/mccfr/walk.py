"""The compiled MCCFR walk: iterations of external or outcome sampling over the rules core.

:func:`run_walk` allocates the per-depth arrays and calls the kernel of the
algorithm, :func:`_walk_es` or :func:`_walk_os` (``hot`` functions: no
reference counting per node). They share small inlined helpers (finding and
inserting a row, regret matching, stepping to a child, the end of an
iteration) and return when the table must grow; ``run_walk`` grows it
(:func:`~.table.grow_to`) and resumes the walk at the same node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import hot, inline, prefetch
from complots_solver.rules.enums import PlayerId, Stage
from complots_solver.rules.layout import C_PLAYERS, MAX_CHANCE_OUTCOMES, S_CUR, S_STAGE, STATE_SIZE
from complots_solver.solvers.mccfr.infokeys import (
    KEY_BOTH,
    KEY_PERFECT,
    init_keys,
    key_of,
    step_keys,
)
from complots_solver.solvers.mccfr.table import (
    CT_CONFLICTS,
    CT_DISCOUNTS,
    CT_ITER,
    CT_POOL,
    CT_ROWS,
    CT_VISITS,
    MAX_LOAD_DEN,
    NO_ROW,
    RI_START,
    SL_LEN,
    SL_ROW,
    SL_START,
    discount_pool,
    grow_baseline,
    grow_journal,
    grow_to,
    grow_touched,
    insert_row,
    list_touched,
    lookup,
    probe,
    regret_matching,
    sample,
    stamp_row,
)

ALGO_ES = 0  # index in solver.ALGORITHMS
ALGO_OS = 1
# an index this large (2 MiB of slots) outgrows the L2 cache of the benchmark machine: a
# step then prefetches every seat's next slot (measured: +11% on the draft ES case)
PREFETCH_SLOTS = 1 << 16

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


@inline
def _find(slots, s, cfg, key_kind, hashes, memory, acts):
    """The mover's key, legal actions (listed into ``acts``) and slot in ``slots``: (key, k, i).

    The key's slot is fetched while the legal actions are listed.
    """
    key = key_of(s, cfg, key_kind, hashes, memory)
    prefetch(slots, key & (slots.shape[0] - 1))
    k = core.legal_actions_into(s, cfg, acts)
    return key, k, probe(slots, key)


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


# a kernel's saved position (regs) and results
R_ITER = 0  # iterations of this call done
R_TRAV = 1  # traverser of the interrupted walk
R_DEPTH = 2  # depth of the node to enter again
R_RESUME = 3  # 1: the walk stopped inside an iteration
R_POOL_NEEDED = 4  # pool slots the interrupted insertion needs
NUM_REGS = 5
WALK_DONE = 0
WALK_GROW = 1
GROW_ROW = -2  # _own_row: the row does not fit the table


@inline
def _start_traversal(states, srow, cfg, hashes, memory):
    """Put the game's initial state and keys at depth 0."""
    core.reset_state(states[0], cfg)
    init_keys(cfg, hashes[0], memory[0])
    srow[0] = 0


@inline
def _own_row(
    slots, i, key, k, cur, acts_d, row_info, row_key, pool_action, regret, strategy_sum,
    counters, journal, journaling, touched, stamp, insert_mask, writes,
):  # fmt: skip
    """The row of the mover's key at slot ``i``: its id, NO_ROW, or GROW_ROW.

    A missing row is inserted if this visit writes it (``writes``) and the
    worker owns the seat (``insert_mask``); otherwise it stays absent: an
    absent row plays uniformly, exactly like a zero row, so only rows that get
    values are stored. GROW_ROW: the new row does not fit (nothing random has
    been drawn at the node yet, so the caller can grow the table and enter it again).
    """
    r = slots[i, SL_ROW]
    if r == NO_ROW:
        if (insert_mask != 0 and not insert_mask & (1 << cur)) or not writes:
            return NO_ROW
        rows = counters[CT_ROWS]
        used = counters[CT_POOL]
        if (
            (rows + 1) * MAX_LOAD_DEN >= slots.shape[0]
            or rows >= row_info.shape[0]
            or used + k > pool_action.shape[0]
        ):
            return GROW_ROW
        insert_row(slots, i, row_info, row_key, rows, key, used, k, cur, stamp)
        if stamp != 0:
            list_touched(touched, rows)
        for j in range(k):
            pool_action[used + j] = acts_d[j]
            regret[used + j] = 0.0  # the pool grows unwritten
            strategy_sum[used + j] = 0.0
            if journaling:  # a new row starts the epoch at zero
                journal[0, used + j] = 0.0
                journal[1, used + j] = 0.0
        counters[CT_ROWS] = rows + 1
        counters[CT_POOL] = used + k
        return rows
    if slots[i, SL_LEN] != k:
        counters[CT_CONFLICTS] += 1
        return NO_ROW
    return r


@inline
def _row_strategy(slots, i, r, k, regret, row_info, stamp, sig, start, d):
    """Regret matching on row ``r`` into ``sig`` (uniform without a row); its pool start in ``start[d]``."""
    if r == NO_ROW:
        for j in range(k):
            sig[j] = 1.0 / k
    else:
        if stamp != 0:
            # a parallel epoch stamps the row when it updates it, after the subtree: fetch
            # its info line now (measured: stamping cost 2.3-4.4% of a draft OS walk
            # without this, 1.0-2.6% with)
            prefetch(row_info, r)
        start[d] = slots[i, SL_START]
        regret_matching(regret, start[d], k, sig)


@inline
def _save_position(regs, it, trav, d, pool_needed):
    """Record where the walk stopped for a table growth (:func:`run_walk` resumes it)."""
    regs[R_ITER] = it
    regs[R_TRAV] = trav
    regs[R_DEPTH] = d
    regs[R_RESUME] = 1
    regs[R_POOL_NEEDED] = pool_needed


@inline
def _end_iteration(counters, interval, regret, strategy_sum, params):
    """Discount the pool in bulk when the iteration number is a multiple of ``interval``."""
    if interval > 0 and counters[CT_ITER] % interval == 0:
        counters[CT_DISCOUNTS] += 1
        discount_pool(
            regret,
            strategy_sum,
            counters[CT_POOL],
            float(counters[CT_DISCOUNTS]),
            params[P_ALPHA],
            params[P_BETA],
            params[P_GAMMA],
        )


@hot
def _walk_es(
    cfg, key_kind, iterations, params, rng,
    slots, row_info, row_key, pool_action, regret, strategy_sum, counters, journal, touched,
    walk_keys, states, hashes, memory, acts, sigma, values, nact, nxt, row, start, frame, srow,
    outcomes, probs, regs,
):  # fmt: skip
    """External-sampling iterations from the position in ``regs``: WALK_DONE, or WALK_GROW.

    The traverser's nodes walk every action (the state is copied for all but
    the last child); other seats' nodes sample one action from their current
    strategy, and the seat after the traverser adds it to its strategy sums.
    Like every kernel here it allocates nothing, so it is compiled without
    reference counting (``hot``); when a new row does not fit the table it
    saves its position in ``regs`` and returns WALK_GROW, and :func:`run_walk`
    grows the table and calls it again. (A walk that grew the table itself
    would hold owned arrays that numba reference-counts at every step of the
    loop: measured with perf, eight atomic increments and decrements per
    visit, a quarter of the time.)
    """
    n = cfg[C_PLAYERS]
    linear = params[P_LINEAR] != 0.0
    interval = int(params[P_INTERVAL])
    stamp = np.int64(params[P_STAMP])
    trav_mask = np.int64(params[P_TRAVERSERS])
    insert_mask = np.int64(params[P_INSERT])
    floor = params[P_FLOOR] != 0.0
    stride = max(1, int(params[P_STRIDE]))
    journaling = params[P_JOURNAL] != 0.0
    it = regs[R_ITER]
    first_trav = regs[R_TRAV]
    resume = regs[R_RESUME] != 0
    while it < iterations:
        if not resume:
            counters[CT_ITER] += stride
        weight = float(counters[CT_ITER]) if linear else 1.0
        for trav in range(first_trav, n):
            if trav_mask != 0 and not trav_mask & (1 << trav):
                continue
            avg_seat = (trav + 1) % n  # the seat whose strategy sums this traversal writes
            if resume:  # back after the table grew: enter the node where the walk stopped
                d = regs[R_DEPTH]
                resume = False
            else:
                _start_traversal(states, srow, cfg, hashes, memory)
                d = 0
            entering = True
            val = 0.0
            while True:
                if entering:
                    s = states[srow[d]]
                    counters[CT_VISITS] += 1
                    cur = s[S_CUR]
                    if s[S_STAGE] == _TERMINAL_STAGE:
                        val = core.return_of(s, cfg, trav)
                        entering = False
                        continue
                    if cur == _CHANCE:
                        frame[d] = F_CHANCE
                        a = core.sample_chance(s, cfg, rng, outcomes, probs)
                    else:
                        key, k, i = _find(slots, s, cfg, key_kind, hashes[d], memory[d], acts[d])
                        nact[d] = k
                        r = _own_row(
                            slots, i, key, k, cur, acts[d], row_info, row_key, pool_action,
                            regret, strategy_sum, counters, journal, journaling, touched, stamp,
                            insert_mask, cur == trav or cur == avg_seat,
                        )  # fmt: skip
                        if r == GROW_ROW:
                            counters[CT_VISITS] -= 1
                            _save_position(regs, it, trav, d, counters[CT_POOL] + k)
                            return WALK_GROW
                        row[d] = r
                        sig = sigma[d]
                        _row_strategy(slots, i, r, k, regret, row_info, stamp, sig, start, d)
                        if cur == trav:
                            frame[d] = F_WALKED
                            nxt[d] = 0
                            a = acts[d, 0]
                        else:
                            frame[d] = F_SAMPLED
                            if cur == avg_seat and r != NO_ROW:
                                st = start[d]
                                stamp_row(
                                    row_info, r, stamp, regret, strategy_sum, journal,
                                    journaling, touched,
                                )  # fmt: skip
                                for j in range(k):
                                    strategy_sum[st + j] += weight * sig[j]
                            a = acts[d, sample(sig, k, rng)]
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
                if frame[d] != F_WALKED:
                    continue  # chance or sampled node: the sampled child's value passes up
                k = nact[d]
                values[d, nxt[d]] = val
                nxt[d] += 1
                if nxt[d] < k:
                    # the last child steps the state in place: it is not needed again
                    _step_child(
                        states, srow, d, cfg, acts[d, nxt[d]], walk_keys, hashes, memory,
                        nxt[d] < k - 1, slots,
                    )  # fmt: skip
                    d += 1
                    entering = True
                    continue
                v = 0.0
                for j in range(k):
                    v += sigma[d, j] * values[d, j]
                r = row[d]
                if r != NO_ROW:
                    st = start[d]
                    stamp_row(
                        row_info, r, stamp, regret, strategy_sum, journal, journaling, touched
                    )
                    for j in range(k):
                        regret[st + j] += values[d, j] - v
                        if floor and regret[st + j] < 0.0:
                            regret[st + j] = 0.0
                val = v
        _end_iteration(counters, interval, regret, strategy_sum, params)
        first_trav = 0
        it += 1
    regs[R_RESUME] = 0
    return WALK_DONE


@hot
def _walk_os(
    cfg, key_kind, iterations, params, rng,
    slots, row_info, row_key, pool_action, regret, strategy_sum, counters,
    frozen_mask, f_key_kind, f_slots, f_row_info, f_probs, baseline, journal, touched,
    o_slots, o_regret, walk_keys, states, hashes, memory, acts, sigma, values, nact, row,
    start, frame, mover, chosen, srow, samp_p, my_reach, opp_reach, samp_reach, outcomes, probs,
    regs,
):  # fmt: skip
    """Outcome-sampling iterations from the position in ``regs``: WALK_DONE, or WALK_GROW.

    One action is sampled at every node (epsilon-on-policy at the traverser's),
    along with the reach probabilities; on the way back the sampled values,
    importance-weighted (with learned baselines when ``P_BASELINE`` > 0),
    update the traverser's regrets and strategy sums. Frozen seats play their
    fixed table; with a shared table (``P_SHARED``) the seats this worker does
    not insert are read from another worker's. Grows like :func:`_walk_es`.
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
    # besides the traverser's rows, a traversal writes, with baselines in a 2-player game,
    # the opponent's baselines
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
            write_seat = (trav + 1) % n if os_opponent else trav
            if resume:  # back after the table grew: enter the node where the walk stopped
                d = regs[R_DEPTH]
                resume = False
            else:
                _start_traversal(states, srow, cfg, hashes, memory)
                d = 0
            entering = True
            val = 0.0
            while True:
                if entering:
                    s = states[srow[d]]
                    counters[CT_VISITS] += 1
                    cur = s[S_CUR]
                    if s[S_STAGE] == _TERMINAL_STAGE:
                        val = core.return_of(s, cfg, trav)
                        entering = False
                        continue
                    if cur == _CHANCE:
                        frame[d] = F_CHANCE
                        a = core.sample_chance(s, cfg, rng, outcomes, probs)
                    else:
                        mover[d] = cur
                        frame[d] = F_SAMPLED
                        sig = sigma[d]
                        explore = False  # only the traverser's own rows explore
                        if frozen_mask & (1 << cur):
                            k = core.legal_actions_into(s, cfg, acts[d])
                            row[d] = NO_ROW
                            key = key_of(s, cfg, f_key_kind, hashes[d], memory[d])
                            fr = lookup(f_slots, key, k)
                            for j in range(k):
                                sig[j] = (
                                    1.0 / k
                                    if fr == NO_ROW
                                    else f_probs[f_row_info[fr, RI_START] + j]
                                )
                        elif shared and not insert_mask & (1 << cur):
                            # another worker's seat (split "shared"): its rows as they were
                            # at the epoch's start, read-only; the owner may be inserting
                            # meanwhile, but only rows >= o_rows, ignored here
                            key, k, i = _find(
                                o_slots, s, cfg, key_kind, hashes[d], memory[d], acts[d]
                            )
                            r = o_slots[i, SL_ROW]
                            row[d] = NO_ROW
                            if r != NO_ROW and r < o_rows and o_slots[i, SL_LEN] == k:
                                regret_matching(o_regret, o_slots[i, SL_START], k, sig)
                            else:
                                if r != NO_ROW and r < o_rows:
                                    counters[CT_CONFLICTS] += 1
                                for j in range(k):
                                    sig[j] = 1.0 / k
                        else:
                            key, k, i = _find(
                                slots, s, cfg, key_kind, hashes[d], memory[d], acts[d]
                            )
                            r = _own_row(
                                slots, i, key, k, cur, acts[d], row_info, row_key, pool_action,
                                regret, strategy_sum, counters, journal, journaling, touched,
                                stamp, insert_mask, cur == trav or cur == write_seat,
                            )  # fmt: skip
                            if r == GROW_ROW:
                                counters[CT_VISITS] -= 1
                                _save_position(regs, it, trav, d, counters[CT_POOL] + k)
                                return WALK_GROW
                            row[d] = r
                            _row_strategy(slots, i, r, k, regret, row_info, stamp, sig, start, d)
                            explore = cur == trav
                        nact[d] = k
                        if explore:
                            # epsilon-on-policy sampling at the traverser's nodes
                            sp = values[d]
                            for j in range(k):
                                sp[j] = eps / k + (1.0 - eps) * sig[j]
                            j = sample(sp, k, rng)
                            samp_p[d] = sp[j]
                        else:
                            j = sample(sig, k, rng)
                            samp_p[d] = sig[j]
                        chosen[d] = j
                        a = acts[d, j]
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
                    _step_child(
                        states, srow, d, cfg, a, walk_keys, hashes, memory, False, slots
                    )  # fmt: skip
                    d += 1
                    continue
                # returning `val` from depth d to its parent
                if d == 0:
                    break
                d -= 1
                if frame[d] == F_CHANCE:
                    continue
                r = row[d]
                k = nact[d]
                # estimates of the child values with baseline b (VR-MCCFR): b + (value - b)
                # / q for the sampled action, b for the others; b = 0 without baselines.
                # Baselines are kept in the acting player's utility; the traverser's is
                # its negation at an opponent's node in a 2-player (zero-sum) game, and
                # other players' nodes use b = 0 with more players.
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
                    stamp_row(
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
        _end_iteration(counters, interval, regret, strategy_sum, params)
        first_trav = 0
        it += 1
    regs[R_RESUME] = 0
    return WALK_DONE


@njit(cache=True, nogil=True)
def run_walk(
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
        baseline = grow_baseline(baseline, pool_action.shape[0])
    if journaling:
        journal = grow_journal(journal, pool_action.shape[0])
    stamping = params[P_STAMP] != 0.0
    if stamping:
        touched = grow_touched(touched, row_info.shape[0])
    while True:
        if algorithm == ALGO_ES:
            status = _walk_es(
                cfg, key_kind, iterations, params, rng,
                slots, row_info, row_key, pool_action, regret, strategy_sum, work, journal,
                touched, walk_keys, states, hashes, memory, acts, sigma, values, nact, nxt, row,
                start, frame, srow, outcomes, probs, regs,
            )  # fmt: skip
        else:
            status = _walk_os(
                cfg, key_kind, iterations, params, rng,
                slots, row_info, row_key, pool_action, regret, strategy_sum, work,
                frozen_mask, f_key_kind, f_slots, f_row_info, f_probs, baseline, journal,
                touched, o_slots, o_regret, walk_keys, states, hashes, memory, acts, sigma,
                values, nact, row, start, frame, mover, chosen, srow, samp_p, my_reach,
                opp_reach, samp_reach, outcomes, probs, regs,
            )  # fmt: skip
        if status == WALK_DONE:
            break
        slots, row_info, row_key, pool_action, regret, strategy_sum = grow_to(
            work[CT_ROWS] + 1, regs[R_POOL_NEEDED], work[CT_ROWS], work[CT_POOL],
            slots, row_info, row_key, pool_action, regret, strategy_sum,
        )  # fmt: skip
        if stamping:
            touched = grow_touched(touched, row_info.shape[0])
        if balpha > 0.0:
            baseline = grow_baseline(baseline, pool_action.shape[0])
        if journaling:
            journal = grow_journal(journal, pool_action.shape[0])
    counters[:] = work
    return slots, row_info, row_key, pool_action, regret, strategy_sum, baseline, journal, touched
