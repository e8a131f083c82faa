"""The balance report: which line-up is better balanced, from self-play of the shipped strategies.

``complots balance`` plays seeded self-play games of each shipped strategy
(:mod:`complots_solver.reports.balance_games`) and measures seat win shares,
the value of each character and starting hand, the draft picks, bluffs and
challenges (:mod:`complots_solver.reports.balance_stats`, every number with
its 95% interval). Page 1 is the answer: for each player count (2 to 6) the
better-balanced line-up of Ambassador and Inquisitor or "cannot tell", the
difference on the deciding measure, how sure (Holm's correction over every
test of the report), the first player's edge with each line-up, the
definition of "better balanced" and one sentence on the strategies' strength
(``meta.json`` of each shipped strategy). A glossary, "How sure are we", the
measures and the detail follow; every table, with every row, goes to an HTML
appendix and CSV files beside the report, whose 2-player answers the strategy
reports quote (:mod:`complots_solver.reports.headline`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from complots_solver.browse.net_sampled import responder_name
from complots_solver.play.search_bot import shipped_presets, strategies_dir
from complots_solver.reports import figures
from complots_solver.reports.api import write_outputs
from complots_solver.reports.balance_games import play_preset
from complots_solver.reports.balance_stats import (
    ALPHA,
    MIN_EVENTS,
    Z95,
    Estimate,
    LineupData,
    Metric,
    adjust,
    compare_balance,
)
from complots_solver.reports.document import FigureSpec, Report, Section
from complots_solver.reports.html import write_html
from complots_solver.reports.tables import SAMPLED, StrategyTable
from complots_solver.rules.presets import load_presets

AMBASSADOR, INQUISITOR = "draft-ambassador", "draft-inquisitor"
TWO_PLAYER = (AMBASSADOR, INQUISITOR, "draft-c2-catechumene", "draft-c2-expert")
MORE_PLAYERS = (
    "complots-ambassador-3",
    "complots-inquisitor-3",
    "complots-ambassador",
    "complots-inquisitor",
    "complots2-catechumene-3",
    "complots2-catechumene",
    "complots-ambassador-5",
    "complots-inquisitor-5",
    "complots-ambassador-6",
    "complots-inquisitor-6",
)
COVERED = TWO_PLAYER + MORE_PLAYERS
# Ambassador and Inquisitor games of one table size, compared when both are in the report
PAIRS = (
    (AMBASSADOR, INQUISITOR),
    ("complots-ambassador-3", "complots-inquisitor-3"),
    ("complots-ambassador", "complots-inquisitor"),
    ("complots-ambassador-5", "complots-inquisitor-5"),
    ("complots-ambassador-6", "complots-inquisitor-6"),
)
DEFAULT_GAMES = 1000
MIN_GAMES = 30  # fewer games per line-up cannot decide anything (refused by the command)
WEAK_BOUND = 0.2  # an exploitability bound above this gets the strategy warning
DRAWS_DOMINATE = 0.5  # a draw share from this on gets the short-horizon warning
FIFTH_SHORT = "Amb./Inq."
EXTREME_BLUFF = 0.9  # a character claimed as a bluff more often than this is pointed out
# a trained responder's win share over 1/n at a table of 3+ (``responder_gain``); at 2 players
# the same responder's mean return per game is an ordinary lower bound ("responder")
TABLE_RESPONDER = "table-responder"


@dataclass(frozen=True)
class Quality:
    """What a shipped strategy's meta.json says of its strength."""

    preset: str
    label: str  # 'WEAK', or the first word of the quality text
    bound: float | None  # an upper bound on exploitability, None when there is none
    detail: str  # the quality text as written
    lower: tuple[float, float, float] | None = None  # a sampled lower bound: (value, low, high)
    lower_by: str = ""  # the responder of the strongest lower bound ("lbr", "bot:honest", ...)

    @property
    def short(self) -> str:
        """'WEAK strategy, exploitability not measured' (or its bounds)."""
        if self.bound is not None:
            bound = f"exploitability at most {self.bound:.3g}"
        elif self.lower is not None and self.lower_by == TABLE_RESPONDER:
            v, lo, hi = self.lower
            bound = (
                "no exploitability bound (a table of 3 or more); a trained "
                f"responder gains {v:+.2f} win share over the fair share (95% CI {lo:+.2f} to "
                f"{hi:+.2f})"
            )
        elif self.lower is not None:
            v, lo, hi = self.lower
            by = f", {responder_name(self.lower_by)}" if self.lower_by else ""
            bound = (
                f"no exploitability upper bound (sampled lower bound {v:.2f}{by}, 95% CI "
                f"{lo:.2f} to {hi:.2f})"
            )
        else:
            bound = "exploitability not measured"
        return f"{self.label} strategy, {bound}"

    @property
    def warn(self) -> bool:
        """Whether the strategy warning applies: bound above 0.2, or weak and unbounded."""
        if self.bound is not None:
            return self.bound > WEAK_BOUND
        return self.label.upper().startswith(("WEAK", "UNKNOWN"))


def strongest_lower_bound(raw: object) -> tuple[float, float, float, str] | None:
    """The largest sampled lower bound among ``{method: {"exploitability_lower_bound": ...}}``.

    Every responder's bound is on its own a valid lower bound, so the largest
    is the strongest: (value, CI low, CI high, method).
    """
    if not isinstance(raw, dict):
        return None
    found = []
    for method, record in raw.items():
        if not isinstance(record, dict):
            continue
        for key in ("exploitability_lower_bound", "lower_bound"):
            value = record.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                ci = record.get("ci95") or [float("nan"), float("nan")]
                found.append((float(value), float(ci[0]), float(ci[1]), str(method)))
                break
    return max(found, key=lambda f: f[0]) if found else None


