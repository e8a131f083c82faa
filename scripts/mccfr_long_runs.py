"""A long MCCFR run in segments, with a snapshot and an exploitability bound after each.

Usage (from the repository root)::

    python scripts/mccfr_long_runs.py solve draft-ambassador --out runs/long/draft-ambassador \
        --segments 300,600,1200,1800 [--workers 1] [-- extra complots solve options]
    python scripts/mccfr_long_runs.py bound runs/long/draft-ambassador \
        [--train-iterations 300000] [--games 20000]

``solve`` runs ``complots solve GAME --algorithm os-mccfr --key markov`` until
each cumulative solving time of ``--segments`` (seconds) is reached, resuming
the run in ``--out`` between segments, and copies the strategy after each
segment to ``OUT/snapshot-<seconds>s/`` (strategy.npz and meta.json). The run
directory itself always holds the latest strategy and checkpoint.

``bound`` computes, for every snapshot, the sampled best-response lower bound
on exploitability with a responder trained a *fixed number of iterations*
(so that the points of the trend are comparable whatever the machine's load),
writes it into the snapshot's meta.json and the whole trend to
``OUT/trend.json`` and ``OUT/trend.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from complots_solver.solvers.common.strategy_file import update_keyed_meta
from complots_solver.solvers.mccfr.evaluate import best_response_bound, play_games
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

SEED = 0
SNAPSHOT_PREFIX = "snapshot-"
SNAPSHOT_FILES = ("strategy.npz", "meta.json")
SELF_PLAY_GAMES = 20000
SNAPSHOT_TOLERANCE = 0.05  # relative gap between target and solved seconds


def _solved_seconds(out: Path) -> float:
    """Cumulative solving seconds recorded in a run directory (0 if none)."""
    meta = out / "meta.json"
    if not meta.exists():
        return 0.0
    return float(json.loads(meta.read_text()).get("wall_time_seconds", 0.0))


def cmd_solve(args: argparse.Namespace, extra: list[str]) -> None:
    """Run the segments, snapshotting after each."""
    out = Path(args.out)
    targets = [float(x) for x in args.segments.split(",")]
    if targets != sorted(targets) or targets[0] <= 0:
        raise SystemExit("--segments must be increasing positive seconds, e.g. 300,600,1200")
    for target in targets:
        done = _solved_seconds(out)
        if done >= target - 1:
            print(f"segment {target:g} s already done ({done:.0f} s)", flush=True)
            continue
        cmd = [
            "complots",
            "solve",
            args.game,
            "--algorithm",
            args.algorithm,
            "--key",
            args.key,
            "--workers",
            str(args.workers),
            "--seconds",
            f"{target - done:.0f}",
            "--out",
            str(out),
            *extra,
        ]
        cmd.append("--resume" if done > 0 else "--force")
        print("$", " ".join(cmd), flush=True)
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        solved = _solved_seconds(out)
        # Named after the target unless the run stopped elsewhere (e.g. a resume
        # from a checkpoint written by an interrupted segment).
        label = target if abs(solved - target) <= SNAPSHOT_TOLERANCE * target else solved
        snap = out / f"{SNAPSHOT_PREFIX}{label:.0f}s"
        snap.mkdir(parents=True, exist_ok=True)
        for name in SNAPSHOT_FILES:
            shutil.copy2(out / name, snap / name)
        print(f"segment to {target:g} s took {time.perf_counter() - start:.0f} s wall", flush=True)


def _snapshots(out: Path) -> list[Path]:
    """Snapshot directories of a run, in order of solving time."""
    found = [p for p in out.glob(f"{SNAPSHOT_PREFIX}*s") if (p / "strategy.npz").exists()]
    return sorted(found, key=lambda p: float(p.name[len(SNAPSHOT_PREFIX) : -1]))


def cmd_bound(args: argparse.Namespace) -> None:
    """Bound every snapshot with the same responder budget; write the trend."""
    out = Path(args.out)
    rows = []
    for snap in _snapshots(out):
        meta = json.loads((snap / "meta.json").read_text())
        bound = meta.get("exploitability_bound")
        if not (
            bound
            and bound.get("train_iterations") == [args.train_iterations] * 2
            and bound.get("games_per_seat") == args.games
        ):
            policy = KeyedPolicy.load(snap)
            start = time.perf_counter()
            result = best_response_bound(
                policy.config,
                policy.table,
                0.0,
                args.games,
                seed=SEED,
                train_iterations=args.train_iterations,
            )
            selfplay = play_games(policy.config, [policy.table] * 2, SELF_PLAY_GAMES, seed=SEED)
            bound = result.to_dict()
            meta = update_keyed_meta(
                snap,
                exploitability_bound=bound,
                self_play={
                    "games": selfplay.games,
                    "turn_cap_share": selfplay.capped_share,
                    "mean_return": list(selfplay.mean),
                    "stderr": list(selfplay.stderr),
                    "miss_share": list(selfplay.miss_share),
                },
            )
            print(
                f"{snap.name}: bound {bound['lower_bound']:.3f} "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        rows.append(
            {
                "snapshot": snap.name,
                "solve_seconds": meta["wall_time_seconds"],
                "iterations": meta["iterations"],
                "infostates": meta["information_states"]["total"],
                "bound": bound["lower_bound"],
                "ci95_low": bound["ci95"][0],
                "ci95_high": bound["ci95"][1],
                "responder_iterations": args.train_iterations,
                "games_per_seat": args.games,
                "turn_cap_share": meta["self_play"]["turn_cap_share"],
            }
        )
    if not rows:
        raise SystemExit(f"no snapshots under {out}")
    (out / "trend.json").write_text(json.dumps(rows, indent=2) + "\n")
    with open(out / "trend.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(json.dumps(rows, indent=2))


def main() -> None:
    """Parse the command line and run one phase."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("solve")
    p.add_argument("game")
    p.add_argument("--out", required=True)
    p.add_argument("--segments", default="300,600,1200,1800")
    p.add_argument("--algorithm", default="os-mccfr")
    p.add_argument("--key", default="markov")
    p.add_argument("--workers", type=int, default=1)
    p = sub.add_parser("bound")
    p.add_argument("out")
    p.add_argument("--train-iterations", type=int, default=300_000)
    p.add_argument("--games", type=int, default=20000)
    args, extra = parser.parse_known_args()
    if args.cmd == "solve":
        cmd_solve(args, extra)
    else:
        if extra:
            parser.error(f"unknown options: {extra}")
        cmd_bound(args)


if __name__ == "__main__":
    sys.exit(main())
