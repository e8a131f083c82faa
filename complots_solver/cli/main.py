"""The ``complots`` command line.

Every command takes a GAME: a preset name (``complots presets`` lists them),
a preset with overrides (``complots-inquisitor(players=5)``) or an OpenSpiel
game string (``complots(players=3,lineup=inquisitor)``). Bad input exits with
code 2 and one line on stderr.

This module holds the command group, the terminal helpers the commands share
(``say``, ``print_table``, ``waiting``) and the commands that print with them
(``presets``, ``info``, ``simulate``, ``solve``, ``evaluate``); ``solve``'s
settings are gathered in :mod:`~complots_solver.cli.solve_flags` and
``evaluate``'s tables built in :mod:`~complots_solver.cli.tournament_tables`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from complots_solver.cli.checks import INTERRUPTED, exit_interrupted, game_arg, writable_folder
from complots_solver.cli.solve_flags import (
    Methods,
    given_settings,
    kept_settings,
    old_flags,
    stored_algorithm,
)
from complots_solver.cli.tournament_tables import (
    BT_NOTE,
    SHARE_NOTE,
    fixed_shares_table,
    fixed_summary,
    head_to_head_table,
    misses_table,
    seat_table,
    standings_table,
    table_shares_table,
)
from complots_solver.rules.config import DEFAULT_PARAMS, PARAM_HELP
from complots_solver.rules.enums import Variant
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES
from complots_solver.rules.presets import load_presets
from complots_solver.rules.simulate import simulate

if TYPE_CHECKING:  # the solvers are imported when a command needs them
    from complots_solver.solvers.common.driver import Budget, RunProgress

USAGE_ERROR = 2
PROGRESS_MIN_GAMES = 20_000  # show a progress bar from this many games on
TABLE_MAX_WIDTH = 1000  # columns a table may take when the output is not a terminal

console = Console()


def say(text: str, bold: bool = False) -> None:
    """Print one line unwrapped, so that game strings survive copy and paste."""
    console.print(text, soft_wrap=True, style="bold" if bold else None, markup=False)


def print_table(table: Table) -> None:
    """Print a table: fitted to a terminal, at its natural width when the output is not one.

    A pipe or a file has no width, and rich would wrap cells at 80 columns.
    """
    if console.is_terminal:
        console.print(table)
        return
    wide = console.options.update_width(TABLE_MAX_WIDTH)
    natural = console.measure(table, options=wide).maximum
    Console(file=console.file, width=natural).print(table)


@contextmanager
def waiting(what: str) -> Iterator[None]:
    """A spinner with the elapsed time while ``what`` runs; on a terminal only, gone after."""
    with Progress(
        SpinnerColumn(),
        TextColumn(what, markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        bar.add_task(what, total=None)
        yield


class FileSystemError(click.ClickException):
    """A file or folder that cannot be created, read or written: one line, exit code 2."""

    exit_code = USAGE_ERROR


class ComplotsGroup(click.Group):
    """The command group; OSError and Ctrl-C end any command in one line."""

    def invoke(self, ctx: click.Context) -> object:
        """Run the command: file-system errors exit 2, Ctrl-C exits 130, each in one line."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # commands that keep work catch it first and say so
            click.echo(f"interrupted: {exc}" if str(exc) else "interrupted", err=True)
            raise click.exceptions.Exit(INTERRUPTED) from None
        except OSError as exc:
            where = exc.filename if exc.filename is not None else "a file"
            reason = exc.strerror or str(exc)
            raise FileSystemError(f"file system error on {where}: {reason}") from None


@click.group(cls=ComplotsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="complots-solver")
def cli() -> None:
    """Solve and analyse the bluffing card game Complots (Coup).

    New here? 'complots presets' marks a first game to solve and one to play.
    The rules as implemented are in docs/rules.md.
    """


FIRST_STEPS = {
    "solve": ("recommended first game to solve", "complots solve {name} -e 1e-3 --out runs/{name}"),
    "play": ("recommended first game to play", "complots play {name} --against counter"),
}