def _find(tree: object, keys: tuple[str, ...]) -> tuple[float, dict] | None:
    """The first number under one of ``keys`` anywhere in a JSON tree, with its parent."""
    if isinstance(tree, dict):
        for key in keys:
            if isinstance(tree.get(key), int | float):
                return float(tree[key]), tree
        for value in tree.values():
            found = _find(value, keys)
            if found is not None:
                return found
    return None


def strategy_quality(preset: str) -> Quality:
    """The quality of ``preset``'s shipped strategy, read from its meta.json.

    ``exploitability_bound`` is a number (an upper bound), null, or a record
    of sampled bounds such as ``{"lbr": {"exploitability_lower_bound": ...,
    "ci95": [...]}}``; only an upper bound counts as a bound.
    """
    path = strategies_dir() / preset / "meta.json"
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return Quality(preset, "UNKNOWN", None, "no readable meta.json")
    text = str(meta.get("quality", "")).strip()
    label = text.split(":", 1)[0].split()[0] if text else "UNKNOWN"
    raw = meta.get("exploitability_bound")
    bound: float | None = None
    lower = None
    by = ""
    gain = meta.get("responder_gain")
    known = load_presets().get(preset)
    table = known is None or known.config().players > 2
    if table and isinstance(gain, dict) and isinstance(gain.get("gain"), int | float):
        # a table strategy (3+ players): a trained responder's win share over 1/n; at 2
        # players the same record's per-game return is an ordinary lower bound, read below
        ci = gain.get("ci95") or [float("nan"), float("nan")]
        return Quality(
            preset,
            label,
            None,
            text,
            (float(gain["gain"]), float(ci[0]), float(ci[1])),
            TABLE_RESPONDER,
        )
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        bound = float(raw)
    elif isinstance(raw, dict):
        up = _find(raw, ("exploitability_upper_bound", "upper_bound"))
        bound = up[0] if up else None
        strongest = strongest_lower_bound(raw)
        if strongest is not None:
            lower, by = strongest[:3], strongest[3]
    return Quality(preset, label, bound, text, lower, by)


def available_presets() -> list[str]:
    """The covered games that have a shipped strategy, in report order."""
    shipped = set(shipped_presets())
    return [p for p in COVERED if p in shipped]


def check_presets(requested: Sequence[str]) -> list[str]:
    """The presets to report: ``requested`` or every available one; ValueError naming the choice."""
    have = available_presets()
    if not requested:
        if not have:
            raise ValueError("no shipped strategy for any covered game yet")
        return have
    missing = [p for p in requested if p not in have]
    if missing:
        raise ValueError(
            f"no shipped strategy for {', '.join(missing)}; "
            f"available: {', '.join(have) or 'none yet'}"
        )
    return list(dict.fromkeys(requested))


def strategy_warning(qualities: Sequence[Quality]) -> str | None:
    """The warning that the strategies behind the numbers are weak, or None."""
    weak = [q for q in qualities if q.warn]
    if not weak:
        return None
    which = "; ".join(f"{q.preset}: {q.short}" for q in weak)
    tables = any(q.lower_by == TABLE_RESPONDER for q in weak)
    note = "; at 3 or more players no such bound exists, only what a trained responder gains"
    return (
        "Warning: weak strategies. Every number in this report describes how the shipped "
        "strategies play against themselves, not how the game plays between strong players: "
        f"{which} (no exploitability upper bound at or below {WEAK_BOUND}"
        f"{note if tables else ''}). Read each verdict as the behaviour of these bots."
    )


def draw_warning(preset: str, draws: Estimate, max_turns: int) -> str | None:
    """The warning that draws dominate a short-horizon game, or None."""
    if not math.isfinite(draws.value) or draws.value < DRAWS_DOMINATE:
        return None
    return (
        f"Warning: draws dominate {preset}. {draws.pct()} of its games reach the turn cap of "
        f"{max_turns} turns and are draws; its win rates and values mostly measure draws, "
        "not who is stronger."
    )


def _lineup_name(d: LineupData) -> str:
    """'Ambassador' or the five Complots 2 names; '3-player Ambassador' at a table of 3+."""
    label = d.config.lineup_label()
    # the 2- and 3-player Ambassador games share a line-up: the player count tells them apart
    return label if d.players == 2 else f"{d.players}-player {label}"


def _cell(e: Estimate) -> str:
    """A share with its interval, and its count when small."""
    if e.n == 0:
        return "no data"
    text = e.pct()
    return text if e.n >= MIN_EVENTS else f"{text} (n={e.n})"


def _table(
    key: str,
    title: str,
    description: str,
    frame: pd.DataFrame,
    method: str,
    faint: list[bool] | None = None,
    note: str = "",
) -> StrategyTable:
    """A balance table (sampled)."""
    return StrategyTable(
        key=key,
        title=title,
        description=description,
        frame=frame.reset_index(drop=True),
        basis=SAMPLED,
        method=method,
        note=note,
        faint=list(faint or []),
    )


@dataclass
class BalanceInputs:
    """Everything the report is built from."""

    data: dict[str, LineupData]  # by preset, in report order
    qualities: dict[str, Quality]
    games: int
    seed: int
    command: str
    seconds: float = float("nan")
    workers: int = 1
    stem: str = "balance"  # the report's file name: the appendix and CSV folder are named after it
    csv_tables: list[StrategyTable] = field(default_factory=list)  # filled by the build


@dataclass(frozen=True)
class Comparison:
    """Ambassador against Inquisitor at one table size: its measures, or what is missing."""

    players: int
    presets: tuple[str, str]  # (Ambassador game, Inquisitor game)
    metrics: list[Metric] | None  # None unless both games are in the report
    missing: tuple[str, ...]  # the games of the pair not in the report

    @property
    def partial(self) -> bool:
        """Whether exactly one game of the pair is in the report."""
        return len(self.missing) == 1


