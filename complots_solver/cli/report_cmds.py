"""The ``complots report`` and ``complots compare`` commands (registered by cli.main)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from complots_solver.cli.checks import writable_folder

RUN_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


@contextmanager
def report_progress(
    err: Console | None = None,
) -> Iterator[Callable[[str, int, int | None], None]]:
    """A progress line per phase of a report on stderr (a terminal only): its steps and time."""
    err = err or Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int | None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            # a phase of unknown length is complete once it reports a step
            whole = total if total is not None else (done or None)
            bar.update(tasks[phase], completed=done, total=whole)

        yield update


def _formats(text: str) -> list[str]:
    from complots_solver.reports.api import parse_formats

    try:
        return parse_formats(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--format") from None


def _check_outputs(out: Path, csv_dir: Path | None) -> None:
    """Output folders that cannot be made stop the command before the tables are computed."""
    writable_folder(out.parent, "--out", out)
    if csv_dir is not None:
        writable_folder(csv_dir, "--csv")


def _sampling_options(command: Callable[..., None]) -> Callable[..., None]:
    """The --games and --seed options of commands that read runs by sampling (MCCFR, networks)."""
    command = click.option(
        "--seed",
        type=int,
        default=None,
        help="sampled runs: seed of the sampled games  [default: 0]",
    )(command)
    return click.option(
        "--games",
        type=int,
        default=None,
        help="sampled runs: self-play games  [default: 20000 for MCCFR, 2000 for a policy network]",
    )(command)


@click.command(short_help="Strategy report of a solved run (HTML, PDF).")
@click.argument("run_dir", type=RUN_DIR)
@click.option("--format", "fmt", default="html,pdf", show_default=True, help="html, pdf or both")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="output file; its stem gets .html and/or .pdf",
)
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="also write every table as CSV into this folder",
)
@_sampling_options
def report(
    run_dir: Path,
    fmt: str,
    out: Path,
    csv_dir: Path | None,
    games: int | None,
    seed: int | None,
) -> None:
    """Strategy report of a solved RUN_DIR: tables, heat maps, values (HTML and/or PDF).

    Exact runs are read on the compiled tree; MCCFR (keyed) runs and policy
    networks (belief runs, and the shipped strategies under games/strategies/)
    are read by sampling --games self-play games (tables then carry 95%
    confidence intervals).
    """
    from complots_solver.reports.api import write_report

    _check_outputs(out, csv_dir)
    formats = _formats(fmt)
    with report_progress() as progress:
        paths = write_report(run_dir, out, formats, csv_dir, games, seed, progress)
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")


@click.command(short_help="Side-by-side report of two solved runs.")
@click.argument("run_a", type=RUN_DIR)
@click.argument("run_b", type=RUN_DIR)
@click.option("--format", "fmt", default="html,pdf", show_default=True, help="html, pdf or both")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="output file; its stem gets .html and/or .pdf",
)
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="also write the comparison tables as CSV into this folder",
)
@_sampling_options
def compare(
    run_a: Path,
    run_b: Path,
    fmt: str,
    out: Path,
    csv_dir: Path | None,
    games: int | None,
    seed: int | None,
) -> None:
    """Side-by-side report of two solved line-ups (e.g. Ambassador RUN_A vs Inquisitor RUN_B).

    MCCFR (keyed) runs are sampled with --games games each (RUN_B with seed + 1).
    """
    from complots_solver.reports.api import write_comparison

    _check_outputs(out, csv_dir)
    formats = _formats(fmt)
    with report_progress() as progress:
        paths = write_comparison(run_a, run_b, out, formats, csv_dir, games, seed, progress)
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")


@click.command(short_help="Balance report: plain verdicts from the shipped strategies.")
@click.argument("presets", nargs=-1)
@click.option("--format", "fmt", default="html,pdf", show_default=True, help="html, pdf or both")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="output file; its stem gets .html and/or .pdf",
)
@click.option(
    "--games",
    type=int,
    default=1000,
    show_default=True,
    help="self-play games per line-up (about 0.02 s each at 2 players, 0.15 s at 6, on one core)",
)
@click.option(
    "--pair-games",
    type=int,
    default=None,
    help="games of draft-ambassador and draft-inquisitor (default: --games); about 35000 "
    "each puts their difference within +-1.5 points",
)
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the games")
@click.option(
    "--workers",
    type=int,
    default=2,
    show_default=True,
    help="worker processes (results do not depend on it)",
)
@click.option(
    "--second/--no-second",
    default=True,
    show_default=True,
    help="replay each line-up pair with its second strategies (games/strategies/second/) "
    "and call a verdict robust only where both sets agree",
)
def balance(
    presets: tuple[str, ...],
    fmt: str,
    out: Path,
    games: int,
    pair_games: int | None,
    seed: int,
    workers: int,
    second: bool,
) -> None:
    """Balance report of the shipped strategies (HTML and/or PDF), verdicts first.

    PRESETS: the games to cover (default: every game with a shipped strategy
    among draft-ambassador, draft-inquisitor, the Complots 2 drafts and the
    3- and 4-player games). Each is played --games times, solved against
    solved, with seeded games; each line-up pair with second strategies is
    played again by them for the second opinion.
    """
    from complots_solver.reports.balance import MIN_GAMES, check_presets, write_balance

    try:
        chosen = check_presets(presets)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="PRESETS") from None
    if games < MIN_GAMES:
        raise click.BadParameter(
            f"must be at least {MIN_GAMES} to decide anything, got {games}", param_hint="--games"
        )
    if pair_games is not None and pair_games < MIN_GAMES:
        raise click.BadParameter(
            f"must be at least {MIN_GAMES}, got {pair_games}", param_hint="--pair-games"
        )
    if workers < 1:
        raise click.BadParameter(f"must be >= 1, got {workers}", param_hint="--workers")
    _check_outputs(out, None)
    formats = _formats(fmt)
    words = ["complots balance", *presets, f"--games {games}"]
    words += [f"--pair-games {pair_games}"] if pair_games else []
    words.append(f"--seed {seed}")
    words += [f"--workers {workers}", f"--out {out}"]
    words += [] if second else ["--no-second"]
    if fmt != "html,pdf":
        words.append(f"--format {fmt}")
    with report_progress() as progress:
        paths = write_balance(
            chosen, out, formats, games, seed, workers, " ".join(words), progress, pair_games,
            second,
        )  # fmt: skip
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")
