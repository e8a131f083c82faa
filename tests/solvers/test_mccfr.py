"""Tests for the numba MCCFR solvers: convergence, determinism, resume, keys, tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.solver import Discount, MCCFRSolver
from complots_solver.solvers.mccfr.table import (
    RI_STAMP,
    SL_KEY,
    SL_LEN,
    SL_ROW,
    SL_START,
    TABLE_ARRAYS,
    probe,
)

TINY = {"players": 2, "influence": 1, "max_turns": 2}
THREE_PLAYERS = {"players": 3, "influence": 1, "max_turns": 2}
ES_ITERATIONS = 5000
ES_THRESHOLD = 0.02  # measured 0.011 at 5000 iterations (seed 0: see the test)
OS_ITERATIONS = 20000
OS_THRESHOLD = 0.1  # measured about 0.06
UNIFORM_EXPLOITABILITY_FLOOR = 0.3  # the uniform strategy is far worse
SHORT_RUN = 300
SETUPS = [
    {},
    {"algorithm": "os"},
    {"key": "markov"},
    {"key": "compact"},
    {"averaging": "linear", "discount": Discount(interval=50)},
]


@pytest.fixture(scope="module")
def tiny_config() -> GameConfig:
    """The tiny 2-player game: one influence, two turns."""
    return GameConfig.from_params(TINY)


@pytest.fixture(scope="module")
def tiny_tree(tiny_config: GameConfig) -> Tree:
    """Compiled tree of the tiny game (numba compiler, OpenSpiel walk as a fallback)."""
    try:
        from complots_solver.solvers.exact.complots_tree import compile_complots_tree
    except ImportError:  # pragma: no cover - the numba compiler is optional here
        import pyspiel

        import complots_solver.openspiel  # noqa: F401  (registers "complots")
        from complots_solver.solvers.exact.tree import compile_openspiel_tree

        return compile_openspiel_tree(pyspiel.load_game(tiny_config.game_string()))
    return compile_complots_tree(tiny_config)


def _tables_equal(a: MCCFRSolver, b: MCCFRSolver) -> bool:
    """Whether two solvers hold bit-identical tables and counters."""
    sa, sb = a.get_state(), b.get_state()
    return all(np.array_equal(sa[name], sb[name]) for name in TABLE_ARRAYS)


def test_es_converges_on_tiny_game(tiny_config: GameConfig, tiny_tree: Tree) -> None:
    solver = MCCFRSolver(tiny_config, seed=0)
    uniform = exploitability(tiny_tree, tiny_tree.uniform_strategy())
    assert uniform > UNIFORM_EXPLOITABILITY_FLOOR
    solver.run(ES_ITERATIONS)
    strategy, found, _ = solver.tree_strategy(tiny_tree)
    assert found > 0
    assert exploitability(tiny_tree, strategy) < ES_THRESHOLD
    assert solver.key_conflicts == 0
    # perfect keys never merge the tree's information sets
    assert solver.num_infostates <= tiny_tree.num_infosets


def test_os_converges_on_tiny_game(tiny_config: GameConfig, tiny_tree: Tree) -> None:
    solver = MCCFRSolver(tiny_config, algorithm="os", seed=0)
    solver.run(OS_ITERATIONS)
    assert solver.exploitability(tiny_tree) < OS_THRESHOLD


@pytest.mark.parametrize("setup", SETUPS)
def test_same_seed_same_tables(tiny_config: GameConfig, setup: dict) -> None:
    a = MCCFRSolver(tiny_config, seed=7, **setup)
    b = MCCFRSolver(tiny_config, seed=7, **setup)
    c = MCCFRSolver(tiny_config, seed=8, **setup)
    for solver in (a, b, c):
        solver.run(SHORT_RUN)
    assert _tables_equal(a, b)
    assert not _tables_equal(a, c)


@pytest.mark.parametrize("setup", SETUPS)
def test_resume_is_bit_exact(tiny_config: GameConfig, tmp_path: Path, setup: dict) -> None:
    straight = MCCFRSolver(tiny_config, seed=3, **setup)
    straight.run(2 * SHORT_RUN)
    first = MCCFRSolver(tiny_config, seed=3, **setup)
    first.run(SHORT_RUN)
    path = tmp_path / "checkpoint.npz"
    first.save_checkpoint(path)
    resumed = MCCFRSolver(tiny_config, seed=12345, **setup)  # the seed comes from the file
    resumed.load_checkpoint(path)
    resumed.run(SHORT_RUN)
    assert resumed.iteration == straight.iteration
    assert _tables_equal(resumed, straight)
    # get_state / set_state in memory too
    again = MCCFRSolver(tiny_config, seed=0, **setup)
    again.set_state(first.get_state())
    again.run(SHORT_RUN)
    assert _tables_equal(again, straight)


def test_checkpoint_of_the_older_slot_layout_resumes(
    tiny_config: GameConfig, tmp_path: Path
) -> None:
    # checkpoints written before the `slots` index held `slot_key`/`slot_row` arrays
    straight = MCCFRSolver(tiny_config, seed=3)
    straight.run(2 * SHORT_RUN)
    first = MCCFRSolver(tiny_config, seed=3)
    first.run(SHORT_RUN)
    state = first.get_state()
    slots = state.pop("slots")
    state["slot_key"] = slots[:, SL_KEY].copy()
    state["slot_row"] = slots[:, SL_ROW].copy()
    path = tmp_path / "older.npz"
    np.savez(path, **state)
    resumed = MCCFRSolver(tiny_config, seed=0)
    resumed.load_checkpoint(path)
    rows = resumed.num_infostates
    assert rows > 0 and resumed.slots.shape == slots.shape
    for r in range(rows):  # every row is indexed again, with its pool start and length
        entry = resumed.slots[probe(resumed.slots, resumed.row_key[r])]
        assert entry[SL_ROW] == r and entry[SL_KEY] == resumed.row_key[r]
        assert (entry[SL_START], entry[SL_LEN]) == tuple(resumed.row_info[r, :2])
    resumed.run(SHORT_RUN)
    done, expected = resumed.get_state(), straight.get_state()
    for name in TABLE_ARRAYS:
        if name != "slots":  # slot positions may differ: the index was rebuilt in row order
            assert np.array_equal(done[name], expected[name]), name


def test_checkpoint_settings_must_match(tiny_config: GameConfig) -> None:
    solver = MCCFRSolver(tiny_config)
    solver.run(1)
    other = MCCFRSolver(tiny_config, key="markov")
    with pytest.raises(ValueError, match="settings"):
        other.set_state(solver.get_state())


@pytest.mark.parametrize(
    "options",
    [{}, {"algorithm": "os", "baseline": 0.5}],
    ids=["es", "os-with-baselines"],
)
def test_table_growth_does_not_change_results(
    tiny_config: GameConfig, options: dict[str, object]
) -> None:
    # the table regrows many times inside one run (the walk returns, _run grows it)
    small = MCCFRSolver(tiny_config, seed=5, capacity=1, **options)
    large = MCCFRSolver(tiny_config, seed=5, capacity=1 << 14, **options)
    small.run(SHORT_RUN)
    large.run(SHORT_RUN)
    ta, tb = small.average_table(), large.average_table()
    assert small.slots.shape[0] < large.slots.shape[0]
    # the walk stops for every growth and enters the interrupted node again: counted once
    assert small.node_visits == large.node_visits
    for name in ta:
        assert np.array_equal(ta[name], tb[name])
    assert small.bytes_per_infostate() == large.bytes_per_infostate()
    # the memory figure counts the used rows and pool, whatever the capacity beyond them
    assert small.regret.shape[0] != large.regret.shape[0]
    index_and_lists = [s.slots.nbytes + s.touched.nbytes for s in (small, large)]
    assert small.nbytes() - index_and_lists[0] == large.nbytes() - index_and_lists[1]


@pytest.mark.parametrize("options", SETUPS[:2], ids=["es", "os"])
def test_unwritten_capacity_never_reaches_the_results(
    tiny_config: GameConfig, options: dict[str, object]
) -> None:
    # rows and pool grow into memory left unwritten: an insertion must write every field
    clean = MCCFRSolver(tiny_config, seed=8, capacity=1, **options)
    poisoned = MCCFRSolver(tiny_config, seed=8, capacity=1, **options)
    for solver in (clean, poisoned):
        solver.run(SHORT_RUN // 3)
    rows, used = poisoned.num_infostates, poisoned.num_slots
    assert poisoned.row_info.shape[0] > rows and poisoned.regret.shape[0] > used
    poisoned.row_info[rows:] = -7
    poisoned.row_key[rows:] = 99
    poisoned.pool_action[used:] = -1
    poisoned.regret[used:] = np.nan
    poisoned.strategy_sum[used:] = np.nan
    for solver in (clean, poisoned):
        solver.run(SHORT_RUN)
    assert poisoned.num_slots > used  # rows were inserted into the poisoned capacity
    assert _tables_equal(clean, poisoned)
    assert np.isfinite(poisoned.regret[: poisoned.num_slots]).all()


def test_table_and_checkpoint_hold_only_the_used_part(tiny_config: GameConfig) -> None:
    solver = MCCFRSolver(tiny_config, seed=4, capacity=1 << 12)
    solver.run(SHORT_RUN)
    rows, used = solver.num_infostates, solver.num_slots
    assert solver.regret.shape[0] > used  # capacity to spare
    table = solver.table()
    assert table["row_info"].shape[0] == table["row_key"].shape[0] == rows
    for name in ("pool_action", "regret", "strategy_sum"):
        assert table[name].shape[0] == used, name
    assert table["slots"].shape == solver.slots.shape  # the index is kept whole
    assert np.shares_memory(table["regret"], solver.regret)  # references, not copies


def test_average_table_is_a_distribution(tiny_config: GameConfig) -> None:
    solver = MCCFRSolver(tiny_config, seed=1)
    solver.run(SHORT_RUN)
    table = solver.average_table()
    sums = np.add.reduceat(table["average"], table["action_offsets"][:-1])
    assert np.allclose(sums, 1.0)
    assert len(np.unique(table["key"])) == solver.num_infostates


@pytest.mark.parametrize("algorithm", ["es", "os"])
def test_three_players_run(algorithm: str) -> None:
    config = GameConfig.from_params(THREE_PLAYERS)
    solver = MCCFRSolver(config, algorithm=algorithm, seed=2)
    solver.run(50)
    assert solver.num_infostates > 0
    assert (solver.infostates_per_player() > 0).all()
    assert solver.key_conflicts == 0


def test_markov_and_compact_keys_are_coarser(tiny_config: GameConfig, tiny_tree: Tree) -> None:
    counts = {}
    for key in ("perfect", "markov", "compact"):
        solver = MCCFRSolver(tiny_config, key=key, seed=4)
        solver.run(2 * SHORT_RUN)
        counts[key] = solver.num_infostates
        strategy, _, _ = solver.tree_strategy(tiny_tree)
        assert np.isfinite(exploitability(tiny_tree, strategy))
    assert counts["markov"] < counts["perfect"]
    assert counts["compact"] <= counts["markov"]


def test_invalid_settings() -> None:
    config = GameConfig.from_params(TINY)
    with pytest.raises(ValueError, match="algorithm"):
        MCCFRSolver(config, algorithm="cfr")
    with pytest.raises(ValueError, match="key"):
        MCCFRSolver(config, key="lossy")
    with pytest.raises(ValueError, match="averaging"):
        MCCFRSolver(config, averaging="quadratic")
    with pytest.raises(ValueError, match="epsilon"):
        MCCFRSolver(config, epsilon=0.0)
    with pytest.raises(ValueError, match="interval"):
        MCCFRSolver(config, discount=Discount(interval=0))


def test_tree_of_another_game_is_rejected(tiny_tree: Tree) -> None:
    other = GameConfig.from_params({**TINY, "lineup": "inquisitor"})
    solver = MCCFRSolver(other)
    with pytest.raises(ValueError, match="does not match"):
        solver.tree_strategy(tiny_tree)


def test_current_table_is_regret_matching(tiny_config: GameConfig) -> None:
    solver = MCCFRSolver(tiny_config, algorithm="os", key="perfect", seed=6)
    solver.run(SHORT_RUN)
    current, average = solver.current_table(), solver.average_table()
    np.testing.assert_array_equal(current["key"], average["key"])
    offsets = current["action_offsets"]
    starts = solver.row_info[: solver.num_infostates, 0]
    differs = False
    for r in range(solver.num_infostates):
        probs = current["average"][offsets[r] : offsets[r + 1]]
        regret = solver.regret[starts[r] : starts[r] + len(probs)]
        positive = np.maximum(regret, 0.0)
        expected = (
            positive / positive.sum() if positive.sum() > 0 else np.full(len(probs), 1 / len(probs))
        )
        np.testing.assert_allclose(probs, expected)
        differs |= not np.allclose(probs, average["average"][offsets[r] : offsets[r + 1]])
    assert differs  # the current strategy is not the average


@pytest.mark.parametrize(
    ("algorithm", "players", "stored"),
    [("os", 2, [0]), ("os", 3, [0]), ("es", 2, [0, 1]), ("es", 3, [0, 1])],
)
def test_only_rows_a_visit_writes_are_stored(algorithm: str, players: int, stored: list) -> None:
    """Seat 0 alone traversing stores seat 0's rows, and seat 1's with ES (its strategy sums)."""
    config = GameConfig.from_params(TINY if players == 2 else THREE_PLAYERS)
    solver = MCCFRSolver(config, algorithm=algorithm, key="perfect", seed=4)
    solver.set_traversers([0])
    solver.run(300)
    per_seat = solver.infostates_per_player()
    assert [p for p in range(players) if per_seat[p] > 0] == stored
    # the other seats still act (sampled uniformly from their absent rows): seat 0 learns
    assert np.abs(solver.regret[: solver.num_slots]).sum() > 0


def test_os_baselines_store_the_opponents_rows() -> None:
    """In a 2-player game, outcome sampling with baselines writes the opponent's baselines."""
    config = GameConfig.from_params(TINY)
    solver = MCCFRSolver(config, algorithm="os", key="perfect", seed=4, baseline=0.5)
    solver.set_traversers([0])
    solver.run(300)
    assert (solver.infostates_per_player() > 0).all()
    assert np.abs(solver.baseline[: solver.num_slots]).sum() > 0


@pytest.mark.parametrize("algorithm", ["es", "os"])
def test_touched_rows_list_each_stamped_row_once(algorithm: str) -> None:
    """The rows listed since ``set_stamp`` are exactly the rows carrying that stamp."""
    config = GameConfig.from_params(TINY)
    solver = MCCFRSolver(config, algorithm=algorithm, key="perfect", seed=6, capacity=1)
    solver.run(100)  # unstamped: a table to start from
    assert len(solver.touched_rows()) == 0
    for stamp in (7, 8):
        solver.set_stamp(stamp)
        solver.run(100)  # the table grows meanwhile (capacity 1)
        listed = solver.touched_rows()
        stamps = solver.row_info[: solver.num_infostates, RI_STAMP]
        assert len(np.unique(listed)) == len(listed) > 0
        assert np.array_equal(np.sort(listed), np.flatnonzero(stamps == stamp))
