"""A keyed strategy measured and the result written into its meta.json; long runs' bound trends.

:func:`measure_keyed` computes the sampled best-response lower bound on a
2-player strategy's exploitability (:func:`~complots_solver.solvers.mccfr.evaluate.best_response_bound`)
and the self-play turn-cap and miss shares; :func:`bound_into_meta` writes
both into a strategy directory's meta.json (``exploitability_bound``,
``self_play``). A long run's snapshots (``snapshot-<seconds>s``) are bounded
with one fixed responder budget and their trend written as ``trend.json``
and ``trend.csv``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.folders import META_FILE, STRATEGY_FILE
from complots_solver.solvers.common.strategy_file import update_keyed_meta
from complots_solver.solvers.mccfr.evaluate import (
    RESPONDER_EPSILON,
    PlayStats,
    best_response_bound,
    play_games,
)
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

SELF_PLAY_GAMES = 20000
SNAPSHOT_PREFIX = "snapshot-"
TREND_FILE = "trend.json"


def self_play_record(stats: PlayStats) -> dict[str, Any]:
    """The ``self_play`` entry of a meta.json: games, turn-cap share, returns, miss shares."""
    return {
        "games": stats.games,
        "turn_cap_share": stats.capped_share,
        "mean_return": list(stats.mean),
        "stderr": list(stats.stderr),
        "miss_share": list(stats.miss_share),
    }


def measure_keyed(
    config: GameConfig,
    table: PolicyTable,
    games: int,
    seed: int = 0,
    train_seconds: float = 0.0,
    train_iterations: int | None = None,
    responder_key: str = "markov",
    responder_epsilon: float = RESPONDER_EPSILON,
    self_play_games: int = SELF_PLAY_GAMES,
) -> dict[str, Any]:
    """``exploitability_bound`` (a sampled best response per seat) and ``self_play`` of a table."""
    if self_play_games < 1:
        raise ValueError(f"self_play_games must be >= 1, got {self_play_games}")
    bound = best_response_bound(
        config,
        table,
        train_seconds,
        games,
        seed=seed,
        responder_key=responder_key,
        responder_epsilon=responder_epsilon,
        train_iterations=train_iterations,
    )
    selfplay = play_games(config, [table] * config.players, self_play_games, seed=seed)
    return {"exploitability_bound": bound.to_dict(), "self_play": self_play_record(selfplay)}


def bound_into_meta(directory: Path, games: int, **options: Any) -> dict[str, Any]:
    """Measure the keyed strategy in ``directory`` (:func:`measure_keyed`); write it into meta.json.

    Returns the measurement.
    """
    policy = KeyedPolicy.load(directory)
    result = measure_keyed(policy.config, policy.table, games, **options)
    update_keyed_meta(Path(directory), **result)
    return result


def snapshot_seconds(path: Path) -> float:
    """The solving seconds a snapshot directory is named after (``snapshot-300s`` -> 300)."""
    name = Path(path).name
    if not (name.startswith(SNAPSHOT_PREFIX) and name.endswith("s")):
        raise ValueError(f"path must name a snapshot ({SNAPSHOT_PREFIX}<seconds>s), got {name!r}")
    return float(name[len(SNAPSHOT_PREFIX) : -1])


def snapshots(out: Path) -> list[Path]:
    """Snapshot directories of a run holding a strategy, in order of solving time."""
    found = [p for p in Path(out).glob(f"{SNAPSHOT_PREFIX}*s") if (p / STRATEGY_FILE).exists()]
    return sorted(found, key=snapshot_seconds)


def has_bound(meta: dict[str, Any], train_iterations: int, games: int) -> bool:
    """Whether meta.json holds a bound made with this responder budget and game count."""
    bound = meta.get("exploitability_bound")
    return bool(
        bound
        and bound.get("train_iterations") == [train_iterations] * 2
        and bound.get("games_per_seat") == games
    )


def trend_row(
    snapshot: Path, meta: dict[str, Any], train_iterations: int, games: int
) -> dict[str, Any]:
    """One point of a bound trend from a bounded snapshot's meta.json."""
    bound = meta["exploitability_bound"]
    return {
        "snapshot": Path(snapshot).name,
        "solve_seconds": meta["wall_time_seconds"],
        "iterations": meta["iterations"],
        "infostates": meta["information_states"]["total"],
        "bound": bound["lower_bound"],
        "ci95_low": bound["ci95"][0],
        "ci95_high": bound["ci95"][1],
        "responder_iterations": train_iterations,
        "games_per_seat": games,
        "turn_cap_share": meta["self_play"]["turn_cap_share"],
    }


def write_trend(out: Path, rows: list[dict[str, Any]]) -> None:
    """Write a bound trend as ``trend.json`` and ``trend.csv`` in ``out``."""
    if not rows:
        raise ValueError("rows must hold at least one trend point")
    out = Path(out)
    (out / TREND_FILE).write_text(json.dumps(rows, indent=2) + "\n")
    with open(out / "trend.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def read_trend(directory: Path) -> list[dict[str, Any]] | None:
    """The bound trend of a long run (``trend.json``), None if not written yet.

    Each row gains the snapshot's self-play miss share (max over seats) from its meta.json.
    """
    path = Path(directory) / TREND_FILE
    if not path.is_file():
        return None
    rows = json.loads(path.read_text())
    for row in rows:
        meta = Path(directory) / row["snapshot"] / META_FILE
        play = json.loads(meta.read_text()).get("self_play") if meta.is_file() else None
        row["miss_share"] = max(play["miss_share"]) if play else None
    return rows
