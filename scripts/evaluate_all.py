"""Evaluation for issue 5: solved strategies against the baselines, and seat advantage.

Writes everything under ``--out`` (default ``runs/evaluation``): one JSON file
per part (``versus.json``, ``exact.json``, ``keyed.json``, ``counter.json``),
the tournaments' CSV files and logs, ``results.json`` (all parts merged) and
``tables.md`` (the tables of ``reports/evaluation.md``). ``--parts`` runs some
parts only; the tables are always assembled from every part file present, so
parts can be run separately (or again) and merged.

Parts:

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

Win rates by seat have 95% Wilson intervals; draws are games stopped at the turn
cap; 2-player expected utilities have 95% normal intervals.

Usage::

    python scripts/evaluate_all.py                      # every part, about 15 minutes
    python scripts/evaluate_all.py --parts exact --sample-rungs 5   # add ladder-5 samples
    python scripts/evaluate_all.py --parts none         # only re-assemble the tables
    python scripts/evaluate_all.py --parts keyed --preset-runs DIR --only complots-7
                                        # one preset from elsewhere; other rows are kept
    python scripts/evaluate_all.py --quick --out /tmp/ev   # small smoke run
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import math
import multiprocessing as mp
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.tournament import (
    NO_WINNER,
    GameRecord,
    TournamentResult,
    game_rngs,
    play_game,
)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.simulate import wilson_interval
from complots_solver.solvers.common.strategy_file import read_meta

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "games" / "presets"
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
Z95 = 1.959963984540054
SEED = 0
FEW_DECISIVE = 10
NEAR_INTEGER = 1e-6


def run(cmd: list[str], log: Path) -> float:
    """Run ``cmd`` from the repository root, its output to ``log``; return wall seconds."""
    print("$", shlex.join(cmd), flush=True)
    start = time.perf_counter()
    with log.open("w") as fh:
        subprocess.run(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - start


def rel(path: Path) -> str:
    """``path`` relative to the repository root when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def wanted(args: argparse.Namespace, preset: str) -> bool:
    """Whether ``--only`` (a comma-separated list of presets, or empty) selects ``preset``."""
    return not args.only or preset in args.only.split(",")


def parse_ints(text: str) -> list[int]:
    """'1,2,3' -> [1, 2, 3]; '' or 'none' -> []."""
    return [] if text.strip() in ("", "none") else [int(x) for x in text.split(",")]


# ---- statistics ------------------------------------------------------------------------------
def utility_interval(wins0: int, wins1: int, games: int) -> tuple[float, float, float]:
    """Mean of +1 (seat/bot 0 wins), -1 (loses), 0 (draw), with its 95% normal interval.

    With fewer than ``FEW_DECISIVE`` decisive games the normal interval is
    unreliable (zero width when every game is a draw); it is then widened to at
    least the Wilson upper bound of the decisive share, which bounds ``|E[u0]|``.
    """
    mean = (wins0 - wins1) / games
    var = (wins0 + wins1) / games - mean * mean
    half = Z95 * math.sqrt(max(var, 0.0) / games)
    if wins0 + wins1 < FEW_DECISIVE:
        half = max(half, wilson_interval(wins0 + wins1, games)[1])
    return mean, mean - half, mean + half


def wins_from_returns(mean: tuple[float, ...], capped_share: float, games: int) -> list[int]:
    """Wins per seat from mean returns (+1 to the winner, -1/(n-1) to the others, 0 on a draw).

    A seat's summed return is ``w - (games - draws - w) / (n - 1)``, so
    ``w = ((n - 1) * sum + games - draws) / n``; the result must be a whole number.
    """
    n = len(mean)
    draws = round(capped_share * games)
    wins = []
    for m in mean:
        exact = ((n - 1) * m * games + games - draws) / n
        w = round(exact)
        if abs(exact - w) > NEAR_INTEGER * max(games, 1) or w < 0:
            raise ValueError(f"mean returns {mean} are not those of {games} whole games")
        wins.append(w)
    if sum(wins) + draws != games:
        raise ValueError(f"wins {wins} and {draws} draws do not add up to {games} games")
    return wins


