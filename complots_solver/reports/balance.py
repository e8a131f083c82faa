"""The balance report: plain verdicts on the game, from self-play of the shipped strategies.

``complots balance`` plays seeded self-play games of each shipped strategy
(:mod:`complots_solver.reports.balance_games`), measures seat win rates,
the value of each character and starting hand, the draft picks, bluffs and
challenges (:mod:`complots_solver.reports.balance_stats`, every number with
its 95% confidence interval), and writes one report that opens with the
verdicts in plain sentences, each naming the quality of the strategy behind
it (``meta.json`` of the shipped strategy).

It covers the 2-player drafts and the 3- and 4-player games: every seat's win
share, the first player's edge (against seat 1 at 2 players, against the fair
share 1/n at n >= 3), and Ambassador against Inquisitor at each table size
whose two games are both in the report.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    MIN_EVENTS,
    Estimate,
    LineupData,
    Metric,
    balance_verdict,
    compare_balance,
)
from complots_solver.reports.document import FigureSpec, Report, Section
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
WEAK_BOUND = 0.2  # an exploitability bound above this gets the strategy warning
DRAWS_DOMINATE = 0.5  # a draw share from this on gets the short-horizon warning
FIFTH = "Ambassador / Inquisitor"
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


def _fair(players: int) -> str:
    """'the fair share 1/3'."""
    return f"the fair share 1/{players}"


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


def _seat_sentence(d: LineupData, q: Quality) -> str:
    """Seat win rates, draws and the first player's edge, in one sentence."""
    if d.players > 2:
        return _table_seat_sentence(d, q)
    edge = d.first_player_edge()
    sig = (
        f"significant: seat {0 if edge.value > 0 else 1} has the edge"
        if edge.significant
        else "not significant at this sample size"
    )
    return (
        f"{_lineup_name(d)} line-up ({d.preset}; {q.short}; {d.games:,} games): seat 0, "
        f"who moves first, wins {d.seat_win(0).pct()} of games, seat 1 wins "
        f"{d.seat_win(1).pct()}, and {d.draws().pct()} are draws. The first player's edge "
        f"is {edge.points()}: {sig}."
    )


def _table_seat_sentence(d: LineupData, q: Quality) -> str:
    """The seat sentence at 3 or more players: every seat, and seat 0 against the fair share."""
    edge = d.first_player_edge()
    if edge.significant:
        more = "more" if edge.value > 0 else "less"
        sig = f"significant: seat 0 wins {more} than its fair share"
    else:
        sig = "not significant at this sample size"
    wins = d.seat_wins()
    others = ", ".join(f"seat {k} wins {e.pct()}" for k, e in enumerate(wins) if k > 0)
    return (
        f"{_lineup_name(d)} line-up ({d.preset}; {q.short}; {d.games:,} games): seat 0, "
        f"who moves first, wins {wins[0].pct()} of games, {others}, and {d.draws().pct()} "
        f"are draws. The first player's edge (seat 0's share minus {_fair(d.players)}) is "
        f"{edge.points()}: {sig}."
    )


def _character_sentence(d: LineupData, q: Quality) -> str:
    """The strongest and weakest character, best hand and the draft pick order."""
    chars = d.character_table()
    held = chars[chars["holders"] > 0]
    best = held.iloc[int(np.argmax([e.value for e in held["estimate"]]))]
    worst = held.iloc[int(np.argmin([e.value for e in held["estimate"]]))]
    text = (
        f"{_lineup_name(d)} ({q.short}): the strongest character to start with is the "
        f"{best['character']} (a seat holding it wins {best['estimate'].pct()}), the weakest "
        f"the {worst['character']} ({worst['estimate'].pct()})."
    )
    hands = d.hand_table()
    solid = hands[hands["seats"] >= MIN_EVENTS]
    if not solid.empty:
        top = solid.iloc[int(np.argmax([e.value for e in solid["estimate"]]))]
        low = solid.iloc[int(np.argmin([e.value for e in solid["estimate"]]))]
        text += (
            f" Best starting hand: {top['hand']} ({top['estimate'].pct()}, {top['seats']} "
            f"seats); worst: {low['hand']} ({low['estimate'].pct()})."
        )
    picks = d.pick_table()
    if d.has_draft and not picks.empty:
        order = ", ".join(
            f"{r['character']} {100 * r['estimate'].value:.0f}%" for _, r in picks.iterrows()
        )
        text += f" Draft pick order (share of picks): {order}."
    return text


