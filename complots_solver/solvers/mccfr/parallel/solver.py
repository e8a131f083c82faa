"""Parallel and distributed MCCFR: the seats' traversals split among workers, synchronised per epoch.

One MCCFR iteration walks the game once per seat as the traverser, and a
traversal for seat ``p`` updates only some of the table: regrets at ``p``'s
information states, and the average-strategy sums at ``p``'s (outcome
sampling) or at seat ``p + 1``'s (external sampling). With ``W`` workers
(``W <= players``), worker ``w`` does the traversals of the seats
``p = w, w + W, ...`` and so *owns* those regrets and strategy sums: no two
workers ever write the same number.

Every worker keeps a full copy of the table. In one *epoch* all workers run
``sync_iterations`` iterations (their seats' traversals only) with their own
random generator (worker ``w`` seeded with child ``w`` of
``np.random.SeedSequence(seed)``), stamping every row they insert or update.
Then each worker's stamped rows (a *packet*: keys, actions, regrets,
strategy sums) go to every other worker, which takes the values that the
sender owns. After the exchange all tables hold the same numbers, so an epoch
is ``sync_iterations`` iterations, and synchronising costs time and traffic
proportional to the rows touched, not to the table size; nothing is summed.

The difference from one serial run: within an epoch a worker samples the
other workers' seats with their strategy from the start of the epoch (a lag of
up to ``sync_iterations`` iterations; serially, seat 1's traversal already sees
seat 0's updates of the same iteration). The lag costs convergence: on the
small ladder configurations one core reaches a given exploitability sooner
than two workers at every interval measured, while on the full draft game two
workers' strategy beat one core's after the same time
(``reports/mccfr-runs.md``, ``scripts/mccfr_quality.py parallel-quality`` and
``parallel-sampled``). Linear averaging and DCFR discounting
use the same iteration numbers as serially. Runs are deterministic for a given
worker count and ``sync_iterations`` (and resume bit-exactly). With ``W = 1``
the solver is exactly :class:`MCCFRSolver`. Load balance: each worker does
``players / W`` seats' traversals, so 2 workers split a 2-player game evenly
but a 3-player game 2:1.

``split="iterations"`` shares the work out differently, for balance: each
worker runs *whole* iterations (every seat traverses), worker ``w`` the
iterations ``first + w, first + w + W, ...`` of an epoch of
``W * sync_iterations`` (its linear-averaging weights are those numbers).
At the end of the epoch each worker turns the rows it touched into deltas
from the epoch's start (its solver journals a row's values at the row's
first update of the epoch) and puts them back; then every worker adds every
worker's deltas, in worker order, so all tables again hold the same numbers
(start + delta of worker 0 + delta of worker 1 ...). Summing deltas is exact for plain regret
and strategy-sum updates; DCFR discounting, the regret floor and VR baselines
are not additive, so that split refuses them. The lag is the same as above
(a worker sees the others' updates from the start of the epoch, its own at
once). Cost: a journal as large as the pool's regrets and sums per worker,
written only for the rows an epoch updates; and every worker inserts every
seat's rows and applies every packet, which makes this split slower than
split by seats for outcome sampling on large tables. Gain: on a 2-player game
split by seats, seat 0's ES traversal costs about 2.2x seat 1's on ladder-2,
so the seat-0 worker holds up every epoch; split by iterations both do the
same work.

Backends: threads in this process (the numba walk releases the GIL, so the
workers use separate cores), or Ray actors (``ray_address``: ``"local"``
starts a local instance, anything else is passed to ``ray.init(address=...)``)
holding the same :class:`MCCFRWorker` objects on a cluster; only packets
travel. Both backends give identical tables. Memory: one table per worker.

``split="shared"`` (outcome sampling, 2 workers, threads) gives exactly the
iterates of ``split="seats"`` with neither replicated tables nor packets.
Each worker's table holds only its own seats' rows. Next to its live regrets
it keeps a *published* copy, which only it writes, and only between epochs.
During an epoch a worker reads the other worker's seats from the other's
index and published regrets (``MCCFRSolver.share_with``), seeing only the
rows that existed when the epoch started. The owner inserts into that index
meanwhile, but an open-addressing index only ever fills empty slots, so an
old row is found exactly as before, and a newer one is treated as absent.
Between epochs each worker copies the regrets of the rows it touched (listed
by the walk) into its published copy: a copy at the same positions, with no
hashing. The strategy sums never travel. ``master`` merges the two tables
(a full copy, at checkpoints and at the end). Memory: one table in all, plus
a copy of each worker's regrets. DCFR discounting changes every row, so it
would have to republish the whole table: refused.

*Rounds* (split "shared", ``round_epochs = R > 1``) let a worker that is
faster in one epoch run on instead of waiting at every epoch's end. Epoch
``e`` of a round reads the other worker's seats as they were at the end of
epoch ``e - 2`` (epochs 0 and 1: at the round's start), never later, so a
worker may run one epoch ahead of the other, and the workers meet only at the
end of the round. At the end of each epoch a worker *snapshots* the regrets
of the rows it touched (with their pool positions and its index, which holds
every row the snapshot counts); before its epoch ``e`` the other worker
writes the snapshot of epoch ``e - 2`` into the owner's published copy, which
the owner never reads and only the reader writes during a round. The iterates
depend only on ``R`` and ``sync_iterations``, not on timing, and a round ends
with the same tables and views as ``R = 1`` would (deterministic and
resumable at round ends). The cost: the other seats' strategy lags by one
epoch more in epochs 2 to ``R - 1``, and a snapshot is copied twice (out and
in) where publishing copies once.

Every epoch ends when its slowest worker does. ``balance`` reports each
worker's time in the walk over the slowest one's: on the 2-vCPU benchmark VM
two workers with equal work often differ by up to 2x in one epoch (the cores'
speeds change), which no static split can absorb (``reports/mccfr-runs.md``).
"""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from complots_solver.rules.compiled import hot, prefetch
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.mccfr.solver import (
    CT_CONFLICTS,
    CT_ITER,
    CT_POOL,
    CT_ROWS,
    CT_VISITS,
    MAX_LOAD_DEN,
    NO_ROW,
    RI_LEN,
    RI_PLAYER,
    RI_START,
    SL_LEN,
    SL_ROW,
    SL_START,
    MCCFRSolver,
    _grow_to,
    _insert_row,
    _probe,
)

