"""Statistics of the balance report, each with its 95% confidence interval.

The sampling unit is the game: rates over events (claims, challenge decisions,
seats holding a character) pool every event of a game, and their intervals
are Wilson intervals on the effective number of events (the events divided by
the design effect of a ratio estimator with the delta method, never below 1),
so correlated events of one game are not counted as independent and no
interval is [0, 0] or leaves out its estimate. Win rates over games use
Wilson intervals. Spreads (a maximum minus a minimum) and differences between
line-ups use a seeded bias-corrected percentile bootstrap over games, which
also gives each difference a two-sided p-value; :func:`holm` corrects those
for the number of tests.

At 2 players the first player's edge is seat 0's win share minus seat 1's; at
n >= 3 players it is seat 0's win share minus the fair share 1/n, with seat 0's
Wilson interval shifted by 1/n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from complots_solver.reports.balance_games import GameRecord
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Variant
from complots_solver.rules.simulate import wilson_interval

Z95 = 1.959963984540054
ALPHA = 0.05  # family-wise error rate of the verdicts (Holm)
BOOTSTRAP = 1000
MIN_EVENTS = 30  # rows resting on fewer events are greyed out as rough estimates


@dataclass(frozen=True)
class Estimate:
    """A number with its 95% confidence interval and the count of events behind it."""

    value: float
    low: float
    high: float
    n: int = 0

    @property
    def significant(self) -> bool:
        """Whether the interval excludes 0 (for differences)."""
        return self.low > 0 or self.high < 0

    def pct(self, digits: int = 1) -> str:
        """'48.1% [45.0, 51.2]' (a share shown in percent); more digits where the interval would
        otherwise read as one point, such as '0.00% [0.00, 0.01]' for no draw in 35,000 games."""
        if not math.isfinite(self.value):
            return "n/a"
        while (
            digits < 3
            and self.high > self.low
            and (round(100 * self.low, digits) == round(100 * self.high, digits))
        ):
            digits += 1
        f = f"{{:.{digits}f}}"
        return (
            f"{f.format(100 * self.value)}% "
            f"[{f.format(100 * self.low)}, {f.format(100 * self.high)}]"
        )

    def points(self, digits: int = 1) -> str:
        """'+2.3 points [-1.0, +5.6]' (a difference of shares, in percentage points)."""
        if not math.isfinite(self.value):
            return "n/a"
        f = f"{{:+.{digits}f}}"
        return (
            f"{f.format(100 * self.value)} points "
            f"[{f.format(100 * self.low)}, {f.format(100 * self.high)}]"
        )

    def plain(self, digits: int = 1) -> str:
        """'14.2 [13.8, 14.6]' (a plain number)."""
        if not math.isfinite(self.value):
            return "n/a"
        f = f"{{:.{digits}f}}"
        return f"{f.format(self.value)} [{f.format(self.low)}, {f.format(self.high)}]"


NAN = Estimate(float("nan"), float("nan"), float("nan"), 0)


def proportion(successes: int, trials: int) -> Estimate:
    """A share of independent trials with its Wilson interval."""
    if trials <= 0:
        return NAN
    low, high = wilson_interval(int(successes), int(trials), Z95)
    return Estimate(successes / trials, low, high, int(trials))


def wilson(share: float, n: float) -> tuple[float, float]:
    """The Wilson 95% interval of a share observed over ``n`` (possibly effective) trials."""
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def ratio(num: np.ndarray, den: np.ndarray, bounded: bool = True) -> Estimate:
    """sum(num) / sum(den) over games with a 95% interval that respects the games as clusters.

    ``bounded`` (a share): Wilson on the effective count, the events divided by
    the design effect (cluster-robust variance over the binomial one, at least
    1). Otherwise (a rate such as claims per game): the delta-method interval.
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    total = den.sum()
    if total <= 0:
        return NAN
    r = num.sum() / total
    g = len(den)
    if g < 2:
        return Estimate(r, float("nan"), float("nan"), int(total))
    z = num - r * den
    var = g / (g - 1) * float((z * z).sum()) / (total * total)
    if bounded:
        binomial = r * (1 - r) / total
        design = var / binomial if binomial > 0 and var > 0 else 1.0
        low, high = wilson(float(r), total / max(design, 1.0))
        return Estimate(float(r), low, high, int(total))
    half = Z95 * math.sqrt(var)
    return Estimate(float(r), float(r - half), float(r + half), int(total))


