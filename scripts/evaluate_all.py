"""Evaluation for issue 5: solved strategies against the baselines, and seat advantage.

Writes everything under ``--out`` (default ``runs/evaluation``): the tournaments'
CSV files and logs, ``results.json`` and ``tables.md`` (the tables of
``reports/evaluation.md``). One process, one core (``--workers 1`` throughout).

1. ``complots evaluate draft-LINEUP --bots policy:runs/mccfr/draft-LINEUP,random,
   honest,bluffer,counter --workers 1`` for both line-ups (run as a subprocess: the
   exact command is printed and recorded), summarised per baseline from its CSV.
2. Seat advantage: self-play of the ``counter`` bot on every preset, win rate by
   seat with 95% Wilson intervals and the turn-cap draw share; self-play of the
   solved strategies: the exact ladder (re-made with ``complots solve``, rungs
   1-3) against the exact value per seat from ``reports/exact-ladder.json``, and
   the full-game MCCFR strategies of ``runs/mccfr``.

Usage::

    python scripts/evaluate_all.py            # everything, about 10-15 minutes
    python scripts/evaluate_all.py --quick    # small smoke run
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import make_bot
from complots_solver.play.policy_bot import KeyedPolicyBot, _cached_keyed
from complots_solver.play.tournament import (
    NO_WINNER,
    GameRecord,
    TournamentResult,
    game_rngs,
    play_game,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.simulate import wilson_interval
from complots_solver.solvers.strategy_file import read_meta

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "games" / "presets"
LINEUPS = ("ambassador", "inquisitor")
BASELINES = ("random", "honest", "bluffer", "counter")
LADDER_RUNGS = (1, 2, 3)  # ladder-4 ends in a draw every time; ladder-5 is too big to re-solve
SOLVE_ITERATIONS = 500
SOLVE_TARGET = 1e-3
Z95 = 1.959963984540054
SEED = 0
FEW_DECISIVE = 10


def run(cmd: list[str], log: Path) -> float:
    """Run ``cmd`` from the repository root, its output to ``log``; return wall seconds."""
    print("$", shlex.join(cmd), flush=True)
    start = time.perf_counter()
    with log.open("w") as fh:
        subprocess.run(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - start


def read_records(path: Path) -> list[GameRecord]:
    """The games of a tournament CSV written by ``complots evaluate --csv``."""
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    seats = sorted((k for k in rows[0] if k.startswith("seat") and k[4:].isdigit()), key=len)
    return [
        GameRecord(
            int(r["seating"]),
            int(r["game"]),
            tuple(r[s] for s in seats),
            int(r["winner_seat"]),
            int(r["turns"]),
        )
        for r in rows
    ]


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


# ---- 1. solved MCCFR strategy against the baselines ---------------------------------------
def versus_baselines(lineup: str, games: int, out: Path) -> dict:
    """``complots evaluate`` of the draft game's MCCFR strategy and the four baselines."""
    preset = f"draft-{lineup}"
    strategy = f"runs/mccfr/{preset}"
    policy = f"policy:{strategy}"
    csv_path = out / f"evaluate-{preset}.csv"
    cmd = [
        "complots",
        "evaluate",
        preset,
        "--bots",
        ",".join([policy, *BASELINES]),
        "--games",
        str(games),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--csv",
        str(csv_path.relative_to(ROOT)),
    ]
    seconds = run(cmd, out / f"evaluate-{preset}.log")
    config, _ = resolve_game(preset)
    records = read_records(csv_path)
    bots = [policy, *BASELINES]
    table = sorted({r.seats for r in records})
    index = {s: i for i, s in enumerate(table)}
    records = [GameRecord(index[r.seats], r.game, r.seats, r.winner, r.turns) for r in records]
    result = TournamentResult(config, bots, table, games, SEED, records)
    rows = []
    for base in BASELINES:
        met = [r for r in records if set(r.seats) == {policy, base}]
        wins = sum(r.winner_bot == policy for r in met)
        losses = sum(r.winner_bot == base for r in met)
        draws = sum(r.capped for r in met)
        low, high = wilson_interval(wins, len(met))
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
                "losses": losses,
                "draws": draws,
                "win_rate": wins / len(met),
                "ci": [low, high],
                "by_seat": by_seat,
            }
        )
    return {
        "preset": preset,
        "strategy": strategy,
        "meta": {
            k: read_meta(ROOT / strategy).get(k)
            for k in ("iterations", "wall_time_seconds", "algorithm", "key_scheme")
        },
        "command": shlex.join(cmd),
        "seconds": seconds,
        "rows": rows,
        "ratings": result.bradley_terry(),
        "standings": result.standings().to_dict("records"),
    }


