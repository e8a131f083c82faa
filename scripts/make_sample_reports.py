"""Make the sample strategy reports under reports/: one per line-up and their comparison.

Usage (from the repository root)::

    python scripts/make_sample_reports.py                      # ladder-3, solving if needed
    python scripts/make_sample_reports.py --ambassador RUN_A --inquisitor RUN_B --name NAME
    python scripts/make_sample_reports.py --ambassador runs/long/draft-ambassador \
        --inquisitor runs/long/draft-inquisitor --name draft     # MCCFR runs: sampled

Each RUN directory is reused if it already holds a strategy; otherwise the
script solves its preset exactly (``complots solve PRESET --iterations N``), for
the default runs or with ``--solve`` only (a mistyped RUN is an error).
Exact (tree-aligned) runs are read exactly; keyed Monte Carlo CFR runs (the
2-player draft game of the rulebook) are read by ``--games`` sampled
self-play games with ``--seed`` (the Inquisitor run with seed + 1), and every
table then carries 95% confidence intervals.

Writes, for NAME (default: the Ambassador run's preset without its line-up):

- ``reports/NAME-ambassador.{html,pdf}`` and ``reports/NAME-inquisitor.{html,pdf}``;
- ``reports/NAME-ambassador-vs-inquisitor.{html,pdf}``;
- ``reports/NAME-*-tables/*.csv`` (every table);
- ``reports/strategy-reports.md``: its section ``## NAME`` lists what was made, from which
  runs, by which command (other sections are kept).

Every report names its run (iterations and exploitability) on its title page.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from complots_solver.browse import DEFAULT_GAMES
from complots_solver.lab.reports.samples import SampleRuns, make_samples

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    """Solve (or reuse) the two runs and write the reports."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ambassador", type=Path, default=Path("runs/ladder-3-ambassador"))
    parser.add_argument("--inquisitor", type=Path, default=Path("runs/ladder-3-inquisitor"))
    parser.add_argument("--preset-ambassador", default="ladder-3-ambassador")
    parser.add_argument("--preset-inquisitor", default="ladder-3-inquisitor")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--name", default=None, help="file name prefix (default from the preset)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports")
    parser.add_argument(
        "--games", type=int, default=DEFAULT_GAMES, help="keyed runs: sampled self-play games"
    )
    parser.add_argument("--seed", type=int, default=0, help="keyed runs: seed of the games")
    parser.add_argument(
        "--solve",
        action="store_true",
        help="solve a missing run exactly from its --preset-* (default only for the default runs)",
    )
    args = parser.parse_args(argv)
    defaults = {parser.get_default("ambassador"), parser.get_default("inquisitor")}
    if args.games < 1:
        parser.error(f"--games must be a positive integer, got {args.games}")

    runs = SampleRuns(
        args.ambassador,
        args.inquisitor,
        args.preset_ambassador,
        args.preset_inquisitor,
        args.iterations,
        args.games,
        args.seed,
        args.out,
        args.name,
        solve_ambassador=args.solve or args.ambassador in defaults,
        solve_inquisitor=args.solve or args.inquisitor in defaults,
    )
    command = shlex.join(["python", "scripts/make_sample_reports.py", *(argv or sys.argv[1:])])
    try:
        make_samples(runs, command)
    except ValueError as error:  # a run without a strategy, or a report over the size limit
        raise SystemExit(str(error)) from None


if __name__ == "__main__":
    main()
