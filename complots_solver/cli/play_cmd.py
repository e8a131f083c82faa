"""``complots play``: a game in the terminal against a bot or a strategy (registered by cli.main)."""

from __future__ import annotations

import click

from complots_solver.cli.checks import game_arg


@click.command(short_help="Play a game in the terminal against a bot or strategy.")
@click.argument("game")
@click.option(
    "--against",
    help="bot or strategy (required): random, honest, bluffer, counter, skeptic, brazen, "
    "trusting, solved, net:DIR, search:DIR, policy:DIR[:greedy]",
)
@click.option("--seat", default=0, show_default=True, help="your seat (0 moves first)")
@click.option(
    "--show-strategy",
    is_flag=True,
    help="print the bot's action probabilities at its decisions ('?' at your prompt: at yours)",
)
@click.option(
    "--seed", type=int, default=None, help="seed for the deal and the bots (default: random)"
)
def play(game: str, against: str | None, seat: int, show_strategy: bool, seed: int | None) -> None:
    """Play GAME in the terminal against a bot or a solved strategy.

    Type a move's number or name (a character name works: 'captain'); 'q', end
    of input or Ctrl-C leave the game with the standing so far.
    """
    import numpy as np

    from complots_solver.play.bots import make_bot, parse_bot_spec
    from complots_solver.play.terminal import play_session

    config, _ = game_arg(game)  # an unknown game is the first thing to say
    if against is None:
        raise click.UsageError(
            "Missing option '--against': the bot or strategy to play against "
            "(e.g. --against counter)."
        )
    try:
        parse_bot_spec(against)
        make_bot(against, config, np.random.default_rng(0))  # strategy files load, or say why
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--against") from None
    if not 0 <= seat < config.players:
        raise click.BadParameter(
            f"must be from 0 to {config.players - 1}, got {seat}", param_hint="--seat"
        )
    play_session(
        config,
        against,
        seat,
        seed,
        prompt=_ask,
        echo=click.echo,
        show_strategy=show_strategy,
    )


def _ask(text: str) -> str:
    """One answer from the person; end of input or Ctrl-C ends the game quietly (EOFError)."""
    try:
        return click.prompt(text, type=str, prompt_suffix=": ")
    except click.exceptions.Abort:
        raise EOFError from None
