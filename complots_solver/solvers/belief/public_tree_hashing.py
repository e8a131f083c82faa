"""Compiled hashing and grouping of a public-tree build's rows.

Open-addressing hash tables that number distinct values in order of first
appearance (:func:`_first_ids`, :func:`_dedup`, :func:`_state_classes`), the
row-hash chains of :mod:`~complots_solver.solvers.knowledge.hypotheses`
computed once per distinct state and interleaved (:func:`_child_chains`), a
counting sort by group, and CANONICAL ids computed in place
(:func:`_canonicalise`). :mod:`~complots_solver.solvers.belief.public_tree_build`
drives them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import STATE_SIZE
from complots_solver.solvers.knowledge.hypotheses import KNOW_EXPOSED, KNOW_SIZE, mix

_GOLDEN_MUL = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
_SEED_STATE = np.int64(0x51ED270B27A3F0A1)  # state_hashes' seed
_SEED_ROW = np.int64(0x2545F4914F6CDD1D)  # row_hash's seed
# weights of the bucket hash; 32-bit so that their products vectorise
_CHEAP = np.random.default_rng(0x5EED).integers(1, 2**31, STATE_SIZE).astype(np.int32)


@njit(cache=True)
def _table_size(n):
    """The smallest power of two at least 2n (a hash table at most half full)."""
    size = 2
    while size < 2 * n:
        size <<= 1
    return size


@njit(cache=True)
def _first_ids(keys, n, table, rank, firsts):
    """Distinct values of ``keys[:n]`` numbered in order of first appearance; their count.

    ``rank[i]`` is row i's number, ``firsts[j]`` the first row of number j;
    ``table`` (at least 4n + 4 entries) is scratch for an open-addressing hash.
    """
    size = _table_size(n)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for i in range(n):
        key = keys[i]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = i
                rank[i] = count
                count += 1
                break
            if keys[firsts[j]] == key:
                rank[i] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _shift(size):
    """Right shift taking a 64-bit product to an index of a ``size`` table (a power of two)."""
    bits = 0
    while (1 << bits) < size:
        bits += 1
    return np.uint64(64 - bits)


@njit(cache=True)
def _dedup(rows, m, rh, state_class, xs, exact, table, rank, firsts):
    """Number ``rows[:m]`` by distinct row hash ``rh`` in order of first appearance; the count.

    With ``exact``, rows also need the same state class and ids to share a number.
    """
    size = _table_size(m)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for t in range(m):
        row = rows[t]
        key = rh[row]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = t
                rank[t] = count
                count += 1
                break
            f = rows[firsts[j]]
            if rh[f] == key and (not exact or _same_ids(state_class, xs, f, row)):
                rank[t] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _same_ids(state_class, xs, a, b):
    """Whether rows ``a`` and ``b`` have equal states (one class) and private-state ids."""
    if state_class[a] != state_class[b]:
        return False
    for p in range(xs.shape[1]):
        if xs[a, p] != xs[b, p]:
            return False
    return True


@njit(cache=True)
def _state_chains(states, rows, count, seed, start, out):
    """The hash chain from ``seed`` over columns ``start:`` of each row in ``rows[:count]`` (into ``out[row]``).

    From column 0 with the seed of ``state_hashes`` it is that hash, with
    ``row_hash``'s it is that hash before the ids. Eight rows at a time: one
    chain is a serial dependency, interleaved ones overlap in the CPU (same
    results).
    """
    width = states.shape[1]
    t = 0
    while t + 8 <= count:
        r0 = rows[t]
        r1 = rows[t + 1]
        r2 = rows[t + 2]
        r3 = rows[t + 3]
        r4 = rows[t + 4]
        r5 = rows[t + 5]
        r6 = rows[t + 6]
        r7 = rows[t + 7]
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = seed
        for i in range(start, width):
            a0 = mix(a0, states[r0, i])
            a1 = mix(a1, states[r1, i])
            a2 = mix(a2, states[r2, i])
            a3 = mix(a3, states[r3, i])
            a4 = mix(a4, states[r4, i])
            a5 = mix(a5, states[r5, i])
            a6 = mix(a6, states[r6, i])
            a7 = mix(a7, states[r7, i])
        out[r0] = a0
        out[r1] = a1
        out[r2] = a2
        out[r3] = a3
        out[r4] = a4
        out[r5] = a5
        out[r6] = a6
        out[r7] = a7
        t += 8
    while t < count:
        r = rows[t]
        a = seed
        for i in range(start, width):
            a = mix(a, states[r, i])
        out[r] = a
        t += 1


@njit(cache=True)
def _state_classes(states, k, cheap, table, state_class, firsts):
    """Number ``states[:k]`` by distinct state in order of first appearance (exactly); the count.

    Rows are bucketed by a cheap linear hash that vectorises, then compared.
    """
    width = states.shape[1]
    for r in range(k):
        acc = np.int64(0)
        for i in range(width):
            acc += np.int64(states[r, i]) * _CHEAP[i]
        cheap[r] = acc
    size = _table_size(k)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for r in range(k):
        key = cheap[r]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = r
                state_class[r] = count
                count += 1
                break
            f = firsts[j]
            if cheap[f] == key and _same_state(states, f, r):
                state_class[r] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _same_state(states, a, b):
    """Whether rows ``a`` and ``b`` hold equal states (no early exit: the loop vectorises)."""
    diff = 0
    for i in range(states.shape[1]):
        diff |= states[a, i] ^ states[b, i]
    return diff == 0


@njit(cache=True)
def _child_chains(states, k, seed, cheap, table, state_class, firsts, chain, group, groups):
    """State chains of ``states[:k]`` (see :func:`_state_chains`), computed once per distinct state.

    The states of one public node agree on their first (public) columns: the
    chain over those is computed once per node, each state's continues it.
    """
    count = _state_classes(states, k, cheap, table, state_class, firsts)
    rep_group = np.empty(count, np.int64)
    for j in range(count):
        rep_group[j] = group[firsts[j]]
    start = np.empty(groups + 1, np.int64)
    order = np.empty(count, np.int64)
    _counting_sort(rep_group, count, groups, start, order)
    reps = np.empty(count, np.int64)
    for t in range(count):
        reps[t] = firsts[order[t]]
    width = states.shape[1]
    for g in range(groups):
        a = start[g]
        b = start[g + 1]
        if a == b:
            continue
        first = reps[a]
        common = width
        for t in range(a + 1, b):
            row = reps[t]
            i = 0
            while i < common and states[row, i] == states[first, i]:
                i += 1
            common = i
        h = seed
        for i in range(common):
            h = mix(h, states[first, i])
        _state_chains(states, reps[a:b], b - a, h, common, chain)
    for r in range(k):
        chain[r] = chain[firsts[state_class[r]]]


@njit(cache=True)
def _finish_row_hashes(chain, xs, k, players, rh):
    """Each row's state chain continued with its ids (``row_hash`` if the chain is its own)."""
    for r in range(k):
        h = chain[r]
        for p in range(players):
            h = mix(h, xs[r, p])
        rh[r] = h


