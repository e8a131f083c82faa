"""The strongest bound against training iterations: a trained responder against each snapshot.

python scripts/regret_curve.py draft-inquisitor runs/regret/inq-1h --budget 153600 --games 2000 \
    --csv runs/regret/inq-1h/curve.csv --plot runs/regret/inq-1h/curve.png --jobs 2

A regret run keeps ``snapshots/iteration-N`` every 100 iterations; each snapshot's average
network (the strategy that would ship) is bounded as ``complots bound GAME --strategy
DIR/snapshots/iteration-N --method responder --budget B --games G --seed S`` bounds it (the
same library call, same seed), one snapshot a process. Rows already in ``--csv`` are kept
(a killed measurement resumes); ``--plot`` draws the mean return per game with its 95%
interval against the iteration. ``--mixtures`` also bounds the mixture of every snapshot from
each measured one on (one network drawn at the start of each game).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

FIELDS = [
    "iteration",
    "members",
    "mean_return",
    "ci_low",
    "ci_high",
    "games",
    "train_games",
    "train_seconds",
    "budget",
    "seed",
]


def snapshots(run: Path) -> list[tuple[int, Path]]:
    """(iteration, folder) of every snapshot of the run, in order, then the run's last network."""
    found = []
    for folder in (run / "snapshots").glob("iteration-*"):
        m = re.fullmatch(r"iteration-(\d+)", folder.name)
        if m and (folder / "policy-net.npz").is_file():
            found.append((int(m.group(1)), folder))
    meta = run / "meta.json"
    if meta.is_file() and (run / "policy-net.npz").is_file():
        last = int(json.loads(meta.read_text()).get("training_iterations", 0))
        if last and last not in {it for it, _ in found}:
            found.append((last, run))
    return sorted(found)


def measure(job: tuple[str, list[str], int, int, int]) -> dict:
    """One bound: (game, network files, budget, games a seat, seed) -> a CSV row."""
    from complots_solver.rules.presets import resolve_game
    from complots_solver.solvers.nets.tablenet import TableNet
    from complots_solver.solvers.selfplay.responder import responder_bound, responder_iterations

    game, files, budget, games, seed = job
    config, _ = resolve_game(game)
    strategy = [TableNet.load(Path(f)) for f in files]
    result = responder_bound(
        config,
        strategy,
        iterations=responder_iterations(budget),
        games=games * config.players,
        seed=seed,
    )
    lo, hi = result.return_interval()
    return {
        "members": len(files),
        "mean_return": round(result.mean_return, 4),
        "ci_low": round(lo, 4),
        "ci_high": round(hi, 4),
        "games": result.games,
        "train_games": result.train_games,
        "train_seconds": round(result.train_seconds, 1),
        "budget": budget,
        "seed": seed,
    }


def plot(
    rows: list[dict],
    path: Path,
    title: str,
    others: list[tuple[str, list[dict]]] = (),
    label: str = "snapshot",
) -> None:
    """Mean return of the responder per game against the iteration, with 95% intervals
    (``others``: further runs' rows, each drawn as a series of its own label)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    series = [(label, "o", [r for r in rows if int(r["members"]) == 1])]
    series.append(("mixture from here on", "s", [r for r in rows if int(r["members"]) > 1]))
    series += [(label, "^", [r for r in rs if int(r["members"]) == 1]) for label, rs in others]
    for label, marker, pts in series:
        if not pts:
            continue
        x = [int(r["iteration"]) for r in pts]
        y = [float(r["mean_return"]) for r in pts]
        err = [
            [y_ - float(r["ci_low"]) for y_, r in zip(y, pts, strict=True)],
            [float(r["ci_high"]) - y_ for y_, r in zip(y, pts, strict=True)],
        ]
        ax.errorbar(x, y, yerr=err, marker=marker, capsize=3, label=label)
    ax.set_xlabel("training iterations")
    ax.set_ylabel("responder's gain per game (lower bound)")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(bottom=0.0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    """Parse the arguments, measure what is missing, write the CSV and the plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("run", type=Path)
    parser.add_argument("--budget", type=int, default=153_600, help="responder training games")
    parser.add_argument("--games", type=int, default=2000, help="measured games a seat")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="snapshots measured at once")
    parser.add_argument("--only", default="", help="comma-separated iterations to measure")
    parser.add_argument("--mixtures", action="store_true")
    parser.add_argument("--csv", type=Path, required=True)
    parser.add_argument("--plot", type=Path)
    parser.add_argument(
        "--also", action="append", default=[], help="CSV:LABEL of another run to draw beside it"
    )
    parser.add_argument("--label", default="snapshot", help="this run's label on the plot")
    parser.add_argument("--title", default="", help="the plot's title (default: the game)")
    args = parser.parse_args()
    points = snapshots(args.run)
    if args.only:
        wanted = {int(i) for i in args.only.split(",")}
        points = [p for p in points if p[0] in wanted]
    done: list[dict] = []
    if args.csv.is_file():
        with args.csv.open() as f:
            done = list(csv.DictReader(f))
    have = {(int(r["iteration"]), int(r["members"]), int(r["budget"])) for r in done}
    jobs, keys = [], []
    for k, (it, folder) in enumerate(points):
        files = [str(folder / "policy-net.npz")]
        todo = [(it, files)]
        if args.mixtures and k + 1 < len(points):
            todo.append((it, [str(f / "policy-net.npz") for _, f in points[k:]]))
        for it_, fs in todo:
            if (it_, len(fs), args.budget) not in have:
                jobs.append((args.game, fs, args.budget, args.games, args.seed))
                keys.append(it_)
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for it, row in zip(keys, pool.map(measure, jobs), strict=True):
            row = {"iteration": it, **row}
            print(row, flush=True)
            done.append(row)
            new = not args.csv.is_file()
            with args.csv.open("a", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=FIELDS)
                if new:
                    writer.writeheader()
                writer.writerow(row)
    if args.plot is not None and done:
        rows = [r for r in done if int(r["budget"]) == args.budget]
        rows.sort(key=lambda r: (int(r["members"]) > 1, int(r["iteration"])))
        others = []
        for item in args.also:
            name, _, label = item.partition(":")
            with open(name) as f:
                got = [r for r in csv.DictReader(f) if int(r["budget"]) == args.budget]
            others.append((label or name, sorted(got, key=lambda r: int(r["iteration"]))))
        title = f"{args.title or args.game}: responder of {args.budget:,} games per point"
        plot(rows, args.plot, title, others, args.label)


if __name__ == "__main__":
    main()
