"""One strategy against each bot in turn: win rate, mean return and whether any bot beats it."""

from __future__ import annotations

from collections.abc import Sequence

from complots_solver.play.tournament import run_tournament
from complots_solver.rules.config import GameConfig

DEFAULT_OPPONENTS = ("honest", "counter", "bluffer", "random", "skeptic", "brazen", "trusting")


def gauntlet(
    config: GameConfig,
    bot: str,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
) -> list[dict]:
    """Per opponent: games, wins, win rate with its 95% Wilson interval, mean return, verdict.

    ``games`` per seating (both seatings are played). The verdict says whether
    the opponent's advantage is significant (the interval lies below one half).
    """
    if config.players != 2:
        raise ValueError("players: a gauntlet is for 2-player games")
    rows = []
    for opponent in opponents:
        result = run_tournament(config, [bot, opponent], games, seed, workers)
        h2h = result.head_to_head()
        row = h2h[(h2h["bot"] == bot) & (h2h["opponent"] == opponent)].iloc[0]
        wins, losses = int(row["wins"]), int(row["opponent_wins"])
        n = int(row["games"])
        if row["ci_high"] < 0.5:
            verdict = "loses (significant)"
        elif row["ci_low"] > 0.5:
            verdict = "wins (significant)"
        else:
            verdict = "no significant difference"
        rows.append(
            {
                "opponent": opponent,
                "games": n,
                "wins": wins,
                "win_rate": float(row["win_rate"]),
                "ci_low": float(row["ci_low"]),
                "ci_high": float(row["ci_high"]),
                "mean_return": (wins - losses) / n,
                "verdict": verdict,
            }
        )
    return rows


def markdown(rows: list[dict]) -> str:
    """The gauntlet as a markdown table."""
    lines = [
        "| opponent | games | wins | win rate [95% CI] | mean return | verdict |",
        "| --- | ---: | ---: | --- | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['opponent']} | {r['games']} | {r['wins']} | {r['win_rate']:.3f} "
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['mean_return']:+.3f} | {r['verdict']} |"
        )
    return "\n".join(lines)