def mean(values: np.ndarray) -> Estimate:
    """A mean over games with its normal 95% interval."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return NAN
    if x.size == 1:
        return Estimate(float(x[0]), float("nan"), float("nan"), 1)
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(x.size)
    m = float(x.mean())
    return Estimate(m, m - half, m + half, int(x.size))


def _normal_cdf(x: float) -> float:
    """Standard normal distribution function."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _normal_ppf(q: float) -> float:
    """Standard normal quantile (bisection: accurate to 1e-9, no scipy needed)."""
    lo, hi = -10.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _normal_cdf(mid) < q else (lo, mid)
    return (lo + hi) / 2


def bootstrap_interval(point: float, samples: np.ndarray, n: int) -> Estimate:
    """The point estimate with its bias-corrected percentile 95% bootstrap interval.

    A spread (best minus worst) is biased upwards, so its plain percentile
    interval can lie wholly above the estimate; the bias correction (its
    offset held within +-1.96) keeps the estimate inside.
    """
    s = samples[np.isfinite(samples)]
    if s.size == 0 or not math.isfinite(point):
        return Estimate(point, float("nan"), float("nan"), n)
    below = (np.sum(s < point) + 0.5 * np.sum(s == point)) / s.size
    z0 = min(max(_normal_ppf(min(max(below, 1e-9), 1 - 1e-9)), -Z95), Z95)
    q_low, q_high = _normal_cdf(2 * z0 - Z95), _normal_cdf(2 * z0 + Z95)
    low, high = float(np.quantile(s, q_low)), float(np.quantile(s, q_high))
    return Estimate(point, min(low, point), max(high, point), n)


def bootstrap_p(samples: np.ndarray) -> float:
    """Two-sided bootstrap p-value of 'the difference is 0': twice the smaller tail at 0."""
    s = samples[np.isfinite(samples)]
    if s.size == 0:
        return float("nan")
    tail = min(np.mean(s <= 0), np.mean(s >= 0))
    return float(min(1.0, max(2 * tail, 1 / s.size)))


def holm(pvalues: Sequence[float], family: int = 0) -> list[float]:
    """Holm-adjusted p-values (family-wise error), in the order given; NaN stays NaN.

    ``family``: the number of tests to correct for when more than those given (a second set
    of tests held to the same standard as a larger first one)."""
    order = sorted((p, k) for k, p in enumerate(pvalues) if math.isfinite(p))
    m = max(len(order), family)
    out = [float("nan")] * len(pvalues)
    running = 0.0
    for rank, (p, k) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        out[k] = running
    return out


def hand_label(config: GameConfig, hand: Sequence[int]) -> str:
    """'Duchess+Captain' for clans (0, 3)."""
    return "+".join(config.clan_name(c) for c in hand) or "(none)"


