"""The MCCFR walk pinned: short ES and OS runs give the tables they gave before its split.

The digests below were computed from the single ``_walk`` kernel (commit
4ae95eb, before the split into external- and outcome-sampling kernels). Each
case exercises a different part of the walk: table growth from the smallest
capacity, linear averaging with discounting and the regret floor, three
players, learned baselines, frozen seats with another key, and a parallel
worker's stamps, journal, traverser and insertion masks and shared table.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.mccfr.solver import Discount, MCCFRSolver
from complots_solver.solvers.mccfr.table import MIN_CAPACITY, RI_LEN, RI_START, TABLE_ARRAYS

TWO = {"players": 2, "influence": 1, "max_turns": 2}
THREE = {"players": 3, "influence": 1, "max_turns": 2}


def _digest(solver: MCCFRSolver) -> str:
    """SHA-256 of the solver's table, counters, touched rows, their journal and generator state.

    Only the journal entries of touched rows are defined (the rest is unwritten memory).
    """
    h = hashlib.sha256()
    state = solver.get_state()
    touched = solver.touched_rows()
    arrays = [state[name] for name in TABLE_ARRAYS] + [touched]
    for r in touched if solver.journal.shape[1] else []:
        start, length = solver.row_info[r, RI_START], solver.row_info[r, RI_LEN]
        arrays.append(solver.journal[:, start : start + length])
    for arr in arrays:
        arr = np.ascontiguousarray(arr)
        h.update(f"{arr.dtype.str}{arr.shape}".encode())
        h.update(arr.tobytes())
    h.update(json.dumps(solver.rng.bit_generator.state, sort_keys=True).encode())
    return h.hexdigest()


def _es() -> MCCFRSolver:
    """ES from the smallest table, linear averaging, discounting, regret floor."""
    solver = MCCFRSolver(
        GameConfig.from_params(TWO), algorithm="es", averaging="linear",
        discount=Discount(interval=50), regret_floor=True, seed=3, capacity=MIN_CAPACITY,
    )  # fmt: skip
    solver.run(300)
    return solver


def _es_three() -> MCCFRSolver:
    """ES with three players and the markov key."""
    solver = MCCFRSolver(GameConfig.from_params(THREE), algorithm="es", key="markov", seed=5)
    solver.run(100)
    return solver


def _es_worker() -> MCCFRSolver:
    """ES as a parallel worker: stamps, journal, one traverser, strided iteration numbers."""
    solver = MCCFRSolver(GameConfig.from_params(TWO), algorithm="es", averaging="linear", seed=9)
    solver.set_stamp(4)
    solver.set_journaling(True)
    solver.set_traversers([1], [0, 1])
    solver.set_iteration_numbers(3, 2)
    solver.run(200)
    return solver


def _os_baseline() -> MCCFRSolver:
    """OS with learned baselines, markov key, from the smallest table."""
    solver = MCCFRSolver(
        GameConfig.from_params(TWO), algorithm="os", key="markov", baseline=0.5, seed=11,
        capacity=MIN_CAPACITY,
    )  # fmt: skip
    solver.run(500)
    return solver


def _os_three() -> MCCFRSolver:
    """OS with three players, regret floor, epsilon 0.3."""
    solver = MCCFRSolver(
        GameConfig.from_params(THREE), algorithm="os", regret_floor=True, epsilon=0.3, seed=13
    )
    solver.run(400)
    return solver


def _os_frozen() -> MCCFRSolver:
    """OS learning against a frozen seat keyed by another key (the walk then keeps both)."""
    config = GameConfig.from_params(TWO)
    fixed = MCCFRSolver(config, algorithm="es", key="perfect", seed=1)
    fixed.run(50)
    solver = MCCFRSolver(config, algorithm="os", key="markov", seed=17)
    solver.freeze(fixed.policy_table(), [1])
    solver.run(400)
    return solver


def _os_shared() -> MCCFRSolver:
    """OS as a worker of split "shared": the other seat read from another table."""
    config = GameConfig.from_params(TWO)
    other = MCCFRSolver(config, algorithm="os", seed=19)
    other.run(200)
    solver = MCCFRSolver(config, algorithm="os", seed=23, capacity=MIN_CAPACITY)
    solver.set_stamp(2)
    solver.set_journaling(True)
    solver.set_traversers([0], [0])
    solver.share_with(other.slots, other.regret.copy(), other.num_infostates - 5)
    solver.run(300)
    return solver


CASES = {
    "es": (_es, "ea3b5bcb8ebe7802fd314fb7b20620dc47791abb621c33af8f20da53f616d566"),
    "es_three": (_es_three, "bf856d2ccf0f824a273d9a76385ff3422a0948c62f71a0db465761feef166a39"),
    "es_worker": (_es_worker, "bee197294fd65526fb737f54b3aeb53991d932a294b0843e5e48ac7e0a2a69e3"),
    "os_baseline": (
        _os_baseline,
        "cd13ef5588ce9aff7fcdd0df6776b75b3d0d5ed5d92fad1cb4b870c2d41dac67",
    ),
    "os_three": (_os_three, "110ed46445c48a1e21ce0d65ed67073721cd23f9c2f515e06bdf970af0483e6b"),
    "os_frozen": (_os_frozen, "0ee728712af08040990e466b39a7b94209fbcf1e2fcb5df95b00be8e723ff220"),
    "os_shared": (_os_shared, "caaa65a3d2601b8ef46c5194761a65030b0cdf6534b523a492a3818bdceb51ac"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_walk_gives_the_tables_it_gave_before_the_split(case: str) -> None:
    """Same seed, same settings: bit-identical tables, counters and generator state."""
    make, want = CASES[case]
    solver = make()
    assert solver.num_infostates > 0
    assert _digest(solver) == want
