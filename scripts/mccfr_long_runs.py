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
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from complots_solver.lab.policies.measure import (
    SNAPSHOT_PREFIX,
    bound_into_meta,
    has_bound,
    snapshots,
    trend_row,
    write_trend,
)
from complots_solver.lab.policies.runs import solved_seconds

SEED = 0
SNAPSHOT_FILES = ("strategy.npz", "meta.json")
SNAPSHOT_TOLERANCE = 0.05  # relative gap between target and solved seconds


def cmd_solve(args: argparse.Namespace, extra: list[str]) -> None:
    """Run the segments, snapshotting after each."""
    out = Path(args.out)
    targets = [float(x) for x in args.segments.split(",")]
    if targets != sorted(targets) or targets[0] <= 0:
        raise SystemExit("--segments must be increasing positive seconds, e.g. 300,600,1200")
    for target in targets:
        done = solved_seconds(out)
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
        solved = solved_seconds(out)
        # Named after the target unless the run stopped elsewhere (e.g. a resume
        # from a checkpoint written by an interrupted segment).
        label = target if abs(solved - target) <= SNAPSHOT_TOLERANCE * target else solved
        snap = out / f"{SNAPSHOT_PREFIX}{label:.0f}s"
        snap.mkdir(parents=True, exist_ok=True)
        for name in SNAPSHOT_FILES:
            shutil.copy2(out / name, snap / name)
        print(f"segment to {target:g} s took {time.perf_counter() - start:.0f} s wall", flush=True)


def cmd_bound(args: argparse.Namespace) -> None:
    """Bound every snapshot with the same responder budget; write the trend."""
    out = Path(args.out)
    rows = []
    for snap in snapshots(out):
        meta = json.loads((snap / "meta.json").read_text())
        if not has_bound(meta, args.train_iterations, args.games):
            start = time.perf_counter()
            bound_into_meta(snap, args.games, seed=SEED, train_iterations=args.train_iterations)
            meta = json.loads((snap / "meta.json").read_text())
            print(
                f"{snap.name}: bound {meta['exploitability_bound']['lower_bound']:.3f} "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        rows.append(trend_row(snap, meta, args.train_iterations, args.games))
    if not rows:
        raise SystemExit(f"no snapshots under {out}")
    write_trend(out, rows)
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