def _play_sentence(d: LineupData, q: Quality) -> str:
    """How the strategy bluffs and challenges, and its first move ('' with nothing to say)."""
    play = d.play_table()
    bluff = [(r["character"], r["bluff share"]) for _, r in play.iterrows()]
    bluff = [b for b in bluff if b[1].n >= MIN_EVENTS]
    chal = [(r["character"], r["challenged, holding none"]) for _, r in play.iterrows()]
    chal = [c for c in chal if c[1].n >= MIN_EVENTS]
    parts = [f"{_lineup_name(d)} ({q.short}):"]
    if bluff:
        most = max(bluff, key=lambda b: b[1].value)
        least = min(bluff, key=lambda b: b[1].value)
        parts.append(
            f"the strategy bluffs the {most[0]} most ({most[1].pct()} of its {most[0]} claims "
            f"are bluffs) and the {least[0]} least ({least[1].pct()})."
        )
    if chal:
        most = max(chal, key=lambda c: c[1].value)
        parts.append(
            f"It challenges {most[0]} claims most often: {most[1].pct()} of the time when it "
            f"holds no {most[0]}."
        )
    first = d.first_moves()
    if d.players > 2:
        # one sentence for all seats: one per seat would crowd the verdicts at 4 players
        seats = []
        for seat in range(d.players):
            rows = first[first["seat"] == seat]
            if not rows.empty:
                r = rows.iloc[0]
                seats.append(
                    f"seat {seat} {r['first action']} ({r['estimate'].pct()}; bluffed "
                    f"{r['bluffed'].pct()})"
                )
        if seats:
            parts.append("Most frequent first action of each seat: " + "; ".join(seats) + ".")
        return " ".join(parts) if len(parts) > 1 else ""
    for seat in (0, 1):
        rows = first[first["seat"] == seat]
        if not rows.empty:
            r = rows.iloc[0]
            parts.append(
                f"On its first turn seat {seat} most often plays {r['first action']} "
                f"({r['estimate'].pct()}; bluffed {r['bluffed'].pct()})."
            )
    return " ".join(parts) if len(parts) > 1 else ""


def _comparison_sentences(
    metrics: list[Metric], names: tuple[str, str], players: int | None = None
) -> list[str]:
    """The balance verdict and its measures (naming the table size when ``players``)."""
    lines = [balance_verdict(metrics, names, players)]
    parts = []
    for m in metrics:
        a, b, diff = _metric_texts(m)
        parts.append(f"{m.name}: {names[0]} {a}, {names[1]} {b}, difference {diff}")
    at = f" at {players} players" if players else ""
    lines.append(
        f"Measures{at} (" + names[0] + " then " + names[1] + "): " + "; ".join(parts) + "."
    )
    return lines


def _missing_pair_sentence(c: Comparison) -> str:
    """Why one table size's Ambassador-Inquisitor comparison is not made."""
    have = [p for p in c.presets if p not in c.missing]
    return (
        f"Ambassador vs Inquisitor at {c.players} players: not compared, the report has "
        f"{have[0]} but not {c.missing[0]}."
    )


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


def _metric_frame(metrics: list[Metric], names: tuple[str, str]) -> pd.DataFrame:
    """The balance measures as a display table."""
    rows = []
    for m in metrics:
        a, b, diff = _metric_texts(m)
        if not m.criterion:
            verdict = "context only"
        elif m.better is None:
            verdict = "cannot tell"
        else:
            verdict = names[m.better]
        rows.append(
            {
                "measure": m.name,
                names[0]: a,
                names[1]: b,
                f"difference ({names[0][:3]} - {names[1][:3]})": diff,
                "better balanced": verdict,
            }
        )
    return pd.DataFrame(rows)


