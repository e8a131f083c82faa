"""Packets between MCCFR workers: touched rows out of one table, into another (numba kernels).

A packet is the rows an epoch touched (keys, players, action offsets,
actions, regrets, strategy sums); :func:`upsert` finds or inserts them in a
table and takes the values the sender owns (or adds deltas). Split "shared"
instead publishes regrets into a copy the other worker reads
(:func:`publish_rows`, :func:`snapshot_rows`, :func:`apply_snapshot`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from complots_solver.rules.compiled import hot, prefetch
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import (
    CT_CONFLICTS,
    CT_POOL,
    CT_ROWS,
    MAX_LOAD_DEN,
    NO_ROW,
    RI_LEN,
    RI_PLAYER,
    RI_START,
    SL_LEN,
    SL_ROW,
    SL_START,
    grow_to,
    insert_row,
    probe,
)

PACKET_ARRAYS = ("keys", "players", "offsets", "actions", "regret", "strategy_sum")
NOT_STAMPED = 0
PUBLISH_AHEAD_INFO = 16  # publish_rows prefetches this many rows ahead for their info
PUBLISH_AHEAD_POOL = 8  # ... and this many ahead for their pool slots


@njit(cache=True, nogil=True)
def rows_packet(row_info, row_key, pool_action, regret, strategy_sum, rows_list):
    """The given rows (ids, in order) as packet arrays."""
    m = rows_list.shape[0]
    s = 0
    for i in range(m):
        s += row_info[rows_list[i], RI_LEN]
    keys = np.empty(m, dtype=np.int64)
    players = np.empty(m, dtype=np.int8)
    offsets = np.zeros(m + 1, dtype=np.int64)
    actions = np.empty(s, dtype=np.int32)
    reg = np.empty(s)
    ssum = np.empty(s)
    for i in range(m):
        r = rows_list[i]
        k = row_info[r, RI_LEN]
        st = row_info[r, RI_START]
        o = offsets[i]
        keys[i] = row_key[r]
        players[i] = row_info[r, RI_PLAYER]
        for j in range(k):
            actions[o + j] = pool_action[st + j]
            reg[o + j] = regret[st + j]
            ssum[o + j] = strategy_sum[st + j]
        offsets[i + 1] = o + k
    return keys, players, offsets, actions, reg, ssum


@njit(cache=True, nogil=True)
def publish_rows(row_info, regret, published, rows):
    """Copy the regrets of the given rows into the published copy (same positions)."""
    n = rows.shape[0]
    for i in range(n):
        # the rows are scattered over tables far larger than the caches: fetch a row's
        # info, then its pool slots, some rows ahead (measured: 4.4 ms down to 2.3 ms
        # for 46,000 rows of a 10 M-row table, a draft epoch's publish)
        if i + PUBLISH_AHEAD_INFO < n:
            prefetch(row_info, rows[i + PUBLISH_AHEAD_INFO])
        if i + PUBLISH_AHEAD_POOL < n:
            ahead = row_info[rows[i + PUBLISH_AHEAD_POOL], RI_START]
            prefetch(regret, ahead)
            prefetch(published, ahead)
        st = row_info[rows[i], RI_START]
        for j in range(row_info[rows[i], RI_LEN]):
            published[st + j] = regret[st + j]


@njit(cache=True, nogil=True)
def snapshot_rows(row_info, regret, rows):
    """The regrets of the given rows and their pool positions: (starts, lengths, values)."""
    n = rows.shape[0]
    total = 0
    for i in range(n):
        total += row_info[rows[i], RI_LEN]
    starts = np.empty(n, dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    values = np.empty(total)
    o = 0
    for i in range(n):
        if i + PUBLISH_AHEAD_INFO < n:  # as in publish_rows
            prefetch(row_info, rows[i + PUBLISH_AHEAD_INFO])
        if i + PUBLISH_AHEAD_POOL < n:
            prefetch(regret, row_info[rows[i + PUBLISH_AHEAD_POOL], RI_START])
        st = row_info[rows[i], RI_START]
        k = row_info[rows[i], RI_LEN]
        starts[i] = st
        lengths[i] = k
        for j in range(k):
            values[o + j] = regret[st + j]
        o += k
    return starts, lengths, values


@njit(cache=True, nogil=True)
def apply_snapshot(published, starts, lengths, values):
    """Write a snapshot's regrets into a published copy at their pool positions."""
    n = starts.shape[0]
    o = 0
    for i in range(n):
        if i + PUBLISH_AHEAD_POOL < n:
            prefetch(published, starts[i + PUBLISH_AHEAD_POOL])
        st = starts[i]
        for j in range(lengths[i]):
            published[st + j] = values[o + j]
        o += lengths[i]