@cli.command(short_help="List the named games, with how each can be solved.")
def presets() -> None:
    """List the named game configurations in games/presets.

    Each preset shows its game string (whole, to copy), its description and
    whether it solves exactly, with the time measured in reports/exact-ladder.md.
    """
    found = load_presets()
    say("Start here:", bold=True)
    for name, preset in found.items():
        if preset.recommended:
            label, command = FIRST_STEPS[preset.recommended]
            say(f"  {label}: {command.format(name=name)}")
    say("")
    for name, preset in found.items():
        mark = f"  * {FIRST_STEPS[preset.recommended][0]}" if preset.recommended else ""
        say(f"{name}{mark}", bold=True)
        say(f"  {preset.config().game_string()}")
        say(f"  {preset.description}")
        say(f"  solving: {preset.solve_hint()}")
    say(
        "Times are for one core once compiled; the first command after an install "
        "compiles for about a minute."
    )


@cli.command(short_help="Show a game's rules variant, parameters and sizes.")
@click.argument("game")
def info(game: str) -> None:
    """Print the rules variant, every parameter and size figures of GAME."""
    config, preset = game_arg(game)
    variant = "2-player draft" if config.variant == Variant.DRAFT else "deal"
    say(config.game_string(), bold=True)
    if preset:
        found = load_presets()[preset]
        say(f"preset: {preset} ({found.description})")
        say(f"solving: {found.solve_hint()}")
    elif config.players > 2:
        say(
            f"solving: not exactly solvable ({config.players} players); complots solve trains a "
            "table network by league self-play (selfplay)"
        )
    else:
        say(
            "solving: exact only if its tree fits in memory (complots solve estimates it "
            "first); otherwise sampled regret matching+ of a table network (regret)"
        )
    say(
        f"rules: {config.rules_name()}, variant {variant}, "
        f"{config.players} players, {config.influence} influence"
    )
    table = Table(title="Parameters")
    for col in ("parameter", "value", "default", "meaning"):
        table.add_column(col)
    for key, value in config.params().items():
        table.add_row(key, str(value), str(DEFAULT_PARAMS[key]), PARAM_HELP[key])
    print_table(table)
    sizes = Table(title="Sizes")
    sizes.add_column("figure")
    sizes.add_column("value", justify="right")
    sizes.add_row("distinct actions", str(config.num_distinct_actions()))
    sizes.add_row("max chance outcomes", str(MAX_CHANCE_OUTCOMES))
    sizes.add_row("max game length (moves, chance included)", str(config.max_game_length()))
    sizes.add_row("cards in the game", str(config.copies * 5))
    sizes.add_row("starting coins by seat", " ".join(map(str, config.start_coins)))
    print_table(sizes)


DEFAULT_SIMULATE_GAME = "draft-ambassador"


@cli.command(name="simulate", short_help="Play random games: speed, length, win rates.")
@click.argument("game", default=DEFAULT_SIMULATE_GAME)
@click.option("--games", "-n", default=100_000, show_default=True, help="random games to play")
@click.option("--seed", default=0, show_default=True, help="seed of the random generator")
def simulate_cmd(game: str, games: int, seed: int) -> None:
    """Play random games of GAME: speed, length, turn-cap share, seat win rates.

    GAME defaults to draft-ambassador (the 2-player game with the Ambassador).
    """
    config, _ = game_arg(game)
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
            disable=not console.is_terminal,  # a pipe would get a blank line
        ) as bar:
            task = bar.add_task("games", total=games)
            result = simulate(config, games, seed, progress=lambda k: bar.advance(task, k))
    else:
        result = simulate(config, games, seed)
    say(config.game_string(), bold=True)
    say(f"{games:,} uniformly random games, seed {seed}")
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
    print_table(table)


def __getattr__(name: str) -> object:
    """``SOLVE_ALGORITHMS``: the methods of ``solve``, read from the family registry when asked
    (the registry imports the solvers, which other commands need not load)."""
    if name == "SOLVE_ALGORITHMS":
        from complots_solver.cli.solve_options import algorithms

        return algorithms()
    raise AttributeError(name)