def comparisons(data: dict[str, LineupData], seed: int) -> list[Comparison]:
    """Ambassador against Inquisitor at each table size of :data:`PAIRS` (2 to 6 players)."""
    presets = load_presets()
    out = []
    for pair in PAIRS:
        missing = tuple(p for p in pair if p not in data)
        known = [data[p].players for p in pair if p in data]
        players = known[0] if known else presets[pair[0]].config().players
        metrics = None if missing else compare_balance(data[pair[0]], data[pair[1]], seed)
        out.append(Comparison(players, pair, metrics, missing))
    return out


def _no_pair_sentence() -> str:
    """Why no Ambassador-Inquisitor comparison is made at all."""
    pairs = "; ".join(f"{a} and {b}" for a, b in PAIRS[1:])
    return (
        "Ambassador vs Inquisitor: not compared, the report needs both draft-ambassador "
        f"and draft-inquisitor (at 3 or more players: {pairs})."
    )


def _metric_texts(m: Metric) -> tuple[str, str, str]:
    """A measure's two values and their difference as text, in its unit."""
    if m.unit == "turns":
        return m.a.plain(), m.b.plain(), m.difference.plain()
    if m.unit == "share of games":
        return m.a.pct(), m.b.pct(), m.difference.points()
    return m.a.points().replace("+", ""), m.b.points().replace("+", ""), m.difference.points()


def _unavailable(have: Sequence[str]) -> list[str]:
    """Covered games without a shipped strategy."""
    return [p for p in COVERED if p not in have]


HALF_WIDTH_GOAL = 0.015  # the 2-player line-up difference should be known to +-1.5 points
GLOSSARY = (
    (
        "Win share",
        "the share of games a seat or player wins, from 0% to 100%; a game that reaches the "
        "turn cap is a draw, a win for no one.",
    ),
    (
        "Fair share",
        "the win share every seat would have if no seat had an advantage and no game were "
        "drawn: 1 in n at n players (50% at 2, 33% at 3, 25% at 4, 20% at 5, 17% at 6).",
    ),
    (
        "First player's edge",
        "how much more often the player who moves first (seat 0) wins, in percentage points: "
        "seat 0's win share minus seat 1's at 2 players, minus the fair share at 3 or more; "
        "0 means no edge.",
    ),
    (
        "Exploitability",
        "how much a player who studies this strategy can win from it, per game, counting +1 a "
        "win, -1 a loss and 0 a draw: 0 means nothing to gain, +0.35 means winning about 68% "
        "of 2-player games against it; we only have lower bounds, from players trained against "
        "each strategy.",
    ),
    (
        "95% interval",
        "the range in brackets after a figure, [low, high]: with 95% confidence the figure these "
        "games estimate lies in it; a difference whose interval excludes 0 is significant.",
    ),
)


def _definition(tests: int) -> str:
    """The one-sentence definition of 'better balanced' with its decision rule."""
    return (
        "Better balanced means a smaller gap between the seats' win shares (seat spread; at 2 "
        "players, the size of the first player's edge), a smaller gap between the best and the "
        "worst character to start with (character spread) and fewer games ending in a draw at "
        "the turn cap; a line-up is called better balanced when at "
        f"least one of these differs significantly after correcting for the {tests} tests "
        "made (Holm, 5% overall) and none favours the other line-up."
    )


def _win_share_against(q: Quality, players: int) -> float | None:
    """The win share of a player trained against ``q``'s strategy, from its strongest bound."""
    if q.lower is None:
        return None
    if q.lower_by == TABLE_RESPONDER:
        return 1.0 / players + q.lower[0]
    return (1.0 + q.lower[0]) / 2  # +1 a win, -1 a loss: draws are rare in the full game


def strength_sentence(data: dict[str, LineupData], quality: dict[str, Quality]) -> str:
    """One plain sentence on how strong the strategies behind the answer are."""
    two, more = [], []
    for pair in PAIRS:
        for p in pair:
            if p not in data:
                continue
            share = _win_share_against(quality[p], data[p].players)
            if share is not None:
                (two if data[p].players == 2 else more).append((p, data[p].players, share))
    if not two and not more:
        return (
            "No exploitability has been measured for these strategies, so treat these "
            "verdicts as provisional."
        )
    parts = []
    if two:
        shares = " and ".join(
            f"{100 * s:.0f}% ({'Ambassador' if 'ambassador' in p else 'Inquisitor'})"
            for p, _, s in two
        )
        parts.append(f"about {shares} of 2-player games against them (fair share 50%)")
    if more:
        lo, hi = min(s for *_, s in more), max(s for *_, s in more)
        sizes = sorted({n for _, n, _ in more})
        parts.append(
            f"{100 * lo:.0f}% to {100 * hi:.0f}% of games at {sizes[0]} to {sizes[-1]} "
            f"players (fair shares {100 / sizes[0]:.0f}% to {100 / sizes[-1]:.0f}%)"
        )
    return (
        "A player who trains against these strategies wins "
        + ", and ".join(parts)
        + ": the strategies are weak, so treat these verdicts as provisional."
    )


def _deciding(metrics: list[Metric]) -> tuple[Metric, str]:
    """The measure that decides a comparison (the most significant counted one) and the verdict."""
    counted = [m for m in metrics if m.criterion]
    sides = {m.better for m in counted if m.better is not None}
    if len(sides) > 1:
        verdict = "mixed (each is better on one measure)"
    elif sides:
        verdict = ("Ambassador", "Inquisitor")[sides.pop()]
    else:
        verdict = "cannot tell"
    key = [m.adjusted if math.isfinite(m.adjusted) else m.p for m in counted]
    best = counted[int(np.nanargmin(key))] if any(math.isfinite(k) for k in key) else counted[0]
    return best, verdict


def _sure(m: Metric, tests: int) -> str:
    """How sure a verdict is, in words with its corrected p-value."""
    p = m.adjusted if math.isfinite(m.adjusted) else m.p
    if not math.isfinite(p):
        return "no test possible"
    shown = f"p = {p:.3f}" if p >= 0.001 else "p < 0.001"
    if p < 0.01:
        word = "sure"
    elif p < ALPHA:
        word = "fairly sure"
    else:
        word = "not sure: could be chance"
    return f"{word} ({shown})"


