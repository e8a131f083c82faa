"""Parallel MCCFR split by iterations: every worker runs whole iterations, deltas are summed.

Determinism and bit-exact resume for both splits: tests/solvers/test_mccfr_files.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.strategy_file import load_keyed_strategy
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.mccfr.parallel.solver import ParallelMCCFR
from complots_solver.solvers.mccfr.solver import Discount, MCCFRSolver
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


def _shared(config: GameConfig, **kwargs: object) -> ParallelMCCFR:
    """Two workers, split "shared", outcome sampling, sync ``SYNC``."""
    return ParallelMCCFR(
        config, workers=2, sync_iterations=SYNC, split="shared", algorithm="os", **kwargs
    )


def test_two_epoch_rounds_equal_epochs_twice_as_long() -> None:
    """In a round of 2 both epochs read the round's start: one epoch of 2 x sync does the same."""
    config = GameConfig.from_params(TINY)
    rounds = _shared(config, round_epochs=2, seed=4, capacity=1)
    rounds.run(12 * SYNC)
    rounds.close()
    long = ParallelMCCFR(
        config, workers=2, sync_iterations=2 * SYNC, split="shared", algorithm="os", seed=4
    )
    long.run(12 * SYNC)
    long.close()
    assert rounds.master.iteration == long.master.iteration == 12 * SYNC
    assert rounds.master.num_infostates > 0
    assert _equal_by_key(rounds.master, long.master)


def _watched_round_run(monkeypatch: pytest.MonkeyPatch, slow: int) -> tuple[MCCFRSolver, int]:
    """Rounds of 4 with worker ``slow`` slowed down, checking what epochs 2 and 3 read.

    Returns the merged table and how many epochs were checked.
    """
    from complots_solver.solvers.mccfr.parallel import workers

    run_epoch = workers.MCCFRWorker.run_epoch
    snapshot = workers.MCCFRWorker.snapshot
    ends: dict[tuple[int, int], np.ndarray] = {}  # (worker, stamp) -> regrets at the epoch's end
    epochs: dict[int, list[int]] = {0: [], 1: []}  # each worker's stamps so far
    checked = []

    def watched_epoch(self, stamp: int, iterations: int, first: int = 1):  # noqa: ANN001, ANN202
        i = len(epochs[self.index])
        if i % 4 >= 2:  # within a round of 4: the peer's epoch i - 2 is what it reads
            expected = ends[(1 - self.index, epochs[self.index][i - 2])]
            view = self.solver._other_regret
            assert np.array_equal(view[: expected.shape[0]], expected)
            checked.append(i)
        epochs[self.index].append(stamp)
        if self.index == slow:
            time.sleep(0.002)
        return run_epoch(self, stamp, iterations, first)

    def recorded(self):  # noqa: ANN001, ANN202
        s = self.solver
        ends[(self.index, epochs[self.index][-1])] = s.regret[: s.num_slots].copy()
        return snapshot(self)

    with monkeypatch.context() as patch:
        patch.setattr(workers.MCCFRWorker, "run_epoch", watched_epoch)
        patch.setattr(workers.MCCFRWorker, "snapshot", recorded)
        solver = _shared(GameConfig.from_params(TINY), round_epochs=4, seed=6)
        solver.run(12 * SYNC)
        solver.close()
    return solver.master, len(checked)


