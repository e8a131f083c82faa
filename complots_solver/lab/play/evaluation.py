"""The evaluation of issue 5: solved strategies against the baseline bots, and seat advantage.

Four parts, each a dictionary of rows that ``scripts/evaluate_all.py`` writes
as one JSON file and :mod:`complots_solver.lab.reports.evaluation_tables` renders
(option names are the script's).

``versus``
    ``complots evaluate draft-LINEUP --bots policy:DIR,random,honest,bluffer,counter``
    for both line-ups with the long MCCFR runs (``--draft-runs``), run as a
    subprocess (the exact command is recorded), summarised per baseline from its
    CSV, with the strategy's keyed-table miss share and Bradley-Terry ratings.
``exact``
    Self-play by seat of the exact ladder strategies (CFR+, tree-aligned):
    rungs ``--resolve-rungs`` re-made with ``complots solve`` into
    ``--ladder-eval``, the other rungs read from ``--ladder-runs``. Each is
    turned into a perfect-key table (:mod:`complots_solver.solvers.policies.exact_keyed`)
    and sampled in numba (:func:`~complots_solver.solvers.mccfr.evaluate.play_games`);
    seat 0's sampled expected utility is checked against the exact game value of
    ``reports/exact-ladder.json``. Rungs outside ``--sample-rungs`` report the
    exact value of the profile (meta.json) only.
``keyed``
    Self-play by seat of the keyed MCCFR strategies: the 2-player draft game
    (``--draft-runs``, with the bound trend of ``trend.json`` when present), the
    3-player games (``--three-runs``) and the 4-8 player presets and
    ``coup-classic`` (``--preset-runs``). Missing runs are skipped and listed.
``counter``
    Self-play of the ``counter`` heuristic on every preset (pyspiel games).
"""

from __future__ import annotations

import gc
import json
import multiprocessing as mp
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.lab.policies.measure import read_trend
from complots_solver.lab.policies.runs import checkpoint_policy, strategy_summary
from complots_solver.play.tournament import (
    NO_WINNER,
    GameRecord,
    TournamentResult,
    game_rngs,
    play_game,
    read_records,
)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.stats import agreement, seat_summary, wilson_interval, wins_from_returns
from complots_solver.solvers.common.folders import STRATEGY_FILE
from complots_solver.solvers.mccfr.evaluate import play_games
from complots_solver.solvers.mccfr.policy_table import PolicyTable

LINEUPS = ("ambassador", "inquisitor")
BASELINES = ("random", "honest", "bluffer", "counter")
PARTS = ("versus", "exact", "keyed", "counter")
MULTI_PRESETS = (
    "complots-ambassador",
    "complots-ambassador-5",
    "complots-ambassador-6",
    "complots-7",
    "coup-classic",
    "complots-inquisitor",
    "complots-inquisitor-5",
    "complots-inquisitor-6",
    "complots-8",
)
SOLVE_ITERATIONS = 500
SOLVE_TARGET = 1e-3
SEED = 0


@dataclass(frozen=True)
class EvaluationOptions:
    """Where the runs are and how many games each part plays (the script's options)."""

    root: Path  # the repository root: run directories and reports are relative to it
    draft_runs: str = "runs/long"
    three_runs: str = "runs/long"
    preset_runs: str = "runs/presets"
    ladder_runs: str = "runs/ladder"
    ladder_eval: str = "runs/ladder-eval"
    resolve_rungs: str = "1,2,3"
    exact_rungs: str = "1,2,3,4,5"
    sample_rungs: str = "1,2,3,4"
    versus_games: int = 2000
    exact_games: int = 1_000_000
    draft_games: int = 200_000
    multi_games: int = 50_000
    seat_games: int = 2000
    seat_games_large: int = 1000
    workers: int = 1
    only: str = ""

    def rel(self, path: Path) -> str:
        """``path`` relative to the repository root when inside it."""
        path = Path(path).resolve()
        root = Path(self.root).resolve()
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

    def wanted(self, preset: str) -> bool:
        """Whether ``only`` (a comma-separated list of presets, or empty) selects ``preset``."""
        return not self.only or preset in self.only.split(",")


def run(cmd: list[str], log: Path, cwd: Path) -> float:
    """Run ``cmd`` from ``cwd``, its output to ``log``; return wall seconds."""
    print("$", shlex.join(cmd), flush=True)
    start = time.perf_counter()
    with log.open("w") as fh:
        subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - start


def parse_ints(text: str) -> list[int]:
    """'1,2,3' -> [1, 2, 3]; '' or 'none' -> []."""
    return [] if text.strip() in ("", "none") else [int(x) for x in text.split(",")]


