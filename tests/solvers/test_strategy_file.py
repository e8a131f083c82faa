"""Exact strategy files: round trip, OpenSpiel conversion, clear errors when broken."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.strategy_file import META_FILE, STRATEGY_FILE, load_strategy
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.policy import to_tabular_policy
from complots_solver.solvers.exact.run import SolveRun, SolveSettings

TINY = GameConfig.from_params({"influence": 1, "max_turns": 1})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 40-iteration CFR+ run of a tiny configuration."""
    out = tmp_path_factory.mktemp("run")
    SolveRun(out, TINY, SolveSettings(iterations=40, eval_every=20)).run()
    return out


def test_round_trip_and_tabular_policy(run_dir: Path) -> None:
    """The saved strategy reloads bit for bit and plays the same in OpenSpiel."""
    strategy = load_strategy(run_dir)
    tree = compile_complots_tree(TINY)
    strategy.check_matches(tree.action_offsets, tree.legal_actions, tree.infoset_player)
    meta = strategy.meta
    assert meta["iterations"] == 40 and meta["algorithm"] == "cfr+"
    assert meta["game"] == TINY.game_string()
    for key in (
        "exploitability",
        "nash_conv",
        "game_value",
        "seed",
        "package_version",
        "wall_time_seconds",
    ):
        assert key in meta
    assert exploitability(tree, strategy.average) == pytest.approx(
        meta["exploitability"], abs=1e-12
    )
    game = pyspiel.load_game(TINY.game_string())
    policy = to_tabular_policy(tree, strategy.average, game)
    assert openspiel_exploitability.exploitability(game, policy) == pytest.approx(
        meta["exploitability"], abs=1e-9
    )


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    out.mkdir()
    for name in (STRATEGY_FILE, META_FILE):
        (out / name).write_bytes((run_dir / name).read_bytes())
    return out


def test_corrupt_strategy_is_refused(run_dir: Path, tmp_path: Path) -> None:
    """One flipped byte in strategy.npz is caught by the checksum."""
    out = _copy(run_dir, tmp_path)
    data = bytearray((out / STRATEGY_FILE).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (out / STRATEGY_FILE).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256 mismatch"):
        load_strategy(out)


def test_broken_or_foreign_metadata_is_refused(run_dir: Path, tmp_path: Path) -> None:
    """Bad JSON, another format, a newer version and a missing file give clear errors."""
    out = _copy(run_dir, tmp_path)
    meta = json.loads((out / META_FILE).read_text())
    (out / META_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_strategy(out)
    (out / META_FILE).write_text(json.dumps({**meta, "format": "something-else"}))
    with pytest.raises(ValueError, match="is not a complots-strategy file"):
        load_strategy(out)
    (out / META_FILE).write_text(json.dumps({**meta, "format_version": 99}))
    with pytest.raises(ValueError, match="format_version 99"):
        load_strategy(out)
    (out / STRATEGY_FILE).unlink()
    with pytest.raises(ValueError, match="strategy.npz is missing"):
        load_strategy(out)


def test_strategy_of_another_game_is_refused(run_dir: Path) -> None:
    """A strategy does not fit the tree of another configuration."""
    strategy = load_strategy(run_dir)
    other = compile_complots_tree(TINY.replace(lineup="inquisitor"))
    with pytest.raises(ValueError, match="does not match this game's tree"):
        strategy.check_matches(other.action_offsets, other.legal_actions, other.infoset_player)
    assert not np.array_equal(strategy.legal_actions, other.legal_actions)
