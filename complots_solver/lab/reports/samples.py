"""Sample strategy reports: one per line-up and their comparison, and the index that lists them.

``scripts/make_sample_reports.py`` is the entry point. Each run directory is
reused if it already holds a strategy, otherwise solved exactly (when allowed);
exact runs are read exactly, keyed Monte Carlo CFR runs by sampled self-play
games, and every table then carries 95% confidence intervals.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from complots_solver.browse import SampledBrowser, load_run
from complots_solver.reports.api import write_browser_comparison, write_browser_report
from complots_solver.reports.tables import exploitability_text, solver_phrase

MAX_BYTES = 5 * 1024 * 1024
KEYED_FORMAT = "complots-keyed-strategy"
INDEX = "strategy-reports.md"  # the index of these samples in reports/


@dataclass(frozen=True)
class SampleRuns:
    """The two runs of a sample, how to read them, and where the reports go."""

    ambassador: Path
    inquisitor: Path
    preset_ambassador: str
    preset_inquisitor: str
    iterations: int
    games: int
    seed: int
    out: Path
    name: str | None = None
    solve_ambassador: bool = False  # solve the run exactly when it holds no strategy
    solve_inquisitor: bool = False


def ensure_run(run_dir: Path, preset: str, iterations: int, solve: bool) -> dict[str, Any]:
    """Solve ``preset`` into ``run_dir`` unless it already holds a strategy; return its meta.

    Without ``solve`` a run directory with no strategy is an error (a mistyped
    path must not be filled with a solve of the default preset).
    """
    meta = run_dir / "meta.json"
    if not meta.is_file() and not solve:
        raise ValueError(
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


def make_samples(runs: SampleRuns, command: str) -> list[Path]:
    """Write both reports, their comparison and the index section ``## NAME``; return the files.

    ``command`` is the command line the index names as the maker.
    """
    meta_a = ensure_run(
        runs.ambassador,
        runs.preset_ambassador,
        runs.iterations,
        runs.solve_ambassador,
    )
    meta_b = ensure_run(
        runs.inquisitor,
        runs.preset_inquisitor,
        runs.iterations,
        runs.solve_inquisitor,
    )
    name = runs.name or str(meta_a.get("preset") or "run").replace("-ambassador", "")
    out = runs.out
    written: list[Path] = []
    seeds = {"ambassador": runs.seed, "inquisitor": runs.seed + 1}  # as `complots compare`
    browsers = {}
    for label, run in (("ambassador", runs.ambassador), ("inquisitor", runs.inquisitor)):
        browsers[label] = load_run(run, runs.games, seeds[label])
        if isinstance(browsers[label], SampledBrowser):
            browsers[label].release_policy()  # keep one strategy table in memory at a time
        stem = out / f"{name}-{label}"
        paths = write_browser_report(
            browsers[label], stem, ["html", "pdf"], out / f"{name}-{label}-tables"
        )
        written += [paths["html"], paths["pdf"]] + (
            [paths["appendix"]] if "appendix" in paths else []
        )
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
            raise ValueError(f"{path} is {size / 1e6:.1f} MB, over the 5 MB limit")
        print(f"{path} ({size / 1e3:.0f} kB)")
    lines = [
        "",
        f"Made by `{command}` from these runs:",
        "",
        "| line-up | run directory | game | solver | exploitability | tables |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, run, meta in (
        ("Ambassador", runs.ambassador, meta_a),
        ("Inquisitor", runs.inquisitor, meta_b),
    ):
        browser = browsers[label.lower()]
        facts = browser.describe_run()
        lines.append(
            f"| {label} | `{run}` | `{meta['game']}` | {solver_phrase(facts)} | "
            f"{exploitability_text(browser)} | {facts.get('method', _basis(meta, 0, 0))} |"
        )
    keyed = any(m.get("format") == KEYED_FORMAT for m in (meta_a, meta_b))
    network = any(b.describe_run().get("solver_text") for b in browsers.values())
    lines += [
        "",
        "Files:",
        "",
        *[f"- `{p.relative_to(out)}`" for p in written],
        f"- `{name}-*-tables/`: every table as CSV",
        "",
    ]
    if network:
        trained = {b.describe_run().get("algorithm") for b in browsers.values()}
        how = {"selfplay": "league self-play", "regret": "sampled regret matching+"}
        kind = (
            f"table networks trained by {' and '.join(how[a] for a in sorted(trained))}, each "
            "seat reading its own cards and knowledge and the table's public record."
            if trained <= set(how)
            else "policy networks of the belief solver, played with exact beliefs."
        )
        lines += [
            f"These are the shipped strategies of the full 2-player draft game: {kind}",
            "They are WEAK",
            "(see the exploitability column and docs/lab/2026-full-game-journal.md): read the",
            "tables as how these strategies play, not as equilibrium play. Every table is",
            "estimated from sampled self-play games and carries 95% confidence intervals;",
            "`complots report DIR --games N --seed S` reproduces the same numbers.",
            "",
        ]
    elif keyed:
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
    return written