def _list_options(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--list-options [ALGORITHM]``: print the settings tables and stop."""
    if value is None or ctx.resilient_parsing:
        return
    from complots_solver.cli.solve_options import algorithms, markdown

    if value != "all" and value not in algorithms():
        raise click.BadParameter(
            f"must be one of {', '.join(algorithms())}, got {value!r}", param_hint="--list-options"
        )
    say("Settings of each method: --option KEY=VALUE, or a --config JSON file of them")
    say(markdown(None if value == "all" else [value]))
    ctx.exit(0)


@cli.command(short_help="Solve a game exactly, by Monte Carlo CFR or by belief search.")
@click.argument("game", required=False)
@click.option(
    "--algorithm",
    type=Methods(),
    default="auto",
    show_default=True,
    help="auto picks for the game: exact cfr+ when the tree fits in memory, regret (sampled "
    "regret matching+ of a table network) for a 2-player game whose tree does not, selfplay "
    "(league self-play of a table network) at 3+ players; on --resume, the run's own",
)
@click.option(
    "--iterations",
    "-n",
    type=int,
    default=None,
    help="iteration budget, in all (exact: default 1000; MCCFR: optional with --seconds; "
    "belief: training rounds)",
)
@click.option("--seconds", type=float, default=None, help="time budget of this session")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="run directory (required)")
@click.option(
    "--resume",
    is_flag=True,
    help="continue the run saved in --out; the settings it was given are kept unless given again",
)
@click.option(
    "--force", is_flag=True, help="delete any run already in --out (all its files) and start afresh"
)
@click.option("--seed", type=int, default=0, show_default=True, help="random seed")
@click.option(
    "--workers",
    type=int,
    default=1,
    show_default=True,
    help="parallel workers (MCCFR, belief, selfplay, regret; with --option ray_address=ADDR "
    "they are Ray actors). On the small ladder games one MCCFR worker "
    "converges faster (reports/mccfr-runs.md)",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="a setting of the method (repeatable); complots solve --list-options [ALGORITHM] "
    "lists them (docs/solve-options.md)",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help='a JSON file of settings ({"key": value}); --option overrides it',
)
@click.option(
    "--list-options",
    is_flag=False,
    flag_value="all",
    default=None,
    metavar="[ALGORITHM]",
    expose_value=False,
    is_eager=True,
    callback=_list_options,
    help="list the settings of every method (or of ALGORITHM) and exit",
)
@old_flags
def solve(
    game: str | None,
    algorithm: str,
    iterations: int | None,
    seconds: float | None,
    out_dir: str | None,
    resume: bool,
    force: bool,
    seed: int,
    workers: int,
    options: tuple[str, ...],
    config_file: str | None,
    **old: object,
) -> None:
    """Solve GAME and write the strategy to --out.

    The method comes from the game (--algorithm auto) or --algorithm; its
    settings are --option KEY=VALUE (complots solve --list-options).
    """
    started = time.perf_counter()  # the time line counts from here
    from complots_solver.cli.solve_options import family_of, listed, resolve
    from complots_solver.solvers.common.driver import Budget

    if game is None:
        raise click.UsageError("Missing argument 'GAME'.")
    if out_dir is None:
        raise click.UsageError("Missing option '--out'.")
    config, preset = game_arg(game)
    if algorithm == "auto":
        stored = stored_algorithm(Path(out_dir)) if resume else None
        if stored is not None:
            algorithm, reason = stored, f"the run in {out_dir} was made with it"
        else:
            from complots_solver.solvers import pick_algorithm

            algorithm, reason = pick_algorithm(config)
        say(f"method: {algorithm} ({reason})")
    values = resolve(algorithm, given_settings(config_file, options, old))
    fam = family_of(algorithm)
    ctx = click.get_current_context()
    flags = frozenset(
        name
        for name in ("iterations", "seconds", "seed", "workers")
        if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
    )
    if not fam.parallel and workers != 1:
        from complots_solver.cli.solve_options import registered

        parallel = [a for f in registered() if f.parallel for a in f.algorithms]
        raise click.BadParameter(
            f"applies to {listed(parallel)} only, not {algorithm}", param_hint="--workers"
        )
    budget = Budget(iterations, seconds)
    if iterations is None and seconds is None and fam.default_budget is not None:
        budget = fam.default_budget
    from complots_solver.cli.solve_bots import PlayBots
    from complots_solver.solvers.common.registry import RunRequest

    request = RunRequest(
        config=config, preset=preset, out_dir=Path(out_dir), algorithm=algorithm,
        values=values, given=frozenset(values), flags=flags, budget=budget, seed=seed,
        workers=workers, resume=resume, force=force, say=say, bots=PlayBots(), started=started,
    )  # fmt: skip
    fam.check(request)  # before anything is written
    _check_out(Path(out_dir), resume)
    say(config.game_string(), bold=True)
    if fam.making is not None:
        with waiting(fam.making):
            run = fam.make_run(request)
    else:
        run = fam.make_run(request)
    kept = kept_settings(run.kept, fam.options(algorithm))
    if kept:
        say(f"settings kept from the run in {out_dir}: {kept}")
    say(fam.banner(run, request))
    note = fam.resume_note(run, request)
    if note is not None:
        say(note)
    budget = fam.budget(run, request)
    try:
        if fam.progress_every is None:
            result = _drive(run, algorithm, budget, lambda p: fam.progress_line(p, request))
        else:

            def show(p: RunProgress) -> None:
                line = fam.progress_line(p, request)
                if line is not None:
                    say(line)

            result = run.run(budget, show)
    except KeyboardInterrupt:
        exit_interrupted(console, fam.interrupted(run, request))
    for line in fam.finish(run, result, request):
        say(line)


def _drive(run, description: str, budget: Budget, figure):  # noqa: ANN001, ANN202
    """Run ``run`` (any family's run on the driver) under one progress bar; its result.

    The bar counts iterations against an iteration budget, else seconds against the
    time budget of this session; ``figure(progress)`` is the family's figure.
    """
    by_time = budget.iterations is None
    done = run.iteration
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[iters]} it"),
        TextColumn("{task.fields[rate]} it/s"),
        TextColumn("{task.fields[figure]}"),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task(
            description,
            total=budget.seconds if by_time else budget.iterations,
            completed=0 if by_time else done,
            iters=f"{done:,}",
            rate="-",
            figure="-",
        )

        def report(p: RunProgress) -> None:
            bar.update(
                task,
                completed=p.session_seconds if by_time else p.iteration,
                iters=f"{p.iteration:,}",
                rate=f"{p.iterations_per_second:,.0f}",
                figure=figure(p) or "",
            )

        return run.run(budget, report)


def _check_out(out_dir: Path, resume: bool) -> None:
    """A run folder that cannot be made stops the command before the long work."""
    if not (resume and not out_dir.exists()):  # resuming a missing run: the run says so
        writable_folder(out_dir, "--out")


BOT_SPECS = (
    "random, honest, bluffer, counter, skeptic, brazen, trusting, "
    "solved, net:DIR, search:DIR, policy:DIR[:greedy]"
)


@cli.command(short_help="Tournament between bots: win rates and ratings.")
@click.argument("game")
@click.option("--bots", help=f"comma-separated distinct bots, a round robin: {BOT_SPECS}")
@click.option(
    "--table",
    "table_spec",
    help="comma-separated bots, one per seat (names may repeat, e.g. solved,counter,counter): "
    "this one table in each of its seat rotations",
)
@click.option("--games", "-n", default=100, show_default=True, help="games per seating (rotation)")
@click.option("--seed", default=0, show_default=True, help="seed of every game's randomness")
@click.option(
    "--workers",
    default=2,
    show_default=True,
    help="worker processes (results do not depend on it)",
)
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="write one row per game")
@click.option(
    "--duplicate/--no-duplicate",
    default=None,
    help="the rotations of each table replay the same deals (default: on at 3+ players "
    "and with --table)",
)
def evaluate(
    game: str,
    bots: str | None,
    table_spec: str | None,
    games: int,
    seed: int,
    workers: int,
    csv_path: str | None,
    duplicate: bool | None,
) -> None:
    """Tournament between bots on GAME: win rates, 95% intervals, ratings.

    --bots plays a round robin of distinct bots. At 3 or more players each
    table of distinct bots plays every seat rotation, in duplicate format by
    default (each deal replayed in every rotation), and each bot's win share
    at each table is set against the fair share 1/n.

    --table seats one fixed table, a bot per seat (solved,counter,counter:
    one strategy against two copies of a bot), and plays each of its seat
    rotations, in duplicate format by default; copies of a bot are pooled.
    """
    import numpy as np

    from complots_solver.play.bots import make_bot, parse_bot_spec
    from complots_solver.play.tournament import rotations, run_tournament, seatings

    config, _ = game_arg(game)
    if bots is not None and table_spec is not None:
        raise click.UsageError(
            "--bots and --table cannot be combined: --bots plays a round robin of distinct "
            "bots, --table one table with a bot per seat"
        )
    if bots is None and table_spec is None:
        raise click.UsageError(
            "Missing option '--bots' or '--table': a round robin of distinct bots "
            "(--bots counter,honest,random) or one table, a bot per seat "
            "(--table solved,counter,counter)"
        )
    fixed = table_spec is not None
    hint = "--table" if fixed else "--bots"
    spec = table_spec if fixed else bots
    names = [b.strip() for b in spec.split(",")]
    if fixed and "" in names:
        raise click.BadParameter(f"an empty seat in {spec!r}", param_hint=hint)
    names = [b for b in names if b]
    # each bot first: a strategy that cannot play this game is the problem to name, not the count
    for name in dict.fromkeys(names):  # before the progress bar, which would leave a blank line
        try:
            parse_bot_spec(name)
            make_bot(name, config, np.random.default_rng(0))  # strategy files load, or say why
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint=hint) from None
    try:
        table = rotations(names, config.players) if fixed else seatings(names, config.players)
    except ValueError as exc:
        if not fixed and len(set(names)) < len(names):
            exc = ValueError(f"{exc} (a table with repeated bots: --table)")
        raise click.BadParameter(str(exc), param_hint=hint) from None
    if games < 1:
        raise click.BadParameter(f"must be >= 1, got {games}", param_hint="--games")
    if workers < 1:
        raise click.BadParameter(f"must be >= 1, got {workers}", param_hint="--workers")
    if csv_path:
        writable_folder(Path(csv_path).parent, "--csv", Path(csv_path))
    total = len(table) * games
    with Progress(
        TextColumn("playing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,  # a pipe would get a blank line
    ) as bar:
        task = bar.add_task("games", total=total)
        start = time.perf_counter()
        if duplicate is None:
            duplicate = fixed or config.players >= 3
        result = run_tournament(
            config,
            names,
            games,
            seed,
            workers,
            progress=lambda k: bar.advance(task, k),
            duplicate=duplicate,
            fixed_table=fixed,
        )
        seconds = time.perf_counter() - start
    if fixed:
        _print_fixed_table(result, games, seed, seconds, workers)
        if csv_path:
            result.write_csv(Path(csv_path))
            console.print(f"results written to {csv_path}")
        return
    say(config.game_string(), bold=True)
    say(
        f"{total:,} games ({games} per seating, {len(result.seatings)} seatings"
        + (", duplicate deals" if duplicate else "")
        + f"), seed {seed}, {seconds:.1f} s on {workers} worker(s)"
    )
    for table in (standings_table(result), head_to_head_table(result), seat_table(result)):
        print_table(table)
    if config.players >= 3:
        print_table(table_shares_table(result))
    console.print(BT_NOTE)
    _print_misses(result)
    if csv_path:
        result.write_csv(Path(csv_path))
        console.print(f"results written to {csv_path}")


def _print_fixed_table(result, games: int, seed: int, seconds: float, workers: int) -> None:
    """A fixed table's results: each bot's win share over its seats against 1/n, and per seat."""
    say(result.config.game_string(), bold=True)
    say(fixed_summary(result, games, seed, seconds, workers))
    print_table(fixed_shares_table(result))
    say(SHARE_NOTE)
    print_table(seat_table(result))
    _print_misses(result)


def _print_misses(result) -> None:
    """The policy bots' strategy-table misses, if any bot looked decisions up in a table."""
    misses = misses_table(result)
    if misses is not None:
        print_table(misses)


# Commands that need none of the helpers above live in their own modules: play, the reports
# (report, compare, balance), bound and pick.
from complots_solver.cli.bound_cmd import bound as _bound_cmd  # noqa: E402
from complots_solver.cli.pick_cmd import pick as _pick_cmd  # noqa: E402
from complots_solver.cli.play_cmd import play as _play_cmd  # noqa: E402
from complots_solver.cli.report_cmds import balance as _balance_cmd  # noqa: E402
from complots_solver.cli.report_cmds import compare as _compare_cmd  # noqa: E402
from complots_solver.cli.report_cmds import report as _report_cmd  # noqa: E402

cli.add_command(_play_cmd)
cli.add_command(_report_cmd)
cli.add_command(_compare_cmd)
cli.add_command(_balance_cmd)
cli.add_command(_bound_cmd)
cli.add_command(_pick_cmd)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; usage errors exit 2 with one line, no traceback."""
    try:
        code = cli.main(args=argv, prog_name="complots", standalone_mode=False)
        # without standalone mode click returns, not raises, the code of an Exit (Ctrl-C: 130)
        if isinstance(code, int) and code:
            sys.exit(code)
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