@njit(cache=True, nogil=True)
def deltas_and_reset(row_info, rows_list, offsets, reg, ssum, regret, strategy_sum, journal):
    """Turn a packet's values into deltas from the epoch's start, and put those rows back to it.

    ``journal`` holds the epoch-start regrets (row 0) and strategy sums (row 1)
    of every row the epoch updated or inserted (``MCCFRSolver.set_journaling``).
    """
    for i in range(rows_list.shape[0]):
        r = rows_list[i]
        st = row_info[r, RI_START]
        o = offsets[i]
        for j in range(row_info[r, RI_LEN]):
            x = st + j
            reg[o + j] -= journal[0, x]
            ssum[o + j] -= journal[1, x]
            regret[x] = journal[0, x]
            strategy_sum[x] = journal[1, x]


@hot
def _upsert_rows(
    slots, row_info, row_key, pool_action, regret, strategy_sum, counters,
    keys, players, offsets, actions, p_reg, p_ssum, regret_seats, ssum_seats, add, first,
):  # fmt: skip
    """Apply packet rows ``first, first + 1, ...``; return the number of rows when done.

    Returns earlier, at the row whose insertion needs a larger table, for
    :func:`_upsert` to grow it (a ``hot`` loop, so no reference counting per row).
    """
    for i in range(first, keys.shape[0]):
        key = keys[i]
        o = offsets[i]
        k = offsets[i + 1] - o
        p = probe(slots, key)
        r = slots[p, SL_ROW]
        if r == NO_ROW:
            rows = counters[CT_ROWS]
            used = counters[CT_POOL]
            if (
                (rows + 1) * MAX_LOAD_DEN >= slots.shape[0]
                or rows >= row_info.shape[0]
                or used + k > pool_action.shape[0]
            ):
                return i
            r = rows
            insert_row(slots, p, row_info, row_key, r, key, used, k, players[i], NOT_STAMPED)
            for j in range(k):
                pool_action[used + j] = actions[o + j]
                regret[used + j] = 0.0
                strategy_sum[used + j] = 0.0
            counters[CT_ROWS] = rows + 1
            counters[CT_POOL] = used + k
        elif slots[p, SL_LEN] != k:
            counters[CT_CONFLICTS] += 1
            continue
        st = slots[p, SL_START]
        if add:
            for j in range(k):
                regret[st + j] += p_reg[o + j]
                strategy_sum[st + j] += p_ssum[o + j]
            continue
        seat = np.int64(1) << players[i]
        if regret_seats & seat:
            for j in range(k):
                regret[st + j] = p_reg[o + j]
        if ssum_seats & seat:
            for j in range(k):
                strategy_sum[st + j] = p_ssum[o + j]
    return keys.shape[0]


@njit(cache=True, nogil=True)
def _upsert(
    slots,
    row_info,
    row_key,
    pool_action,
    regret,
    strategy_sum,
    counters,
    keys,
    players,
    offsets,
    actions,
    p_reg,
    p_ssum,
    regret_seats,
    ssum_seats,
    add,
):
    """Find or insert (zero values) every packet row; copy the regrets and strategy sums it owns.

    A row's regrets are taken when its player is in the bit mask
    ``regret_seats``, its strategy sums when in ``ssum_seats``; with ``add``
    the packet holds deltas, added to every row whatever its seat. Returns the
    (possibly regrown) table arrays.
    """
    i = 0
    while True:
        i = _upsert_rows(
            slots, row_info, row_key, pool_action, regret, strategy_sum, counters,
            keys, players, offsets, actions, p_reg, p_ssum, regret_seats, ssum_seats, add, i,
        )  # fmt: skip
        if i == keys.shape[0]:
            return slots, row_info, row_key, pool_action, regret, strategy_sum
        slots, row_info, row_key, pool_action, regret, strategy_sum = grow_to(
            counters[CT_ROWS] + 1, counters[CT_POOL] + offsets[i + 1] - offsets[i],
            counters[CT_ROWS], counters[CT_POOL],
            slots, row_info, row_key, pool_action, regret, strategy_sum,
        )  # fmt: skip


_TABLE = ("slots", "row_info", "row_key", "pool_action", "regret", "strategy_sum")


def upsert(
    solver: MCCFRSolver,
    packet: dict[str, Any],
    regret_seats: int,
    ssum_seats: int,
    add: bool = False,
) -> None:
    """Apply a packet to a solver's table: take given seats' values (bit masks) or add deltas."""
    arrays = _upsert(
        *(getattr(solver, name) for name in _TABLE),
        solver.counters,
        *(packet[name] for name in PACKET_ARRAYS),
        regret_seats,
        ssum_seats,
        add,
    )
    for name, arr in zip(_TABLE, arrays, strict=True):
        setattr(solver, name, arr)


def as_packet(arrays: tuple[np.ndarray, ...], **extra: Any) -> dict[str, Any]:
    """Name packet arrays."""
    return dict(zip(PACKET_ARRAYS, arrays, strict=True)) | extra
