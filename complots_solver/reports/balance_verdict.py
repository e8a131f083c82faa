"""The balance report's answer: the verdict at each player count and how sure it is.

Page 1 (:func:`answer_section`), the glossary, "How sure are we" and the table
of the balance measures behind each verdict; the verdicts use Holm's
correction over every test of the report.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from complots_solver.reports.balance_common import (
    AMBASSADOR,
    DRAWS_DOMINATE,
    INQUISITOR,
    PAIRS,
    TABLE_RESPONDER,
    BalanceInputs,
    Comparison,
    Quality,
    balance_table,
    count_tests,
    lineup_name,
)
from complots_solver.reports.balance_stats import ALPHA, Z95, Estimate, LineupData, Metric
from complots_solver.reports.document import Section


def draw_warning(preset: str, draws: Estimate, max_turns: int) -> str | None:
    """The warning that draws dominate a short-horizon game, or None."""
    if not math.isfinite(draws.value) or draws.value < DRAWS_DOMINATE:
        return None
    return (
        f"Warning: draws dominate {preset}. {draws.pct()} of its games reach the turn cap of "
        f"{max_turns} turns and are draws; its win rates and values mostly measure draws, "
        "not who is stronger."
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


def second_opinion(verdict: str, second: Comparison | None) -> str:
    """Whether the second strategies reach ``verdict`` too: 'robust' only where they agree on a
    line-up."""
    if second is None or second.metrics is None:
        return "not checked with a second set of strategies"
    other = _deciding(second.metrics)[1]
    if other == verdict:
        if verdict == "cannot tell":
            return "the second set of strategies cannot tell either"
        return "robust: the second set of strategies agrees"
    return f"not robust: the second set of strategies says {other}"


def _answer_frame(
    comps: list[Comparison],
    data: dict[str, LineupData],
    tests: int,
    seconds: dict[int, Comparison] | None = None,
) -> pd.DataFrame:
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
            if seconds is not None:  # page 1: each verdict with its second opinion
                sure += f"; {second_opinion(verdict, seconds.get(c.players))}"
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


def answer_section(
    inputs: BalanceInputs,
    comps: list[Comparison],
    tests: int,
    seconds: dict[int, Comparison] | None = None,
) -> Section:
    """Page 1: the answer at each player count, its definition and the strategies' strength;
    ``seconds``: the same comparisons with the second strategies, by player count."""
    data = inputs.data
    front = Section("answer", "Ambassador or Inquisitor: which line-up is better balanced?")
    front.paragraphs.append(_definition(tests))
    front.tables.append(
        balance_table(
            "answer",
            "The answer at each player count",
            "The better-balanced line-up, or 'cannot tell'; the difference on the measure that "
            "decides (or comes closest to deciding), with its 95% interval; how sure we are (p: "
            f"the chance of so large a difference by luck alone, Holm-corrected for the {tests} "
            "tests made) and whether a second set of strategies reaches the same verdict (robust "
            "only then); and the first player's edge with each line-up. Sample: "
            + "; ".join(
                f"{c.players} players {data[c.presets[0]].games:,} games per line-up"
                for c in comps
                if c.metrics is not None
            )
            + ".",
            _answer_frame(comps, data, tests, seconds or {}),
            f"self-play of the shipped strategies, seed {inputs.seed}; 95% intervals",
        )
    )
    front.paragraphs.append(strength_sentence(data, inputs.qualities))
    return front


def second_answer_section(inputs: BalanceInputs, seconds: list[Comparison], tests: int) -> Section:
    """The answer table again, from the second set of strategies' games (the appendix);
    ``tests``: how many tests their p-values are corrected for."""
    section = Section("second", "The second opinion: the answer from the second strategies")
    section.tables.append(
        balance_table(
            "answer_second",
            "The answer from the second set of strategies",
            "The same comparisons as page 1's, from games of the second strategies "
            "(games/strategies/second/), same seed and number of games; Holm's correction for "
            f"{tests} tests, as on page 1.",
            _answer_frame(seconds, inputs.second, tests),
            f"self-play of the second strategies, seed {inputs.seed}; 95% intervals",
        )
    )
    return section


def glossary_section(tests: int) -> Section:
    """How to read these numbers: the glossary and the definition of 'better balanced'."""
    glossary = Section("glossary", "How to read these numbers")
    glossary.paragraphs += [f"{term}: {text}" for term, text in GLOSSARY]
    glossary.paragraphs.append(f"Better balanced: {_definition(tests)[len('Better balanced ') :]}")
    return glossary


def _second_paragraphs(
    inputs: BalanceInputs, comps: list[Comparison], tests: int, seconds: dict[int, Comparison]
) -> list[str]:
    """What the second set of strategies is and what it says at each player count (``tests``:
    the shipped set's)."""
    if not seconds:
        return [
            "Second opinion: no second set of strategies is shipped for an Ambassador and "
            "Inquisitor pair (games/strategies/second/), so no verdict is called robust."
        ]
    own = count_tests(seconds.values())
    out = [
        "Second opinion: each verdict was recomputed from the same number of games, same seed, "
        "played by a second set of strategies (games/strategies/second/: another run or another "
        "method for the same game); a verdict is robust only where both sets reach it. "
        f"The second set makes {own} tests; Holm's correction counts {max(own, tests)}, as "
        "the shipped set's does, so both are held to the same standard."
    ]
    for c in comps:
        other = seconds.get(c.players)
        if other is None or other.metrics is None or c.metrics is None:
            continue
        m, verdict = _deciding(other.metrics)
        who = "; ".join(
            f"{p}: {_short_quality(inputs.second_qualities[p], c.players)}"
            for p in other.presets
            if p in inputs.second_qualities
        )
        out.append(
            f"At {c.players} players the second set says {verdict} ({_measure_name(m)} "
            f"{_metric_texts(m)[2]}, {_sure(m, tests)}); "
            f"{second_opinion(_deciding(c.metrics)[1], other)}. Its strategies: {who}."
        )
    return out


def sure_section(
    inputs: BalanceInputs,
    comps: list[Comparison],
    tests: int,
    seconds: dict[int, Comparison] | None = None,
) -> Section:
    """How sure are we: the strategies' strength, the tests, the games needed, the second
    opinion and the warnings."""
    data, quality = inputs.data, inputs.qualities
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
                    f"{lineup_name(data[p])} ({p}): {_short_quality(quality[p], data[p].players)}."
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
    sure.paragraphs += _second_paragraphs(inputs, comps, tests, seconds or {})
    for p, d in data.items():
        w = draw_warning(p, d.draws(), d.config.max_turns)
        if w:
            sure.paragraphs.append(w)
    return sure


def measures_section(comps: list[Comparison], method: str) -> Section:
    """The balance measures at each player count, each with its verdict."""
    names = ("Ambassador", "Inquisitor")
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
            balance_table(
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
    return measures