def agreement(low: float, high: float, value: float, tolerance: float) -> str:
    """Does the sampled interval [low, high] agree with an exact value?

    ``yes`` if it contains the value; ``within tolerance`` if it does once widened
    by ``tolerance`` (the profile sampled differs from the game value by at most
    its NashConv); ``no`` otherwise.
    """
    if low <= value <= high:
        return "yes"
    if low - tolerance <= value <= high + tolerance:
        return "within tolerance"
    return "no"


def seat_summary(wins: list[int], draws: int, games: int) -> dict[str, Any]:
    """Win rate of every seat with its Wilson interval, draws; E[u0] for 2 players."""
    out: dict[str, Any] = {
        "players": len(wins),
        "games": games,
        "wins": wins,
        "draws": draws,
        "win_rate": [w / games for w in wins],
        "ci": [list(wilson_interval(w, games)) for w in wins],
        "draw_rate": draws / games,
        "draw_ci": list(wilson_interval(draws, games)),
    }
    if len(wins) == 2:
        out["utility0"] = list(utility_interval(wins[0], wins[1], games))
    return out


# ---- 1. the draft strategies against the baselines -------------------------------------------
def read_records(path: Path) -> list[GameRecord]:
    """The games of a tournament CSV written by ``complots evaluate --csv``."""
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    seats = sorted((k for k in rows[0] if k.startswith("seat") and k[4:].isdigit()), key=len)
    n = len(seats)
    counted = f"lookups{n - 1}" in rows[0]
    return [
        GameRecord(
            int(r["seating"]),
            int(r["game"]),
            tuple(r[s] for s in seats),
            int(r["winner_seat"]),
            int(r["turns"]),
            tuple(int(r[f"lookups{p}"]) for p in range(n)) if counted else (),
            tuple(int(r[f"misses{p}"]) for p in range(n)) if counted else (),
        )
        for r in rows
    ]


def policy_misses(records: list[GameRecord], policy: str) -> tuple[int, int]:
    """(table lookups, misses) of ``policy`` over ``records``."""
    lookups = misses = 0
    for r in records:
        for seat, spec in enumerate(r.seats):
            if spec == policy and r.lookups:
                lookups += r.lookups[seat]
                misses += r.misses[seat]
    return lookups, misses


def versus_baselines(preset: str, strategy: Path, games: int, workers: int, out: Path) -> dict:
    """``complots evaluate`` of a draft strategy and the four baselines, summarised."""
    policy = f"policy:{rel(strategy)}"
    csv_path = out / f"evaluate-{preset}.csv"
    cmd = [
        "complots", "evaluate", preset,
        "--bots", ",".join([policy, *BASELINES]),
        "--games", str(games),
        "--seed", str(SEED),
        "--workers", str(workers),
        "--csv", rel(csv_path),
    ]  # fmt: skip
    seconds = run(cmd, out / f"evaluate-{preset}.log")
    config, _ = resolve_game(preset)
    records = read_records(csv_path)
    bots = [policy, *BASELINES]
    table = sorted({r.seats for r in records})
    index = {s: i for i, s in enumerate(table)}
    records = [
        GameRecord(index[r.seats], r.game, r.seats, r.winner, r.turns, r.lookups, r.misses)
        for r in records
    ]
    result = TournamentResult(config, bots, table, games, SEED, records)
    rows = []
    for base in BASELINES:
        met = [r for r in records if set(r.seats) == {policy, base}]
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
    return {
        "preset": preset,
        "strategy": rel(strategy),
        "meta": strategy_meta(strategy),
        "command": shlex.join(cmd),
        "seconds": seconds,
        "rows": rows,
        "lookups_misses": policy_misses(records, policy),
        "standings": result.standings().to_dict("records"),
    }


# ---- 2. seat advantage of the solved strategies --------------------------------------------
def strategy_meta(directory: Path) -> dict[str, Any]:
    """What a row says about its strategy: solver, iterations, information states, time."""
    meta = read_meta(directory)
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