def _measure_name(m: Metric) -> str:
    """'seat spread' for 'seat spread (|seat 0 - seat 1| win rate)'."""
    return m.name.split(" (")[0]


def _answer_frame(comps: list[Comparison], data: dict[str, LineupData], tests: int) -> pd.DataFrame:
    """Page 1's table: one row per player count."""
    rows = []
    for c in comps:
        edges = []
        for p in c.presets:
            edges.append(data[p].first_player_edge().points() if p in data else "no strategy")
        if c.metrics is None:
            missing = ", ".join(c.missing)
            verdict, measure, diff, sure = "not compared", "", "", f"no strategy for {missing}"
        else:
            m, verdict = _deciding(c.metrics)
            measure = _measure_name(m)
            diff = _metric_texts(m)[2]
            sure = _sure(m, tests)
        rows.append(
            {
                "players": c.players,
                "better balanced": verdict,
                "deciding measure": measure,
                "difference (Ambassador - Inquisitor)": diff,
                "how sure": sure,
                "first player's edge, Ambassador": edges[0],
                "first player's edge, Inquisitor": edges[1],
            }
        )
    return pd.DataFrame(rows)


def _games_needed(a: LineupData, b: LineupData) -> int:
    """Games per line-up for the difference of first player's edges to be within +-1.5 points."""
    var = 0.0
    for d in (a, b):
        p0 = float((d.winner == 0).mean())
        p1 = float((d.winner == 1).mean())
        var += p0 + p1 - (p0 - p1) ** 2  # per-game variance of the edge
    return math.ceil(Z95 * Z95 * var / HALF_WIDTH_GOAL**2)


def _edge_difference(a: LineupData, b: LineupData) -> Estimate:
    """Ambassador's first player's edge minus the Inquisitor's (independent samples)."""
    ea, eb = a.first_player_edge(), b.first_player_edge()
    half = math.hypot(ea.high - ea.value, eb.high - eb.value)
    d = ea.value - eb.value
    return Estimate(d, d - half, d + half, min(a.games, b.games))


def _short_quality(q: Quality, players: int) -> str:
    """'WEAK: a player trained against it wins about 68% of games (+0.354 a game [0.326, ...])'."""
    share = _win_share_against(q, players)
    if q.bound is not None:
        return f"{q.label}: exploitability at most {q.bound:.3g} a game"
    if share is None or q.lower is None:
        return f"{q.label}: exploitability not measured"
    v, lo, hi = q.lower
    if q.lower_by == TABLE_RESPONDER:
        detail = f"{100 * v:+.0f} points over the fair share [{100 * lo:+.0f}, {100 * hi:+.0f}]"
    else:
        detail = f"exploitability at least {v:.2f} a game [{lo:.2f}, {hi:.2f}]"
    return (
        f"{q.label}: a player trained against it wins about {100 * share:.0f}% of games "
        f"(fair share {100 / players:.0f}%; {detail})"
    )


def _extremes(d: LineupData) -> list[str]:
    """Sentences on extreme behaviour: a claim bluffed over 90% or under 2%, a claim never made."""
    out = []
    name = _lineup_name(d)
    for _, r in d.play_table().iterrows():
        bluff: Estimate = r["bluff share"]
        claims: Estimate = r["claims per game"]
        c = r["character"]
        if claims.value == 0:
            out.append(f"{name}: the strategy never claims the {c} in {d.games:,} games.")
            continue
        if bluff.n >= MIN_EVENTS and bluff.value > EXTREME_BLUFF:
            out.append(
                f"{name}: almost every {c} claim is a bluff, {bluff.pct()} of {bluff.n:,} claims."
            )
        for key, holding in (("challenged, holding none", "holding none"),):
            e: Estimate = r[key]
            if e.n >= MIN_EVENTS and e.value == 0:
                out.append(
                    f"{name}: the strategy never challenges a {c} claim when {holding} "
                    f"({e.n:,} decisions)."
                )
    return out


def _drop_rare(
    table: StrategyTable, counts: Sequence[int], what: str, full: list[StrategyTable]
) -> StrategyTable:
    """``table`` without the rows resting on fewer than MIN_EVENTS ``what``; ``full`` keeps it."""
    full.append(table)
    keep = [n >= MIN_EVENTS for n in counts]
    dropped = len(keep) - sum(keep)
    if not dropped:
        return table
    frame = table.frame[keep].reset_index(drop=True)
    note = (
        f"{dropped} row(s) resting on fewer than {MIN_EVENTS} {what} are left out; the CSV file "
        f"{table.key}.csv keeps them."
    )
    return _table(table.key, table.title, table.description, frame, table.method, note=note)


def build_balance_report(inputs: BalanceInputs) -> Report:
    """The balance report: the answer on page 1, then how sure, the measures and the detail."""
    return build_balance_reports(inputs)[0]