@njit(cache=True)
def _counting_sort(group, k, groups, start, order):
    """``order``: rows ``0..k-1`` by group, in row order within one; ``start``: where each group begins."""
    for g in range(groups + 1):
        start[g] = 0
    for j in range(k):
        start[group[j] + 1] += 1
    for g in range(groups):
        start[g + 1] += start[g]
    pos = start[:groups].copy()
    for j in range(k):
        g = group[j]
        order[pos[g]] = j
        pos[g] += 1


@njit(cache=True)
def _canonicalise(rows, chain, xs, knows, players):
    """Replace the ids of ``rows`` (one public node's children) by their CANONICAL ids.

    The ids of :func:`canonical_ids` on these rows (``chain``: their state
    hashes), without copying the rows out. Keys are mixed in row order, four
    rows at a time (independent chains overlap in the CPU), and rows of equal
    raw id are grouped by hashing rather than sorting.
    """
    m = rows.shape[0]
    by_row = np.empty((players, m), np.int64)
    t = 0
    while t + 4 <= m:
        r0 = rows[t]
        r1 = rows[t + 1]
        r2 = rows[t + 2]
        r3 = rows[t + 3]
        for p in range(players):
            k0 = chain[r0]
            k1 = chain[r1]
            k2 = chain[r2]
            k3 = chain[r3]
            for c in range(NUM_CLANS):
                k0 = mix(k0, knows[r0, p, KNOW_EXPOSED + c])
                k1 = mix(k1, knows[r1, p, KNOW_EXPOSED + c])
                k2 = mix(k2, knows[r2, p, KNOW_EXPOSED + c])
                k3 = mix(k3, knows[r3, p, KNOW_EXPOSED + c])
            for q in range(players):
                if q != p:
                    for c in range(KNOW_SIZE):
                        k0 = mix(k0, knows[r0, q, c])
                        k1 = mix(k1, knows[r1, q, c])
                        k2 = mix(k2, knows[r2, q, c])
                        k3 = mix(k3, knows[r3, q, c])
            by_row[p, t] = k0
            by_row[p, t + 1] = k1
            by_row[p, t + 2] = k2
            by_row[p, t + 3] = k3
        t += 4
    while t < m:
        r = rows[t]
        for p in range(players):
            key = chain[r]
            for c in range(NUM_CLANS):
                key = mix(key, knows[r, p, KNOW_EXPOSED + c])
            for q in range(players):
                if q != p:
                    for c in range(KNOW_SIZE):
                        key = mix(key, knows[r, q, c])
            by_row[p, t] = key
        t += 1
    raw = np.empty(m, np.int64)
    rank = np.empty(m, np.int64)
    firsts = np.empty(m, np.int64)
    table = np.empty(4 * m + 4, np.int64)
    start = np.empty(m + 1, np.int64)
    order = np.empty(m, np.int64)
    keys = np.empty(m, np.int64)
    for p in range(players):
        for t in range(m):
            raw[t] = xs[rows[t], p]
        runs = _first_ids(raw, m, table, rank, firsts)
        _counting_sort(rank, m, runs, start, order)
        for t in range(m):
            keys[t] = by_row[p, order[t]]
        for g in range(runs):
            i = start[g]
            j = start[g + 1]
            _sort_small(keys, i, j)
            h = np.int64(p + 7)
            for t in range(i, j):
                if t == i or keys[t] != keys[t - 1]:
                    h = mix(h, keys[t])
            for t in range(i, j):
                xs[rows[order[t]], p] = h


@njit(cache=True)
def _sort_small(a, i, j):
    """Sort ``a[i:j]`` in place: insertion sort for the usual few values."""
    if j - i > 32:
        a[i:j].sort()
        return
    for t in range(i + 1, j):
        v = a[t]
        u = t - 1
        while u >= i and a[u] > v:
            a[u + 1] = a[u]
            u -= 1
        a[u + 1] = v
