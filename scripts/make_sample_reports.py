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
import json
import shlex
import subprocess
import sys
from pathlib import Path

from complots_solver.browse import DEFAULT_GAMES, SampledBrowser, load_run
from complots_solver.browse.sampled import strongest_exploitability_bound
from complots_solver.reports.api import write_browser_comparison, write_browser_report

MAX_BYTES = 5 * 1024 * 1024
KEYED_FORMAT = "complots-keyed-strategy"
ROOT = Path(__file__).resolve().parents[1]
INDEX = "strategy-reports.md"  # the index of these samples in reports/


def ensure_run(run_dir: Path, preset: str, iterations: int, solve: bool) -> dict:
    """Solve ``preset`` into ``run_dir`` unless it already holds a strategy; return its meta.

    Without ``solve`` a run directory with no strategy is an error (a mistyped
    path must not be filled with a solve of the default preset).
    """
    meta = run_dir / "meta.json"
    if not meta.is_file() and not solve:
        raise SystemExit(
            f"{run_dir} holds no strategy (meta.json); pass --solve to solve {preset} into it"
        )
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


def _exploitability(meta: dict) -> str:
    """A run's exploitability for the index: exact, a sampled lower bound, or not measured."""
    if meta.get("exploitability") is not None:
        return f"{float(meta['exploitability']):.3g}"
    bound = strongest_exploitability_bound(meta)  # the one the report's title page gives
    if bound is not None:
        lo, hi = bound.get("ci95", (float("nan"), float("nan")))
        return (
            f">= {float(bound['lower_bound']):.3g} (sampled bound, {bound['responder']}, "
            f"95% CI {lo:.3g} to {hi:.3g})"
        )
    return "not measured"


def _basis(meta: dict, games: int, seed: int) -> str:
    """How the run's tables are computed."""
    if meta.get("format") == KEYED_FORMAT:
        return f"sampled: {games:,} self-play games, seed {seed}, 95% CI"
    return "exact (compiled tree)"


def write_index(path: Path, name: str, lines: list[str]) -> None:
    """Replace (or add) the ``## name`` section of the index, keeping the others."""
    title = "# Sample reports"
    sections: dict[str, list[str]] = {}
    if path.is_file():
        current: str | None = None
        for line in path.read_text().splitlines():
            if line.startswith("## "):
                current = line[3:].strip()
                sections[current] = []
            elif current is not None:
                sections[current].append(line)
    sections[name] = lines
    out = [title, ""]
    for key, body in sections.items():
        while body and not body[-1].strip():
            body = body[:-1]
        out += [f"## {key}", *body, ""]
    path.write_text("\n".join(out))


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

    meta_a = ensure_run(
        args.ambassador,
        args.preset_ambassador,
        args.iterations,
        args.solve or args.ambassador in defaults,
    )
    meta_b = ensure_run(
        args.inquisitor,
        args.preset_inquisitor,
        args.iterations,
        args.solve or args.inquisitor in defaults,
    )
    name = args.name or str(meta_a.get("preset") or "run").replace("-ambassador", "")
    out = args.out
    written: list[Path] = []
    seeds = {"ambassador": args.seed, "inquisitor": args.seed + 1}  # as `complots compare`
    browsers = {}
    for label, run in (("ambassador", args.ambassador), ("inquisitor", args.inquisitor)):
        browsers[label] = load_run(run, args.games, seeds[label])
        if isinstance(browsers[label], SampledBrowser):
            browsers[label].release_policy()  # keep one strategy table in memory at a time
        stem = out / f"{name}-{label}"
        paths = write_browser_report(
            browsers[label], stem, ["html", "pdf"], out / f"{name}-{label}-tables"
        )
        written += [paths["html"], paths["pdf"]]
    stem = out / f"{name}-ambassador-vs-inquisitor"
    paths = write_browser_comparison(
        browsers["ambassador"],
        browsers["inquisitor"],
        stem,
        ["html", "pdf"],
        out / f"{stem.name}-tables",
    )
    written += [paths["html"], paths["pdf"]]
    for path in written:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SystemExit(f"{path} is {size / 1e6:.1f} MB, over the 5 MB limit")
        print(f"{path} ({size / 1e3:.0f} kB)")
    command = shlex.join(["python", "scripts/make_sample_reports.py", *(argv or sys.argv[1:])])
    lines = [
        "",
        f"Made by `{command}` from these runs:",
        "",
        "| line-up | run directory | game | solver | iterations | exploitability | tables |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, run, meta in (
        ("Ambassador", args.ambassador, meta_a),
        ("Inquisitor", args.inquisitor, meta_b),
    ):
        lines.append(
            f"| {label} | `{run}` | `{meta['game']}` | {meta['algorithm']} | "
            f"{meta['iterations']} | {_exploitability(meta)} | "
            f"{_basis(meta, args.games, seeds[label.lower()])} |"
        )
    keyed = any(m.get("format") == KEYED_FORMAT for m in (meta_a, meta_b))
    lines += [
        "",
        "Files:",
        "",
        *[f"- `{p.relative_to(out)}`" for p in written],
        f"- `{name}-*-tables/`: every table as CSV",
        "",
    ]
    if keyed:
        lines += [
            "These runs are Monte Carlo CFR strategies of a game too large for a compiled",
            "tree: every table is estimated from sampled self-play games of the strategy",
            "and carries 95% confidence intervals ('... ±95%' columns). Each command line",
            "(`complots report RUN --games N --seed S`) reproduces the same numbers.",
            "",
        ]
    else:
        lines += [
            "These are small exact configurations (1 influence, a turn cap of a few turns),",
            "not the 2-player draft game of the rulebook, which only Monte Carlo CFR runs reach.",
            "",
        ]
    write_index(out / INDEX, name, lines)


if __name__ == "__main__":
    main()