def policy_misses(records: list[GameRecord], policy: str) -> tuple[int, int]:
    """(table lookups, misses) of ``policy`` over ``records``."""
    lookups = misses = 0
    for r in records:
        for seat, spec in enumerate(r.seats):
            if spec == policy and r.lookups:
                lookups += r.lookups[seat]
                misses += r.misses[seat]
    return lookups, misses


def baseline_rows(records: list[GameRecord], policy: str) -> list[dict[str, Any]]:
    """Per baseline met: games, wins, losses, draws, win rate [95% CI] overall and by seat."""
    rows = []
    for base in BASELINES:
        met = [r for r in records if set(r.seats) == {policy, base}]
        if not met:
            continue
        wins = sum(r.winner_bot == policy for r in met)
        by_seat = {}
        for seat in (0, 1):
            mine = [r for r in met if r.seats[seat] == policy]
            w = sum(r.winner == seat for r in mine)
            by_seat[seat] = (w, len(mine), *wilson_interval(w, len(mine)))
        rows.append(
            {
                "opponent": base,
                "games": len(met),
                "wins": wins,
                "losses": sum(r.winner_bot == base for r in met),
                "draws": sum(r.capped for r in met),
                "win_rate": wins / len(met),
                "ci": list(wilson_interval(wins, len(met))),
                "by_seat": by_seat,
                "lookups_misses": policy_misses(met, policy),
            }
        )
    return rows


def versus_baselines(
    options: EvaluationOptions, preset: str, strategy: Path, out: Path
) -> dict[str, Any]:
    """``complots evaluate`` of a draft strategy and the four baselines, summarised."""
    policy = f"policy:{options.rel(strategy)}"
    csv_path = out / f"evaluate-{preset}.csv"
    cmd = [
        "complots", "evaluate", preset,
        "--bots", ",".join([policy, *BASELINES]),
        "--games", str(options.versus_games),
        "--seed", str(SEED),
        "--workers", str(options.workers),
        "--csv", options.rel(csv_path),
    ]  # fmt: skip
    seconds = run(cmd, out / f"evaluate-{preset}.log", options.root)
    config, _ = resolve_game(preset)
    records = read_records(csv_path)
    table = sorted({r.seats for r in records})
    index = {s: i for i, s in enumerate(table)}
    records = [
        GameRecord(index[r.seats], r.game, r.seats, r.winner, r.turns, r.lookups, r.misses)
        for r in records
    ]
    bots = [policy, *BASELINES]
    result = TournamentResult(config, bots, table, options.versus_games, SEED, records)
    return {
        "preset": preset,
        "strategy": options.rel(strategy),
        "meta": strategy_summary(strategy),
        "command": shlex.join(cmd),
        "seconds": seconds,
        "rows": baseline_rows(records, policy),
        "lookups_misses": policy_misses(records, policy),
        "standings": result.standings().to_dict("records"),
    }


def keyed_self_play(
    config: GameConfig, table: PolicyTable, games: int, seed: int = SEED
) -> dict[str, Any]:
    """``games`` numba self-play games of one policy table in every seat, summarised by seat."""
    start = time.perf_counter()
    stats = play_games(config, [table] * config.players, games, seed=seed)
    seconds = time.perf_counter() - start
    wins = wins_from_returns(stats.mean, stats.capped_share, games)
    out = seat_summary(wins, games - sum(wins), games)
    out.update(seconds=seconds, miss_share=list(stats.miss_share), seed=seed)
    return out


def solve_ladder(
    options: EvaluationOptions, preset: str, directory: Path, out: Path
) -> tuple[str, float]:
    """Re-make the exact ladder strategy of ``preset`` in ``directory`` unless present."""
    cmd = [
        "complots", "solve", preset,
        "--iterations", str(SOLVE_ITERATIONS),
        "--target-exploitability", str(SOLVE_TARGET),
        "--out", options.rel(directory),
    ]  # fmt: skip
    seconds = 0.0
    if not (directory / STRATEGY_FILE).is_file():
        seconds = run(cmd, out / f"solve-{preset}.log", options.root)
    return shlex.join(cmd), seconds


