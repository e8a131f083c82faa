"""Parallel MCCFR split by iterations: every worker runs whole iterations, deltas are summed.

Determinism and bit-exact resume for both splits: tests/solvers/test_mccfr_files.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.best_response import exploitability
from complots_solver.solvers.complots_tree import compile_complots_tree
from complots_solver.solvers.mccfr import Discount, MCCFRSolver
from complots_solver.solvers.mccfr_parallel import ParallelMCCFR
from complots_solver.solvers.strategy_file import load_keyed_strategy
from tests.solvers.test_mccfr_files import _rows, run_cli

TINY = {"players": 2, "influence": 1, "max_turns": 2}
THREE = {"players": 3, "influence": 1, "max_turns": 2}
SYNC = 50
ITERATIONS = 5000
THRESHOLD = (
    0.03  # W=2, sync 50 per worker, ES, 5000 iterations, seed 0: measured 0.016 (serial 0.012)
)


def _values(solver: MCCFRSolver) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """(regrets, strategy sums) of every row, by information key."""
    return {key: (regret, ssum) for key, (_, regret, ssum) in _rows(solver.table()).items()}


@pytest.mark.parametrize("players", [2, 3])
def test_epoch_sums_every_workers_deltas_in_order(players: int) -> None:
    """After an epoch each row holds start + delta of worker 0 + delta of worker 1, everywhere."""
    config = GameConfig.from_params(TINY if players == 2 else THREE)
    kwargs = {"algorithm": "es", "key": "perfect", "averaging": "linear"}
    par = ParallelMCCFR(
        config, workers=2, sync_iterations=SYNC, split="iterations", seed=1, **kwargs
    )
    par.step()  # a non-empty table to start from
    start = _values(par._workers[0].solver)
    first = par.master.iteration + 1
    twins = []
    for w, worker in enumerate(par._workers):
        twin = MCCFRSolver(config, seed=0, **kwargs)
        twin.load_table(worker.solver.table())
        twin.rng.bit_generator.state = worker.get_rng_state()
        twin.set_iteration_numbers(first + w, 2)  # worker w runs iterations first + w, + 2, ...
        twin.run(SYNC)
        twins.append(_values(twin))
    par.step()
    tables = [_values(worker.solver) for worker in par._workers]
    assert set(tables[0]) == set(tables[1]) == set(twins[0]) | set(twins[1])
    changed = 0
    for key, (regret, ssum) in tables[0].items():
        assert np.array_equal(regret, tables[1][key][0])
        assert np.array_equal(ssum, tables[1][key][1])
        zero = (np.zeros_like(regret), np.zeros_like(ssum))
        base = start.get(key, zero)
        want_regret, want_ssum = base[0].copy(), base[1].copy()
        for twin in twins:
            got = twin.get(key, base)
            want_regret += got[0] - base[0]
            want_ssum += got[1] - base[1]
        np.testing.assert_array_equal(regret, want_regret)
        np.testing.assert_array_equal(ssum, want_ssum)
        changed += not np.array_equal(regret, base[0])
    assert changed > 0
    assert par.master.iteration == 2 * 2 * SYNC
    par.close()


def test_iterations_split_converges() -> None:
    config = GameConfig.from_params(TINY)
    tree = compile_complots_tree(config)
    par = ParallelMCCFR(
        config, workers=2, sync_iterations=SYNC, split="iterations", algorithm="es", seed=0
    )
    par.run(ITERATIONS)
    par.close()
    strategy, _, _ = par.master.tree_strategy(tree)
    assert exploitability(tree, strategy) < THRESHOLD


@pytest.mark.parametrize(
    "options",
    [
        {"discount": Discount()},
        {"regret_floor": True},
        {"algorithm": "os", "baseline": 0.5},
    ],
    ids=["discount", "floor", "baseline"],
)
def test_iterations_split_refuses_non_additive_updates(options: dict[str, object]) -> None:
    config = GameConfig.from_params(TINY)
    with pytest.raises(ValueError, match="split 'iterations'"):
        ParallelMCCFR(config, workers=2, split="iterations", **options)


def test_split_must_be_known() -> None:
    with pytest.raises(ValueError, match="split must be one of seats, iterations"):
        ParallelMCCFR(GameConfig.from_params(TINY), workers=2, split="rows")


@pytest.mark.parametrize(
    ("split", "algorithm", "refused"),
    [
        ("iterations", "es-mccfr", ("--algorithm", "es-mccfr", "--regret-floor")),
        ("shared", "os-mccfr", ("--algorithm", "es-mccfr")),
    ],
)
def test_cli_split_reaches_the_run_and_is_checked(
    tmp_path: Path, split: str, algorithm: str, refused: tuple[str, ...]
) -> None:
    out = tmp_path / "split"
    common = ("ladder-1-ambassador", "--key", "perfect", "--workers", "2", "--split", split)
    res = run_cli(
        "solve", *common, "--algorithm", algorithm, "-n", "400", "--sync-iterations", "100",
        "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = load_keyed_strategy(out).meta
    assert meta["parameters"]["split"] == split
    assert meta["iterations"] == 400  # whole epochs of 100 iterations per worker
    bad = run_cli("solve", *common, *refused, "-n", "10", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2
    assert f"split '{split}'" in bad.stderr and "Traceback" not in bad.stderr


def test_journal_counts_in_the_memory_figure() -> None:
    config = GameConfig.from_params(TINY)
    par = ParallelMCCFR(config, workers=2, sync_iterations=SYNC, split="iterations", seed=2)
    par.step()
    # the journal and touched list count for the used pool and rows (capacity beyond is unwritten)
    journals = [w.solver.journal[:, : w.solver.num_slots].nbytes for w in par._workers]
    assert all(j > 0 for j in journals)
    tables = sum(sum(a.nbytes for a in w.solver.table().values()) for w in par._workers)
    touched = sum(w.solver.touched[: w.solver.num_infostates + 1].nbytes for w in par._workers)
    assert par.nbytes() == tables + sum(journals) + touched
    par.close()


def test_balance_compares_each_worker_with_the_slowest() -> None:
    config = GameConfig.from_params(TINY)
    solver = ParallelMCCFR(config, workers=2, sync_iterations=SYNC, split="iterations", seed=3)
    assert solver.balance == 1.0  # nothing measured yet
    try:
        for _ in range(4):
            solver.step()
    finally:
        solver.close()
    # four epochs, two workers: the sum of both workers' walks lies between the slowest
    # worker's total and twice it
    assert solver.slowest_walk_seconds > 0.0
    assert solver.slowest_walk_seconds <= solver.walk_seconds <= 2 * solver.slowest_walk_seconds
    assert 0.5 <= solver.balance <= 1.0
    assert solver.balance == pytest.approx(solver.walk_seconds / (2 * solver.slowest_walk_seconds))


@pytest.mark.parametrize("split", ["seats", "iterations"])
def test_packets_grow_a_small_table_without_changing_it(split: str) -> None:
    # capacity 1: the workers' tables grow while applying packets too (_upsert's regrowth)
    config = GameConfig.from_params(TINY)
    tables = []
    for capacity in (1, 1 << 14):
        solver = ParallelMCCFR(
            config, workers=2, sync_iterations=SYNC, split=split, seed=5, capacity=capacity
        )
        try:
            solver.run(10 * SYNC)
        finally:
            solver.close()
        tables.append(solver.master)
    small, large = tables
    assert small.slots.shape[0] < large.slots.shape[0]
    n = small.num_slots
    assert small.num_infostates == large.num_infostates > 0
    assert np.array_equal(
        small.row_key[: small.num_infostates], large.row_key[: large.num_infostates]
    )
    assert np.array_equal(small.regret[:n], large.regret[:n])
    assert np.array_equal(small.strategy_sum[:n], large.strategy_sum[:n])


def _equal_by_key(a: MCCFRSolver, b: MCCFRSolver) -> bool:
    """Whether two tables hold the same keys with bit-identical values."""
    x, y = _values(a), _values(b)
    return set(x) == set(y) and all(
        np.array_equal(x[k][0], y[k][0]) and np.array_equal(x[k][1], y[k][1]) for k in x
    )


@pytest.mark.parametrize("players", [2, 3])
def test_shared_split_equals_split_by_seats(players: int) -> None:
    """Reading the other worker's table gives exactly the iterates of exchanging packets.

    Capacity 1: tables grow (and re-index) while the other worker reads them.
    """
    config = GameConfig.from_params(TINY if players == 2 else THREE)
    runs = {}
    for split in ("seats", "shared"):
        solver = ParallelMCCFR(
            config, workers=2, sync_iterations=SYNC, split=split, algorithm="os", seed=5,
            capacity=1,
        )  # fmt: skip
        solver.run(20 * SYNC)
        solver.close()
        runs[split] = solver.master
    seats, shared = runs["seats"], runs["shared"]
    assert shared.num_infostates == seats.num_infostates > 0
    assert _equal_by_key(shared, seats)
    assert shared.node_visits == seats.node_visits
    assert shared.iteration == seats.iteration == 20 * SYNC


def test_shared_split_resumes_and_holds_one_table() -> None:
    config = GameConfig.from_params(TINY)
    kwargs = {"workers": 2, "sync_iterations": SYNC, "split": "shared", "algorithm": "os"}
    straight = ParallelMCCFR(config, seed=8, **kwargs)
    straight.run(10 * SYNC)
    half = ParallelMCCFR(config, seed=8, **kwargs)
    half.run(5 * SYNC)
    resumed = ParallelMCCFR(config, seed=8, **kwargs)
    resumed.set_state(half.get_state())
    resumed.run(5 * SYNC)
    assert _equal_by_key(resumed.master, straight.master)
    # each worker inserted only its own seat's rows (the other's are read in place)
    for w, worker in enumerate(straight._workers):
        per_seat = worker.solver.infostates_per_player()
        assert per_seat[w] > 0 and per_seat[1 - w] == 0
    for solver in (straight, half, resumed):
        solver.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"algorithm": "es"}, "algorithm 'os'"),
        ({"algorithm": "os", "discount": Discount()}, "without discounting"),
        ({"algorithm": "os", "baseline": 0.5}, "without discounting or baselines"),
        ({"algorithm": "os", "workers": 3}, "exactly 2 workers"),
        ({"algorithm": "os", "ray_address": "local"}, "no --ray"),
    ],
)
def test_shared_split_refuses_what_it_cannot_run(options: dict, message: str) -> None:
    config = GameConfig.from_params(THREE)
    kwargs = {"workers": 2, **options}
    with pytest.raises(ValueError, match=message):
        ParallelMCCFR(config, split="shared", **kwargs)
