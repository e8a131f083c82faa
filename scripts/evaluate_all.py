"""Evaluation for issue 5: solved strategies against the baselines, and seat advantage.

Writes everything under ``--out`` (default ``runs/evaluation``): one JSON file
per part (``versus.json``, ``exact.json``, ``keyed.json``, ``counter.json``),
the tournaments' CSV files and logs, ``results.json`` (all parts merged) and
``tables.md`` (the tables of ``reports/evaluation.md``). ``--parts`` runs some
parts only; the tables are always assembled from every part file present, so
parts can be run separately (or again) and merged.

Parts (described in :mod:`complots_solver.lab.play.evaluation`): ``versus``,
``exact``, ``keyed``, ``counter``.

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
import json
import shlex
import sys
import time
from pathlib import Path

from complots_solver.lab.play.evaluation import PARTS, EvaluationOptions, merge_part, run_part
from complots_solver.lab.reports.evaluation_tables import markdown

ROOT = Path(__file__).resolve().parent.parent
SCRIPT_ONLY = ("out", "parts", "quick")  # options of the script, not of the evaluation


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
    options = EvaluationOptions(
        root=ROOT, **{k: v for k, v in vars(args).items() if k not in SCRIPT_ONLY}
    )
    for name in parts:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        result = run_part(name, options, out)
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