class LineupData:
    """Per-game arrays of one preset's recorded games, and every statistic drawn from them."""

    def __init__(self, preset: str, config: GameConfig, records: list[GameRecord]) -> None:
        """Arrays from the records of ``preset`` (game ``config``)."""
        if not records:
            raise ValueError(f"records: no game recorded for {preset}")
        self.preset = preset
        self.config = config
        self.records = records
        n, players = len(records), config.players
        self.games = n
        self.players = players
        self.winner = np.array([r.winner for r in records], dtype=np.int64)
        self.turns = np.array([r.turns for r in records], dtype=np.float64)
        # holders[g, c]: seats of game g starting with clan c; holder_wins[g, c]: those that won
        self.holders = np.zeros((n, NUM_CLANS))
        self.holder_wins = np.zeros((n, NUM_CLANS))
        for g, r in enumerate(records):
            for seat, hand in enumerate(r.hands[:players]):
                for c in set(hand):
                    self.holders[g, c] += 1
                    self.holder_wins[g, c] += r.winner == seat

    # ---- outcomes ------------------------------------------------------------------------
    @property
    def fair_share(self) -> float:
        """1/n: the win share of each seat if no seat had an edge and no game were drawn."""
        return 1.0 / self.players

    @property
    def has_draft(self) -> bool:
        """Whether the game starts with the draft (the 2-player draft variant)."""
        return self.config.variant == Variant.DRAFT

    def seat_win(self, seat: int) -> Estimate:
        """Share of games won by ``seat``."""
        return proportion(int((self.winner == seat).sum()), self.games)

    def seat_wins(self) -> list[Estimate]:
        """Every seat's share of games won, seat 0 first."""
        return [self.seat_win(seat) for seat in range(self.players)]

    def draws(self) -> Estimate:
        """Share of games ending at the turn cap (draws)."""
        return proportion(int((self.winner < 0).sum()), self.games)

    def seat_over_fair(self, seat: int) -> Estimate:
        """``seat``'s win share minus the fair share 1/n: its Wilson interval shifted by 1/n."""
        e = self.seat_win(seat)
        f = self.fair_share
        return Estimate(e.value - f, e.low - f, e.high - f, e.n)

    def first_player_edge(self) -> Estimate:
        """The first player's edge in win share (percentage points when shown).

        At 2 players: seat 0's win rate minus seat 1's, normal interval. At
        3 or more: seat 0's win share minus the fair share 1/n (seat 0's
        Wilson interval shifted by 1/n).
        """
        if self.players > 2:
            return self.seat_over_fair(0)
        p0 = float((self.winner == 0).mean())
        p1 = float((self.winner == 1).mean())
        d = p0 - p1
        var = (p0 + p1 - d * d) / self.games
        half = Z95 * math.sqrt(max(var, 0.0))
        return Estimate(d, d - half, d + half, self.games)

    def seat_spread(self) -> float:
        """The best seat's win share minus the worst seat's (all n seats)."""
        shares = [(self.winner == seat).mean() for seat in range(self.players)]
        return float(max(shares) - min(shares))

    def game_length(self) -> Estimate:
        """Mean number of turns."""
        return mean(self.turns)

    # ---- characters and hands ------------------------------------------------------------
    def holder_win(self, clan: int) -> Estimate:
        """Win rate of a seat whose starting hand holds ``clan``."""
        return ratio(self.holder_wins[:, clan], self.holders[:, clan])

    def character_table(self) -> pd.DataFrame:
        """Per character: seats holding it, their win rate, and the share of hands holding it."""
        rows = []
        seats = self.games * self.config.players
        for c in range(NUM_CLANS):
            est = self.holder_win(c)
            rows.append(
                {
                    "character": self.config.clan_name(c),
                    "estimate": est,
                    "holders": int(self.holders[:, c].sum()),
                    "share of hands": self.holders[:, c].sum() / seats,
                }
            )
        return pd.DataFrame(rows)

    def hand_table(self) -> pd.DataFrame:
        """Per starting hand: seats that started with it and their win rate."""
        hands = sorted({tuple(h) for r in self.records for h in r.hands[: self.config.players]})
        column = {h: k for k, h in enumerate(hands)}
        seats = np.zeros((self.games, len(hands)))
        wins = np.zeros((self.games, len(hands)))
        for g, r in enumerate(self.records):
            for seat, hand in enumerate(r.hands[: self.config.players]):
                seats[g, column[tuple(hand)]] += 1
                wins[g, column[tuple(hand)]] += r.winner == seat
        rows = [
            {
                "hand": hand_label(self.config, hand),
                "estimate": ratio(wins[:, k], seats[:, k]),
                "seats": int(seats[:, k].sum()),
            }
            for k, hand in enumerate(hands)
        ]
        return pd.DataFrame(rows, columns=["hand", "estimate", "seats"])

    def character_spread(self, rng: np.random.Generator) -> tuple[Estimate, np.ndarray]:
        """Best minus worst holder win rate over the characters, bootstrap interval and samples."""
        point = self._spread(self.holder_wins.sum(0), self.holders.sum(0))
        idx = rng.integers(0, self.games, size=(BOOTSTRAP, self.games))
        w = self.holder_wins[idx].sum(axis=1)
        h = self.holders[idx].sum(axis=1)
        samples = np.array([self._spread(w[b], h[b]) for b in range(BOOTSTRAP)])
        return bootstrap_interval(point, samples, self.games), samples

    @staticmethod
    def _spread(wins: np.ndarray, holders: np.ndarray) -> float:
        """max - min of wins / holders over clans that someone held."""
        ok = holders > 0
        if ok.sum() < 2:
            return float("nan")
        rates = wins[ok] / holders[ok]
        return float(rates.max() - rates.min())

    def seat_spread_samples(self, rng: np.random.Generator) -> np.ndarray:
        """Bootstrap samples of the seat spread (|seat 0 - seat 1| at 2 players)."""
        idx = rng.integers(0, self.games, size=(BOOTSTRAP, self.games))
        w = self.winner[idx]
        shares = np.stack([(w == seat).mean(axis=1) for seat in range(self.players)])
        return shares.max(axis=0) - shares.min(axis=0)

    def draw_samples(self, rng: np.random.Generator) -> np.ndarray:
        """Bootstrap samples of the draw share."""
        idx = rng.integers(0, self.games, size=(BOOTSTRAP, self.games))
        return (self.winner[idx] < 0).mean(axis=1)

    def length_samples(self, rng: np.random.Generator) -> np.ndarray:
        """Bootstrap samples of the mean game length."""
        idx = rng.integers(0, self.games, size=(BOOTSTRAP, self.games))
        return self.turns[idx].mean(axis=1)

    # ---- draft ---------------------------------------------------------------------------
    def pick_table(self) -> pd.DataFrame:
        """Per character: share of draft picks, with intervals; empty without a draft."""
        if not self.has_draft:
            return pd.DataFrame(columns=["character", "estimate", "picks"])
        picks = np.zeros((self.games, NUM_CLANS))
        for g, r in enumerate(self.records):
            for _, pick in r.picks:
                if 0 <= pick < NUM_CLANS:
                    picks[g, pick] += 1
        total = picks.sum(axis=1)
        if total.sum() == 0:
            return pd.DataFrame(columns=["character", "estimate", "picks"])
        rows = [
            {
                "character": self.config.clan_name(c),
                "estimate": ratio(picks[:, c], total),
                "picks": int(picks[:, c].sum()),
            }
            for c in range(NUM_CLANS)
        ]
        frame = pd.DataFrame(rows)
        order = np.argsort([-e.value for e in frame["estimate"]], kind="stable")
        return frame.iloc[order].reset_index(drop=True)

    def pick_given_random(self) -> pd.DataFrame:
        """Per random card: the most picked card and its share of those picks."""
        if not self.has_draft:
            return pd.DataFrame(columns=["random card", "most picked", "estimate", "picks"])
        counts = np.zeros((NUM_CLANS, NUM_CLANS), dtype=np.int64)
        for r in self.records:
            for card, pick in r.picks:
                if 0 <= card < NUM_CLANS and 0 <= pick < NUM_CLANS:
                    counts[card, pick] += 1
        rows = []
        for card in range(NUM_CLANS):
            n = int(counts[card].sum())
            if n == 0:
                continue
            best = int(np.argmax(counts[card]))
            rows.append(
                {
                    "random card": self.config.clan_name(card),
                    "most picked": self.config.clan_name(best),
                    "estimate": proportion(int(counts[card, best]), n),
                    "picks": n,
                }
            )
        return pd.DataFrame(rows)

    # ---- how to play ---------------------------------------------------------------------
    def play_table(self) -> pd.DataFrame:
        """Per character: claims per game, bluff share, bluffs caught, challenge rates."""
        n = self.games
        claims = np.zeros((n, NUM_CLANS))
        bluffs = np.zeros((n, NUM_CLANS))
        caught = np.zeros((n, NUM_CLANS))
        resp = np.zeros((n, NUM_CLANS, 2))  # [.., holds]: decisions
        chal = np.zeros((n, NUM_CLANS, 2))  # [.., holds]: challenges
        for g, r in enumerate(self.records):
            for c in r.claims:
                claims[g, c.clan] += 1
                if c.bluff:
                    bluffs[g, c.clan] += 1
                    caught[g, c.clan] += c.challenged
            for x in r.responses:
                resp[g, x.clan, int(x.holds)] += 1
                chal[g, x.clan, int(x.holds)] += x.challenged
        rows = []
        for c in range(NUM_CLANS):
            rows.append(
                {
                    "character": self.config.clan_name(c),
                    "claims per game": ratio(claims[:, c], np.ones(n), bounded=False),
                    "bluff share": ratio(bluffs[:, c], claims[:, c]),
                    "bluffs challenged": ratio(caught[:, c], bluffs[:, c]),
                    "challenged, holding none": ratio(chal[:, c, 0], resp[:, c, 0]),
                    "challenged, holding one": ratio(chal[:, c, 1], resp[:, c, 1]),
                }
            )
        return pd.DataFrame(rows)

    def first_moves(self) -> pd.DataFrame:
        """Per seat and first action: its share of first turns and the share of those bluffed."""
        counts: dict[tuple[int, str], list[int]] = {}
        turns = dict.fromkeys(range(self.config.players), 0)
        for r in self.records:
            for seat, name, _clan, bluff in r.first_moves:
                turns[seat] += 1
                counts.setdefault((seat, name), [0, 0])
                counts[(seat, name)][0] += 1
                counts[(seat, name)][1] += bool(bluff)
        rows = []
        for (seat, name), (k, b) in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
            rows.append(
                {
                    "seat": seat,
                    "first action": name,
                    "estimate": proportion(k, turns[seat]),
                    "bluffed": proportion(b, k),
                    "turns": k,
                }
            )
        return pd.DataFrame(rows, columns=["seat", "first action", "estimate", "bluffed", "turns"])


