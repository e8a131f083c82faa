"""Monte Carlo CFR (external and outcome sampling) over the numba rules core.

Everything per node runs in numba: the game is stepped with
``core.apply_action`` on a stack of state rows (an explicit stack, no
recursion; a sampled node's child steps its parent's row in place, only the
external-sampling traverser's nodes, walked once per action, give each child a
copy), information keys come from :mod:`complots_solver.solvers.mccfr.infokeys`
and regrets live in a compiled open-addressing hash table (:mod:`.table`). The
walk (:mod:`.walk`) is a ``@hot`` function, so no array reference counting
happens per node (:mod:`complots_solver.rules.compiled`); when the table must
grow it returns, and ``run_walk`` grows it and resumes the walk at the same node.

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

Parallel workers and Ray: :mod:`complots_solver.solvers.mccfr.parallel`;
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

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_npz
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.infokeys import KEYS
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.table import (
    CT_CONFLICTS,
    CT_DISCOUNTS,
    CT_ITER,
    CT_POOL,
    CT_ROWS,
    CT_VISITS,
    DEFAULT_CAPACITY,
    MAX_LOAD_DEN,
    MIN_CAPACITY,
    NUM_COUNTERS,
    RI_LEN,
    RI_PLAYER,
    RI_START,
    RI_WIDTH,
    SL_WIDTH,
    TABLE_ARRAYS,
    capacity_for,
    empty_slots,
    slots_of_rows,
)
from complots_solver.solvers.mccfr.tree_keys import map_to_tree
from complots_solver.solvers.mccfr.walk import (
    NUM_PARAMS,
    P_ALPHA,
    P_BASELINE,
    P_BETA,
    P_EPSILON,
    P_FLOOR,
    P_GAMMA,
    P_INSERT,
    P_INTERVAL,
    P_JOURNAL,
    P_LINEAR,
    P_OTHER_ROWS,
    P_SHARED,
    P_STAMP,
    P_STRIDE,
    P_TRAVERSERS,
    run_walk,
)

ALGORITHMS = ("es", "os")
AVERAGING = ("simple", "linear")
DEFAULT_EPSILON = 0.6


@dataclass(frozen=True)
class Discount:
    """DCFR-style discounting applied every ``interval`` iterations."""

    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    interval: int = 1000


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
        self._allocate(capacity_for(capacity))
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
        ) = run_walk(
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
        return map_to_tree(
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
            self.slots = slots_of_rows(self.row_key, self.row_info, rows, cap)

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