# ---- 2. seat advantage ---------------------------------------------------------------------
def self_play(preset: str, spec: str, games: int, seed: int = SEED) -> dict:
    """``games`` games of ``spec`` in every seat: wins per seat, draws, intervals."""
    config, _ = resolve_game(preset)
    game = pyspiel.load_game(config.game_string())
    n = config.players
    bot = make_bot(spec, config, np.random.default_rng(0))  # loads (and caches) a strategy
    keyed = bot if isinstance(bot, KeyedPolicyBot) else None
    lookups0 = keyed.lookups if keyed else 0
    misses0 = keyed.misses if keyed else 0
    wins = [0] * n
    draws = 0
    start = time.perf_counter()
    for g in range(games):
        winner, _ = play_game(game, [spec] * n, game_rngs(seed, 0, g, n))
        if winner == NO_WINNER:
            draws += 1
        else:
            wins[winner] += 1
    seconds = time.perf_counter() - start
    out = {
        "preset": preset,
        "spec": spec,
        "players": n,
        "games": games,
        "wins": wins,
        "draws": draws,
        "win_rate": [w / games for w in wins],
        "ci": [list(wilson_interval(w, games)) for w in wins],
        "draw_rate": draws / games,
        "draw_ci": list(wilson_interval(draws, games)),
        "seconds": seconds,
    }
    if n == 2:
        out["utility0"] = list(utility_interval(wins[0], wins[1], games))
    if keyed:
        lookups = keyed.lookups - lookups0
        out["miss_rate"] = (keyed.misses - misses0) / lookups if lookups else 0.0
    print(
        f"  {preset} {spec}: {games} games, {seconds:.1f} s, seat wins {wins}, draws {draws}",
        flush=True,
    )
    return out


def solve_ladder(preset: str, out: Path) -> tuple[Path, str, float]:
    """Re-make the exact ladder strategy of ``preset`` (unless present); (dir, command, s)."""
    directory = ROOT / "runs" / "ladder-eval" / preset
    cmd = [
        "complots",
        "solve",
        preset,
        "--iterations",
        str(SOLVE_ITERATIONS),
        "--target-exploitability",
        str(SOLVE_TARGET),
        "--out",
        str(directory.relative_to(ROOT)),
    ]
    seconds = 0.0
    if not (directory / "strategy.npz").is_file():
        seconds = run(cmd, out / f"solve-{preset}.log")
    return directory, shlex.join(cmd), seconds


def all_presets() -> list[str]:
    """Every preset name in games/presets."""
    return sorted(p.stem for p in PRESETS.glob("*.toml"))