def build_balance_reports(inputs: BalanceInputs) -> tuple[Report, Report]:
    """The balance report and its appendix (every table, all rows in the CSV files)."""
    data, quality = inputs.data, inputs.qualities
    tables = {p: d for p, d in data.items() if d.players > 2}
    play = "solved in every seat" if tables else "solved vs solved"
    method = (
        f"self-play of the shipped strategies ({play}), seed {inputs.seed}; "
        + ", ".join(f"{d.games:,} games of {p}" for p, d in data.items())
        + "; 95% intervals"
    )
    comps = comparisons(data, inputs.seed)
    adjusted = iter(adjust([c.metrics for c in comps if c.metrics is not None]))
    comps = [
        Comparison(c.players, c.presets, next(adjusted), c.missing) if c.metrics else c
        for c in comps
    ]
    tests = sum(m.criterion for c in comps if c.metrics for m in c.metrics)
    names = ("Ambassador", "Inquisitor")

    # ---- page 1 -----------------------------------------------------------------------------
    front = Section("answer", "Ambassador or Inquisitor: which line-up is better balanced?")
    front.paragraphs.append(_definition(tests))
    front.tables.append(
        _table(
            "answer",
            "The answer at each player count",
            "The better-balanced line-up, or 'cannot tell'; the difference on the measure that "
            "decides (or comes closest to deciding), with its 95% interval; how sure we are (p: "
            f"the chance of so large a difference by luck alone, Holm-corrected for the {tests} "
            "tests made); and the first player's edge with each line-up. Sample: "
            + "; ".join(
                f"{c.players} players {data[c.presets[0]].games:,} games per line-up"
                for c in comps
                if c.metrics is not None
            )
            + ".",
            _answer_frame(comps, data, tests),
            f"self-play of the shipped strategies, seed {inputs.seed}; 95% intervals",
        )
    )
    front.paragraphs.append(strength_sentence(data, quality))

    # ---- how to read, how sure -------------------------------------------------------------
    glossary = Section("glossary", "How to read these numbers")
    glossary.paragraphs += [f"{term}: {text}" for term, text in GLOSSARY]
    glossary.paragraphs.append(f"Better balanced: {_definition(tests)[len('Better balanced ') :]}")
    sure = Section("sure", "How sure are we")
    sure.paragraphs.append(
        "These strategies were trained by the project, not by strong players, and a player "
        "who studies them beats them easily; every figure describes how they play against "
        "themselves. Strength of each strategy behind the answer:"
    )
    for pair in PAIRS:
        for p in pair:
            if p in data:
                sure.paragraphs.append(
                    f"{_lineup_name(data[p])} ({p}): {_short_quality(quality[p], data[p].players)}."
                )
    sure.paragraphs.append(
        f"Number of tests: {tests} ({len([c for c in comps if c.metrics])} player counts, 3 "
        "measures each). The verdicts use Holm's correction, so the chance that any of them "
        "is a false alarm is at most 5%; the intervals shown are the plain 95% ones."
    )
    if AMBASSADOR in data and INQUISITOR in data:
        a, b = data[AMBASSADOR], data[INQUISITOR]
        diff = _edge_difference(a, b)
        half = (diff.high - diff.low) / 2
        need = _games_needed(a, b)
        enough = "enough" if half <= HALF_WIDTH_GOAL + 1e-9 else "not enough"
        sure.paragraphs.append(
            f"Games at 2 players: {min(a.games, b.games):,} per line-up. The difference of the "
            f"first player's edges (Ambassador minus Inquisitor) is {diff.points()}, known to "
            f"±{100 * half:.1f} points; about {need:,} games per line-up give ±1.5 points, so "
            f"this is {enough}."
        )
    sure.paragraphs.append(
        "Second opinion: the verdicts have not been recomputed with a second set of "
        "strategies, so none is called robust yet."
    )
    for p, d in data.items():
        w = draw_warning(p, d.draws(), d.config.max_turns)
        if w:
            sure.paragraphs.append(w)

    # ---- the measures ---------------------------------------------------------------------
    measures = Section("measures", "The balance measures at each player count")
    rows = []
    for c in comps:
        if c.metrics is None:
            continue
        for m in c.metrics:
            a, b, diff = _metric_texts(m)
            if not m.criterion:
                verdict = "context only"
            elif m.better is None:
                verdict = "cannot tell"
            else:
                verdict = names[m.better]
            p_adj = "" if not m.criterion else f"{m.adjusted:.3f}"
            rows.append(
                {
                    "players": c.players,
                    "measure": _measure_name(m),
                    "Ambassador": a,
                    "Inquisitor": b,
                    "difference": diff,
                    "p (Holm)": p_adj,
                    "better balanced": verdict,
                }
            )
    if rows:
        measures.tables.append(
            _table(
                "balance_measures",
                "Balance measures",
                "Each measure for both line-ups, their difference (Ambassador minus Inquisitor) "
                "with its bias-corrected 95% bootstrap interval (1,000 resamples of the games), "
                "and the Holm-adjusted p-value of the difference. Lower is better balanced; "
                "the mean game length is context only.",
                pd.DataFrame(rows),
                method,
            )
        )
    else:
        measures.paragraphs.append(_no_pair_sentence())

    # ---- the first player's edge ------------------------------------------------------------
    edge_sec = Section("edge", "The first player's edge")
    rows = []
    for d in data.values():
        rows.append(
            {
                "line-up": _lineup_name(d),
                "players": d.players,
                "games": d.games,
                "seat 0 wins": d.seat_win(0).pct(),
                "fair share": f"{100 / d.players:.0f}%",
                "draws": d.draws().pct(),
                "first player's edge": d.first_player_edge().points(),
            }
        )
    edge_sec.tables.append(
        _table(
            "first_player_edge",
            "Seat 0's win share and the first player's edge",
            "Seat 0 moves first. Win shares with Wilson 95% intervals; the edge is seat 0's "
            "share minus seat 1's at 2 players (normal interval of the difference) and minus "
            "the fair share at 3 or more. Every seat's share is in the appendix.",
            pd.DataFrame(rows),
            method,
        )
    )
    edge_sec.figures.append(
        FigureSpec(
            "edge_by_players",
            "First player's edge against player count",
            "Seat 0's edge in percentage points with its 95% interval, Ambassador and "
            "Inquisitor line-ups; 0 is no edge (seat 0 at its fair share).",
            lambda data=data: _edge_figure(data),
        )
    )

    # ---- characters ----------------------------------------------------------------------------
    chars_sec = Section("characters", "Which character is best to start with")
    chars_sec.paragraphs.append(
        "A character's value is the win share of a seat whose starting hand holds it (after "
        "the draft at 2 players); every seat plays the same strategy, so a character that "
        "helps shows a share above the others'. Compare within one player count only."
    )
    rows = []
    for d in data.values():
        chars = d.character_table()
        held = chars[chars["holders"] >= MIN_EVENTS]
        if held.empty:
            continue
        values = [e.value for e in held["estimate"]]
        best = held.iloc[int(np.argmax(values))]
        worst = held.iloc[int(np.argmin(values))]
        rows.append(
            {
                "line-up": _lineup_name(d),
                "strongest": f"{best['character']} {best['estimate'].pct()}",
                "weakest": f"{worst['character']} {worst['estimate'].pct()}",
                "fair share": f"{100 / d.players:.0f}%",
            }
        )
    chars_sec.tables.append(
        _table(
            "character_extremes",
            "Strongest and weakest character to start with",
            "Win share of a seat holding the character (95% intervals over games, Wilson on "
            f"the effective count); characters held by fewer than {MIN_EVENTS} seats are left "
            "out. Every character's value is in the appendix.",
            pd.DataFrame(rows),
            method,
        )
    )
    chars_sec.figures.append(
        FigureSpec(
            "character_values",
            "Win share when holding each character",
            "One panel per player count (Complots 1 line-ups); error bars: 95% intervals; the "
            "dashed line is the fair share.",
            lambda data=data: _character_figure(data),
        )
    )

    # ---- draft and play ---------------------------------------------------------------------
    play_sec = Section("play", "How the strategies play")
    rows = []
    for d in data.values():
        if not d.has_draft:
            continue
        picks = d.pick_table()
        if picks.empty:
            continue
        order = ", ".join(
            f"{r['character']} {r['estimate'].pct()}" for _, r in picks.head(3).iterrows()
        )
        rows.append({"line-up": _lineup_name(d), "most picked in the draft": order})
    if rows:
        play_sec.tables.append(
            _table(
                "draft_picks",
                "Draft: the three most picked characters",
                "In the 2-player draft each player keeps one card of their pile beside a random "
                "card; share of all picks (95% intervals). The full pick order is in the "
                "appendix.",
                pd.DataFrame(rows),
                method,
            )
        )
    rows = []
    for d in data.values():
        play_t = d.play_table()
        bluff = [(r["character"], r["bluff share"]) for _, r in play_t.iterrows()]
        bluff = [b for b in bluff if b[1].n >= MIN_EVENTS]
        chal = [(r["character"], r["challenged, holding none"]) for _, r in play_t.iterrows()]
        chal = [c for c in chal if c[1].n >= MIN_EVENTS]
        if not bluff and not chal:
            continue
        most = max(bluff, key=lambda b: b[1].value) if bluff else None
        least = min(bluff, key=lambda b: b[1].value) if bluff else None
        top = max(chal, key=lambda c: c[1].value) if chal else None
        rows.append(
            {
                "line-up": _lineup_name(d),
                "most bluffed claim": f"{most[0]} {most[1].pct()}" if most else "",
                "least bluffed claim": f"{least[0]} {least[1].pct()}" if least else "",
                "most challenged claim": f"{top[0]} {top[1].pct()}" if top else "",
            }
        )
    play_sec.paragraphs.append(
        "A claim is an action or counter that needs a character; it is a bluff when the "
        "claimant holds no copy (read from the true cards, which the strategy never sees). "
        "'Most challenged' is how often the strategy challenges that claim when it holds no "
        "copy itself."
    )
    extremes = [t for d in data.values() for t in _extremes(d)]
    play_sec.paragraphs += extremes or ["No claim is bluffed over 90% of the time."]
    play_sec.tables.append(
        _table(
            "bluffs",
            "Bluffs and challenges",
            f"Shares with 95% intervals over games; characters with fewer than {MIN_EVENTS} "
            "claims or decisions are left out. Every character is in the appendix.",
            pd.DataFrame(rows),
            method,
        )
    )

    # ---- method ---------------------------------------------------------------------------
    method_sec = Section("method", "How these numbers were made")
    copies = "with a copy of the shipped strategy in every seat"
    method_sec.paragraphs += [
        f"Command: {inputs.command}",
        "Every number comes from seeded self-play games "
        f"{copies} (the bot 'solved': the policy network under games/strategies/PRESET), "
        f"seed {inputs.seed}, played on {inputs.workers} worker process(es) in "
        f"{inputs.seconds:,.0f} s; the same seed gives the same games on any number of workers. "
        "Nothing here is exact: every figure is sampled.",
        "Intervals: win shares over games are Wilson 95% intervals; shares over events (claims, "
        "challenge decisions, seats holding a character) pool the events of each game and use "
        "a Wilson interval on the effective count (the events divided by the design effect of "
        "the games as clusters); spreads and differences between line-ups use a bias-corrected "
        "percentile bootstrap of 1,000 resamples of the games, which also gives the p-values.",
        "Games: " + ", ".join(f"{p} ({_lineup_name(d)})" for p, d in data.items()) + ".",
    ]
    missing = _unavailable(list(data))
    if missing:
        method_sec.paragraphs.append(
            "Not covered (no shipped strategy): " + ", ".join(missing) + "."
        )
    method_sec.paragraphs.append(
        "The full tables (every seat, character, starting hand, draft pick, first turn and "
        "bluff) are in the appendix beside this report, "
        f"{inputs.stem}-appendix.html, and every row, few events included, in the CSV files "
        f"of the folder {inputs.stem}-tables/ beside it."
    )
    method_sec.paragraphs.append(
        "Each strategy's record of its quality (its meta.json, every bound with its command) "
        "is quoted in the appendix."
    )
    method_sec.links += [
        (f"Appendix: every table ({inputs.stem}-appendix.html)", f"{inputs.stem}-appendix.html"),
        (f"CSV files of every table ({inputs.stem}-tables/)", f"{inputs.stem}-tables/"),
    ]

    sections = [glossary, sure, measures, edge_sec, chars_sec, play_sec, method_sec]
    report = Report(
        "Complots balance report",
        [("Command", inputs.command)],
        [s for s in sections if s.paragraphs or s.tables or s.figures],
        front=front,
    )
    appendix = Report(
        "Complots balance report: appendix",
        [("Command", inputs.command), ("Sampling", method)],
        _appendix_sections(data, quality, method, inputs.csv_tables),
    )
    inputs.csv_tables += [t for s in (front, *sections) for t in s.tables]
    return report, appendix