def test_round_epochs_read_the_other_workers_regrets_from_two_epochs_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a worker reads in epoch i >= 2 is exactly its peer's regrets at the end of epoch i - 2.

    Worker 0 is slowed down in one run and worker 1 in another: the iterates
    do not depend on which worker runs ahead.
    """
    first, checked0 = _watched_round_run(monkeypatch, 0)
    second, checked1 = _watched_round_run(monkeypatch, 1)
    assert checked0 == checked1 == 2 * 3 * 2  # two workers, three rounds, epochs 2 and 3
    assert first.num_infostates > 0
    assert _equal_by_key(first, second)
    config = GameConfig.from_params(TINY)
    plain = _shared(config, round_epochs=4, seed=6)
    plain.run(12 * SYNC)
    plain.close()
    assert _equal_by_key(plain.master, first)
    every_epoch = _shared(config, seed=6)
    every_epoch.run(12 * SYNC)
    every_epoch.close()
    assert not _equal_by_key(every_epoch.master, first)  # epochs 2 and 3 read older regrets


def test_a_round_ends_with_every_published_copy_whole() -> None:
    config = GameConfig.from_params(TINY)
    solver = _shared(config, round_epochs=3, seed=2, capacity=1)
    solver.run(9 * SYNC)
    for worker in solver._workers:
        s = worker.solver
        assert worker.published_rows == s.num_infostates > 0
        assert np.array_equal(worker.published[: s.num_slots], s.regret[: s.num_slots])
    solver.close()


def test_rounds_resume_exactly_and_refuse_other_settings() -> None:
    config = GameConfig.from_params(TINY)
    straight = _shared(config, round_epochs=3, seed=8)
    straight.run(12 * SYNC)
    half = _shared(config, round_epochs=3, seed=8)
    half.run(6 * SYNC)
    state = half.get_state()
    resumed = _shared(config, round_epochs=3, seed=8)
    resumed.set_state(state)
    resumed.run(6 * SYNC)
    assert _equal_by_key(resumed.master, straight.master)
    other = _shared(config, seed=8)
    with pytest.raises(ValueError, match="parallel settings"):
        other.set_state(state)
    for solver in (straight, half, resumed, other):
        solver.close()


def test_a_failing_worker_stops_its_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """The peer of a worker that raises is woken with an error instead of waiting forever."""
    from complots_solver.solvers.mccfr.parallel import workers

    run_epoch = workers.MCCFRWorker.run_epoch

    def failing(self, stamp: int, iterations: int, first: int = 1):  # noqa: ANN001, ANN202
        if self.index == 1:
            raise MemoryError("worker 1 ran out")
        return run_epoch(self, stamp, iterations, first)

    monkeypatch.setattr(workers.MCCFRWorker, "run_epoch", failing)
    solver = _shared(GameConfig.from_params(TINY), round_epochs=4, seed=1)
    with pytest.raises((MemoryError, RuntimeError)):
        solver.step()
    monkeypatch.undo()
    solver._pool.shutdown()


@pytest.mark.parametrize("options", [{"round_epochs": 0}, {"round_epochs": 2, "split": "seats"}])
def test_round_epochs_must_be_positive_and_split_shared(options: dict) -> None:
    kwargs = {"workers": 2, "split": "shared", "algorithm": "os", **options}
    with pytest.raises(ValueError, match="round_epochs must be >= 1"):
        ParallelMCCFR(GameConfig.from_params(TINY), **kwargs)


def test_cli_round_epochs_reach_the_run_and_are_checked(tmp_path: Path) -> None:
    out = tmp_path / "rounds"
    common = ("ladder-1-ambassador", "--key", "perfect", "--workers", "2", "--algorithm")
    res = run_cli(
        "solve", *common, "os-mccfr", "--split", "shared", "--round-epochs", "2",
        "--sync-iterations", "100", "-n", "300", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = load_keyed_strategy(out).meta
    assert meta["parameters"]["round_epochs"] == 2
    assert meta["iterations"] == 400  # whole rounds of 2 epochs of 100 iterations
    for bad in (
        ("--split", "seats", "--round-epochs", "2"),
        ("--split", "shared", "--round-epochs", "0"),
    ):
        res = run_cli("solve", *common, "os-mccfr", *bad, "-n", "10", "--out", str(tmp_path / "x"))
        assert res.returncode == 2
        assert "round_epochs must be >= 1" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("split", ["seats", "iterations", "shared"])
def test_cheap_counts_equal_the_merged_tables(split: str) -> None:
    """iteration, node_visits and num_infostates are read without merging, and agree with it."""
    solver = ParallelMCCFR(
        GameConfig.from_params(TINY), workers=2, sync_iterations=SYNC, split=split,
        algorithm="os", seed=3,
    )  # fmt: skip
    for _ in range(3):
        solver.step()
        cheap = (solver.iteration, solver.node_visits, solver.num_infostates)
        assert not solver._fresh  # nothing above merged the tables
        merged = solver.master
        assert cheap == (merged.iteration, merged.node_visits, merged.num_infostates)
        assert cheap[1] > 0 and cheap[2] > 0
    solver.close()


def test_a_run_merges_the_shared_tables_only_to_checkpoint_and_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The progress log and bar use the cheap counts: a merge copies the whole table."""
    from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings

    merges = []
    merge = ParallelMCCFR.master.fget

    def counted(self: ParallelMCCFR) -> MCCFRSolver:
        merges.append(self._fresh)
        return merge(self)

    monkeypatch.setattr(ParallelMCCFR, "master", property(counted))
    settings = MCCFRSettings(
        algorithm="os", key="perfect", iterations=20 * SYNC, workers=2, sync_iterations=SYNC,
        split="shared", round_epochs=2,
    )  # fmt: skip
    config = GameConfig.from_params(TINY)
    run = MCCFRRun(tmp_path / "run", config, settings)
    saved = run.run()
    assert run.iteration == 20 * SYNC
    assert merges.count(False) == 1  # the final checkpoint's; saving finds the merge fresh
    assert len(run.log) == 10  # one line per round of 2 epochs
    assert run.log[-1][3] == saved.meta["information_states"]["total"]
    assert run.log[-1][2] == saved.meta["node_visits"]


