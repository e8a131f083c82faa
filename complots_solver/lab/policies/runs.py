"""Saved runs read back: their metadata in one summary, and a Monte Carlo CFR solver from a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.folders import META_FILE
from complots_solver.solvers.common.rundir import CHECKPOINT_FILE, CONFIG_FILE, read_checkpoint
from complots_solver.solvers.common.strategy_file import read_meta
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.run import MCCFRSettings
from complots_solver.solvers.mccfr.solver import MCCFRSolver


def solved_seconds(directory: Path) -> float:
    """Cumulative solving seconds a run directory's meta.json records (0 if it has none)."""
    meta = Path(directory) / META_FILE
    if not meta.exists():
        return 0.0
    return float(json.loads(meta.read_text()).get("wall_time_seconds", 0.0))


def summarize_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """What a table row says about a strategy: solver, iterations, information states, time."""
    infostates = meta.get("information_states") or {}
    return {
        "algorithm": meta.get("algorithm"),
        "iterations": meta.get("iterations"),
        "information_states": infostates.get("total") or meta.get("tree", {}).get("infosets"),
        "wall_time_seconds": meta.get("wall_time_seconds"),
        "key_scheme": (meta.get("key_scheme") or {}).get("name"),
        "parameters": meta.get("parameters"),
        "exploitability": meta.get("exploitability"),
        "nash_conv": meta.get("nash_conv"),
        "game_value": meta.get("game_value"),
        "bound": meta.get("exploitability_bound"),
    }


def strategy_summary(directory: Path) -> dict[str, Any]:
    """:func:`summarize_meta` of a strategy directory's meta.json."""
    return summarize_meta(read_meta(Path(directory)))


def run_settings(directory: Path) -> tuple[GameConfig, MCCFRSettings]:
    """The game and Monte Carlo CFR settings a run directory's config.json records."""
    record = json.loads((Path(directory) / CONFIG_FILE).read_text())
    solver = record.get("solver") or {}
    if solver.get("kind", "mccfr") != "mccfr":
        raise ValueError(f"{directory} is a {solver.get('kind')!r} run, not a Monte Carlo CFR run")
    if "params" in record:
        config = GameConfig.from_params(record["params"])
    else:
        config, _ = resolve_game(record["game"])
    settings = MCCFRSettings(**{k: v for k, v in solver.items() if k != "kind"})
    return config, settings


def checkpoint_solver(directory: Path) -> tuple[GameConfig, MCCFRSettings, MCCFRSolver, float]:
    """(config, settings, solver, elapsed seconds) of a run rebuilt from its checkpoint.npz."""
    config, settings = run_settings(directory)
    solver = MCCFRSolver(config, **settings.solver_kwargs())
    saved = read_checkpoint(Path(directory) / CHECKPOINT_FILE)
    solver.set_state(saved.state, copy=False)
    return config, settings, solver, saved.elapsed


def checkpoint_policy(directory: Path) -> tuple[GameConfig, PolicyTable, dict[str, Any]]:
    """(config, policy table, summary) of the average strategy in a run's checkpoint.npz.

    For runs whose strategy file was never written (a run killed or out of
    disk space after its last checkpoint): the table is built in memory only.
    """
    config, settings, solver, elapsed = checkpoint_solver(directory)
    meta = {
        "algorithm": f"{settings.algorithm}-mccfr",
        "iterations": solver.iteration,
        "information_states": solver.num_infostates,
        "wall_time_seconds": elapsed,
        "key_scheme": settings.key,
        "parameters": {"averaging": settings.averaging, "epsilon": settings.epsilon},
        "source": CHECKPOINT_FILE,
    }
    return config, solver.policy_table(), meta
