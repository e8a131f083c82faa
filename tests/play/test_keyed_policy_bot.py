"""The policy bot on keyed Monte Carlo CFR strategy files."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from click.testing import CliRunner

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.cli.main import cli
from complots_solver.play.bots import make_bot
from complots_solver.play.policy_bot import KeyedPolicyBot
from complots_solver.play.tournament import run_tournament
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.protocols import Policy
from complots_solver.solvers.common.strategy_file import (
    KeyedStrategyFile,
    keyed_strategy,
    load_keyed_strategy,
    save_keyed_strategy,
)
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION, KEYS, key_after_history
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.loader import EXACT, KEYED, load_policy, policy_kind
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

TINY = {"players": 2, "influence": 1, "max_turns": 2}
ITERATIONS = 300
GAMES = 30


@pytest.fixture(scope="module")
def tiny() -> GameConfig:
    """The tiny 2-player game: one influence, two turns."""
    return GameConfig.from_params(TINY)


@pytest.fixture(scope="module")
def keyed_dir(tiny: GameConfig, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A keyed strategy of a few hundred ES-MCCFR iterations (markov key)."""
    solver = MCCFRSolver(tiny, key="markov", seed=5)
    solver.run(ITERATIONS)
    meta = {
        "game": tiny.game_string(),
        "key_scheme": {"name": solver.key, "version": KEY_SCHEME_VERSION},
        "iterations": solver.iteration,
    }
    out = tmp_path_factory.mktemp("keyed") / "run"
    save_keyed_strategy(out, keyed_strategy(solver.average_table(), meta))
    return out


def _row(strategy: KeyedStrategyFile, key: int) -> dict[int, float] | None:
    """The file's row for ``key`` (rows are sorted by key), None if absent."""
    i = int(np.searchsorted(strategy.key, key))
    if i == strategy.key.shape[0] or int(strategy.key[i]) != key:
        return None
    lo, hi = strategy.action_offsets[i : i + 2]
    return {
        int(a): float(p)
        for a, p in zip(strategy.legal_actions[lo:hi], strategy.average[lo:hi], strict=True)
    }


def _decisions(config: GameConfig, games: int, seed: int):
    """Decision states of uniformly random games."""
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


def test_keyed_bot_plays_the_table(tiny: GameConfig, keyed_dir: Path) -> None:
    """policy:DIR on a keyed file returns the file's row; greedy its argmax; misses uniform."""
    bot = make_bot(f"policy:{keyed_dir}", tiny, np.random.default_rng(0))
    greedy = make_bot(f"policy:{keyed_dir}:greedy", tiny, np.random.default_rng(0))
    assert isinstance(bot, KeyedPolicyBot) and not bot.greedy
    assert isinstance(greedy, KeyedPolicyBot) and greedy.greedy
    strategy = load_keyed_strategy(keyed_dir)
    keys = KeyedPolicy.load(keyed_dir)  # an independent instance, only to compute keys
    found = missing = 0
    for state in _decisions(tiny, GAMES, seed=2):
        legal = state.legal_actions()
        key, cur = keys.key_of_history(list(state.history()))
        assert cur == state.current_player()
        row = _row(strategy, key)
        probs = bot.action_probabilities(state)
        if row is None:
            missing += 1
            assert probs == pytest.approx({a: 1.0 / len(legal) for a in legal})
            continue
        found += 1
        assert probs == pytest.approx(row)
        top = max(row.values())
        best = min(a for a, p in row.items() if p == top)
        assert greedy.action_probabilities(state) == {best: 1.0}
        assert bot.step(state) in legal
    assert found > 50 and found > 4 * missing
    assert bot.lookups >= found + missing and bot.misses >= missing


def test_keyed_bot_in_a_tournament(tiny: GameConfig, keyed_dir: Path) -> None:
    """A keyed strategy plays tournaments (and beats uniform play)."""
    spec = f"policy:{keyed_dir}"
    result = run_tournament(tiny, [spec, "random"], 200, seed=3)
    me = result.head_to_head().set_index("bot").loc[spec]
    assert me.games == 400
    assert me.wins > me.opponent_wins


def test_keyed_bot_refuses_another_game(keyed_dir: Path) -> None:
    """A keyed strategy only plays the game it was solved for."""
    config, _ = resolve_game("ladder-2-ambassador")
    with pytest.raises(ValueError, match="solved for"):
        make_bot(f"policy:{keyed_dir}", config, np.random.default_rng(0))


def _every_key(config: GameConfig) -> dict[int, tuple[int, list[int]]]:
    """Perfect key -> (player, legal actions) of every decision of ``config`` (full walk)."""
    cfg = config.to_array()
    game = pyspiel.load_game(config.game_string())
    found: dict[int, tuple[int, list[int]]] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = list(state.legal_actions())
            key, cur = key_after_history(
                cfg, KEYS["perfect"], np.asarray(state.history(), np.int64)
            )
            found[int(key)] = (cur, actions)
        for a in actions:
            child = state.clone()
            child.apply_action(a)
            stack.append(child)
    return found