@dataclass(frozen=True)
class Metric:
    """One balance measure of two line-ups: values, their difference (a - b), better side."""

    name: str
    a: Estimate
    b: Estimate
    difference: Estimate
    unit: str  # 'share' (a difference of shares), 'share of games' or 'turns'
    criterion: bool  # whether it counts towards the verdict (lower is better balanced)
    p: float = float("nan")  # two-sided bootstrap p-value of the difference
    adjusted: float = float("nan")  # Holm-adjusted over every counted test of the report

    @property
    def better(self) -> int | None:
        """0 if line-up a is significantly better balanced, 1 if b, None if undecided.

        Significant means the Holm-adjusted p-value is below 5% when the
        measures were adjusted (:func:`adjust`), else that the 95% interval
        of the difference excludes 0.
        """
        if not self.criterion:
            return None
        if math.isfinite(self.adjusted):
            if self.adjusted >= ALPHA:
                return None
        elif not self.difference.significant:
            return None
        return 1 if self.difference.value > 0 else 0


def _difference(point: float, sa: np.ndarray, sb: np.ndarray, n: int) -> tuple[Estimate, float]:
    """a - b with the interval and p-value of independent bootstrap samples."""
    return bootstrap_interval(point, sa - sb, n), bootstrap_p(sa - sb)


