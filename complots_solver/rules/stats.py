"""Interval statistics shared by every layer: the 95% quantile, Wilson and normal intervals."""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054  # two-sided 95% normal quantile
FEW_DECISIVE = 10  # below this many decisive games a normal interval is widened (utility_interval)
NEAR_INTEGER = 1e-6  # relative slack when win counts are recovered from mean returns


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Counts may be fractional: an effective sample size (``trials``) with the
    observed share of it (``successes``), as for clustered samples.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def utility_interval(wins0: int, wins1: int, games: int) -> tuple[float, float, float]:
    """Mean of +1 (seat/bot 0 wins), -1 (loses), 0 (draw), with its 95% normal interval.

    With fewer than ``FEW_DECISIVE`` decisive games the normal interval is
    unreliable (zero width when every game is a draw); it is then widened to at
    least the Wilson upper bound of the decisive share, which bounds ``|E[u0]|``.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    mean = (wins0 - wins1) / games
    var = (wins0 + wins1) / games - mean * mean
    half = Z95 * math.sqrt(max(var, 0.0) / games)
    if wins0 + wins1 < FEW_DECISIVE:
        half = max(half, wilson_interval(wins0 + wins1, games)[1])
    return mean, mean - half, mean + half


def wins_from_returns(mean: tuple[float, ...], capped_share: float, games: int) -> list[int]:
    """Wins per seat from mean returns (+1 to the winner, -1/(n-1) to the others, 0 on a draw).

    A seat's summed return is ``w - (games - draws - w) / (n - 1)``, so
    ``w = ((n - 1) * sum + games - draws) / n``; the result must be a whole number.
    """
    n = len(mean)
    draws = round(capped_share * games)
    wins = []
    for m in mean:
        exact = ((n - 1) * m * games + games - draws) / n
        w = round(exact)
        if abs(exact - w) > NEAR_INTEGER * max(games, 1) or w < 0:
            raise ValueError(f"mean returns {mean} are not those of {games} whole games")
        wins.append(w)
    if sum(wins) + draws != games:
        raise ValueError(f"wins {wins} and {draws} draws do not add up to {games} games")
    return wins


def agreement(low: float, high: float, value: float, tolerance: float) -> str:
    """Does the sampled interval [low, high] agree with an exact value?

    ``yes`` if it contains the value; ``within tolerance`` if it does once widened
    by ``tolerance`` (the profile sampled differs from the game value by at most
    its NashConv); ``no`` otherwise.
    """
    if low <= value <= high:
        return "yes"
    if low - tolerance <= value <= high + tolerance:
        return "within tolerance"
    return "no"


def seat_summary(wins: list[int], draws: int, games: int) -> dict[str, Any]:
    """Win rate of every seat with its Wilson interval, draws; E[u0] for 2 players."""
    out: dict[str, Any] = {
        "players": len(wins),
        "games": games,
        "wins": wins,
        "draws": draws,
        "win_rate": [w / games for w in wins],
        "ci": [list(wilson_interval(w, games)) for w in wins],
        "draw_rate": draws / games,
        "draw_ci": list(wilson_interval(draws, games)),
    }
    if len(wins) == 2:
        out["utility0"] = list(utility_interval(wins[0], wins[1], games))
    return out


def combined_bound(values: list[float], errors: list[float]) -> tuple[float, float, float]:
    """Half the sum of two seats' mean returns, with its 95% normal interval: (bound, low, high).

    Each seat's mean has its own standard error and the seats are sampled
    independently, so the errors add in quadrature.
    """
    bound = sum(values) / 2
    half = Z95 * math.sqrt(sum(e * e for e in errors)) / 2
    return bound, bound - half, bound + half