def _edge_figure(data: dict[str, LineupData]) -> Figure:
    """The first player's edge against player count, one line per line-up (Ambassador, Inquisitor)."""
    fig = Figure(figsize=figures.WIDE)
    ax = fig.add_subplot(1, 1, 1)
    for k, (label, idx) in enumerate((("Ambassador", 0), ("Inquisitor", 1))):
        xs, ys, lo, hi = [], [], [], []
        for pair in PAIRS:
            p = pair[idx]
            if p in data:
                e = data[p].first_player_edge()
                xs.append(data[p].players + (k - 0.5) * 0.08)
                ys.append(100 * e.value)
                lo.append(100 * (e.value - e.low))
                hi.append(100 * (e.high - e.value))
        if xs:
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=4, label=label)
    ax.axhline(0.0, color="black", lw=0.8, ls="--", label="no edge (fair share)")
    ax.set_xlabel("players")
    ax.set_ylabel("first player's edge (percentage points)")
    ax.set_xticks(range(2, 7))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def _character_figure(data: dict[str, LineupData]) -> Figure:
    """Small multiples: per player count, each character's holder win share for both line-ups."""
    panels = [pair for pair in PAIRS if any(p in data for p in pair)]
    fig = Figure(figsize=figures.WIDE)
    if not panels:
        return fig
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, pair in zip(axes, panels, strict=True):
        players = next(data[p].players for p in pair if p in data)
        for k, p in enumerate(pair):
            if p not in data:
                continue
            chars = data[p].character_table()
            names = [
                FIFTH_SHORT if c in ("Ambassador", "Inquisitor") else c for c in chars["character"]
            ]
            est = list(chars["estimate"])
            x = np.arange(len(names)) + (k - 0.5) * 0.38
            ys = [100 * e.value for e in est]
            err = [
                [max(0.0, 100 * (e.value - e.low)) for e in est],
                [max(0.0, 100 * (e.high - e.value)) for e in est],
            ]
            ax.bar(x, ys, 0.38, yerr=err, capsize=2, label=("Ambassador", "Inquisitor")[k])
            ax.set_xticks(np.arange(len(names)))
            ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
        ax.axhline(100 / players, color="black", ls="--", lw=0.9)
        ax.set_title(f"{players} players", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("win share holding it (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig


def _appendix_sections(
    data: dict[str, LineupData],
    quality: dict[str, Quality],
    method: str,
    full: list[StrategyTable],
) -> list[Section]:
    """Every table of the balance data; rows with few events only in ``full`` (the CSV files)."""
    seats = Section("seats", "Every seat's win share")
    rows = []
    for d in data.values():
        for seat, e in enumerate(d.seat_wins()):
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "seat": str(seat),
                    "win share": e.pct(),
                    "minus the fair share": d.seat_over_fair(seat).points(),
                }
            )
        rows.append(
            {"line-up": _lineup_name(d), "seat": "draws", "win share": d.draws().pct(),
             "minus the fair share": ""}
        )  # fmt: skip
    seats.tables.append(
        _table(
            "seat_win_rates", "Seat win shares", "Wilson 95% intervals.", pd.DataFrame(rows), method
        )
    )
    chars = Section("characters", "Every character's value")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.character_table().iterrows():
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "character": r["character"],
                    "win share holding it": _cell(r["estimate"]),
                    "seats holding it": r["holders"],
                }
            )
            counts.append(r["holders"])
    chars.tables.append(
        _drop_rare(
            _table("character_values", "Win share when holding each character",
                   "95% intervals over games.", pd.DataFrame(rows), method),
            counts, "seats", full,
        )
    )  # fmt: skip
    hands = Section("hands", "Every starting hand's value")
    rows, counts = [], []
    for d in data.values():
        h = d.hand_table()
        order = np.argsort([-e.value for e in h["estimate"]], kind="stable")
        for _, r in h.iloc[order].iterrows():
            rows.append(
                {"line-up": _lineup_name(d), "starting hand": r["hand"],
                 "win share": _cell(r["estimate"]), "seats": r["seats"]}
            )  # fmt: skip
            counts.append(r["seats"])
    hands.tables.append(
        _drop_rare(
            _table("hand_values", "Win share of each starting hand", "Best first; 95% intervals.",
                   pd.DataFrame(rows), method),
            counts, "seats", full,
        )
    )  # fmt: skip
    draft = Section("draft", "Draft picks")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.pick_given_random().iterrows():
            rows.append(
                {"line-up": _lineup_name(d), "random card": r["random card"],
                 "most picked": r["most picked"], "share of those picks": _cell(r["estimate"]),
                 "picks": r["picks"]}
            )  # fmt: skip
            counts.append(r["picks"])
    if rows:
        draft.tables.append(
            _drop_rare(
                _table("draft_pick_given_card", "Most picked card for each random card",
                       "Wilson 95% intervals.", pd.DataFrame(rows), method),
                counts, "picks", full,
            )
        )  # fmt: skip
    play = Section("play", "Bluffs, challenges and first turns")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.play_table().iterrows():
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "character": r["character"],
                    "claims per game": f"{r['claims per game'].value:.2f}",
                    "bluff share": _cell(r["bluff share"]),
                    "bluffs challenged": _cell(r["bluffs challenged"]),
                    "challenged, holding none": _cell(r["challenged, holding none"]),
                    "challenged, holding one": _cell(r["challenged, holding one"]),
                }
            )
            counts.append(r["bluff share"].n)
    play.tables.append(
        _drop_rare(
            _table("bluffs_and_challenges", "Bluffs and challenges per character",
                   "95% intervals over games.", pd.DataFrame(rows), method),
            counts, "claims", full,
        )
    )  # fmt: skip
    rows, counts = [], []
    for d in data.values():
        for _, r in d.first_moves().iterrows():
            rows.append(
                {"line-up": _lineup_name(d), "seat": r["seat"], "first action": r["first action"],
                 "share of first turns": _cell(r["estimate"]),
                 "bluffed": _cell(r["bluffed"]) if r["turns"] else "", "turns": r["turns"]}
            )  # fmt: skip
            counts.append(r["turns"])
    play.tables.append(
        _drop_rare(
            _table("first_turns", "First-turn plays", "Wilson 95% intervals.",
                   pd.DataFrame(rows), method),
            counts, "turns", full,
        )
    )  # fmt: skip
    cover = Section("coverage", "Games covered and Complots 2 line-ups")
    cover.paragraphs += [
        f"{p}: strategy quality from its meta.json: {quality[p].detail}" for p in data
    ]
    cover.tables.append(
        _table("coverage", "Games covered by this report", "Each covered game and its status.",
               _coverage_frame(data, quality), "presets and shipped strategies")
    )  # fmt: skip
    cover.tables.append(
        _table("complots2_lineups", "Complots 2 line-ups",
               "Each named line-up, its characters, its presets and whether a strategy ships.",
               _complots2_frame(data), "presets and shipped strategies")
    )  # fmt: skip
    return [s for s in (seats, chars, hands, draft, play, cover) if s.tables]


