"""MCCFR strategy files, live-state lookups, parallel workers, sampled evaluation, CLI solve."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.strategy_file import (
    STRATEGY_FILE,
    keyed_strategy,
    load_keyed_strategy,
    load_strategy,
    save_keyed_strategy,
)
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.evaluate import best_response_bound, play_games
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION, PERFECT_SEED, chain, mix
from complots_solver.solvers.mccfr.parallel.solver import ParallelMCCFR
from complots_solver.solvers.mccfr.parallel.workers import ownership
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import TABLE_ARRAYS
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

TINY = {"players": 2, "influence": 1, "max_turns": 2}
THREE = {"players": 3, "influence": 1, "max_turns": 2}
TRAIN = 2000
SYNC = 50
EPOCHS = 4
RANDOM_GAMES = 40
MIN_HIT_RATE = 0.9  # share of random-play decisions whose key the trained table holds
PARALLEL_THRESHOLD = 0.03  # W=2, sync 50, ES, 5000 iterations: measured 0.016 (serial 0.012)
PARALLEL_ITERATIONS = 5000
PLAY_GAMES = 4000
BR_SECONDS = 1.0
BR_GAMES = 20000
FLOOR_THRESHOLD = 0.04  # ES with regret matching+, 5000 iterations: measured 0.022 (plain 0.012)
FLOOR_ITERATIONS = 5000
BASELINE = 0.2
BASELINE_ITERATIONS = 20000
BASELINE_THRESHOLD = (
    0.07  # OS with baselines, 20000 iterations, seed 3: measured 0.035 (none: 0.057)
)


@pytest.fixture(scope="module")
def tiny() -> GameConfig:
    """The tiny 2-player game: one influence, two turns."""
    return GameConfig.from_params(TINY)


@pytest.fixture(scope="module")
def tiny_tree(tiny: GameConfig) -> Tree:
    """Its compiled tree."""
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree

    return compile_complots_tree(tiny)


@pytest.fixture(scope="module", params=["perfect", "markov"])
def trained(request: pytest.FixtureRequest, tiny: GameConfig) -> MCCFRSolver:
    """An ES solver trained on the tiny game with each key."""
    solver = MCCFRSolver(tiny, key=request.param, seed=11)
    solver.run(TRAIN)
    return solver


def _meta(solver: MCCFRSolver) -> dict:
    """Minimal metadata of a keyed file."""
    return {
        "game": solver.config.game_string(),
        "key_scheme": {"name": solver.key, "version": KEY_SCHEME_VERSION},
        "iterations": solver.iteration,
    }


def _saved(solver: MCCFRSolver, directory: Path) -> KeyedPolicy:
    """Save the solver's table as a keyed file and load it back as a policy."""
    save_keyed_strategy(directory, keyed_strategy(solver.average_table(), _meta(solver)))
    return KeyedPolicy.load(directory)