def _save_table(
    config: GameConfig, rows: dict[int, tuple[int, list[int]]], solver: MCCFRSolver, out: Path
) -> Path:
    """Save ``rows`` as a perfect-key strategy: the solver's average where it has the key."""
    trained = PolicyTable.from_average(solver.average_table(), "perfect")
    keys = np.array(sorted(rows), dtype=np.int64)
    lens = [len(rows[int(k)][1]) for k in keys]
    legal, probs = [], []
    for k in keys:
        actions = rows[int(k)][1]
        r = trained.row_of(int(k))
        if r >= 0:
            lo, hi = trained.action_offsets[r], trained.action_offsets[r + 1]
            assert list(trained.legal_actions[lo:hi]) == actions
            probs += list(trained.probs[lo:hi])
        else:
            probs += [1.0 / len(actions)] * len(actions)
        legal += actions
    meta = {
        "game": config.game_string(),
        "key_scheme": {"name": "perfect", "version": KEY_SCHEME_VERSION},
        "iterations": solver.iteration,
    }
    save_keyed_strategy(
        out,
        KeyedStrategyFile(
            key=keys,
            player=np.array([rows[int(k)][0] for k in keys], dtype=np.int8),
            action_offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
            legal_actions=np.array(legal, dtype=np.int32),
            average=np.array(probs, dtype=np.float64),
            meta=meta,
        ),
    )
    return out


@pytest.fixture(scope="module")
def miss_tables(tiny: GameConfig, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two perfect-key tables: one row per information state, and a 2-iteration OS table."""
    root = tmp_path_factory.mktemp("misses")
    solver = MCCFRSolver(tiny, key="perfect", seed=1)
    solver.run(ITERATIONS)
    every = _every_key(tiny)
    assert solver.num_infostates < len(every)  # the trained table alone is not full
    full = _save_table(tiny, every, solver, root / "full")
    short = MCCFRSolver(tiny, algorithm="os", key="perfect", seed=1)
    short.run(2)
    sparse = {k: v for k, v in every.items() if short.policy_table().row_of(k) >= 0}
    assert 0 < len(sparse) < len(every)
    return full, _save_table(tiny, sparse, short, root / "few")


def test_tournament_counts_table_misses(tiny: GameConfig, miss_tables: tuple[Path, Path]) -> None:
    """Miss share 0 for a table of every information state, > 0 for a barely trained one."""
    full, few = miss_tables
    bots = [f"policy:{full}", f"policy:{few}", "random"]
    result = run_tournament(tiny, bots, 40, seed=0, workers=1)
    table = result.table_misses().set_index("bot")
    assert list(table.index) == bots[:2]  # the heuristic bot never looks a table up
    assert table.loc[bots[0], "lookups"] > 100 and table.loc[bots[0], "misses"] == 0
    assert table.loc[bots[0], "miss_share"] == 0.0
    assert table.loc[bots[1], "lookups"] > 100 and table.loc[bots[1], "miss_share"] > 0.2
    # the per-game counts add up: every policy decision is a lookup
    assert sum(sum(r.lookups) for r in result.records) == table["lookups"].sum()
    two = run_tournament(tiny, bots, 40, seed=0, workers=2)
    assert two.records == result.records
    heuristic = run_tournament(tiny, ["random", "honest"], 5, seed=0)
    assert heuristic.table_misses().empty


def test_evaluate_prints_table_misses(miss_tables: tuple[Path, Path], tmp_path: Path) -> None:
    """complots evaluate prints each policy bot's miss share and writes the counts to the CSV."""
    path = tmp_path / "games.csv"
    res = CliRunner().invoke(
        cli,
        [
            "evaluate",
            "ladder-1-ambassador",
            "--bots",
            f"policy:{miss_tables[1]},random",
            "--games",
            "20",
            "--workers",
            "1",
            "--csv",
            str(path),
        ],  # fmt: skip
    )
    assert res.exit_code == 0, res.output
    assert "Strategy-table misses" in res.output
    rows = list(csv.DictReader(path.open()))
    policy_seat = [0 if r["seat0"].startswith("policy:") else 1 for r in rows]
    lookups = sum(int(r[f"lookups{p}"]) for r, p in zip(rows, policy_seat, strict=True))
    misses = sum(int(r[f"misses{p}"]) for r, p in zip(rows, policy_seat, strict=True))
    assert all(int(r[f"lookups{1 - p}"]) == 0 for r, p in zip(rows, policy_seat, strict=True))
    assert lookups > 0 and 0 < misses < lookups
    assert f"{lookups:,}" in res.output and f"{misses / lookups:.3f}" in res.output


def test_one_loader_gives_both_kinds_of_policy(keyed_dir: Path, strategy_dir: Path) -> None:
    """load_policy reads exact and keyed files; both play by OpenSpiel's policy interface."""
    exact, keyed = load_policy(strategy_dir), load_policy(keyed_dir)
    assert isinstance(exact, ExactPolicy) and isinstance(keyed, KeyedPolicy)
    assert (policy_kind(strategy_dir), policy_kind(keyed_dir)) == (EXACT, KEYED)
    assert load_policy(keyed_dir) is keyed  # cached per directory
    for policy in (exact, keyed):
        assert isinstance(policy, Policy)
        game = pyspiel.load_game(policy.config.game_string())
        state = game.new_initial_state()
        rng = np.random.default_rng(0)
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        probs = policy.action_probabilities(state)
        assert sorted(probs) == sorted(state.legal_actions())
        assert sum(probs.values()) == pytest.approx(1.0)