def _complots2_frame(data: dict[str, LineupData]) -> pd.DataFrame:
    """One row per named Complots 2 line-up: characters, presets, strategy."""
    presets = load_presets()
    by_lineup: dict[str, dict] = {}
    for name, preset in sorted(presets.items()):
        config = preset.config()
        if not config.extended:
            continue
        label = config.lineup_label()
        head = preset.description.split(":", 1)[0]
        named = head.split(" - ", 1)[1] if " - " in head else ""
        row = by_lineup.setdefault(
            label, {"line-up": "", "characters": label.replace("+", ", "), "presets": []}
        )
        if named and not row["line-up"]:
            row["line-up"] = named
        row["presets"].append(name)
    rows = []
    for row in by_lineup.values():
        have = [p for p in row["presets"] if p in data]
        status = (
            "in this report: " + ", ".join(have)
            if have
            else "not available: no shipped strategy yet"
        )
        rows.append(
            {
                "line-up": row["line-up"] or "(unnamed)",
                "characters": row["characters"],
                "presets": ", ".join(p for p in row["presets"] if not p.startswith("ladder-")),
                "strategy": status,
            }
        )
    return pd.DataFrame(rows).sort_values("line-up").reset_index(drop=True)


def _coverage_frame(data: dict[str, LineupData], quality: dict[str, Quality]) -> pd.DataFrame:
    """One row per covered game: players, line-up, status."""
    presets = load_presets()
    rows = []
    for p in COVERED:
        if p not in presets:
            continue
        config = presets[p].config()
        status = (
            f"in this report ({quality[p].short})"
            if p in data
            else "not available: no shipped strategy yet"
        )
        rows.append(
            {
                "game": p,
                "players": config.players,
                "line-up": config.lineup_label().replace("+", ", "),
                "status": status,
            }
        )
    return pd.DataFrame(rows)