def exact_rung(
    options: EvaluationOptions,
    preset: str,
    directory: Path,
    exact_value: float,
    games: int | None,
    sample: bool,
) -> dict[str, Any]:
    """One exact ladder row: the strategy's profile value, and self-play if ``sample``."""
    from complots_solver.solvers.common.strategy_file import load_strategy
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree
    from complots_solver.solvers.policies.exact_keyed import exact_policy_table

    meta = strategy_summary(directory)
    entry: dict[str, Any] = {
        "preset": preset,
        "strategy": options.rel(directory),
        "meta": meta,
        "exact_value": exact_value,
        "sampled": False,
    }
    if not sample or not games:
        return entry
    config, _ = resolve_game(preset)
    start = time.perf_counter()
    tree = compile_complots_tree(config, validate=False)
    table = exact_policy_table(load_strategy(directory), tree, config)
    del tree
    gc.collect()
    entry["prepare_seconds"] = time.perf_counter() - start
    entry.update(keyed_self_play(config, table, games), sampled=True)
    _, lo, hi = entry["utility0"]
    tolerance = meta["nash_conv"] if meta["nash_conv"] is not None else 0.0
    entry["tolerance"] = tolerance
    entry["agrees"] = agreement(lo, hi, exact_value, tolerance)
    entry["agrees_profile"] = agreement(lo, hi, meta["game_value"], 0.0)
    print(
        f"  {preset}: {games} games in {entry['seconds']:.1f} s (+{entry['prepare_seconds']:.0f} s"
        f" to compile and key), E[u0] {entry['utility0'][0]:+.4f}, exact {exact_value:+.4f}: "
        f"{entry['agrees']}",
        flush=True,
    )
    return entry


def part_exact(options: EvaluationOptions, out: Path) -> dict[str, Any]:
    """Every exact ladder rung: strategy, profile value, sampled self-play by seat."""
    root = Path(options.root)
    exact_ladder = json.loads((root / "reports" / "exact-ladder.json").read_text())
    rows, skipped = [], []
    for rung in parse_ints(options.exact_rungs):
        for lineup in LINEUPS:
            preset = f"ladder-{rung}-{lineup}"
            if not options.wanted(preset):
                continue
            if rung in parse_ints(options.resolve_rungs):
                directory = root / options.ladder_eval / preset
                cmd, solve_s = solve_ladder(options, preset, directory, out)
            else:
                directory = root / options.ladder_runs / preset
                cmd, solve_s = "", 0.0
            if not (directory / STRATEGY_FILE).is_file():
                reason = f"no strategy in {options.rel(directory)}"
                skipped.append({"preset": preset, "reason": reason})
                print(f"  skip {preset}: {reason}", flush=True)
                continue
            sample = rung in parse_ints(options.sample_rungs)
            value = exact_ladder[preset]["game_value"]
            entry = exact_rung(options, preset, directory, value, options.exact_games, sample)
            entry.update(solve_command=cmd, solve_seconds=solve_s)
            rows.append(entry)
    return {"rows": rows, "skipped": skipped}


def keyed_runs(options: EvaluationOptions) -> list[tuple[str, Path, int]]:
    """(preset, run directory, games) of every keyed MCCFR strategy the tables cover."""
    root = Path(options.root)
    runs = [
        (f"draft-{x}", root / options.draft_runs / f"draft-{x}", options.draft_games)
        for x in LINEUPS
    ]
    runs += [
        (f"complots-{x}-3", root / options.three_runs / f"complots-{x}-3", options.multi_games)
        for x in LINEUPS
    ]
    runs += [(p, root / options.preset_runs / p, options.multi_games) for p in MULTI_PRESETS]
    return [r for r in runs if options.wanted(r[0])]


def part_keyed(options: EvaluationOptions) -> dict[str, Any]:
    """Self-play by seat of every keyed MCCFR strategy that exists (else its last checkpoint)."""
    from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

    rows, skipped = [], []
    for preset, directory, games in keyed_runs(options):
        start = time.perf_counter()
        if (directory / STRATEGY_FILE).is_file():
            policy = KeyedPolicy.load(directory)
            config, table, meta = policy.config, policy.table, strategy_summary(directory)
        elif (directory / "checkpoint.npz").is_file() and (directory / "config.json").is_file():
            config, table, meta = checkpoint_policy(directory)
        else:
            reason = (
                f"{options.rel(directory)} has neither strategy.npz nor checkpoint.npz: the run "
                "did not finish"
                if directory.is_dir()
                else f"no run at {options.rel(directory)}"
            )
            skipped.append({"preset": preset, "reason": reason})
            print(f"  skip {preset}: {reason}", flush=True)
            continue
        load_s = time.perf_counter() - start
        entry: dict[str, Any] = {
            "preset": preset,
            "strategy": options.rel(directory),
            "meta": meta,
            "load_seconds": load_s,
            "trend": read_trend(directory),
        }
        entry.update(keyed_self_play(config, table, games))
        rows.append(entry)
        print(
            f"  {preset}: {games} games in {entry['seconds']:.1f} s (+{load_s:.0f} s to load), "
            f"wins {entry['wins']}, draws {entry['draws']}, "
            f"misses {max(entry['miss_share']):.1%}",
            flush=True,
        )
        del table
        policy = None
        gc.collect()  # tables of a few GB: keep one at a time
    return {"rows": rows, "skipped": skipped}


