"""The tables ``complots evaluate`` prints from a tournament: standings, head to head, seats, shares.

Each function builds one rich table from a
:class:`~complots_solver.play.tournament.TournamentResult`; the command
prints them (fitted to a terminal, at their natural width in a pipe).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from complots_solver.rules.text import signed

if TYPE_CHECKING:
    from complots_solver.play.tournament import TournamentResult

BT_NOTE = "BT rating: Bradley-Terry strength on the Elo scale, mean 0, from the same games."
SHARE_NOTE = (
    "share: a bot's wins over its seats' games (games x seats); by seat: its win share "
    "in the games it sat at that seat."
)


def standings_table(result: TournamentResult) -> Table:
    """Each bot's games, wins, draws, losses, win rate with its interval and rating."""
    standings = Table(title="Standings (95% Wilson intervals; draws = turn cap)")
    for col in ("bot", "games", "wins", "draws", "losses", "win rate", "95% CI", "BT rating"):
        standings.add_column(col, justify="left" if col == "bot" else "right")
    for row in result.standings().itertuples():
        standings.add_row(
            row.bot,
            f"{row.games:,}",
            f"{row.wins:,}",
            f"{row.draws:,}",
            f"{row.losses:,}",
            f"{row.win_rate:.3f}",
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
            signed(row.bt_rating, 0),
        )
    return standings


def head_to_head_table(result: TournamentResult) -> Table:
    """Each bot's win rate against each other bot."""
    h2h = Table(title="Head to head (row bot's win rate against the column bot)")
    for col in ("bot", "opponent", "games", "wins", "opp. wins", "draws", "win rate", "95% CI"):
        h2h.add_column(col, justify="left" if col in ("bot", "opponent") else "right")
    for row in result.head_to_head().itertuples():
        h2h.add_row(
            row.bot,
            row.opponent,
            f"{row.games:,}",
            f"{row.wins:,}",
            f"{row.opponent_wins:,}",
            f"{row.draws:,}",
            f"{row.win_rate:.3f}",
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
        )
    return h2h


def seat_table(result: TournamentResult) -> Table:
    """The win rate of each seat over all games."""
    seats = Table(title="Win rate by seat (all games)")
    for col in ("seat", "wins", "win rate", "95% CI"):
        seats.add_column(col, justify="right")
    for row in result.by_seat().itertuples():
        seats.add_row(
            str(row.seat),
            f"{row.wins:,}",
            f"{row.win_rate:.3f}",
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
        )
    return seats


def table_shares_table(result: TournamentResult) -> Table:
    """Each bot's win share at each table against the fair share 1/n, overall and per seat."""
    n = result.config.players
    how = "duplicate deals" if result.duplicate else "independent deals"
    shares = Table(
        title=f"Win share at each table against the fair share 1/{n} = {1 / n:.3f} ({how})"
    )
    for col in ("bot", "opponents", "games", "share [95% CI]", "vs 1/n", "by seat 0.."):
        shares.add_column(col, justify="left" if col in ("bot", "opponents") else "right")
    for row in result.table_shares().to_dict("records"):
        shares.add_row(
            row["bot"],
            row["opponents"],
            f"{row['games']:,}",
            f"{row['share']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]",
            row["verdict"],
            " ".join(f"{row[f'seat{p}']:.2f}" for p in range(n)),
        )
    return shares


def fixed_summary(
    result: TournamentResult, games: int, seed: int, seconds: float, workers: int
) -> str:
    """The line under a fixed table's game string: its seats, rotations, deals, seed and time."""
    seats = ", ".join(result.seatings[0])
    how = "duplicate deals" if result.duplicate else "independent deals"
    return (
        f"{len(result.records):,} games of the table {seats} ({games} per seat rotation, "
        f"{len(result.seatings)} rotations, {how}), seed {seed}, {seconds:.1f} s on "
        f"{workers} worker(s)"
    )


def fixed_shares_table(result: TournamentResult) -> Table:
    """A fixed table's bots: each one's win share over its seats against 1/n, and per seat."""
    n = result.config.players
    shares = Table(
        title=f"Win share against the fair share 1/{n} = {1 / n:.3f} "
        "(a bot's copies pooled; draws = turn cap)"
    )
    columns = ("bot", "seats", "games", "wins", "draws", "share [95% CI]", "fair", "vs 1/n")
    for col in (*columns, "by seat 0.."):
        shares.add_column(col, justify="left" if col == "bot" else "right")
    for row in result.table_shares().to_dict("records"):
        shares.add_row(
            row["bot"],
            str(row["copies"]),
            f"{row['games']:,}",
            f"{row['wins']:,}",
            f"{row['draws']:,}",
            f"{row['share']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]",
            f"{row['fair']:.3f}",
            row["verdict"],
            " ".join(f"{row[f'seat{p}']:.2f}" for p in range(n)),
        )
    return shares


def misses_table(result: TournamentResult) -> Table | None:
    """The policy bots' strategy-table misses, or None if no bot looked decisions up in a table."""
    misses = result.table_misses()
    if misses.empty:
        return None
    lacking = Table(
        title="Strategy-table misses (policy bots: decisions at information states "
        "the table lacks, played uniformly)"
    )
    for col in ("bot", "decisions", "misses", "miss share"):
        lacking.add_column(col, justify="left" if col == "bot" else "right")
    for row in misses.itertuples():
        lacking.add_row(row.bot, f"{row.lookups:,}", f"{row.misses:,}", f"{row.miss_share:.3f}")
    return lacking