def run_balance(
    presets: Sequence[str],
    games: int | dict[str, int],
    seed: int,
    workers: int,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> dict[str, LineupData]:
    """Play and record ``games`` self-play games (per preset if a dict) of each shipped strategy."""
    out = {}
    all_presets = load_presets()
    for p in presets:
        n = games[p] if isinstance(games, dict) else games
        done = [0]

        def tick(k: int, p: str = p, done: list[int] = done, n: int = n) -> None:
            done[0] += k
            if progress is not None:
                progress(f"playing {p}", done[0], n)

        if progress is not None:
            progress(f"playing {p}", 0, n)
        records = play_preset(p, n, seed, workers, tick)
        out[p] = LineupData(p, all_presets[p].config(), records)
    return out


def write_balance(
    presets: Sequence[str],
    out: Path,
    formats: list[str],
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    workers: int = 1,
    command: str = "",
    progress: Callable[[str, int, int | None], None] | None = None,
    pair_games: int | None = None,
) -> dict[str, Path]:
    """Play, measure and write the balance report of ``presets`` (see :func:`check_presets`).

    ``pair_games`` (default ``games``) is the number of games of draft-ambassador and
    draft-inquisitor, the 2-player comparison that needs the most. Beside the
    report: ``<stem>-appendix.html`` (every table) and ``<stem>-tables/`` (CSV).
    """
    chosen = check_presets(presets)
    qualities = {p: strategy_quality(p) for p in chosen}  # before the long part
    start = time.perf_counter()
    counts = {p: pair_games if pair_games and p in PAIRS[0] else games for p in chosen}
    data = run_balance(chosen, counts, seed, workers, progress)
    out = Path(out)
    inputs = BalanceInputs(
        data=data,
        qualities=qualities,
        games=games,
        seed=seed,
        command=command or f"complots balance --games {games} --seed {seed}",
        seconds=time.perf_counter() - start,
        workers=workers,
        stem=out.name,
    )
    report, appendix = build_balance_reports(inputs)
    paths = write_outputs(report, out, formats, progress)
    folder = out.parent / f"{out.name}-tables"
    for table in inputs.csv_tables:
        table.to_csv(folder)
    paths["csv"] = folder
    paths["appendix"] = write_html(appendix, out.parent / f"{out.name}-appendix.html")
    return paths