def keyed_self_play(config: GameConfig, table: Any, games: int, seed: int = SEED) -> dict:
    """``games`` numba self-play games of one policy table in every seat, summarised by seat."""
    from complots_solver.solvers.mccfr.evaluate import play_games

    start = time.perf_counter()
    stats = play_games(config, [table] * config.players, games, seed=seed)
    seconds = time.perf_counter() - start
    wins = wins_from_returns(stats.mean, stats.capped_share, games)
    out = seat_summary(wins, games - sum(wins), games)
    out.update(seconds=seconds, miss_share=list(stats.miss_share), seed=seed)
    return out


def solve_ladder(preset: str, directory: Path, out: Path) -> tuple[str, float]:
    """Re-make the exact ladder strategy of ``preset`` in ``directory`` unless present."""
    cmd = [
        "complots", "solve", preset,
        "--iterations", str(SOLVE_ITERATIONS),
        "--target-exploitability", str(SOLVE_TARGET),
        "--out", rel(directory),
    ]  # fmt: skip
    seconds = 0.0
    if not (directory / "strategy.npz").is_file():
        seconds = run(cmd, out / f"solve-{preset}.log")
    return shlex.join(cmd), seconds


def exact_rung(
    preset: str, directory: Path, exact_value: float, games: int | None, sample: bool
) -> dict:
    """One exact ladder row: the strategy's profile value, and self-play if ``sample``."""
    from complots_solver.solvers.common.strategy_file import load_strategy
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree
    from complots_solver.solvers.policies.exact_keyed import exact_policy_table

    meta = strategy_meta(directory)
    entry: dict[str, Any] = {
        "preset": preset,
        "strategy": rel(directory),
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


def part_exact(args: argparse.Namespace, out: Path) -> dict:
    """Every exact ladder rung: strategy, profile value, sampled self-play by seat."""
    exact_ladder = json.loads((ROOT / "reports" / "exact-ladder.json").read_text())
    rows, skipped = [], []
    for rung in parse_ints(args.exact_rungs):
        for lineup in LINEUPS:
            preset = f"ladder-{rung}-{lineup}"
            if not wanted(args, preset):
                continue
            if rung in parse_ints(args.resolve_rungs):
                directory = ROOT / args.ladder_eval / preset
                cmd, solve_s = solve_ladder(preset, directory, out)
            else:
                directory = ROOT / args.ladder_runs / preset
                cmd, solve_s = "", 0.0
            if not (directory / "strategy.npz").is_file():
                skipped.append({"preset": preset, "reason": f"no strategy in {rel(directory)}"})
                print(f"  skip {preset}: no strategy in {rel(directory)}", flush=True)
                continue
            sample = rung in parse_ints(args.sample_rungs)
            entry = exact_rung(
                preset, directory, exact_ladder[preset]["game_value"], args.exact_games, sample
            )
            entry.update(solve_command=cmd, solve_seconds=solve_s)
            rows.append(entry)
    return {"rows": rows, "skipped": skipped}


def keyed_runs(args: argparse.Namespace) -> list[tuple[str, Path, int]]:
    """(preset, run directory, games) of every keyed MCCFR strategy the tables cover."""
    runs = [
        (f"draft-{x}", ROOT / args.draft_runs / f"draft-{x}", args.draft_games) for x in LINEUPS
    ]
    runs += [
        (f"complots-{x}-3", ROOT / args.three_runs / f"complots-{x}-3", args.multi_games)
        for x in LINEUPS
    ]
    runs += [(p, ROOT / args.preset_runs / p, args.multi_games) for p in MULTI_PRESETS]
    return [r for r in runs if wanted(args, r[0])]


def read_trend(directory: Path) -> list[dict] | None:
    """The bound trend of a long run (``trend.json``), None if not written yet.

    Each row gains the snapshot's self-play miss share (max over seats) from its meta.json.
    """
    path = directory / "trend.json"
    if not path.is_file():
        return None
    rows = json.loads(path.read_text())
    for row in rows:
        meta = directory / row["snapshot"] / "meta.json"
        play = json.loads(meta.read_text()).get("self_play") if meta.is_file() else None
        row["miss_share"] = max(play["miss_share"]) if play else None
    return rows


def checkpoint_policy(directory: Path) -> tuple[GameConfig, Any, dict[str, Any]]:
    """(config, policy table, meta) of the average strategy in a run's ``checkpoint.npz``.

    For runs whose strategy file was never written (a run killed or out of
    disk space after its last checkpoint): the table is built in memory only.
    """
    from complots_solver.solvers.common.rundir import CHECKPOINT_FILE, read_checkpoint
    from complots_solver.solvers.mccfr.run import MCCFRSettings
    from complots_solver.solvers.mccfr.solver import MCCFRSolver

    record = json.loads((directory / "config.json").read_text())
    config, _ = resolve_game(record["game"])
    settings = MCCFRSettings(**{k: v for k, v in record["solver"].items() if k != "kind"})
    solver = MCCFRSolver(config, **settings.solver_kwargs())
    saved = read_checkpoint(directory / CHECKPOINT_FILE)
    elapsed = saved.elapsed
    solver.set_state(saved.state, copy=False)
    del saved
    meta = {
        "algorithm": f"{settings.algorithm}-mccfr",
        "iterations": solver.iteration,
        "information_states": solver.num_infostates,
        "wall_time_seconds": elapsed,
        "key_scheme": settings.key,
        "parameters": {"averaging": settings.averaging, "epsilon": settings.epsilon},
        "source": "checkpoint.npz",
    }
    return config, solver.policy_table(), meta


def part_keyed(args: argparse.Namespace, out: Path) -> dict:
    """Self-play by seat of every keyed MCCFR strategy that exists (else its last checkpoint)."""
    from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

    rows, skipped = [], []
    for preset, directory, games in keyed_runs(args):
        start = time.perf_counter()
        if (directory / "strategy.npz").is_file():
            policy = KeyedPolicy.load(directory)
            config, table, meta = policy.config, policy.table, strategy_meta(directory)
        elif (directory / "checkpoint.npz").is_file() and (directory / "config.json").is_file():
            config, table, meta = checkpoint_policy(directory)
        else:
            reason = (
                f"{rel(directory)} has neither strategy.npz nor checkpoint.npz: the run did "
                "not finish"
                if directory.is_dir()
                else f"no run at {rel(directory)}"
            )
            skipped.append({"preset": preset, "reason": reason})
            print(f"  skip {preset}: {reason}", flush=True)
            continue
        load_s = time.perf_counter() - start
        entry: dict[str, Any] = {
            "preset": preset,
            "strategy": rel(directory),
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


def counter_self_play(task: tuple[str, int, int]) -> dict:
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


def part_counter(args: argparse.Namespace) -> dict:
    """``counter`` self-play on every preset (presets spread over ``--workers`` processes)."""
    tasks = []
    for preset in filter(lambda p: wanted(args, p), all_presets()):
        config, _ = resolve_game(preset)
        games = args.seat_games if config.players <= 4 else args.seat_games_large
        tasks.append((preset, games, SEED))
    if args.workers == 1:
        rows = [counter_self_play(t) for t in tasks]
    else:
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        with ctx.Pool(args.workers) as pool:
            rows = pool.map(counter_self_play, tasks, chunksize=1)
    return {"rows": rows}


def part_versus(args: argparse.Namespace, out: Path) -> dict:
    """Both draft strategies against the baselines (skipped when a run is missing)."""
    rows, skipped = [], []
    for lineup in LINEUPS:
        preset = f"draft-{lineup}"
        if not wanted(args, preset):
            continue
        directory = ROOT / args.draft_runs / preset
        if not (directory / "strategy.npz").is_file():
            skipped.append({"preset": preset, "reason": f"no strategy in {rel(directory)}"})
            print(f"  skip {preset}: no strategy in {rel(directory)}", flush=True)
            continue
        rows.append(versus_baselines(preset, directory, args.versus_games, args.workers, out))
    return {"rows": rows, "skipped": skipped}


def all_presets() -> list[str]:
    """Every preset name in games/presets."""
    return sorted(p.stem for p in PRESETS.glob("*.toml"))


# ---- markdown ------------------------------------------------------------------------------
def decimals(x: float) -> int:
    """Decimals of a percentage: one, or more for rates under 1% (down to 0.001%)."""
    return 1 if x >= 0.01 or x <= 0 else 2 if x >= 0.001 else 3


def pct(x: float) -> str:
    """A rate as a percentage (one decimal, more below 1%)."""
    return f"{100 * x:.{decimals(x)}f}%"


def ci(pair: list[float] | tuple[float, float]) -> str:
    """A rate interval as percentages (decimals set by the upper end)."""
    d = decimals(pair[1])
    return f"[{100 * pair[0]:.{d}f}, {100 * pair[1]:.{d}f}]"


def seats_cell(e: dict) -> str:
    """Every seat's win rate with its interval, in one table cell."""
    return "; ".join(
        f"{s}: {pct(r)} {ci(c)}"
        for s, (r, c) in enumerate(zip(e["win_rate"], e["ci"], strict=True))
    )


def utility_cell(e: dict) -> str:
    """Seat 0's sampled expected utility with its interval."""
    u, lo, hi = e["utility0"]
    return f"{u:+.4f} [{lo:+.4f}, {hi:+.4f}]"


def misses_cell(shares: list[float]) -> str:
    """Per-seat miss shares: one figure if equal to 0.1 point, else the range."""
    lo, hi = min(shares), max(shares)
    return pct(hi) if hi - lo < 0.001 else f"{pct(lo)}-{pct(hi)}"


def strategy_cell(meta: dict) -> str:
    """Solver, iterations, information states and solving time of a keyed strategy."""
    params = meta.get("parameters") or {}
    extra = ", ".join(
        f"{k} {params[k]}" for k in ("averaging", "epsilon") if params.get(k) is not None
    )
    states = meta.get("information_states")
    source = " (from its last checkpoint.npz: no strategy file)" if meta.get("source") else ""
    return (
        f"{meta.get('algorithm')} ({meta.get('key_scheme')} key{', ' + extra if extra else ''}), "
        f"{meta.get('iterations') or 0:,} it., "
        f"{states or 0:,} info states, {meta.get('wall_time_seconds') or 0:.0f} s{source}"
    )


def skipped_lines(part: dict, what: str) -> list[str]:
    """A line per skipped preset of a part."""
    return [f"* {what}: skipped {s['preset']} ({s['reason']})." for s in part.get("skipped", [])]


def markdown_versus(part: dict) -> list[str]:
    """Tables of the draft strategies against the baselines."""
    lines: list[str] = []
    for v in part["rows"]:
        look, miss = v["lookups_misses"]
        lines += [
            f"### {v['preset']}: `{v['strategy']}` against the baselines",
            "",
            f"Strategy: {strategy_cell(v['meta'])}.",
            "",
            f"`{v['command']}` ({v['seconds']:.0f} s)",
            "",
            f"The strategy's decisions at information states its table lacks (played "
            f"uniformly): {miss:,} of {look:,} ({pct(miss / look if look else 0.0)}).",
            "",
            "| opponent | games | strategy wins | opponent wins | draws | "
            "strategy win rate [95% CI] | as seat 0 | as seat 1 | table misses |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |",
        ]
        for r in v["rows"]:
            seat = {
                int(s): f"{pct(w / n)} {ci((lo, hi))}" for s, (w, n, lo, hi) in r["by_seat"].items()
            }
            rl, rm = r["lookups_misses"]
            lines.append(
                f"| {r['opponent']} | {r['games']:,} | {r['wins']:,} | {r['losses']:,} | "
                f"{r['draws']:,} | {pct(r['win_rate'])} {ci(r['ci'])} | {seat[0]} | {seat[1]} | "
                f"{pct(rm / rl if rl else 0.0)} |"
            )
        lines += [
            "",
            "Bradley-Terry ratings (Elo scale) from all games of the round robin:",
            "",
            "| bot | rating | overall win rate [95% CI] |",
            "| --- | ---: | --- |",
        ]
        for s in sorted(v["standings"], key=lambda s: -s["bt_rating"]):
            lines.append(
                f"| {s['bot']} | {s['bt_rating']:+.0f} | "
                f"{pct(s['win_rate'])} {ci((s['ci_low'], s['ci_high']))} |"
            )
        lines.append("")
    return lines + skipped_lines(part, "versus baselines") + [""]


def markdown_exact(part: dict) -> list[str]:
    """The exact ladder table: sampled self-play against the exact value."""
    lines = [
        "### Exact ladder: self-play of the solved strategy against the exact value",
        "",
        "| preset | strategy | games | seat 0 wins [95% CI] | seat 1 wins [95% CI] | draws | "
        "sampled E[u0] [95% CI] | value of this profile | exact game value (seat 0; seat 1: "
        "its negative) | agrees with the game value (with the profile value) |",
        "| --- | --- | ---: | --- | --- | ---: | --- | ---: | ---: | --- |",
    ]
    for e in part["rows"]:
        m = e["meta"]
        strat = (
            f"`{e['strategy']}`: {m['algorithm']} {m['iterations']} it., "
            f"expl. {m['exploitability']:.5f}"
        )
        head = f"| {e['preset']} | {strat} |"
        tail = f"{m['game_value']:+.4f} | {e['exact_value']:+.4f} |"
        if not e["sampled"]:
            lines.append(f"{head} not sampled | | | | | {tail} exact only |")
            continue
        agree = e["agrees"] if e["agrees"] == "yes" else f"**{e['agrees']}**"
        agree += f" (profile value: {e['agrees_profile']})"
        lines.append(
            f"{head} {e['games']:,} | {pct(e['win_rate'][0])} {ci(e['ci'][0])} | "
            f"{pct(e['win_rate'][1])} {ci(e['ci'][1])} | {pct(e['draw_rate'])} | "
            f"{utility_cell(e)} | {tail} {agree} |"
        )
    return lines + [""] + skipped_lines(part, "exact ladder") + [""]


def markdown_keyed(part: dict) -> list[str]:
    """The keyed MCCFR self-play table, and the draft runs' bound trends."""
    lines = [
        "### MCCFR strategies: self-play by seat",
        "",
        "| preset | players | strategy | games | win rate by seat [95% CI] | draws | "
        "sampled E[u0] [95% CI] | table misses (by seat) |",
        "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |",
    ]
    for e in part["rows"]:
        util = utility_cell(e) if "utility0" in e else "-"
        lines.append(
            f"| {e['preset']} | {e['players']} | `{e['strategy']}`: {strategy_cell(e['meta'])} | "
            f"{e['games']:,} | {seats_cell(e)} | {pct(e['draw_rate'])} | {util} | "
            f"{misses_cell(e['miss_share'])} |"
        )
    lines += [""] + skipped_lines(part, "MCCFR self-play") + [""]
    for e in part["rows"]:
        if not e.get("trend"):
            continue
        lines += [
            f"Bound trend of `{e['strategy']}` (`trend.json`: sampled best-response lower "
            "bound on exploitability, responder trained a fixed number of iterations):",
            "",
            "| snapshot | solving s | iterations | info states | bound [95% CI] | "
            "responder iterations | self-play table misses |",
            "| --- | ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        for t in e["trend"]:
            miss = "-" if t.get("miss_share") is None else pct(t["miss_share"])
            lines.append(
                f"| {t['snapshot']} | {t['solve_seconds']:.0f} | {t['iterations']:,} | "
                f"{t['infostates']:,} | {t['bound']:.3f} [{t['ci95_low']:.3f}, "
                f"{t['ci95_high']:.3f}] | {t['responder_iterations']:,} | {miss} |"
            )
        lines.append("")
    return lines


def markdown_counter(part: dict) -> list[str]:
    """The ``counter`` self-play table."""
    lines = [
        "### Every preset: self-play of the `counter` bot, win rate by seat",
        "",
        "| preset | players | games | win rate by seat [95% CI] | draws (turn cap) |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for e in part["rows"]:
        lines.append(
            f"| {e['preset']} | {e['players']} | {e['games']:,} | {seats_cell(e)} | "
            f"{pct(e['draw_rate'])} |"
        )
    return lines + [""]


def markdown(results: dict) -> str:
    """The tables of reports/evaluation.md, from whichever parts are present."""
    lines: list[str] = []
    render = {
        "versus": markdown_versus,
        "exact": markdown_exact,
        "keyed": markdown_keyed,
        "counter": markdown_counter,
    }
    for name in PARTS:
        if name in results:
            lines += render[name](results[name])
    return "\n".join(lines)


def row_order(row: dict) -> tuple[int, str]:
    """Rows of a part in table order: by number of players, then preset name."""
    return row.get("players") or resolve_game(row["preset"])[0].players, row["preset"]


def merge_part(old: dict, new: dict) -> dict:
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


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/evaluation", help="output directory")
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"parts to run: {','.join(PARTS)} or none"
    )
    parser.add_argument("--draft-runs", default="runs/long", help="holds draft-LINEUP runs")
    parser.add_argument("--three-runs", default="runs/long", help="holds complots-LINEUP-3")
    parser.add_argument("--preset-runs", default="runs/presets", help="holds 4-8 player runs")
    parser.add_argument("--ladder-runs", default="runs/ladder", help="exact ladder strategies")
    parser.add_argument("--ladder-eval", default="runs/ladder-eval", help="re-solved rungs")
    parser.add_argument("--resolve-rungs", default="1,2,3", help="rungs re-solved here")
    parser.add_argument("--exact-rungs", default="1,2,3,4,5", help="rungs in the exact table")
    parser.add_argument("--sample-rungs", default="1,2,3,4", help="rungs sampled in self-play")
    parser.add_argument("--versus-games", type=int, default=2000, help="games per seating")
    parser.add_argument("--exact-games", type=int, default=1_000_000, help="per exact rung")
    parser.add_argument("--draft-games", type=int, default=200_000, help="draft self-play")
    parser.add_argument("--multi-games", type=int, default=50_000, help="3-8 player self-play")
    parser.add_argument("--seat-games", type=int, default=2000, help="counter self-play, <=4 p")
    parser.add_argument("--seat-games-large", type=int, default=1000, help="... 5-8 players")
    parser.add_argument("--workers", type=int, default=1, help="tournament/counter processes")
    parser.add_argument("--only", default="", help="comma-separated presets (default: all)")
    parser.add_argument("--quick", action="store_true", help="tiny counts (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.versus_games, args.seat_games, args.seat_games_large = 10, 20, 10
        args.exact_games, args.draft_games, args.multi_games = 2000, 2000, 500
    return args


def main(argv: list[str] | None = None) -> None:
    """Run the requested parts, then merge every part file into results.json and tables.md."""
    args = parse_args(argv)
    parts = [] if args.parts.strip() == "none" else [p.strip() for p in args.parts.split(",")]
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    command = shlex.join(["python", "scripts/evaluate_all.py", *sys.argv[1:]])
    for name in parts:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        if name == "versus":
            result = part_versus(args, out)
        elif name == "exact":
            result = part_exact(args, out)
        elif name == "keyed":
            result = part_keyed(args, out)
        else:
            result = part_counter(args)
        result.update(seconds=time.perf_counter() - start, command=command)
        path = out / f"{name}.json"
        if path.is_file():
            result = merge_part(json.loads(path.read_text()), result)
        path.write_text(json.dumps(result, indent=1, default=str))
        print(f"== {name}: {result['seconds']:.0f} s", flush=True)
    results = {
        name: json.loads((out / f"{name}.json").read_text())
        for name in PARTS
        if (out / f"{name}.json").is_file()
    }
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    tables = markdown(results)
    (out / "tables.md").write_text(tables)
    print(tables)


if __name__ == "__main__":
    main()