def build_balance_report(inputs: BalanceInputs) -> Report:
    """The balance report (verdicts first) from recorded self-play of the shipped strategies."""
    data, quality = inputs.data, inputs.qualities
    two = {p: d for p, d in data.items() if d.players == 2}
    tables = {p: d for p, d in data.items() if d.players > 2}
    play = "solved in every seat" if tables else "solved vs solved"
    method = (
        f"self-play of the shipped strategies ({play}), {inputs.games:,} games "
        f"per line-up, seed {inputs.seed}; 95% intervals"
    )
    warnings = []
    strat = strategy_warning([quality[p] for p in data])
    if strat:
        warnings.append(strat)
    for p, d in data.items():
        w = draw_warning(p, d.draws(), d.config.max_turns)
        if w:
            warnings.append(w)

    verdicts = Section("verdicts", "Verdicts")
    seats_sec = Section("seats", "Seat win rates and the first player's edge")
    balance_sec = Section("balance", "Ambassador or Inquisitor: which is better balanced?")
    chars_sec = Section("characters", "Value of each character")
    hands_sec = Section("hands", "Value of each starting hand")
    draft_sec = Section("draft", "Draft picks")
    play_sec = Section("play", "How to play: bluffs, challenges, first turns")
    c2_sec = Section("complots2", "Complots 2 line-ups and other player counts")
    method_sec = Section("method", "How these numbers were made")

    # ---- verdicts ---------------------------------------------------------------------
    verdicts.paragraphs.append(
        "Each sentence gives its number, the 95% confidence interval in brackets and the "
        "quality of the strategy behind it. Seat 0 moves first."
    )
    verdicts.paragraphs += [_seat_sentence(d, quality[p]) for p, d in data.items()]
    names = ("Ambassador", "Inquisitor")
    comps = comparisons(data, inputs.seed)
    compared = [c for c in comps if c.metrics is not None]

    def at(c: Comparison) -> int | None:
        # a lone 2-player comparison keeps its sentence; several name their table size
        return c.players if c.players > 2 or len(compared) > 1 else None

    for c in comps:
        if c.metrics is not None:
            qa, qi = quality[c.presets[0]].short, quality[c.presets[1]].short
            both = f"both: {qa}" if qa == qi else f"{qa} and {qi}"
            lines = _comparison_sentences(c.metrics, names, at(c))
            lines[0] += f" Strategies behind it: {both}."
            verdicts.paragraphs += lines
        elif c.partial:
            verdicts.paragraphs.append(_missing_pair_sentence(c))
    if not any(c.metrics is not None or c.partial for c in comps):
        verdicts.paragraphs.append(_no_pair_sentence())
    verdicts.paragraphs += [_character_sentence(d, quality[p]) for p, d in data.items()]
    plays = [_play_sentence(d, quality[p]) for p, d in data.items()]
    verdicts.paragraphs += [t for t in plays if t]
    missing = _unavailable(list(data))
    if missing:
        verdicts.paragraphs.append(
            "Not available yet (no shipped strategy): " + ", ".join(missing) + ". The report "
            "covers them as soon as strategies ship under games/strategies/."
        )

    # ---- seats ------------------------------------------------------------------------
    rows = []
    for p, d in two.items():
        rows.append(
            {
                "line-up": _lineup_name(d),
                "games": d.games,
                "seat 0 wins": d.seat_win(0).pct(),
                "seat 1 wins": d.seat_win(1).pct(),
                "draws": d.draws().pct(),
                "first player's edge": d.first_player_edge().points(),
                "strategy": quality[p].short,
            }
        )
    if rows:
        seats_sec.paragraphs.append(
            "Win rates of each seat over the self-play games (Wilson 95% intervals); the first "
            "player's edge is seat 0's win rate minus seat 1's, in percentage points."
        )
        seats_sec.tables.append(
            _table(
                "seat_win_rates",
                "Seat win rates",
                "Share of games each seat wins, draws (turn cap), and the first player's edge.",
                pd.DataFrame(rows),
                method,
            )
        )
    if tables:
        sizes = sorted({d.players for d in tables.values()})
        fair = ", ".join(f"1/{n} at {n} players" for n in sizes)
        seats_sec.paragraphs.append(
            "At 3 or more players, one row per seat: its share of games won (Wilson 95% "
            f"intervals) and that share minus the fair share 1/n ({fair}), in percentage "
            "points, with the Wilson interval shifted by 1/n. The first player's edge there "
            "is seat 0's share minus the fair share 1/n (seat 0's row). A draw (turn cap) is "
            "a win for no seat, so when games are drawn the seats' shares add up to less "
            "than 1."
        )
        rows = []
        for d in tables.values():
            for seat, e in enumerate(d.seat_wins()):
                rows.append(
                    {
                        "line-up": _lineup_name(d),
                        "games": d.games,
                        "seat": str(seat),
                        "share of games": e.pct(),
                        "minus the fair share 1/n": d.seat_over_fair(seat).points(),
                    }
                )
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "games": d.games,
                    "seat": "draws",
                    "share of games": d.draws().pct(),
                    "minus the fair share 1/n": "",
                }
            )
        seats_sec.tables.append(
            _table(
                "seat_win_rates_tables",
                "Seat win rates at 3 or more players",
                "Share of games each seat wins, minus the fair share 1/n; and draws (turn "
                "cap). Seat 0's row gives the first player's edge.",
                pd.DataFrame(rows),
                method,
            )
        )
    seat_bars = []
    most = max(d.players for d in data.values())
    for seat in range(most):  # seats first, then draws, whatever the table sizes
        for d in data.values():
            if seat < d.players:
                seat_bars.append((_lineup_name(d), f"seat {seat}", d.seat_win(seat)))
    for d in data.values():
        seat_bars.append((_lineup_name(d), "draw", d.draws()))
    seats_sec.figures.append(
        FigureSpec(
            "seat_win_rates",
            "Seat win rates",
            f"Share of games won by each seat, and draws; error bars: 95% intervals ({method}).",
            lambda bars=seat_bars: _bars(bars, "share of games (%)", "Seat win rates"),
        )
    )

    # ---- balance ----------------------------------------------------------------------
    balance_sec.paragraphs.append(
        "Better balanced means: a smaller gap between the seats' win rates (seat spread), a "
        "smaller gap between the best and the worst character to hold (character spread, "
        "the win rate of a seat whose starting hand holds the character), and fewer games "
        "decided by the turn cap. A line-up is called better balanced when at least one of "
        "these three differs significantly (the 95% bootstrap interval of the difference "
        "excludes 0) and none favours the other line-up. The mean game length is given as "
        "context and does not count. Spreads are maxima of noisy estimates, so they are "
        "biased upwards by the sampling noise at small sizes, the same way for both line-ups."
    )
    if any(c.players > 2 and (c.metrics is not None or c.partial) for c in comps):
        balance_sec.paragraphs.append(
            "Only games of one table size are compared. At 3 or more players the seat spread "
            "is the best seat's win rate minus the worst seat's, over all seats, and its "
            "interval is a bootstrap over games like the character spread's."
        )
    for c in comps:
        if c.metrics is not None:
            balance_sec.paragraphs += _comparison_sentences(c.metrics, names, at(c))
            size = (
                ""
                if c.players == 2
                else f" at {c.players} players ({c.presets[0]} and {c.presets[1]})"
            )
            balance_sec.tables.append(
                _table(
                    "balance_measures" if c.players == 2 else f"balance_measures_{c.players}",
                    "Balance measures" + ("" if c.players == 2 else f", {c.players} players"),
                    f"Each measure for both line-ups{size} and their difference (Ambassador "
                    "minus Inquisitor), with 95% bootstrap intervals over games.",
                    _metric_frame(c.metrics, names),
                    method + f", 1,000 bootstrap resamples (seed {inputs.seed})",
                )
            )
        elif c.partial:
            balance_sec.paragraphs.append(_missing_pair_sentence(c))
    if not any(c.metrics is not None or c.partial for c in comps):
        balance_sec.paragraphs.append(
            "Not measured: both draft-ambassador and draft-inquisitor are needed (or, at 3 "
            "or more players, both games of a pair: "
            + "; ".join(f"{a} and {b}" for a, b in PAIRS[1:])
            + ")."
        )

    # ---- characters -------------------------------------------------------------------
    rows, faint, char_bars = [], [], []
    for d in data.values():
        for _, r in d.character_table().iterrows():
            est: Estimate = r["estimate"]
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "character": r["character"],
                    "win rate holding it": _cell(est),
                    "seats holding it": r["holders"],
                    "share of hands": f"{100 * r['share of hands']:.1f}%",
                }
            )
            faint.append(r["holders"] < MIN_EVENTS)
            name = r["character"]
            if name in ("Ambassador", "Inquisitor") and len(data) > 1:
                name = FIFTH
            char_bars.append((_lineup_name(d), name, est))
    if tables:
        chars_sec.paragraphs.append(
            "The value of a character is the win rate of a seat whose starting hand (after "
            "the draft in the 2-player draft, as dealt at 3 or more players) holds at least "
            "one copy of it. Every seat "
            "plays the same strategy, so a character that helps shows a win rate above that "
            "of the others. Compare values within one table size only: at n players a "
            "seat's fair share is 1/n."
        )
    else:
        chars_sec.paragraphs.append(
            "The value of a character is the win rate of a seat whose starting hand (after "
            "the draft) holds at least one copy of it. Both seats play the same strategy, so "
            "a character that helps shows a win rate above that of the others."
        )
    chars_sec.tables.append(
        _table(
            "character_values",
            "Win rate when holding each character",
            "Win rate of a seat whose starting hand holds the character (cluster-robust 95% "
            "intervals over games), how many seats held it, and the share of starting hands "
            f"holding it. Rows resting on fewer than {MIN_EVENTS} seats are greyed out.",
            pd.DataFrame(rows),
            method,
            faint,
        )
    )
    chars_sec.figures.append(
        FigureSpec(
            "character_values",
            "Win rate when holding each character",
            f"Win rate of a seat whose starting hand holds the character; error bars: 95% "
            f"intervals ({method}).",
            lambda bars=char_bars: _bars(bars, "win rate (%)", "Win rate when holding it"),
        )
    )

    # ---- hands ------------------------------------------------------------------------
    rows, faint = [], []
    for d in data.values():
        hands = d.hand_table()
        order = np.argsort([-e.value for e in hands["estimate"]], kind="stable")
        for _, r in hands.iloc[order].iterrows():
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "starting hand": r["hand"],
                    "win rate": _cell(r["estimate"]),
                    "seats": r["seats"],
                }
            )
            faint.append(r["seats"] < MIN_EVENTS)
    hands_sec.tables.append(
        _table(
            "hand_values",
            "Win rate of each starting hand",
            "Win rate of a seat by the two cards it starts play with (after the draft"
            + (" in the 2-player draft, as dealt at 3 or more players" if tables else "")
            + f"), best first; rows resting on fewer than {MIN_EVENTS} seats are greyed out.",
            pd.DataFrame(rows),
            method,
            faint,
        )
    )

    # ---- draft ------------------------------------------------------------------------
    order_rows, given_rows, faint = [], [], []
    for d in data.values():
        if not d.has_draft:
            continue
        for rank, (_, r) in enumerate(d.pick_table().iterrows(), 1):
            order_rows.append(
                {
                    "line-up": _lineup_name(d),
                    "rank": rank,
                    "character": r["character"],
                    "share of picks": _cell(r["estimate"]),
                    "picks": r["picks"],
                }
            )
        for _, r in d.pick_given_random().iterrows():
            given_rows.append(
                {
                    "line-up": _lineup_name(d),
                    "random card": r["random card"],
                    "most picked": r["most picked"],
                    "share of those picks": _cell(r["estimate"]),
                    "picks": r["picks"],
                }
            )
            faint.append(r["picks"] < MIN_EVENTS)
    if order_rows:
        draft_sec.paragraphs.append(
            "In the 2-player draft each player receives a random card and picks one of the "
            "five cards of their own pile. The pick order is the strategy's: characters by "
            "their share of all picks."
        )
        draft_sec.tables.append(
            _table(
                "draft_pick_order",
                "Draft pick order",
                "Share of all picks going to each character (cluster-robust 95% intervals).",
                pd.DataFrame(order_rows),
                method,
            )
        )
        draft_sec.tables.append(
            _table(
                "draft_pick_given_card",
                "Most picked card for each random card",
                "For each random card received, the card the strategy picks most and how "
                "often (Wilson 95% intervals).",
                pd.DataFrame(given_rows),
                method,
                faint,
            )
        )
    dealt = [p for p, d in data.items() if not d.has_draft]
    if dealt:
        draft_sec.paragraphs.append(
            "Not measured for " + ", ".join(dealt) + ": the draft exists only in the "
            "2-player draft variant; these games deal their starting hands."
        )

    # ---- how to play ------------------------------------------------------------------
    rows, faint = [], []
    for d in data.values():
        for _, r in d.play_table().iterrows():
            claims: Estimate = r["claims per game"]
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "character": r["character"],
                    "claims per game": f"{claims.value:.2f}",
                    "bluff share of its claims": _cell(r["bluff share"]),
                    "bluffs challenged": _cell(r["bluffs challenged"]),
                    "claim challenged, holding none": _cell(r["challenged, holding none"]),
                    "claim challenged, holding one": _cell(r["challenged, holding one"]),
                }
            )
            faint.append(r["bluff share"].n < MIN_EVENTS)
    play_sec.paragraphs.append(
        "A claim is an action or a counter that needs the character; it is a bluff when "
        "the claimant holds no copy. 'Claim challenged' is how often the strategy "
        "challenges a claim of the character, split by whether it holds a copy itself. "
        f"A cell with fewer than {MIN_EVENTS} events gives its count (n=...); rows with "
        "few claims are greyed out."
    )
    play_sec.tables.append(
        _table(
            "bluffs_and_challenges",
            "Bluffs and challenges per character",
            "Per character: claims per game, the share of claims that are bluffs, how often "
            "a bluff is challenged, and how often a claim is challenged (cluster-robust 95% "
            "intervals over games).",
            pd.DataFrame(rows),
            method,
            faint,
        )
    )
    rows, faint = [], []
    for d in data.values():
        for _, r in d.first_moves().iterrows():
            rows.append(
                {
                    "line-up": _lineup_name(d),
                    "seat": r["seat"],
                    "first action": r["first action"],
                    "share of first turns": _cell(r["estimate"]),
                    "bluffed": _cell(r["bluffed"]) if r["turns"] else "",
                    "turns": r["turns"],
                }
            )
            faint.append(r["turns"] < MIN_EVENTS)
    play_sec.tables.append(
        _table(
            "first_turns",
            "First-turn plays",
            "Each seat's first action: its share of first turns and the share of those made "
            "without the claimed character (Wilson 95% intervals).",
            pd.DataFrame(rows),
            method,
            faint,
        )
    )
    bluff_bars = []
    for d in data.values():
        for _, r in d.play_table().iterrows():
            if r["bluff share"].n:
                name = r["character"]
                if name in ("Ambassador", "Inquisitor") and len(data) > 1:
                    name = FIFTH
                bluff_bars.append((_lineup_name(d), name, r["bluff share"]))
    play_sec.figures.append(
        FigureSpec(
            "bluff_share",
            "Bluff share of each character's claims",
            f"Share of the claims of each character made without holding it; error bars: 95% "
            f"intervals ({method}).",
            lambda bars=bluff_bars: _bars(bars, "bluff share (%)", "Bluff share of claims"),
        )
    )

    # ---- Complots 2 and other player counts ---------------------------------------------
    c2_sec.paragraphs.append(
        "The named Complots 2 line-ups (docs/complots2.md) and the 3- and 4-player games. "
        "A row is filled in as soon as a strategy for it ships under games/strategies/."
    )
    c2_sec.tables.append(
        _table(
            "complots2_lineups",
            "Complots 2 line-ups",
            "Each named line-up, its characters, its presets and whether a strategy ships.",
            _complots2_frame(data),
            "presets and shipped strategies",
        )
    )
    c2_sec.tables.append(
        _table(
            "coverage",
            "Games covered by this report",
            "Each game the report covers, and whether it is in this report.",
            _coverage_frame(data, quality),
            "presets and shipped strategies",
        )
    )

    # ---- method -----------------------------------------------------------------------
    copies = (
        "with a copy of the shipped strategy in every seat"
        if tables
        else "between two copies of the shipped strategy"
    )
    method_sec.paragraphs += [
        f"Command: {inputs.command}",
        f"Every number comes from {inputs.games:,} self-play games per line-up "
        f"{copies} (the bot spec 'solved': the policy network under "
        f"games/strategies/PRESET), seed {inputs.seed}, played on {inputs.workers} worker "
        f"process(es) in {inputs.seconds:,.0f} s; the same seed gives the same games on any "
        "number of workers. Nothing here is exact: every figure is sampled.",
        "Intervals: win rates over games are Wilson 95% intervals; rates over events "
        "(claims, challenge decisions, seats holding a character) pool the events of each "
        "game and use a cluster-robust (delta method) interval, the game being the sampling "
        "unit; spreads and differences between line-ups use 1,000 bootstrap resamples of "
        "the games. Rows or cells resting on fewer than "
        f"{MIN_EVENTS} events are greyed out or carry their count.",
        "Bluffs are read from the true cards, which the strategy does not see: a claim is "
        "a bluff when the claimant holds no face-down copy of the character.",
    ]
    for p in data:
        method_sec.paragraphs.append(
            f"{p}: strategy quality from its meta.json: {quality[p].detail}"
        )

    sections = [
        s
        for s in (
            verdicts,
            seats_sec,
            balance_sec,
            chars_sec,
            hands_sec,
            draft_sec,
            play_sec,
            c2_sec,
            method_sec,
        )
        if s.paragraphs or s.tables or s.figures
    ]
    facts = [
        ("Games", ", ".join(f"{p} ({_lineup_name(d)})" for p, d in data.items())),
        ("Strategies", "; ".join(f"{p}: {quality[p].short}" for p in data)),
        ("Sampling", method),
        ("Command", inputs.command),
    ]
    report = Report("Complots balance report", facts, sections, warnings=warnings)
    return report