def adjust(groups: Sequence[list[Metric]], family: int = 0) -> list[list[Metric]]:
    """Every group's counted measures with Holm-adjusted p-values over all of them together
    (over ``family`` tests when that is more)."""
    flat = [(g, k) for g, ms in enumerate(groups) for k, m in enumerate(ms) if m.criterion]
    adjusted = holm([groups[g][k].p for g, k in flat], family)
    out = [list(ms) for ms in groups]
    for (g, k), a in zip(flat, adjusted, strict=True):
        out[g][k] = replace(out[g][k], adjusted=a)
    return out


def compare_balance(a: LineupData, b: LineupData, seed: int) -> list[Metric]:
    """The balance measures of two line-ups of one table size (see the report's definition)."""
    if a.players != b.players:
        raise ValueError(
            f"line-ups: {a.preset} has {a.players} players and {b.preset} {b.players}; "
            "only games of one table size are compared"
        )
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(7, 21)))
    n = min(a.games, b.games)

    def seat_spread(d: LineupData, samples: np.ndarray) -> Estimate:
        if d.players > 2:
            return bootstrap_interval(d.seat_spread(), samples, d.games)
        # |edge| with the interval of the edge folded at 0 (a bootstrap of |x| is biased there)
        e = d.first_player_edge()
        lo, hi = sorted((abs(e.low), abs(e.high)))
        return Estimate(abs(e.value), 0.0 if e.low <= 0 <= e.high else lo, hi, d.games)

    sa, sb = a.seat_spread_samples(rng), b.seat_spread_samples(rng)
    ea, eb = seat_spread(a, sa), seat_spread(b, sb)
    seat_name = (
        "seat spread (best - worst seat win rate)"
        if a.players > 2
        else "seat spread (|seat 0 - seat 1| win rate)"
    )
    ca, csa = a.character_spread(rng)
    cb, csb = b.character_spread(rng)
    da, dsa = a.draws(), a.draw_samples(rng)
    db, dsb = b.draws(), b.draw_samples(rng)
    la, lsa = a.game_length(), a.length_samples(rng)
    lb, lsb = b.game_length(), b.length_samples(rng)
    measures = [
        (seat_name, ea, eb, sa, sb, "share", True),
        ("character spread (best - worst holder win rate)", ca, cb, csa, csb, "share", True),
        ("games decided by the turn cap (draws)", da, db, dsa, dsb, "share of games", True),
        ("mean game length (turns)", la, lb, lsa, lsb, "turns", False),
    ]
    out = []
    for name, x, y, xs, ys, unit, counted in measures:
        diff, p = _difference(x.value - y.value, xs, ys, n)
        if unit == "share of games":  # two proportions: Newcombe's interval from their Wilson ones
            diff = newcombe(x, y)
        out.append(Metric(name, x, y, diff, unit, counted, p))
    return out