def _random_decisions(config: GameConfig, games: int, seed: int):
    """Decision states of uniformly random games of the registered game."""
    rng = np.random.default_rng(seed)
    game = pyspiel.load_game(config.game_string())
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            yield state
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_keyed_file_round_trip(trained: MCCFRSolver, tmp_path: Path) -> None:
    table = trained.average_table()
    save_keyed_strategy(tmp_path, keyed_strategy(table, _meta(trained)))
    loaded = load_keyed_strategy(tmp_path)
    assert loaded.meta["format"] == "complots-keyed-strategy"
    assert np.all(np.diff(loaded.key) > 0)
    assert loaded.num_infostates == trained.num_infostates
    order = np.argsort(table["key"])
    for i in (0, len(order) // 2, len(order) - 1):
        r = order[i]
        lo, hi = table["action_offsets"][r : r + 2]
        a, b = loaded.action_offsets[i : i + 2]
        assert loaded.key[i] == table["key"][r] and loaded.player[i] == table["player"][r]
        np.testing.assert_array_equal(loaded.legal_actions[a:b], table["legal_actions"][lo:hi])
        np.testing.assert_array_equal(loaded.average[a:b], table["average"][lo:hi])
    with pytest.raises(ValueError, match="keyed"):
        load_strategy(tmp_path)  # the tree-aligned reader refuses it by name
    data = bytearray((tmp_path / STRATEGY_FILE).read_bytes())
    data[-10] ^= 0xFF
    (tmp_path / STRATEGY_FILE).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        load_keyed_strategy(tmp_path)


def test_lookup_matches_average_table(
    trained: MCCFRSolver, tiny_tree: Tree, tmp_path: Path
) -> None:
    policy = _saved(trained, tmp_path)
    table = trained.average_table()
    row_of = {int(k): r for r, k in enumerate(table["key"])}
    hits = total = 0
    for state in _random_decisions(trained.config, RANDOM_GAMES, seed=3):
        player = state.current_player()
        probs = policy.probabilities(state, player)
        assert sorted(probs) == sorted(state.legal_actions())
        assert sum(probs.values()) == pytest.approx(1.0)
        key, _ = policy.key_of_history(state.history())
        if trained.key == "perfect":  # independent of the replay: hash the pyspiel tokens
            h = np.uint64(mix(np.uint64(PERFECT_SEED + player)))
            for token in state.view_tokens(player):
                h = np.uint64(chain(h, token))  # numba returns Python ints: keep uint64
            assert int(np.int64(h)) == key
        total += 1
        if key in row_of:
            hits += 1
            r = row_of[key]
            lo, hi = table["action_offsets"][r : r + 2]
            expected = dict(
                zip(table["legal_actions"][lo:hi], table["average"][lo:hi], strict=True)
            )
            assert probs == pytest.approx({int(a): p for a, p in expected.items()})
    assert hits / total >= MIN_HIT_RATE
    assert policy.misses == total - hits
    # the loaded file maps onto the compiled tree exactly like the live solver
    ours, _, _ = trained.tree_strategy(tiny_tree)
    theirs, _, _ = policy.tree_strategy(tiny_tree)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    first = next(_random_decisions(trained.config, 1, seed=0))
    with pytest.raises(ValueError, match="not to move"):
        policy.probabilities(first, 1 - first.current_player())


def _same_tables(a: MCCFRSolver, b: MCCFRSolver) -> bool:
    """Whether two solvers hold bit-identical tables and counters."""
    return all(np.array_equal(a.table()[n], b.table()[n]) for n in TABLE_ARRAYS)


@pytest.mark.parametrize("split", ["seats", "iterations"])
@pytest.mark.parametrize("algorithm", ["es", "os"])
def test_parallel_is_deterministic_and_resumes(
    tiny: GameConfig, tmp_path: Path, algorithm: str, split: str
) -> None:
    def make(split: str = split) -> ParallelMCCFR:
        return ParallelMCCFR(
            tiny, workers=2, sync_iterations=SYNC, split=split, algorithm=algorithm, seed=5
        )

    a, b = make(), make()
    per_epoch = SYNC * (2 if split == "iterations" else 1)  # split by iterations: SYNC per worker
    assert a.epoch_iterations == per_epoch
    a.run(EPOCHS * a.epoch_iterations)
    b.run(EPOCHS * b.epoch_iterations)
    assert a.master.iteration == EPOCHS * per_epoch
    assert _same_tables(a.master, b.master)
    half = make()
    half.run(EPOCHS // 2 * half.epoch_iterations)
    resumed = make()
    resumed.set_state(half.get_state())
    resumed.run(EPOCHS // 2 * resumed.epoch_iterations)
    assert _same_tables(resumed.master, a.master)
    serial = MCCFRSolver(tiny, algorithm=algorithm, seed=5)
    serial.run(a.master.iteration)
    assert not _same_tables(serial, a.master)  # documented: a (slightly) different algorithm
    single = ParallelMCCFR(tiny, workers=1, split=split, algorithm=algorithm, seed=5)
    single.run(a.master.iteration)
    assert _same_tables(single.master, serial)  # one worker is exactly the serial solver
    other = make("seats" if split == "iterations" else "iterations")
    with pytest.raises(ValueError, match="parallel settings"):
        other.set_state(half.get_state())  # a checkpoint of the other split is refused
    for solver in (a, b, half, resumed, single, other):
        solver.close()


@pytest.mark.parametrize("algorithm", ["es", "os"])
def test_epoch_exchange_takes_owned_values(algorithm: str) -> None:
    """After an epoch every worker holds, for each row, the values of the worker owning them."""
    config = GameConfig.from_params(THREE)  # 2 workers: seats {0, 2} and {1}
    kwargs = {"algorithm": algorithm, "key": "perfect"}
    par = ParallelMCCFR(config, workers=2, sync_iterations=SYNC, seed=1, **kwargs)
    par.step()  # a non-empty table to start from
    owners = ownership(config.players, 2, algorithm)
    twins = []
    for worker, (seats, _, _) in zip(par._workers, owners, strict=True):
        twin = MCCFRSolver(config, seed=0, **kwargs)
        twin.load_table(worker.solver.table())
        twin.rng.bit_generator.state = worker.get_rng_state()
        twin.set_traversers(seats, [p for p in range(config.players) if worker.owned >> p & 1])
        twin.run(SYNC)
        twins.append(_rows(twin.table()))
    par.step()
    tables = [_rows(worker.solver.table()) for worker in par._workers]
    assert set(tables[0]) == set(tables[1]) == set(twins[0]) | set(twins[1])
    for key, (player, regret, ssum) in tables[0].items():
        other = tables[1][key]
        assert np.array_equal(regret, other[1]) and np.array_equal(ssum, other[2])
        regret_owner = next(w for w, (_, r, _) in enumerate(owners) if r >> player & 1)
        ssum_owner = next(w for w, (_, _, s) in enumerate(owners) if s >> player & 1)
        zero = (player, np.zeros_like(regret), np.zeros_like(ssum))
        np.testing.assert_array_equal(regret, twins[regret_owner].get(key, zero)[1])
        np.testing.assert_array_equal(ssum, twins[ssum_owner].get(key, zero)[2])
    assert par.master.iteration == 2 * SYNC
    par.close()


def _rows(table: dict) -> dict[int, tuple[int, np.ndarray, np.ndarray]]:
    """(player, regrets, strategy sums) of every row, by information key."""
    info = table["row_info"]
    out = {}
    for r in range(int(table["counters"][0])):  # CT_ROWS
        lo, hi = info[r, 0], info[r, 0] + info[r, 1]
        out[int(table["row_key"][r])] = (
            int(info[r, 2]),
            table["regret"][lo:hi].copy(),
            table["strategy_sum"][lo:hi].copy(),
        )
    return out


def test_parallel_es_converges(tiny: GameConfig, tiny_tree: Tree) -> None:
    par = ParallelMCCFR(tiny, workers=2, sync_iterations=SYNC, algorithm="es", seed=0)
    par.run(PARALLEL_ITERATIONS)
    par.close()
    strategy, _, _ = par.master.tree_strategy(tiny_tree)
    assert exploitability(tiny_tree, strategy) < PARALLEL_THRESHOLD


def test_sampled_bound_is_below_exact(tiny: GameConfig, tiny_tree: Tree) -> None:
    solver = MCCFRSolver(tiny, key="perfect", seed=2)
    solver.run(TRAIN // 10)  # an unconverged strategy: clearly exploitable
    exact = solver.exploitability(tiny_tree)
    policy = solver.policy_table()
    stats = play_games(tiny, [policy, policy], PLAY_GAMES, seed=1)
    assert stats.mean[0] == pytest.approx(-stats.mean[1])
    assert 0.0 <= stats.capped_share <= 1.0
    bound = best_response_bound(tiny, policy, BR_SECONDS, BR_GAMES, responder_key="perfect")
    assert bound.ci95[0] <= exact  # a lower bound (with its sampling error)
    assert bound.lower_bound > 0.0


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess and capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow  # four solve processes; the default suite resumes MCCFR in test_kill_resume
def test_cli_mccfr_resume_equals_uninterrupted(tmp_path: Path) -> None:
    """A run split in two with --resume equals the uninterrupted run, array for array."""
    straight, split = tmp_path / "straight", tmp_path / "split"
    common = ("ladder-1-ambassador", "--algorithm", "es-mccfr", "--key", "perfect")
    res = run_cli("solve", *common, "-n", "400", "--out", str(straight), "--exact")
    assert res.returncode == 0, res.stderr
    assert "exploitability" in res.stdout and "infostates" in res.stdout
    assert run_cli("solve", *common, "-n", "200", "--out", str(split)).returncode == 0
    again = run_cli("solve", *common, "-n", "400", "--out", str(split))
    assert again.returncode == 2 and "--resume" in again.stderr
    res = run_cli("solve", *common, "-n", "400", "--out", str(split), "--resume")
    assert res.returncode == 0, res.stderr
    a, b = load_keyed_strategy(straight), load_keyed_strategy(split)
    assert a.meta["iterations"] == b.meta["iterations"] == 400
    np.testing.assert_array_equal(a.key, b.key)
    np.testing.assert_array_equal(a.average, b.average)
    assert a.meta["node_visits"] == b.meta["node_visits"]
    assert a.meta["exploitability"] > 0 and b.meta["exploitability"] is None
    assert a.meta["key_scheme"] == {"name": "perfect", "version": KEY_SCHEME_VERSION}
    config = json.loads((split / "config.json").read_text())
    assert config["solver"]["algorithm"] == "es"
    bad = run_cli("solve", *common, "-n", "10", "--out", str(tmp_path / "x"), "--simultaneous")
    assert bad.returncode == 2 and "exact algorithms only" in bad.stderr
    bad = run_cli("solve", "ladder-1-ambassador", "--workers", "2", "--out", str(tmp_path / "y"))
    assert bad.returncode == 2 and "es-mccfr and os-mccfr only" in bad.stderr


@pytest.mark.slow
def test_ray_workers_equal_threads(tiny: GameConfig) -> None:
    ray = pytest.importorskip("ray")
    try:
        for split in ("seats", "iterations"):
            kwargs = {"sync_iterations": SYNC, "algorithm": "os", "seed": 9, "split": split}
            threads = ParallelMCCFR(tiny, workers=2, **kwargs)
            on_ray = ParallelMCCFR(tiny, workers=2, ray_address="local", **kwargs)
            threads.run(EPOCHS * threads.epoch_iterations)
            on_ray.run(EPOCHS * on_ray.epoch_iterations)
            assert _same_tables(threads.master, on_ray.master), split
            threads.close()
            on_ray.close()
    finally:
        ray.shutdown()


def test_cli_mccfr_discount_and_regret_floor(tmp_path: Path) -> None:
    """--discount-interval/--alpha/--beta/--gamma and --regret-floor reach the solver and the files."""
    out = tmp_path / "dcfr"
    common = ("ladder-1-ambassador", "--algorithm", "os-mccfr", "--key", "perfect", "-n", "300")
    res = run_cli(
        "solve", *common, "--out", str(out), "--regret-floor",
        "--discount-interval", "50", "--alpha", "1", "--beta", "1", "--gamma", "1",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    meta = load_keyed_strategy(out).meta
    assert meta["parameters"]["regret_floor"] is True
    assert meta["parameters"]["discount"] == {
        "interval": 50,
        "alpha": 1.0,
        "beta": 1.0,
        "gamma": 1.0,
    }
    with np.load(out / "checkpoint.npz") as npz:
        used = int(npz["solver_counters"][1])
        assert (npz["solver_regret"][:used] >= 0.0).all()  # floored
        assert int(npz["solver_counters"][5]) == 300 // 50  # discount steps done
    # resuming with another value of a setting is refused by name; without it, it is kept
    bad = run_cli(
        "solve", *common[:-2], "-n", "400", "--out", str(out), "--resume",
        "--option", "regret_floor=false",
    )  # fmt: skip
    assert bad.returncode == 2 and "regret_floor" in bad.stderr
    kept = run_cli("solve", *common[:-2], "-n", "400", "--out", str(out), "--resume")
    assert kept.returncode == 0, kept.stderr
    solver = json.loads((out / "config.json").read_text())["solver"]
    assert solver["regret_floor"] is True and solver["discount_interval"] == 50
    assert load_keyed_strategy(out).meta["iterations"] == 400
    bad = run_cli("solve", *common, "--out", str(tmp_path / "a"), "--alpha", "1")
    assert bad.returncode == 2 and "--discount-interval" in bad.stderr
    assert "Traceback" not in bad.stderr
    bad = run_cli("solve", "ladder-1-ambassador", "--regret-floor", "--out", str(tmp_path / "b"))
    assert bad.returncode == 2 and "--regret-floor" in bad.stderr
    bad = run_cli("solve", *common, "--out", str(tmp_path / "c"), "--discount-interval", "0")
    assert bad.returncode == 2 and "discount_interval" in bad.stderr


def test_regret_floor_keeps_regrets_non_negative_and_converges(
    tiny: GameConfig, tiny_tree: Tree
) -> None:
    """Regret matching+ in ES-MCCFR: no negative regret, and still close to equilibrium on the tiny game."""
    floored = MCCFRSolver(tiny, key="perfect", seed=0, regret_floor=True)
    plain = MCCFRSolver(tiny, key="perfect", seed=0)
    floored.run(FLOOR_ITERATIONS)
    plain.run(FLOOR_ITERATIONS)
    used = floored.num_slots
    assert (floored.regret[:used] >= 0.0).all()
    assert (plain.regret[: plain.num_slots] < 0.0).any()  # the option changes something
    assert floored.exploitability(tiny_tree) < FLOOR_THRESHOLD


def test_baseline_run_resumes_bit_identically_and_converges(
    tiny: GameConfig, tiny_tree: Tree
) -> None:
    """VR-MCCFR baselines are part of the checkpoint: split runs equal a straight one."""
    straight = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=3, baseline=BASELINE)
    straight.run(BASELINE_ITERATIONS)
    first = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=3, baseline=BASELINE)
    first.run(BASELINE_ITERATIONS // 2)
    second = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=3, baseline=BASELINE)
    second.set_state(first.get_state())
    second.run(BASELINE_ITERATIONS - BASELINE_ITERATIONS // 2)
    used = straight.num_slots
    assert np.abs(straight.baseline[:used]).sum() > 0.0  # baselines were learned
    np.testing.assert_array_equal(straight.baseline[:used], second.baseline[:used])
    np.testing.assert_array_equal(straight.regret[:used], second.regret[:used])
    assert straight.exploitability(tiny_tree) < BASELINE_THRESHOLD
    # a checkpoint written before baselines existed still loads (zero baselines)
    plain = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=3)
    plain.run(50)
    old = {k: v for k, v in plain.get_state().items() if k != "baseline"}
    again = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=3)
    again.set_state(old)
    assert again.iteration == 50


def test_baseline_settings_are_checked(tiny: GameConfig) -> None:
    with pytest.raises(ValueError, match="baseline"):
        MCCFRSolver(tiny, algorithm="os", baseline=1.5)
    with pytest.raises(ValueError, match="baseline"):
        MCCFRSolver(tiny, algorithm="es", baseline=0.2)
    # two workers: rows arriving from the other worker get zero baselines
    par = ParallelMCCFR(tiny, workers=2, sync_iterations=SYNC, algorithm="os", seed=1, baseline=0.2)
    try:
        par.run(EPOCHS * par.epoch_iterations)
        master = par.master
        assert master.baseline.shape[0] >= master.num_slots
    finally:
        par.close()


def test_cli_baseline_is_os_only(tmp_path: Path) -> None:
    """--baseline reaches an os-mccfr run's files and is refused for es-mccfr, in one line."""
    out = tmp_path / "vr"
    res = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "os-mccfr", "-n", "200",
        "--baseline", "0.2", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert load_keyed_strategy(out).meta["parameters"]["baseline"] == 0.2
    bad = run_cli(
        "solve", "ladder-1-ambassador", "--algorithm", "es-mccfr", "-n", "10",
        "--baseline", "0.2", "--out", str(tmp_path / "es"),
    )  # fmt: skip
    assert bad.returncode == 2 and "baseline" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_capacity_presizes_without_changing_results(tmp_path: Path) -> None:
    common = ("ladder-1-ambassador", "--algorithm", "os-mccfr", "--key", "perfect", "-n", "300")
    grown, presized = tmp_path / "grown", tmp_path / "presized"
    assert run_cli("solve", *common, "--out", str(grown)).returncode == 0
    res = run_cli("solve", *common, "--capacity", "65536", "--out", str(presized))
    assert res.returncode == 0, res.stderr
    config = json.loads((presized / "config.json").read_text())
    assert config["solver"]["capacity"] == 65536
    a, b = load_keyed_strategy(grown), load_keyed_strategy(presized)
    np.testing.assert_array_equal(a.key, b.key)
    np.testing.assert_array_equal(a.average, b.average)
    bad = run_cli("solve", *common, "--capacity", "-5", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "capacity must be >= 0" in bad.stderr
    assert "Traceback" not in bad.stderr
    exact = run_cli(
        "solve", "ladder-1-ambassador", "--capacity", "64", "--out", str(tmp_path / "x")
    )
    assert exact.returncode == 2 and "--capacity" in exact.stderr
