"""``complots pick``: choose a run's best kept network by the trained responder.

See :mod:`complots_solver.solvers.bounds.pick` for what is measured and written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from complots_solver.cli.checks import at_least, game_arg

if TYPE_CHECKING:
    from complots_solver.solvers.bounds.pick import KeptGain


@click.command(short_help="Choose a run's best kept network by the trained responder.")
@click.argument("run", type=click.Path(path_type=Path))
@click.option(
    "--budget",
    type=int,
    default=None,
    help="the responder's training games (default: the docs' usual budget for the table size: "
    "153600 at 2 players, 38400 at 3, 25600 at 4, 12800 at 5 and more)",
)
@click.option(
    "--games",
    "-n",
    type=int,
    default=None,
    help="measuring games per seat (default: 2000, 400, 300, 200 by table size as --budget)",
)
@click.option("--seed", type=int, default=1, show_default=True, help="the choosing seed")
@click.option(
    "--confirm",
    type=int,
    default=2,
    show_default=True,
    help="seeds after --seed at which the chosen network is measured again (the lowest of "
    "several figures flatters the one chosen; these do not)",
)
@click.option(
    "--last",
    type=int,
    default=0,
    show_default=True,
    help="measure only the newest N kept networks (0: all)",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="the strategy folder to write, replaced whole (default RUN/picked); to ship it, put "
    "it in place of games/strategies/PRESET",
)
def pick(
    run: Path,
    budget: int | None,
    games: int | None,
    seed: int,
    confirm: int,
    last: int,
    out_dir: Path | None,
) -> None:
    """Measure every network RUN kept and write the best as a strategy.

    RUN is a self-play run with --option keep_every=K, or a regret run (its
    snapshots, one every 100 iterations). Each kept network meets a responder trained against it (the same budget
    and seed for all); the lowest gain over the fair share is chosen and
    measured again at --confirm further seeds. The result is a whole strategy
    folder: the network, meta.json with every figure and its command, the
    training log up to it, and the state file that `complots solve PRESET
    --algorithm ALGORITHM --option warm_start=DIR` continues. At 2 players the
    figure is the mean return per game, elsewhere the gain over 1/n. Each
    measurement is saved in RUN/picks.json as it ends: run the command again
    to resume.
    """
    from complots_solver.solvers.bounds import pick as picking

    for value, name, least in ((budget, "--budget", 1), (games, "--games", 2)):
        at_least(value, name, least)
    at_least(confirm, "--confirm", 0)
    at_least(last, "--last", 0)
    try:
        record, kind = picking.read_run(run)
    except (ValueError, OSError) as exc:
        raise click.BadParameter(str(exc), param_hint="RUN") from None
    config, _ = game_arg(str(record["game"]))
    usual = picking.usual_budget(config.players)
    budget = budget or usual[0]
    games = games or usual[1]

    unit = "a game" if config.players == 2 else f"over 1/{config.players}"

    def report(m: KeptGain, reused: bool) -> None:
        how = "recorded" if reused else f"{m.train_seconds:.0f} s of training"
        click.echo(f"iteration {m.iteration:>6}, seed {m.seed}: {m.describe()} {unit} ({how})")

    click.echo(
        f"{run} ({kind.algorithm}): responder trained {budget} games, {games} games a seat, "
        f"seed {seed}; {'every kept network' if last == 0 else f'the newest {last} kept networks'}"
    )
    chosen = picking.pick(
        run,
        config,
        budget,
        games,
        seed,
        confirm,
        picking.responder_measure(config),
        last=last,
        report=report,
    )
    command = (
        f"complots pick {run} --budget {budget} --games {games} --seed {seed} "
        f"--confirm {confirm} --last {last}"
    )
    folder = picking.write_picked(run, config, chosen, command, out_dir)
    best = chosen.chosen
    click.echo(
        f"chosen: iteration {chosen.iteration} ({best.describe()} at seed {best.seed}, the "
        f"lowest of {len(chosen.candidates)})"
        + "".join(f"; seed {m.seed} {m.describe()}" for m in chosen.confirm)
    )
    click.echo(f"written to {folder} (play it with net:{folder})")