def newcombe(a: Estimate, b: Estimate) -> Estimate:
    """a - b of two independent shares with Newcombe's hybrid score interval (from Wilson's)."""
    d = a.value - b.value
    low = d - math.hypot(a.value - a.low, b.high - b.value)
    high = d + math.hypot(a.high - a.value, b.value - b.low)
    return Estimate(d, low, high, min(a.n, b.n))


def balance_verdict(
    metrics: list[Metric], names: tuple[str, str], players: int | None = None
) -> str:
    """One sentence: which line-up is better balanced on the counted measures, or undecided.

    With ``players`` the sentence names the table size ('At 3 players, ...').
    """
    at = f"At {players} players, " if players else ""
    wins = [m.better for m in metrics if m.criterion]
    decided = [w for w in wins if w is not None]
    if not decided:
        return (
            f"{at}{'the' if at else 'The'} data cannot tell the {names[0]} and {names[1]} "
            "line-ups apart: no balance measure differs significantly (95% intervals of every "
            "difference include 0)."
        )
    if len(set(decided)) > 1:
        return (
            f"{at}{'mixed' if at else 'Mixed'}: the {names[0]} line-up is better balanced on "
            f"some measures and the {names[1]} line-up on others; neither is better overall."
        )
    side = decided[0]
    which = [m.name.split(" (")[0] for m in metrics if m.better == side]
    return (
        f"{at}{'the' if at else 'The'} {names[side]} line-up is better balanced: significantly "
        "smaller "
        + " and ".join(which)
        + f"; {len(decided)} of {len(wins)} measures differ significantly, none in favour "
        f"of the {names[1 - side]} line-up."
    )