def test_the_master_drops_its_merged_copy_while_the_workers_run() -> None:
    solver = _shared(GameConfig.from_params(TINY), seed=3)
    solver.run(4 * SYNC)
    merged = solver.master
    rows, held = merged.num_infostates, merged.regret.nbytes
    assert rows > 0 and merged.regret.shape[0] >= merged.num_slots > 0
    solver.step()
    assert solver._master.num_infostates == 0  # dropped: the workers hold the table
    assert solver._master.regret.nbytes < held
    assert solver.iteration == 5 * SYNC  # the counts are kept
    assert solver.master.num_infostates >= rows  # merged again on demand
    solver.close()


@pytest.mark.parametrize("round_epochs", [1, 3])
def test_ctrl_c_while_the_workers_run_finishes_the_step_first(
    round_epochs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during an epoch stops the run after the step, whose tables are whole."""
    import os
    import signal

    from complots_solver.solvers.mccfr.parallel import workers

    config = GameConfig.from_params(TINY)
    straight = _shared(config, seed=9, round_epochs=round_epochs)
    straight.run(6 * round_epochs * SYNC)
    straight.close()
    run_epoch = workers.MCCFRWorker.run_epoch
    pressed = []

    def ctrl_c(self, stamp: int, iterations: int, first: int = 1):  # noqa: ANN001, ANN202
        if self.index == 1 and not pressed:
            pressed.append(stamp)
            # a real SIGINT, as a terminal sends: it wakes the main thread's blocking wait
            # (interrupt_main only sets a flag, seen late on a loaded machine)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        return run_epoch(self, stamp, iterations, first)

    solver = _shared(config, seed=9, round_epochs=round_epochs)
    solver.run(2 * round_epochs * SYNC)
    # Python's own Ctrl-C handler, as the command line has it (a parallel test runner's
    # worker ignores SIGINT so that only its controller hears a Ctrl-C)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(workers.MCCFRWorker, "run_epoch", ctrl_c)
            with pytest.raises(KeyboardInterrupt):
                solver.step()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert pressed and solver.consistent
    assert solver.iteration == 3 * round_epochs * SYNC  # the interrupted step counted whole
    solver.run(3 * round_epochs * SYNC)
    solver.close()
    assert _equal_by_key(solver.master, straight.master)


def test_a_step_that_raises_leaves_the_solver_marked_inconsistent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose worker fails keeps its last good checkpoint instead of writing a torn one."""
    from complots_solver.solvers.common.rundir import CHECKPOINT_FILE
    from complots_solver.solvers.mccfr.parallel import workers
    from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings
    from complots_solver.solvers.mccfr.table import CT_ITER

    settings = MCCFRSettings(
        algorithm="os", key="perfect", iterations=20 * SYNC, workers=2, sync_iterations=SYNC,
        split="shared", checkpoint_seconds=1e-9,
    )  # fmt: skip
    run = MCCFRRun(tmp_path / "run", GameConfig.from_params(TINY), settings)
    run_epoch = workers.MCCFRWorker.run_epoch
    calls = []

    def failing(self, stamp: int, iterations: int, first: int = 1):  # noqa: ANN001, ANN202
        calls.append(stamp)
        if len(calls) > 6 and self.index == 0:
            run_epoch(self, stamp, iterations, first)  # its table changed, then it fails
            raise MemoryError("worker 0 ran out")
        return run_epoch(self, stamp, iterations, first)

    monkeypatch.setattr(workers.MCCFRWorker, "run_epoch", failing)
    with pytest.raises(MemoryError):
        run.run()
    assert not run.solver.consistent
    with np.load(tmp_path / "run" / CHECKPOINT_FILE) as npz:
        saved_iteration = int(npz["solver_counters"][CT_ITER])
    assert saved_iteration == run.iteration == 3 * SYNC  # the last whole step's
