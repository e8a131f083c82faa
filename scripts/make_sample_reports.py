"""Make the sample strategy reports under reports/: one per line-up and their comparison.

Usage (from the repository root)::

    python scripts/make_sample_reports.py                      # ladder-3, solving if needed
    python scripts/make_sample_reports.py --ambassador RUN_A --inquisitor RUN_B --name NAME

Each RUN directory is reused if it already holds a strategy; otherwise the
script solves its preset exactly (``complots solve PRESET --iterations N``).
Any run directory holding an exact strategy file works, so the script can be
rerun on other runs, e.g. the 2-player draft game of the rulebook once a
solver produces strategy files for it that the browser can read.

Writes, for NAME (default: the Ambassador run's preset without its line-up):

- ``reports/NAME-ambassador.{html,pdf}`` and ``reports/NAME-inquisitor.{html,pdf}``;
- ``reports/NAME-ambassador-vs-inquisitor.{html,pdf}``;
- ``reports/NAME-*-tables/*.csv`` (every table);
- ``reports/strategy-reports.md``, listing what was made, from which runs, by which command.

Every report names its run (iterations and exploitability) on its title page.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from complots_solver.reports.api import write_comparison, write_report

MAX_BYTES = 5 * 1024 * 1024
ROOT = Path(__file__).resolve().parents[1]
INDEX = "strategy-reports.md"  # the index of these samples in reports/


def ensure_run(run_dir: Path, preset: str, iterations: int) -> dict:
    """Solve ``preset`` into ``run_dir`` unless it already holds a strategy; return its meta."""
    meta = run_dir / "meta.json"
    if not meta.is_file():
        cmd = [
            sys.executable,
            "-c",
            "from complots_solver.cli.main import main; main()",
            "solve",
            preset,
            "--iterations",
            str(iterations),
            "--eval-every",
            "50",
            "--out",
            str(run_dir),
        ]
        print("solving:", shlex.join(["complots", *cmd[3:]]), flush=True)
        subprocess.run(cmd, check=True)
    return json.loads(meta.read_text())


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
    args = parser.parse_args(argv)

    meta_a = ensure_run(args.ambassador, args.preset_ambassador, args.iterations)
    meta_b = ensure_run(args.inquisitor, args.preset_inquisitor, args.iterations)
    name = args.name or str(meta_a.get("preset") or "run").replace("-ambassador", "")
    out = args.out
    written: list[Path] = []
    for label, run in (("ambassador", args.ambassador), ("inquisitor", args.inquisitor)):
        stem = out / f"{name}-{label}"
        paths = write_report(run, stem, ["html", "pdf"], out / f"{name}-{label}-tables")
        written += [paths["html"], paths["pdf"]]
    stem = out / f"{name}-ambassador-vs-inquisitor"
    paths = write_comparison(
        args.ambassador, args.inquisitor, stem, ["html", "pdf"], out / f"{stem.name}-tables"
    )
    written += [paths["html"], paths["pdf"]]
    for path in written:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SystemExit(f"{path} is {size / 1e6:.1f} MB, over the 5 MB limit")
        print(f"{path} ({size / 1e3:.0f} kB)")
    command = shlex.join(["python", "scripts/make_sample_reports.py", *(argv or sys.argv[1:])])
    lines = [
        "# Sample reports",
        "",
        f"Made by `{command}` from these runs:",
        "",
        "| line-up | run directory | game | solver | iterations | exploitability |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, run, meta in (
        ("Ambassador", args.ambassador, meta_a),
        ("Inquisitor", args.inquisitor, meta_b),
    ):
        lines.append(
            f"| {label} | `{run}` | `{meta['game']}` | {meta['algorithm']} | "
            f"{meta['iterations']} | {meta['exploitability']:.3g} |"
        )
    lines += [
        "",
        "Files:",
        "",
        *[f"- `{p.relative_to(out)}`" for p in written],
        f"- `{name}-*-tables/`: every table as CSV",
        "",
        "These are small exact configurations (1 influence, a turn cap of a few turns),",
        "not the 2-player draft game of the rulebook; rerun the script with",
        "`--ambassador RUN --inquisitor RUN --name NAME` on runs of that game when they exist.",
        "",
    ]
    (out / INDEX).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