def _bars(bars: list[tuple[str, str, Estimate]], ylabel: str, title: str) -> Figure:
    """Grouped bars (category by line-up) in percent with 95% error bars."""
    frame = pd.DataFrame(
        [
            {
                "line-up": g,
                "category": c,
                "value": 100 * e.value,
                "lo": 100 * e.low,
                "hi": 100 * e.high,
            }
            for g, c, e in bars
        ]
    )
    return figures.value_bars_figure(
        frame, "category", "value", title, group="line-up", ci=("lo", "hi"), ylabel=ylabel
    )


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
    games: int,
    seed: int,
    workers: int,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> dict[str, LineupData]:
    """Play and record ``games`` self-play games of each preset's shipped strategy."""
    out = {}
    all_presets = load_presets()
    for p in presets:
        done = [0]

        def tick(k: int, p: str = p, done: list[int] = done) -> None:
            done[0] += k
            if progress is not None:
                progress(f"playing {p}", done[0], games)

        if progress is not None:
            progress(f"playing {p}", 0, games)
        records = play_preset(p, games, seed, workers, tick)
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
) -> dict[str, Path]:
    """Play, measure and write the balance report of ``presets`` (see :func:`check_presets`)."""
    chosen = check_presets(presets)
    qualities = {p: strategy_quality(p) for p in chosen}  # before the long part
    start = time.perf_counter()
    data = run_balance(chosen, games, seed, workers, progress)
    inputs = BalanceInputs(
        data=data,
        qualities=qualities,
        games=games,
        seed=seed,
        command=command or f"complots balance --games {games} --seed {seed}",
        seconds=time.perf_counter() - start,
        workers=workers,
    )
    return write_outputs(build_balance_report(inputs), out, formats, progress)
