"""The ``complots`` command line.

Every command takes a GAME: a preset name (``complots presets`` lists them),
a preset with overrides (``complots-inquisitor(players=5)``) or an OpenSpiel
game string (``complots(players=3,lineup=inquisitor)``). Bad input exits with
code 2 and one line on stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from complots_solver.rules.config import DEFAULT_PARAMS, PARAM_HELP, GameConfig
from complots_solver.rules.enums import Variant
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES
from complots_solver.rules.presets import load_presets, resolve_game
from complots_solver.rules.simulate import simulate

USAGE_ERROR = 2
PROGRESS_MIN_GAMES = 20_000  # show a progress bar from this many games on

console = Console()


def _game_arg(spec: str) -> tuple[GameConfig, str | None]:
    try:
        return resolve_game(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="GAME") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="complots-solver")
def cli() -> None:
    """Solve and analyse the bluffing card game Complots (Coup)."""


@cli.command()
def presets() -> None:
    """List the named game configurations in games/presets."""
    table = Table(title="Presets (games/presets/*.toml)")
    table.add_column("name")
    table.add_column("game string")
    table.add_column("description")
    for name, preset in load_presets().items():
        table.add_row(name, preset.config().game_string(), preset.description)
    console.print(table)


@cli.command()
@click.argument("game")
def info(game: str) -> None:
    """Print the rules variant, every parameter and size figures of GAME."""
    config, preset = _game_arg(game)
    variant = "2-player draft" if config.variant == Variant.DRAFT else "deal"
    console.print(f"[bold]{config.game_string()}[/bold]")
    if preset:
        console.print(f"preset: {preset} ({load_presets()[preset].description})")
    console.print(
        f"rules: Complots 1, line-up {config.lineup.name.lower()}, variant {variant}, "
        f"{config.players} players, {config.influence} influence"
    )
    table = Table(title="Parameters")
    for col in ("parameter", "value", "default", "meaning"):
        table.add_column(col)
    for key, value in config.params().items():
        table.add_row(key, str(value), str(DEFAULT_PARAMS[key]), PARAM_HELP[key])
    console.print(table)
    sizes = Table(title="Sizes")
    sizes.add_column("figure")
    sizes.add_column("value", justify="right")
    sizes.add_row("distinct actions", str(config.num_distinct_actions()))
    sizes.add_row("max chance outcomes", str(MAX_CHANCE_OUTCOMES))
    sizes.add_row("max game length (moves, chance included)", str(config.max_game_length()))
    sizes.add_row("cards in the game", str(config.copies * 5))
    sizes.add_row("starting coins by seat", " ".join(map(str, config.start_coins)))
    console.print(sizes)


@cli.command(name="simulate")
@click.argument("game", default="draft-ambassador")
@click.option("--games", "-n", default=100_000, show_default=True, help="random games to play")
@click.option("--seed", default=0, show_default=True, help="seed of the random generator")
def simulate_cmd(game: str, games: int, seed: int) -> None:
    """Play random games of GAME: speed, length, turn-cap share, seat win rates."""
    config, _ = _game_arg(game)
    if games < 1:
        raise click.BadParameter(f"must be >= 1, got {games}", param_hint="--games")
    if games >= PROGRESS_MIN_GAMES:
        with Progress(
            TextColumn("simulating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task("games", total=games)
            result = simulate(config, games, seed, progress=lambda k: bar.advance(task, k))
    else:
        result = simulate(config, games, seed)
    console.print(
        f"[bold]{config.game_string()}[/bold]: {games:,} uniformly random games, seed {seed}"
    )
    console.print(
        f"speed: {result.games_per_second:,.0f} games/s, {result.moves_per_second:,.0f} moves/s "
        f"(compiled core, one core)"
    )
    console.print(
        f"average length: {result.moves / games:.1f} moves, {result.turns / games:.1f} turns; "
        f"turn cap ({config.max_turns}) reached in {result.capped / games:.2%} of games"
    )
    table = Table(title="Win rate by seat (95% Wilson interval)")
    for col in ("seat", "wins", "rate", "95% CI"):
        table.add_column(col, justify="right")
    for seat in range(config.players):
        rate, low, high = result.win_rate(seat)
        table.add_row(
            str(seat), f"{int(result.wins[seat]):,}", f"{rate:.4f}", f"[{low:.4f}, {high:.4f}]"
        )
    console.print(table)


@cli.command()
@click.argument("game")
@click.option(
    "--algorithm",
    type=click.Choice(["cfr", "cfr+", "lcfr", "dcfr"]),
    default="cfr+",
    show_default=True,
    help="CFR variant (exact, on the compiled perfect-recall tree)",
)
@click.option("--iterations", "-n", default=1000, show_default=True, help="iteration budget")
@click.option(
    "--target-exploitability",
    "-e",
    default=0.0,
    show_default=True,
    help="stop once the exact exploitability is at most this",
)
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="run directory"
)
@click.option("--resume", is_flag=True, help="continue the run saved in --out")
@click.option(
    "--eval-every", default=10, show_default=True, help="iterations between exact evaluations"
)
@click.option(
    "--checkpoint-seconds", default=60.0, show_default=True, help="seconds between checkpoints"
)
@click.option("--simultaneous", is_flag=True, help="simultaneous instead of alternating updates")
@click.option("--alpha", type=float, default=None, help="DCFR alpha (default 1.5)")
@click.option("--beta", type=float, default=None, help="DCFR beta (default 0)")
@click.option("--gamma", type=float, default=None, help="DCFR gamma (default 2)")
def solve(
    game: str,
    algorithm: str,
    iterations: int,
    target_exploitability: float,
    out_dir: str,
    resume: bool,
    eval_every: int,
    checkpoint_seconds: float,
    simultaneous: bool,
    alpha: float | None,
    beta: float | None,
    gamma: float | None,
) -> None:
    """Solve a 2-player GAME exactly; write the strategy and its exploitability to --out."""
    from complots_solver.solvers.run import SolveRun, SolveSettings

    config, preset = _game_arg(game)
    settings = SolveSettings(
        algorithm=algorithm,
        iterations=iterations,
        target_exploitability=target_exploitability,
        eval_every=eval_every,
        checkpoint_seconds=checkpoint_seconds,
        alternating=not simultaneous,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
    )
    settings.validate()
    start = time.perf_counter()
    run = SolveRun(Path(out_dir), config, settings, preset=preset, resume=resume)
    console.print(f"[bold]{config.game_string()}[/bold]")
    console.print(f"tree: {run.tree.summary()} (compiled in {time.perf_counter() - start:.1f} s)")
    if resume:
        console.print(f"resuming at iteration {run.solver.iteration}")
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("expl {task.fields[expl]}"),
        TextColumn("{task.fields[rate]} it/s"),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task(
            algorithm, total=iterations, completed=run.solver.iteration, expl="-", rate="-"
        )

        def report(p):
            bar.update(
                task,
                completed=p.iteration,
                expl=f"{p.exploitability:.3g}",
                rate=f"{p.iterations_per_second:,.0f}",
            )

        try:
            strategy = run.run(report)
        except KeyboardInterrupt:
            console.print(
                f"interrupted at iteration {run.solver.iteration}; checkpoint saved, continue with --resume"
            )
            raise click.exceptions.Exit(130) from None
    meta = strategy.meta
    console.print(
        f"{meta['iterations']} iterations in {meta['wall_time_seconds']:.1f} s: exploitability "
        f"{meta['exploitability']:.3g} (exact), game value for seat 0 {meta['game_value']:+.4f}"
    )
    console.print(f"strategy written to {out_dir}/strategy.npz and meta.json")


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; usage errors exit 2 with one line, no traceback."""
    try:
        cli.main(args=argv, prog_name="complots", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(USAGE_ERROR)
    except ValueError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(USAGE_ERROR)


if __name__ == "__main__":
    main()
