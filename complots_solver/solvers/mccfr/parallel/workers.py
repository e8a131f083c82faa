"""One MCCFR worker (a thread's object or a Ray actor) and what two workers of a round share."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.mccfr.parallel.packets import (
    apply_snapshot,
    as_packet,
    deltas_and_reset,
    publish_rows,
    rows_packet,
    snapshot_rows,
    upsert,
)
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import RI_PLAYER

SPLIT_SEATS = "seats"  # each worker owns some seats' traversals (the default)
SPLIT_ITERATIONS = "iterations"  # each worker runs whole iterations; deltas are summed
SPLIT_SHARED = "shared"  # as seats, but one table per worker read by the other: no packets
SPLITS = (SPLIT_SEATS, SPLIT_ITERATIONS, SPLIT_SHARED)


def seat_mask(seats: list[int]) -> int:
    """Bit mask of seats."""
    return sum(1 << s for s in set(seats))


def ownership(players: int, workers: int, algorithm: str) -> list[tuple[list[int], int, int]]:
    """Per worker: (traversed seats, mask of seats whose regrets it owns, same for strategy sums)."""
    out = []
    for w in range(workers):
        seats = list(range(w, players, workers))
        ssum = seats if algorithm == "os" else [(p + 1) % players for p in seats]
        out.append((seats, seat_mask(seats), seat_mask(ssum)))
    return out


class Relay:
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
        publish_rows(s.row_info, s.regret, self.published, s.touched_rows())
        self.published_rows = s.num_infostates
        return s.slots, self.published, self.published_rows

    def snapshot(self) -> dict[str, Any]:
        """Split "shared", rounds: the regrets of the rows the last epoch touched, and the index.

        The other worker writes them into this worker's published copy
        (:meth:`receive`) when it is ready to read them; meanwhile this worker
        walks on, changing its live regrets but never reading that copy.
        """
        s = self.solver
        starts, lengths, values = snapshot_rows(
            s.row_info, s.regret, s.touched[1 : s.touched[0] + 1]
        )
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
        apply_snapshot(self.published, snapshot["starts"], snapshot["lengths"], snapshot["values"])
        self.published_rows = snapshot["rows"]
        return snapshot["slots"], self.published, self.published_rows

    def run_round(
        self, peer: MCCFRWorker, relay: Relay, stamp: int, epochs: int, iterations: int
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

    def finish_round(self, relay: Relay) -> tuple[np.ndarray, np.ndarray, int]:
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
        return as_packet(
            rows_packet(s.row_info, s.row_key, s.pool_action, s.regret, s.strategy_sum, rows)
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
        arrays = rows_packet(
            s.row_info, s.row_key, s.pool_action, s.regret, s.strategy_sum, stamped
        )
        if self.split == SPLIT_ITERATIONS:
            _, _, offsets, _, reg, ssum = arrays
            deltas_and_reset(
                s.row_info, stamped, offsets, reg, ssum, s.regret, s.strategy_sum, s.journal
            )
        return as_packet(
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