# ---- markdown ------------------------------------------------------------------------------
def pct(x: float) -> str:
    """A rate as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def ci(pair: list[float] | tuple[float, float]) -> str:
    """A rate interval as percentages."""
    return f"[{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def markdown(results: dict) -> str:
    """The tables of reports/evaluation.md."""
    lines = []
    for v in results["versus"]:
        lines += [
            f"### {v['preset']}: `{v['strategy']}` against the baselines",
            "",
            f"`{v['command']}` ({v['seconds']:.0f} s)",
            "",
            "| opponent | games | strategy wins | opponent wins | draws | "
            "strategy win rate [95% CI] | as seat 0 | as seat 1 |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |",
        ]
        for r in v["rows"]:
            seat = {s: f"{pct(w / n)} {ci((lo, hi))}" for s, (w, n, lo, hi) in r["by_seat"].items()}
            lines.append(
                f"| {r['opponent']} | {r['games']:,} | {r['wins']:,} | {r['losses']:,} | "
                f"{r['draws']:,} | {pct(r['win_rate'])} {ci(r['ci'])} | {seat[0]} | {seat[1]} |"
            )
        lines += ["", "Bradley-Terry ratings (Elo scale) from all games of the round robin:", ""]
        lines.append(
            "| bot | rating | overall win rate [95% CI] |\n| --- | ---: | --- |"
            if v["standings"]
            else ""
        )
        for s in sorted(v["standings"], key=lambda s: -s["bt_rating"]):
            lines.append(
                f"| {s['bot']} | {s['bt_rating']:+.0f} | "
                f"{pct(s['win_rate'])} {ci((s['ci_low'], s['ci_high']))} |"
            )
        lines.append("")

    lines += [
        "### Exact ladder: self-play of the solved strategy against the exact value",
        "",
        "| preset | games | seat 0 wins [95% CI] | seat 1 wins [95% CI] | draws | "
        "sampled E[u0] [95% CI] | value of this profile | exact game value (exact-ladder.json) "
        "| agrees |",
        "| --- | ---: | --- | --- | --- | --- | ---: | ---: | --- |",
    ]
    for e in results["exact"]:
        u, lo, hi = e["utility0"]
        ref = e["exact_value"]
        agree = "yes" if lo <= ref <= hi else "**no**"
        lines.append(
            f"| {e['preset']} | {e['games']:,} | {pct(e['win_rate'][0])} {ci(e['ci'][0])} | "
            f"{pct(e['win_rate'][1])} {ci(e['ci'][1])} | {pct(e['draw_rate'])} | "
            f"{u:+.4f} [{lo:+.4f}, {hi:+.4f}] | {e['profile_value']:+.4f} | {ref:+.4f} | {agree} |"
        )
    lines.append("")
    if results["mccfr_self_play"]:
        lines += [
            "### Full-game MCCFR strategies: self-play by seat",
            "",
            "| preset | games | win rate by seat [95% CI] | draws | table misses |",
            "| --- | ---: | --- | ---: | ---: |",
        ]
        for e in results["mccfr_self_play"]:
            seats = "; ".join(
                f"{s}: {pct(r)} {ci(c)}"
                for s, (r, c) in enumerate(zip(e["win_rate"], e["ci"], strict=True))
            )
            lines.append(
                f"| {e['preset']} | {e['games']:,} | {seats} | {pct(e['draw_rate'])} | "
                f"{pct(e.get('miss_rate', 0.0))} |"
            )
        lines.append("")
    lines += [
        "### Every preset: self-play of the `counter` bot, win rate by seat",
        "",
        "| preset | players | games | win rate by seat [95% CI] | draws (turn cap) |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for e in results["counter"]:
        seats = "; ".join(
            f"{s}: {pct(r)} {ci(c)}"
            for s, (r, c) in enumerate(zip(e["win_rate"], e["ci"], strict=True))
        )
        lines.append(
            f"| {e['preset']} | {e['players']} | {e['games']:,} | {seats} | {pct(e['draw_rate'])} |"
        )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    """Run the evaluation and write results.json and tables.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/evaluation", help="output directory")
    parser.add_argument("--versus-games", type=int, default=2000, help="games per seating")
    parser.add_argument("--seat-games", type=int, default=2000, help="counter self-play, <=4 p")
    parser.add_argument("--seat-games-large", type=int, default=1000, help="... 5-8 players")
    parser.add_argument("--exact-games", type=int, default=10000, help="exact self-play games")
    parser.add_argument("--mccfr-games", type=int, default=4000, help="MCCFR self-play games")
    parser.add_argument("--quick", action="store_true", help="tiny counts (smoke test)")
    args = parser.parse_args()
    if args.quick:
        args.versus_games, args.seat_games, args.seat_games_large = 20, 50, 20
        args.exact_games, args.mccfr_games = 200, 100
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    exact_ladder = json.loads((ROOT / "reports" / "exact-ladder.json").read_text())
    start = time.perf_counter()
    results: dict = {"versus": [], "exact": [], "mccfr_self_play": [], "counter": []}

    for lineup in LINEUPS:
        results["versus"].append(versus_baselines(lineup, args.versus_games, out))

    print("exact ladder self-play", flush=True)
    for rung in LADDER_RUNGS:
        for lineup in LINEUPS:
            preset = f"ladder-{rung}-{lineup}"
            directory, cmd, solve_s = solve_ladder(preset, out)
            meta = read_meta(directory)
            entry = self_play(preset, f"policy:{directory.relative_to(ROOT)}", args.exact_games)
            entry.update(
                solve_command=cmd,
                solve_seconds=solve_s,
                iterations=meta["iterations"],
                exploitability=meta["exploitability"],
                profile_value=meta["game_value"],
                exact_value=exact_ladder[preset]["game_value"],
            )
            results["exact"].append(entry)

    print("MCCFR self-play", flush=True)
    for preset in sorted(p.name for p in (ROOT / "runs" / "mccfr").iterdir() if p.is_dir()):
        directory = ROOT / "runs" / "mccfr" / preset
        if not (directory / "strategy.npz").is_file() or preset.endswith("-current"):
            continue
        spec = f"policy:{directory.relative_to(ROOT)}"
        results["mccfr_self_play"].append(self_play(preset, spec, args.mccfr_games))
        _cached_keyed.cache_clear()  # 1-3 GB per loaded table: keep one at a time

    print("counter self-play", flush=True)
    for preset in all_presets():
        config, _ = resolve_game(preset)
        games = args.seat_games if config.players <= 4 else args.seat_games_large
        results["counter"].append(self_play(preset, "counter", games))

    results["seconds"] = time.perf_counter() - start
    results["command"] = shlex.join([sys.executable.rsplit("/", 1)[-1], *sys.argv])
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    (out / "tables.md").write_text(markdown(results))
    print(markdown(results))
    print(f"total {results['seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