DEFAULT_SYNC_ITERATIONS = 1000
SPLIT_SEATS = "seats"  # each worker owns some seats' traversals (the default)
SPLIT_ITERATIONS = "iterations"  # each worker runs whole iterations; deltas are summed
SPLIT_SHARED = "shared"  # as seats, but one table per worker read by the other: no packets
SPLITS = (SPLIT_SEATS, SPLIT_ITERATIONS, SPLIT_SHARED)
LOCAL_RAY = "local"
PACKET_ARRAYS = ("keys", "players", "offsets", "actions", "regret", "strategy_sum")
NOT_STAMPED = 0
PUBLISH_AHEAD_INFO = 16  # _publish prefetches this many rows ahead for their info
PUBLISH_AHEAD_POOL = 8  # ... and this many ahead for their pool slots


@njit(cache=True, nogil=True)
def _rows_packet(row_info, row_key, pool_action, regret, strategy_sum, rows_list):
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
def _publish(row_info, regret, published, rows):
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
def _snapshot(row_info, regret, rows):
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
        if i + PUBLISH_AHEAD_INFO < n:  # as in _publish
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
def _apply_snapshot(published, starts, lengths, values):
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
def _deltas_and_reset(row_info, rows_list, offsets, reg, ssum, regret, strategy_sum, journal):
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
        p = _probe(slots, key)
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
            _insert_row(slots, p, row_info, row_key, r, key, used, k, players[i], NOT_STAMPED)
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
        slots, row_info, row_key, pool_action, regret, strategy_sum = _grow_to(
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


def _as_packet(arrays: tuple[np.ndarray, ...], **extra: Any) -> dict[str, Any]:
    """Name packet arrays."""
    return dict(zip(PACKET_ARRAYS, arrays, strict=True)) | extra


def _mask(seats: list[int]) -> int:
    """Bit mask of seats."""
    return sum(1 << s for s in set(seats))


def ownership(players: int, workers: int, algorithm: str) -> list[tuple[list[int], int, int]]:
    """Per worker: (traversed seats, mask of seats whose regrets it owns, same for strategy sums)."""
    out = []
    for w in range(workers):
        seats = list(range(w, players, workers))
        ssum = seats if algorithm == "os" else [(p + 1) % players for p in seats]
        out.append((seats, _mask(seats), _mask(ssum)))
    return out


class _Relay:
    """The snapshots two workers of a pipelined round hand each other, by epoch (threads)."""

    def __init__(self, workers: int) -> None:
        self._cond = threading.Condition()
        self._boxes: list[dict[int, dict[str, Any]]] = [{} for _ in range(workers)]
        self._failed = False

    def post(self, worker: int, epoch: int, snapshot: dict[str, Any]) -> None:
        """Hand over ``worker``'s snapshot of its ``epoch``."""
        with self._cond:
            self._boxes[worker][epoch] = snapshot
            self._cond.notify_all()

    def take(self, worker: int, epoch: int) -> dict[str, Any]:
        """Wait for ``worker``'s snapshot of its ``epoch`` and take it."""
        with self._cond:
            self._cond.wait_for(lambda: epoch in self._boxes[worker] or self._failed)
            if self._failed:
                raise RuntimeError("the other worker of the round failed")
            return self._boxes[worker].pop(epoch)

    def fail(self) -> None:
        """Wake a waiting worker with an error: its peer stopped."""
        with self._cond:
            self._failed = True
            self._cond.notify_all()

    def remaining(self, worker: int) -> list[dict[str, Any]]:
        """``worker``'s snapshots nobody took, oldest first."""
        with self._cond:
            box = self._boxes[worker]
            return [box.pop(e) for e in sorted(box)]


class MCCFRWorker:
    """One worker: a full table of its own, a generator and its seats (a thread's or Ray actor's)."""

    def __init__(
        self,
        params: dict[str, Any],
        solver_kwargs: dict[str, Any],
        seed: np.random.SeedSequence,
        seats: list[int],
        owned: int,
        split: str = SPLIT_SEATS,
        index: int = 0,
        workers: int = 1,
    ) -> None:
        self.solver = MCCFRSolver(GameConfig.from_params(params), **solver_kwargs)
        self.solver.rng = np.random.default_rng(seed)
        self.owned = owned
        self.split = split
        self.index = index
        self.workers = workers
        players = self.solver.config.players
        if split in (SPLIT_SEATS, SPLIT_SHARED):
            self.solver.set_traversers(seats, [p for p in range(players) if owned >> p & 1])
        else:
            self.solver.set_journaling(True)

    def load(self, table: dict[str, np.ndarray]) -> None:
        """Take a copy of a full table (start, resume)."""
        self.solver.load_table(table)
        if self.split == SPLIT_SHARED:
            self.published = self.solver.regret.copy()
            self.published_rows = self.solver.num_infostates
            self.solver.touched[0] = 0  # the published copy is whole

    def _fit_published(self, capacity: int, used: int) -> None:
        """Grow the published copy to the pool's ``capacity`` (``used`` slots in use)."""
        if self.published.shape[0] < capacity:
            # only the used part is copied: the rest of both is unwritten (see mccfr "Storage")
            grown = np.zeros(capacity)
            used = min(self.published.shape[0], used)
            grown[:used] = self.published[:used]
            self.published = grown

    def publish(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Split "shared": copy the touched rows' regrets to the published copy; return the view.

        The view is (index, published regrets, visible rows) for the other worker.
        """
        s = self.solver
        self._fit_published(s.regret.shape[0], s.num_slots)
        _publish(s.row_info, s.regret, self.published, s.touched_rows())
        self.published_rows = s.num_infostates
        return s.slots, self.published, self.published_rows

    def snapshot(self) -> dict[str, Any]:
        """Split "shared", rounds: the regrets of the rows the last epoch touched, and the index.

        The other worker writes them into this worker's published copy
        (:meth:`receive`) when it is ready to read them; meanwhile this worker
        walks on, changing its live regrets but never reading that copy.
        """
        s = self.solver
        starts, lengths, values = _snapshot(s.row_info, s.regret, s.touched[1 : s.touched[0] + 1])
        return {
            "starts": starts,
            "lengths": lengths,
            "values": values,
            "slots": s.slots,  # the index as it is now: it holds every row below "rows"
            "rows": s.num_infostates,
            "capacity": s.regret.shape[0],
            "used": s.num_slots,
        }

    def receive(self, snapshot: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, int]:
        """Write one of this worker's snapshots into its published copy; return the view it gives."""
        self._fit_published(snapshot["capacity"], snapshot["used"])
        _apply_snapshot(self.published, snapshot["starts"], snapshot["lengths"], snapshot["values"])
        self.published_rows = snapshot["rows"]
        return snapshot["slots"], self.published, self.published_rows

    def run_round(
        self, peer: "MCCFRWorker", relay: "_Relay", stamp: int, epochs: int, iterations: int
    ) -> dict[str, Any]:
        """Split "shared": run a round of ``epochs`` epochs, pipelined with ``peer`` (see ParallelMCCFR).

        Epochs 0 and 1 read the peer's view from the round's start; epoch
        ``i >= 2`` first writes the peer's snapshot of its epoch ``i - 2``
        into the peer's published copy and reads that. Returns the round's
        visits, conflicts and seconds in the walk.
        """
        totals: dict[str, Any] = {"visits": 0, "conflicts": 0, "seconds": 0.0}
        try:
            for i in range(epochs):
                if i >= 2:
                    self.share_with(peer.receive(relay.take(peer.index, i - 2)))
                stats = self.run_epoch(stamp + i * iterations, iterations)
                for name in totals:
                    totals[name] += stats[name]
                relay.post(self.index, i, self.snapshot())
        except BaseException:
            relay.fail()  # the peer would wait for this worker's snapshots forever
            raise
        return totals

    def finish_round(self, relay: "_Relay") -> tuple[np.ndarray, np.ndarray, int]:
        """After a round: write this worker's snapshots the peer did not read; return the view."""
        for snapshot in relay.remaining(self.index):
            self.receive(snapshot)
        s = self.solver
        return s.slots, self.published, self.published_rows

    def share_with(self, view: tuple[np.ndarray, np.ndarray, int]) -> None:
        """Read the other worker's seats from its published view during the next epoch."""
        self.solver.share_with(*view)

    def owned_packet(self) -> dict[str, Any]:
        """All rows of this worker's seats (regrets and strategy sums), for merging tables."""
        s = self.solver
        info = s.row_info[: s.num_infostates]
        rows = np.flatnonzero((self.owned >> info[:, RI_PLAYER]) & 1 == 1)
        return _as_packet(
            _rows_packet(s.row_info, s.row_key, s.pool_action, s.regret, s.strategy_sum, rows)
        )

    def table(self) -> dict[str, np.ndarray]:
        """This worker's table (all agree between epochs; split "shared": its own seats' rows)."""
        return self.solver.table()

    def num_infostates(self) -> int:
        """Rows in this worker's table."""
        return self.solver.num_infostates

    def run_epoch(self, stamp: int, iterations: int, first: int = 1) -> dict[str, Any]:
        """Run a batch stamping the rows it touches; return them as a packet.

        Split by seats, the packet holds the values this worker owns. Split by
        iterations, this worker runs iterations ``first + index``, ``first +
        index + workers``, ... of the epoch, and the packet holds the deltas it
        made (its rows are put back to the epoch's start until :meth:`apply`).
        """
        s = self.solver
        s.set_stamp(stamp)
        visits, conflicts = s.node_visits, s.key_conflicts
        if self.split == SPLIT_ITERATIONS:
            s.set_iteration_numbers(first + self.index, self.workers)
        started = time.perf_counter()
        s.run(iterations)
        walked = time.perf_counter() - started
        if self.split == SPLIT_SHARED:  # nothing travels: see publish
            return {
                "visits": s.node_visits - visits,
                "conflicts": s.key_conflicts - conflicts,
                "seconds": walked,
            }
        # the rows touched (listed by the walk: no scan of the table), in row order: the
        # tables append rows in similar orders, so building and applying the packet then
        # walks the pools nearly in order (measured: about 20% faster than in touch order)
        stamped = np.sort(s.touched_rows())
        stamped = stamped[(self.owned >> s.row_info[stamped, RI_PLAYER]) & 1 == 1]
        arrays = _rows_packet(
            s.row_info, s.row_key, s.pool_action, s.regret, s.strategy_sum, stamped
        )
        if self.split == SPLIT_ITERATIONS:
            _, _, offsets, _, reg, ssum = arrays
            _deltas_and_reset(
                s.row_info, stamped, offsets, reg, ssum, s.regret, s.strategy_sum, s.journal
            )
        return _as_packet(
            arrays,
            visits=s.node_visits - visits,
            conflicts=s.key_conflicts - conflicts,
            seconds=walked,
        )

    def apply(self, packets: list[tuple[dict[str, Any], int, int]]) -> None:
        """Take the owned values of other workers' packets: (packet, regret seats, sum seats).

        Split by iterations, ``packets`` are every worker's (this one's too), in
        worker order, and their deltas are added: every table then holds the
        same sums, added in the same order.
        """
        add = self.split == SPLIT_ITERATIONS
        for packet, regret_seats, ssum_seats in packets:
            upsert(self.solver, packet, regret_seats, ssum_seats, add)

    def get_rng_state(self) -> dict[str, Any]:
        """The generator's state."""
        return self.solver.rng.bit_generator.state

    def set_rng_state(self, state: dict[str, Any]) -> None:
        """Restore the generator's state."""
        self.solver.rng.bit_generator.state = state

    def nbytes(self) -> int:
        """Bytes of this worker's table (and its published regrets, split "shared"), as used."""
        shared = self.split == SPLIT_SHARED
        published = self.published[: self.solver.num_slots].nbytes if shared else 0
        return self.solver.nbytes() + published


class ParallelMCCFR:
    """MCCFR on ``workers`` cores (threads) or Ray actors; see the module docstring."""

    def __init__(
        self,
        config: GameConfig,
        workers: int = 1,
        sync_iterations: int = DEFAULT_SYNC_ITERATIONS,
        ray_address: str | None = None,
        split: str = SPLIT_SEATS,
        round_epochs: int = 1,
        **solver_kwargs: Any,
    ) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        if split == SPLIT_SHARED and (ray_address is not None or workers != 2):
            raise ValueError("split 'shared' runs exactly 2 workers, as threads (no --ray)")
        if split in (SPLIT_SEATS, SPLIT_SHARED) and not 1 <= workers <= config.players:
            raise ValueError(f"workers must be from 1 to players ({config.players}), got {workers}")
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if sync_iterations < 1:
            raise ValueError(f"sync_iterations must be >= 1, got {sync_iterations}")
        if round_epochs < 1 or (round_epochs > 1 and split != SPLIT_SHARED):
            raise ValueError(
                f"round_epochs must be >= 1, and 1 unless split is 'shared', got {round_epochs}"
            )
        self.config = config
        self.workers = workers
        self.sync_iterations = sync_iterations
        self.ray_address = ray_address
        self.split = split
        self.round_epochs = round_epochs
        self._master = MCCFRSolver(config, **solver_kwargs)
        if split == SPLIT_ITERATIONS and (
            self._master.discount is not None
            or self._master.regret_floor
            or self._master.baseline_decay > 0.0
        ):
            raise ValueError(
                "split 'iterations' sums the workers' deltas: it does not support discounting, "
                "a regret floor or baselines (use split 'seats')"
            )
        if split == SPLIT_SHARED and (
            self._master.algorithm != "os"
            or self._master.discount is not None
            or self._master.baseline_decay > 0.0
        ):
            raise ValueError(
                "split 'shared' needs algorithm 'os' without discounting or baselines "
                "(use split 'seats')"
            )
        self._worker_kwargs = {
            k: v for k, v in solver_kwargs.items() if k not in ("seed", "capacity")
        }
        self._owners = ownership(config.players, workers, self._master.algorithm)
        self._pool: ThreadPoolExecutor | None = None
        self._ray: Any = None
        self._workers: list[Any] = []
        self._visits = 0
        self._conflicts = 0
        self._fresh = True  # whether _master holds worker 0's current table
        # False while a step runs, and after a step that raised: the workers' tables
        # may then be mid-epoch, and must not be checkpointed
        self.consistent = True
        self._interrupted = False  # Ctrl-C arrived while waiting for the workers
        # every worker's seconds in the walk, summed over epochs, and the slowest
        # worker's per epoch (the others wait for it): see `balance`
        self.walk_seconds = 0.0
        self.slowest_walk_seconds = 0.0
        if workers > 1:
            self._start_workers()

    # -- workers -------------------------------------------------------------------
    def _start_workers(self) -> None:
        """Create the workers (threads' objects or Ray actors) holding copies of the master."""
        children = np.random.SeedSequence(self._master.seed).spawn(self.workers)
        params = self.config.params()
        if self.split == SPLIT_ITERATIONS:
            everyone = _mask(list(range(self.config.players)))
            args = [
                (params, self._worker_kwargs, child, [], everyone, self.split, w, self.workers)
                for w, child in enumerate(children)
            ]
        else:
            args = [
                (
                    params,
                    self._worker_kwargs,
                    child,
                    seats,
                    regret_seats | ssum_seats,
                    self.split,
                    w,
                    self.workers,
                )
                for w, (child, (seats, regret_seats, ssum_seats)) in enumerate(
                    zip(children, self._owners, strict=True)
                )
            ]
        if self.ray_address is not None:
            import ray

            if not ray.is_initialized():
                address = None if self.ray_address == LOCAL_RAY else self.ray_address
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
            self._ray = ray
            actor = ray.remote(MCCFRWorker)
            self._workers = [actor.remote(*a) for a in args]
        else:
            self._pool = ThreadPoolExecutor(max_workers=self.workers)
            self._workers = [MCCFRWorker(*a) for a in args]
        self._call_all("load", [(self._master.table(),)] * self.workers)
        self._share()

    def _share(self, method: str = "publish", args: tuple[Any, ...] = ()) -> None:
        """Split "shared": every worker publishes (``method``), then reads the other's view."""
        if self.split != SPLIT_SHARED:
            return
        views = self._call_all(method, [args] * self.workers)
        self._call_all("share_with", [(views[1 - w],) for w in range(self.workers)])

    def _call_all(self, method: str, args: list[tuple[Any, ...]]) -> list[Any]:
        """Call ``method`` on every worker in parallel with per-worker arguments; wait for all."""
        if self._ray is not None:
            futures = [
                getattr(w, method).remote(*a) for w, a in zip(self._workers, args, strict=True)
            ]
            try:
                return self._ray.get(futures)
            except KeyboardInterrupt:  # let the workers finish; step() stops after the exchange
                self._interrupted = True
                return self._ray.get(futures)
        assert self._pool is not None
        jobs = [
            self._pool.submit(getattr(w, method), *a)
            for w, a in zip(self._workers, args, strict=True)
        ]
        try:
            return [job.result() for job in jobs]
        except KeyboardInterrupt:  # as above: a worker thread cannot be stopped mid-epoch
            self._interrupted = True
            return [job.result() for job in jobs]

    @property
    def iteration(self) -> int:
        """Iterations done (cheap: no merge of the workers' tables)."""
        return self._master.iteration

    @property
    def node_visits(self) -> int:
        """Node visits so far (cheap: no merge of the workers' tables)."""
        return self._master.node_visits if self._fresh else self._visits

    @property
    def num_infostates(self) -> int:
        """Information states in the table (cheap: no merge of the workers' tables)."""
        if self._fresh:
            return self._master.num_infostates
        if self.split == SPLIT_SHARED:  # each worker holds only its own seats' rows
            return sum(self._call_all("num_infostates", [()] * self.workers))
        if self._ray is not None:
            return int(self._ray.get(self._workers[0].num_infostates.remote()))
        return self._workers[0].num_infostates()

    @property
    def master(self) -> MCCFRSolver:
        """The full table: worker 0's (all agree between epochs), or split "shared" both merged."""
        if not self._fresh:
            if self._ray is not None:
                table = self._ray.get(self._workers[0].table.remote())
            else:
                table = self._workers[0].table()
            iteration = self._master.iteration
            shared = self.split == SPLIT_SHARED
            self._master.load_table(table, copy=shared)  # shared: merged below, in a copy
            if shared:
                _, regret_seats, ssum_seats = self._owners[1]
                upsert(self._master, self._workers[1].owned_packet(), regret_seats, ssum_seats)
            self._master.counters = self._master.counters.copy()  # the worker keeps its own
            self._master.counters[CT_ITER] = iteration
            self._master.counters[CT_VISITS] = self._visits
            self._master.counters[CT_CONFLICTS] = self._conflicts
            self._fresh = True
        return self._master

    # -- running -------------------------------------------------------------------
    @property
    def epoch_iterations(self) -> int:
        """Iterations per call of :meth:`step` (one epoch, or any count with one worker)."""
        if self.split == SPLIT_ITERATIONS and self.workers > 1:
            return self.sync_iterations * self.workers
        return self.sync_iterations * self.round_epochs

    def step(self, iterations: int | None = None) -> int:
        """Run one epoch (or ``iterations`` with one worker); return the iterations done."""
        if self.workers == 1:
            n = self.sync_iterations if iterations is None else iterations
            self._master.run(n)
            return n
        if self._fresh:  # counters continue from the master's
            self._visits = self._master.node_visits
            self._conflicts = self._master.key_conflicts
            # the workers hold the live table: a merged copy (or one referring to arrays
            # the workers will outgrow) would only hold memory until the next merge
            self._master.drop_table()
            self._fresh = False
        self.consistent = False
        self._step_workers(self._master.iteration + 1)  # a stamp unique per epoch
        self._master.counters[CT_ITER] += self.epoch_iterations
        self.consistent = True
        if self._interrupted:  # the step is whole: now stop
            self._interrupted = False
            raise KeyboardInterrupt
        return self.epoch_iterations

    def _step_workers(self, stamp: int) -> None:
        """One epoch (or round) of every worker and its exchange."""
        if self.round_epochs > 1:
            relay = _Relay(self.workers)
            args = [
                (self._workers[1 - w], relay, stamp, self.round_epochs, self.sync_iterations)
                for w in range(self.workers)
            ]
            self._count(self._call_all("run_round", args))
            self._share("finish_round", (relay,))
            return
        packets = self._call_all("run_epoch", [(stamp, self.sync_iterations, stamp)] * self.workers)
        self._count(packets)
        if self.split == SPLIT_SHARED:
            self._share()
            return
        if self.split == SPLIT_ITERATIONS:
            every = [(packet, 0, 0) for packet in packets]  # deltas, in worker order
            exchange = [every] * self.workers
        else:
            exchange = [
                [
                    (packet, regret_seats, ssum_seats)
                    for v, (packet, (_, regret_seats, ssum_seats)) in enumerate(
                        zip(packets, self._owners, strict=True)
                    )
                    if v != w
                ]
                for w in range(self.workers)
            ]
        self._call_all("apply", [(e,) for e in exchange])

    def _count(self, stats: list[dict[str, Any]]) -> None:
        """Add the workers' visits, conflicts and walk seconds of an epoch (or round)."""
        for s in stats:
            self._visits += int(s["visits"])
            self._conflicts += int(s["conflicts"])
        walks = [float(s["seconds"]) for s in stats]
        self.walk_seconds += sum(walks)
        self.slowest_walk_seconds += max(walks)

    @property
    def balance(self) -> float:
        """Mean over workers of their walk time over the slowest worker's, summed over epochs.

        1.0 when every worker of every epoch took as long as the slowest; the
        rest of the wall time the workers wait at the epoch's end. Equal work
        per worker does not make it 1.0 when the cores run at different speeds.
        With rounds (``round_epochs > 1``) the sums are per round, where the
        workers meet.
        """
        if self.slowest_walk_seconds == 0.0:
            return 1.0
        return self.walk_seconds / (self.workers * self.slowest_walk_seconds)

    def run(self, iterations: int) -> None:
        """Run at least ``iterations`` iterations (whole epochs with several workers)."""
        done = 0
        while done < iterations:
            done += self.step(iterations - done if self.workers == 1 else None)

    def close(self) -> None:
        """Stop the thread pool or the Ray actors (Ray itself stays up: it may be shared)."""
        if self._workers:
            self.master  # noqa: B018  (keep the final table once the workers are gone)
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self._ray is not None:
            for w in self._workers:
                self._ray.kill(w)
            self._ray = None
        self._workers = []

    # -- state ---------------------------------------------------------------------
    def get_state(self, copy: bool = True) -> dict[str, np.ndarray]:
        """Full table, counters, the workers' generator states and the parallel settings."""
        state = self.master.get_state(copy)
        rngs = self._call_all("get_rng_state", [()] * self.workers) if self._workers else []
        state["worker_rng_states"] = np.array(json.dumps(rngs))
        state["parallel"] = np.array(json.dumps(self._parallel_settings()))
        return state

    def set_state(self, state: dict[str, np.ndarray], copy: bool = True) -> None:
        """Restore :meth:`get_state` (worker count and sync interval must match)."""
        saved = json.loads(str(state["parallel"]))
        if saved != self._parallel_settings():
            raise ValueError(
                f"checkpoint parallel settings {saved} differ from {self._parallel_settings()}"
            )
        self._master.set_state(state, copy)
        self._fresh = True
        if self._workers:
            rngs = json.loads(str(state["worker_rng_states"]))
            self._call_all("load", [(self._master.table(),)] * self.workers)
            self._call_all("set_rng_state", [(r,) for r in rngs])
            self._share()  # the workers read each other's new tables

    def _parallel_settings(self) -> dict[str, int | str]:
        """Settings that change the iterates (the backend does not)."""
        settings: dict[str, int | str] = {
            "workers": self.workers,
            "sync_iterations": self.sync_iterations,
        }
        if self.split != SPLIT_SEATS:  # older checkpoints (seats only) stay loadable
            settings["split"] = self.split
        if self.round_epochs != 1:  # ... and those from before rounds
            settings["round_epochs"] = self.round_epochs
        return settings

    def nbytes(self) -> int:
        """Bytes of every worker's table (or the one table with one worker)."""
        if not self._workers:
            return self._master.nbytes()
        return sum(self._call_all("nbytes", [()] * self.workers))
