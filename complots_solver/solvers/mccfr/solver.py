"""The MCCFR solver: external- or outcome-sampling Monte Carlo CFR on one Complots configuration.

:class:`MCCFRSolver` owns a table (:mod:`.table`) and runs the compiled walk
(:mod:`.walk`) over the numba rules core, with information keys from
:mod:`.infokeys`. Every seat traverses in turn, as in OpenSpiel's solvers:

* ``es`` - external sampling (Lanctot et al. 2009); the average strategy is
  accumulated as in OpenSpiel's ``ExternalSamplingMCCFRSolver``;
* ``os`` - outcome sampling with epsilon-on-policy exploration at the
  traverser's nodes, as in OpenSpiel's ``OutcomeSamplingSolver``, optionally
  with learned action baselines (VR-MCCFR, ``baseline``).

Options: linear averaging, DCFR-style discounting in bulk (:class:`Discount`),
the regret floor of regret matching+ (``regret_floor``), and frozen seats
(:meth:`MCCFRSolver.freeze`) that follow a fixed :class:`PolicyTable` while
the others learn a best response. Randomness comes only from the solver's
generator (saved in checkpoints), so a resumed run is bit-identical to an
uninterrupted one. Design notes and measurements:
``reports/mccfr-runs.md``, "Design notes moved from module docstrings".
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
    """DCFR-style discounting applied in bulk every ``interval`` iterations.

    With ``k`` the number of discount steps so far, positive regrets are
    multiplied by ``k^alpha / (k^alpha + 1)``, negative ones by
    ``k^beta / (k^beta + 1)`` and the strategy sums by ``(k / (k + 1))^gamma``.
    """

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
