"""Distil the exact solution of a ladder rung into a policy network and print its exact exploitability."""

from __future__ import annotations

import click

from complots_solver.solvers.belief.net_exact import distill_check


@click.command()
@click.argument("game", default="ladder-3-ambassador")
@click.option("--iterations", default=200, show_default=True, help="CFR+ iterations of the target")
@click.option("--epochs", default=200, show_default=True, help="passes over the examples")
@click.option("--width", default=256, show_default=True, help="hidden units per layer")
@click.option("--weighting", type=click.Choice(["own", "joint"]), default="own", show_default=True)
@click.option("--dagger", default=0, show_default=True, help="rounds on the network's own beliefs")
def main(game: str, iterations: int, epochs: int, width: int, weighting: str, dagger: int) -> None:
    """Print one line per stage: tabular target, first fit, each DAgger round."""
    for row in distill_check(game, iterations, epochs, width, weighting, dagger_rounds=dagger):
        click.echo(row)


if __name__ == "__main__":
    main()