def counter_self_play(task: tuple[str, int, int]) -> dict[str, Any]:
    """``games`` pyspiel games of the ``counter`` bot in every seat of ``preset``."""
    preset, games, seed = task
    config, _ = resolve_game(preset)
    game = pyspiel.load_game(config.game_string())
    n = config.players
    wins = [0] * n
    start = time.perf_counter()
    for g in range(games):
        winner, _ = play_game(game, ["counter"] * n, game_rngs(seed, 0, g, n))
        if winner != NO_WINNER:
            wins[winner] += 1
    out = {"preset": preset, "spec": "counter", **seat_summary(wins, games - sum(wins), games)}
    out["seconds"] = time.perf_counter() - start
    print(f"  {preset} counter: {games} games, {out['seconds']:.1f} s, wins {wins}", flush=True)
    return out


def all_presets(root: Path) -> list[str]:
    """Every preset name in ``games/presets`` under ``root``."""
    return sorted(p.stem for p in (Path(root) / "games" / "presets").glob("*.toml"))


def part_counter(options: EvaluationOptions) -> dict[str, Any]:
    """``counter`` self-play on every preset (presets spread over ``workers`` processes)."""
    tasks = []
    for preset in filter(options.wanted, all_presets(options.root)):
        config, _ = resolve_game(preset)
        games = options.seat_games if config.players <= 4 else options.seat_games_large
        tasks.append((preset, games, SEED))
    if options.workers == 1:
        rows = [counter_self_play(t) for t in tasks]
    else:
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        with ctx.Pool(options.workers) as pool:
            rows = pool.map(counter_self_play, tasks, chunksize=1)
    return {"rows": rows}


def part_versus(options: EvaluationOptions, out: Path) -> dict[str, Any]:
    """Both draft strategies against the baselines (skipped when a run is missing)."""
    rows, skipped = [], []
    for lineup in LINEUPS:
        preset = f"draft-{lineup}"
        if not options.wanted(preset):
            continue
        directory = Path(options.root) / options.draft_runs / preset
        if not (directory / STRATEGY_FILE).is_file():
            reason = f"no strategy in {options.rel(directory)}"
            skipped.append({"preset": preset, "reason": reason})
            print(f"  skip {preset}: {reason}", flush=True)
            continue
        rows.append(versus_baselines(options, preset, directory, out))
    return {"rows": rows, "skipped": skipped}


def run_part(name: str, options: EvaluationOptions, out: Path) -> dict[str, Any]:
    """Run one part (one of :data:`PARTS`) with its output files under ``out``."""
    if name == "versus":
        return part_versus(options, out)
    if name == "exact":
        return part_exact(options, out)
    if name == "keyed":
        return part_keyed(options)
    if name == "counter":
        return part_counter(options)
    raise ValueError(f"name must be one of {', '.join(PARTS)}, got {name!r}")


def row_order(row: dict[str, Any]) -> tuple[int, str]:
    """Rows of a part in table order: by number of players, then preset name."""
    return row.get("players") or resolve_game(row["preset"])[0].players, row["preset"]


def merge_part(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A part re-run on some presets: its rows replace those presets' old rows and skips.

    Old rows of presets the new run did not touch are kept, so a part can be
    completed preset by preset; ``runs`` records every run's command and time.
    """
    touched = {r["preset"] for r in new["rows"]} | {s["preset"] for s in new.get("skipped", [])}
    rows = [r for r in old.get("rows", []) if r["preset"] not in touched] + new["rows"]
    done = {r["preset"] for r in rows}
    skipped = [s for s in old.get("skipped", []) if s["preset"] not in touched]
    skipped = [s for s in skipped + new.get("skipped", []) if s["preset"] not in done]
    runs = old.get("runs") or [{"command": old.get("command"), "seconds": old.get("seconds")}]
    runs = runs + [{"command": new["command"], "seconds": new["seconds"]}]
    return {
        **new,
        "rows": sorted(rows, key=row_order),
        "skipped": sorted(skipped, key=row_order),
        "runs": runs,
    }
