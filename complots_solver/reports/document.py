"""The content of a report, independent of its format (HTML and PDF render the same model)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd
from matplotlib.figure import Figure

from complots_solver.browse import Browser, signed
from complots_solver.reports import figures
from complots_solver.reports.card import pooled, strategy_card
from complots_solver.reports.headline import PAIR, Headline, read_headline, shipped_lineup
from complots_solver.reports.tables import (
    StrategyTable,
    all_tables,
    exploitability_text,
    solver_phrase,
    table_strength_text,
)
from complots_solver.rules.stats import wilson_interval

MAX_DISPLAY_PROB_COLUMNS = 9  # wider distributions are shown as one text column
DISPLAY_MIN_PROBABILITY = 0.001
TINY = 1e-4  # smaller magnitudes are shown as '< 0.0001', never as 6.4e-08
FAINT_REACH = 1e-4  # exact tables: rows reached less often than this are greyed out
FAINT_VISITS = 30  # sampled tables: rows resting on fewer sampled decisions are left out
MAX_SHOWN_ROWS = 12  # sampled tables: the most visited rows shown; every row is in the CSV
WEAK_EXPLOITABILITY = 0.2  # above this (or unmeasured on a sampled run) the report warns
DRAWS_DOMINATE = 0.5  # a turn-cap share from this on gets the short-horizon warning


@dataclass
class FigureSpec:
    """A figure drawn on demand (PNG for HTML, vector for PDF)."""

    key: str
    title: str
    caption: str
    make: Callable[[], Figure]


@dataclass
class Section:
    """A titled part of a report: paragraphs, tables and figures."""

    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[StrategyTable] = field(default_factory=list)
    figures: list[FigureSpec] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (text, relative address)


@dataclass
class Report:
    """A whole report: title-page facts and sections."""

    title: str
    facts: list[tuple[str, str]]
    sections: list[Section]
    created: str = field(default_factory=lambda: dt.date.today().isoformat())
    warnings: list[str] = field(default_factory=list)  # shown above everything else
    compact: bool = True  # PDF: small tables share a page instead of one page each
    front: Section | None = None  # the answer, alone on page 1 (PDF) and first (HTML)
    appendix: Report | None = None  # more tables, written beside the report as HTML

    def tables(self) -> list[StrategyTable]:
        """Every table in order."""
        return [t for s in self.sections for t in s.tables]


def display_frame(table: StrategyTable) -> pd.DataFrame:
    """The table as shown: numbers formatted, very wide distributions folded into one column."""
    frame = table.frame.copy()
    probs = [c for c in table.prob_columns if c in frame.columns]
    if len(probs) > MAX_DISPLAY_PROB_COLUMNS:
        dist = []
        for _, row in frame[probs].iterrows():
            items = sorted(
                ((c, float(v)) for c, v in row.items() if float(v) >= DISPLAY_MIN_PROBABILITY),
                key=lambda cv: -cv[1],
            )
            dist.append("; ".join(f"{c} {_percent(v)}" for c, v in items))
        keep = [c for c in frame.columns if c not in probs]
        at = frame.columns.get_loc(probs[0])
        frame = frame[keep]
        frame.insert(int(at), "distribution", dist)
    out = pd.DataFrame(index=frame.index)
    for col in frame.columns:
        out[col] = [format_cell(col, v, col in probs) for v in frame[col]]
    return out


def text_columns(table: StrategyTable) -> set[str]:
    """Columns holding text (left-aligned when shown)."""
    frame = table.frame
    texts = {c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])}
    return texts | {"distribution"}


def format_cell(column: str, value: object, probability: bool = False) -> str:
    """One formatted cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (hasattr(value, "dtype") and "int" in str(value.dtype)):
        return str(int(value))  # type: ignore[call-overload]
    if isinstance(value, float) or hasattr(value, "dtype"):
        v = float(value)  # type: ignore[arg-type]
        if v != v:
            return "n/a"
        if column == "prob ±95%" or (probability and "±" not in column):
            return _percent(v)
        if "±" in column:
            return f"{v:.4f}"
        if column in ("value", "advantage", "difference") or column.startswith(("value", "Δ")):
            return signed(v)
        if "equilibrium" in column:
            return signed(v, 5)
        if 0 < abs(v) < TINY:
            return f"< {TINY:g}" if v > 0 else f"> -{TINY:g}"
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    return str(value)


def _percent(v: float) -> str:
    """A probability in percent: '12.3%', '< 0.1%' for a tiny positive one."""
    if 0 < v < 0.0005:
        return "< 0.1%"
    return f"{100 * v:.1f}%"


def _pivot(frame: pd.DataFrame, index: str, columns: str, values: str) -> pd.DataFrame:
    """A pivot table with rows and columns in first-seen order."""
    pivot = frame.pivot_table(index=index, columns=columns, values=values, aggfunc="mean")
    return pivot.reindex(index=list(dict.fromkeys(frame[index])))


def quoted_headline(b: Browser) -> tuple[str, Headline] | None:
    """(line-up, the balance report's answers) when ``b`` is a shipped strategy it covers."""
    run = b.describe_run()
    lineup = shipped_lineup(run.get("preset"), run.get("run_dir", ""))
    head = read_headline(players=b.config.players) if lineup else None
    return (lineup, head) if lineup and head and lineup in head.edges else None


def _sampled_summary(b: Browser) -> list[str]:
    """Plain-language headline paragraphs of a run read by sampled self-play."""
    run = b.describe_run()
    quoted = quoted_headline(b) is not None
    strength = table_strength_text(run, b.config.players)
    cap_ci = b.turn_cap_ci()
    cap_ci = float("nan") if cap_ci is None else cap_ci
    lines = [
        f"This report describes the strategy solved for {run['preset'] or run['game']} "
        f"({run['lineup']} line-up) by {solver_phrase(run)}, from the run directory "
        f"{run['run_dir']}. "
        + (
            f"Its strength: {strength}."
            if strength
            else f"Its exploitability: {exploitability_text(b)}."
        ),
        f"The game has no compiled tree, so every number here is sampled: {run['games']:,} "
        f"self-play games of the strategy (seed {run['seed']}), {run['decisions']:,} "
        "decisions; each estimate comes with the half-width of its 95% confidence interval "
        "('... ±95%' columns), computed with the game as the sampling unit."
        + (
            f" {run['miss_share']:.2%} of the decisions met an information state the "
            "strategy table lacks; those are played uniformly at random."
            if run.get("solver_text") is None
            else ""
        ),
        _seat_sentence(b, quoted),
        (
            f"None of the {run['games']:,} games reaches the turn cap of {b.config.max_turns} "
            "turns (no draws)."
            if b.turn_cap_share() == 0
            else f"{b.turn_cap_share():.1%} ± {cap_ci:.1%} of games reach the turn cap of "
            f"{b.config.max_turns} turns and are draws."
        ),
        "How to read the tables: probabilities are visit-weighted over the situations of "
        "each row (the sampled counterpart of reach weighting): a row's probability of a "
        "move is the strategy's probability of it, averaged over the row's visits in the "
        "sampled games. 'reach' is the number of visits per game, 'value' the mean return "
        "of the player to move from there, 'visits' the number of sampled decisions behind "
        "the row and 'prob ±95%' the largest half-width among the row's probabilities. "
        "Rows with few visits are rough estimates.",
    ]
    return lines


def win_shares(b: Browser) -> list[tuple[float, float, float]]:
    """(share, Wilson 95% low, high) of the games each seat wins, from the sampled games."""
    starts = b.starting_hands()
    games = len(starts)
    out = []
    for p in range(b.config.players):
        wins = int((starts[f"value{p}"] == 1.0).sum())
        out.append((wins / games, *wilson_interval(wins, games)))
    return out


def _seat_sentence(b: Browser, quoted: bool) -> str:
    """Each seat's result in the sampled games, and whether the first seat has an edge."""
    n = b.config.players
    if n == 2:
        v0, v1 = b.game_value()
        c0, c1 = b.game_value_ci() or (float("nan"), float("nan"))
        return (
            f"Playing this strategy, seat 0 (who moves first, with 1 coin) wins on average "
            f"{signed(v0)} ± {c0:.4f} and seat 1 {signed(v1)} ± {c1:.4f} (+1 a win, -1 a loss, "
            "0 a draw; 95% CI). "
            + (
                "Whether seat 0 has an edge is answered above, from the balance report's larger "
                "sample, not from these games."
                if quoted
                else f"The difference from 0 is significant: the strategy favours seat "
                f"{0 if v0 > 0 else 1}."
                if abs(v0) > c0
                else "The difference from 0 is not significant at this sample size."
            )
        )
    shares = win_shares(b)
    fair = 1.0 / n
    seats = ", ".join(
        f"seat {p}{' (who moves first)' if p == 0 else ''} {w:.1%} [{lo:.1%}, {hi:.1%}]"
        for p, (w, lo, hi) in enumerate(shares)
    )
    text = (
        f"Playing this strategy at every seat, the seats win these shares of the games: {seats} "
        f"(95% Wilson intervals); the fair share is {fair:.1%}. A win scores +1 and a loss "
        f"-1/{n - 1}, so a seat's mean return (the key figures) is 0 at the fair share. "
    )
    _, lo, hi = shares[0]
    if quoted:
        return text + (
            "Whether the first player has an edge is answered above, from the balance "
            "report's sample, not from these games."
        )
    if lo > fair or hi < fair:
        return text + (
            f"Seat 0's share differs significantly from the fair share: the strategy "
            f"{'favours' if lo > fair else 'handicaps'} the first player."
        )
    return text + "Seat 0's share is not significantly different from the fair share."


def _summary(b: Browser) -> list[str]:
    """Plain-language headline paragraphs of one run."""
    if not b.exact:
        return _sampled_summary(b)
    run = b.describe_run()
    v0, v1 = b.game_value()
    bounds = b.value_bounds()
    lines = [
        f"This report describes the strategy solved for {run['preset'] or run['game']} "
        f"({run['lineup']} line-up) by {run['algorithm']} after {run['iterations']} "
        f"iterations, from the run directory {run['run_dir']}. Its exploitability "
        f"(exact best response on the full tree) is {run['exploitability']:.3g}.",
        f"Playing this strategy, seat 0 (who moves first, with 1 coin) expects {signed(v0)} "
        f"and seat 1 {signed(v1)} (+1 a win, -1 a loss, 0 a draw).",
    ]
    if bounds:
        lo, hi = bounds[0]
        lines.append(
            f"The game's equilibrium value for seat 0 is certainly between {signed(lo, 5)} and "
            f"{signed(hi, 5)}; a width of {hi - lo:.2g} (the NashConv) is the only uncertainty: "
            "every number here is computed exactly on the game tree, none is sampled."
        )
    lines.append(
        f"{b.turn_cap_share():.1%} of games reach the turn cap of {b.config.max_turns} "
        "turns and are draws."
    )
    lines.append(
        "How to read the tables: probabilities are reach-weighted over the situations of "
        "each row; 'reach' is the probability (or expected number of times per game) that "
        "such a situation arises under the solved strategy and 'value' the expected utility "
        "of the player to move there. Rows with a tiny reach (say below 1e-6) are situations "
        "the solved players almost never create: their strategy hardly matters and may look "
        "arbitrary."
    )
    return lines


def seat_shares(b: Browser) -> tuple[float, float, float]:
    """(seat 0 wins, seat 1 wins, draws) of a 2-player run, from its values and turn-cap share.

    With utilities +1, -1 and 0 on a draw, seat 0's value is P(0 wins) - P(1 wins)
    and the draws are the turn-cap share, which fixes both win probabilities.
    """
    v0 = b.game_value()[0]
    draws = b.turn_cap_share()
    return (1 - draws + v0) / 2, (1 - draws - v0) / 2, draws


def report_warnings(b: Browser) -> list[str]:
    """The two warnings a reader must not miss: a weak strategy, draws that dominate."""
    out = []
    run = b.describe_run()
    name = run["preset"] or b.config.game_string()
    exact = b.exploitability()
    bound = b.exploitability_bound()
    strength = table_strength_text(run, b.config.players)
    quality = str(run.get("quality") or "").strip()
    if exact is not None and exact > WEAK_EXPLOITABILITY:
        out.append(
            f"Warning: weak strategy. Its exploitability is {exact:.3g} (above "
            f"{WEAK_EXPLOITABILITY}): a best response wins that much more per game; read "
            "every number here as how this strategy plays, not as good play."
        )
    elif exact is None and not bound and strength:
        out.append(
            f"Warning: weak strategy. Its record says WEAK: {strength}. Read every number "
            "here as how this strategy plays, not as good play."
            if quality.upper().startswith("WEAK")
            else f"How strong: {strength}."
        )
    elif exact is None:
        low = float(bound["lower_bound"]) if bound else None
        measured = f"at least {low:.3g}" if low is not None else "not measured"
        if low is None or low > WEAK_EXPLOITABILITY:
            out.append(
                f"Warning: weak or unmeasured strategy. Its exploitability is {measured}; "
                "read every number here as how this strategy plays, not as good play."
            )
    if not out and quality.upper().startswith("WEAK"):  # the run's own record says so
        first = quality.splitlines()[0]
        out.append(
            f"Warning: weak strategy. Its record says: {first} Read every number here as "
            "how this strategy plays, not as good play."
        )
    draws = b.turn_cap_share()
    if draws >= DRAWS_DOMINATE:
        out.append(
            f"Warning: draws dominate {name}. {draws:.1%} of its games reach the turn cap "
            f"of {b.config.max_turns} turns and are draws: a short-horizon rung of the "
            "ladder, not the full game; its values mostly measure draws."
        )
    return out


def _takeaways(b: Browser, t: dict[str, StrategyTable]) -> list[str]:
    """Win rates and the plainest facts first, before any solver detail."""
    lines = []
    quoted = quoted_headline(b)
    pair = {f"{b.config.players}-player {x}" for x in PAIR.values()} | set(PAIR.values())
    if quoted is not None:
        lineup, head = quoted
        lines.append(
            "Takeaways: "
            + head.edge_sentence(lineup)
            + (" " + head.verdict_sentence() if lineup in pair and head.verdict else "")
            + " Every report of this project states these answers from that one "
            "computation; the tables below describe how the strategy plays, from this "
            "report's own games."
        )
    elif b.config.players == 2:
        p0, p1, d = seat_shares(b)
        how = "exactly, on the game tree" if b.exact else "in the sampled self-play games"
        lines.append(
            f"Takeaways: playing this strategy against itself, seat 0 (who moves first) wins "
            f"{p0:.1%} of games, seat 1 wins {p1:.1%}, and {d:.1%} are draws (computed {how})."
        )
    bl = t["bluffs"].frame
    if not bl.empty and bl["bluff frequency"].notna().any():
        top = bl.loc[bl["bluff frequency"].idxmax()]
        lines.append(
            f"The character it bluffs most is the {top['character']}: "
            f"{top['bluff frequency']:.1%} of its {top['character']} claims are bluffs."
        )
        lines += _extremes(bl, b.config.players)
    return lines


EXTREME = 0.9  # a claim bluffed more often than this, or a bluff challenged so often, is named


def _extremes(bluffs: pd.DataFrame, players: int = 2) -> list[str]:
    """Sentences on extreme behaviour: a claim never made, nearly always a bluff, bluffs always
    called."""
    who = "its opponent (itself)" if players == 2 else "its opponents (copies of it)"
    out = []
    for _, r in bluffs.iterrows():
        c = r["character"]
        if not r["claims per game"] > 0:
            out.append(f"Extreme: it never claims the {c}.")
        elif r["bluff frequency"] > EXTREME:
            out.append(f"Extreme: {r['bluff frequency']:.1%} of its {c} claims are bluffs.")
        if r.get("bluffs challenged", 0) > EXTREME:
            out.append(
                f"Extreme: {who} challenge{'s' if players == 2 else ''} "
                f"{r['bluffs challenged']:.1%} of its {c} bluffs."
            )
    return out


def _mark_faint(table: StrategyTable, exact: bool) -> StrategyTable:
    """Grey out the rows with little behind them (rare situations, few sampled decisions)."""
    frame = table.frame
    if "visits" in frame.columns and not exact:
        table.faint = [bool(v < FAINT_VISITS) for v in frame["visits"]]
    elif "reach" in frame.columns and exact:
        table.faint = [bool(v < FAINT_REACH) for v in frame["reach"]]
    return table


def shorten(table: StrategyTable) -> StrategyTable:
    """A sampled table as shown: rows with fewer than FAINT_VISITS visits left out, at most
    MAX_SHOWN_ROWS of the most visited kept in their order; the note says where the rest is."""
    frame = table.frame
    if "visits" not in frame.columns or frame.empty:
        return table
    visits = frame["visits"].fillna(0)
    keep = visits >= FAINT_VISITS
    rare = int((~keep).sum())
    top = visits[keep].sort_values(ascending=False, kind="stable").index[:MAX_SHOWN_ROWS]
    over = int(keep.sum()) - len(top)
    if not rare and not over:
        return table
    parts = []
    if rare:
        parts.append(f"{rare} row(s) with fewer than {FAINT_VISITS} sampled decisions")
    if over:
        parts.append(f"{over} less visited row(s)")
    note = (
        " and ".join(parts) + f" are left out here; the CSV file {table.key}.csv keeps every row."
    )
    shown = frame.loc[sorted(top)].reset_index(drop=True)
    return replace(table, frame=shown, note=" ".join(x for x in (table.note, note) if x), faint=[])


def build_report(b: Browser, tables: dict[str, StrategyTable] | None = None) -> Report:
    """The report of one solved line-up (a sampled one shows its well-visited rows only)."""
    t = dict(tables or all_tables(b))
    for table in t.values():
        _mark_faint(table, b.exact)
    rare = []
    card = strategy_card(t, b.config.players) if not b.exact else []
    full = dict(t)  # every row, for the heat maps of a table of 3+ (seats pooled)
    table_note = (
        f" Every row resting on at least {FAINT_VISITS} sampled decisions, all seats pooled."
        if b.config.players > 2 and not b.exact
        else ""
    )
    if not b.exact:
        short = {k: shorten(v) for k, v in t.items()}
        rare = [v.title for k, v in t.items() if not v.frame.empty and short[k].frame.empty]
        t = short
    run = b.describe_run()
    name = run["preset"] or run["game"]
    sections = [
        Section(
            "summary",
            "Summary",
            _takeaways(b, t) + _summary(b),
            [t["key_figures"], t["game_values"]],
        ),
    ]
    if card:
        sections.append(Section("card", "Strategy card", card))
    conv = b.convergence()
    conv_section = Section("convergence", "Convergence")
    if conv is not None and not conv.empty:
        conv_section.paragraphs.append(
            "Exact exploitability of the average strategy, measured during the run "
            "(convergence.csv)."
        )
        conv_section.figures.append(
            FigureSpec(
                "convergence",
                "Exploitability over iterations",
                f"{name}: exploitability (NashConv / 2) of the average strategy.",
                lambda: figures.convergence_figure(conv, f"{name}: convergence"),
            )
        )
    elif not b.exact:
        conv_section.paragraphs.append(
            "Monte Carlo CFR runs measure no exact exploitability during the run (the game "
            "has no compiled tree). Exploitability: " + exploitability_text(b) + "."
        )
    else:
        conv_section.paragraphs.append("The run directory has no convergence.csv.")
    sections.append(conv_section)

    opening = t["opening_moves"]
    open_sec = Section("opening", "Opening moves", [], [opening, t["action_frequencies"]])
    if not opening.frame.empty:
        panels = []
        for seat, group in opening.frame.groupby("seat"):
            panels.append((f"seat {seat}", group.set_index("hand")[opening.prob_columns]))
        if b.config.players > 2 and not b.exact:
            # a panel per seat of its 12 most visited rows says little: every seat pooled
            every = pooled(full["opening_moves"].frame, "hand")
            panels = [
                (f"all {b.config.players} seats", every.set_index("hand")[opening.prob_columns])
            ]
        open_sec.figures.append(
            FigureSpec(
                "opening_heatmap",
                "Opening move by hand",
                "Probability of each first action by the hand held (reach-weighted)." + table_note,
                lambda p=panels: figures.heatmap_figure(p, "Opening move by hand"),
            )
        )
    sections.append(open_sec)

    draft = t["draft_picks"]
    draft_sec = Section("draft", "Draft", [], [draft])
    if not draft.frame.empty:
        panels = [
            (f"seat {seat}", g.set_index("draft_card")[draft.prob_columns])
            for seat, g in draft.frame.groupby("seat")
        ]
        draft_sec.figures.append(
            FigureSpec(
                "draft_heatmap",
                "Draft pick by random card",
                "Probability of each pick given the random card.",
                lambda p=panels: figures.heatmap_figure(p, "Draft pick by random card"),
            )
        )
    sections.append(draft_sec)

    chal = t["challenges"]
    chal_sec = Section("challenges", "Challenges", [], [chal])
    if not chal.frame.empty:
        panels = []
        every = chal.frame
        if b.config.players > 2 and not b.exact:  # every row resting on enough decisions
            every = full["challenges"].frame
            every = every[every["visits"] >= FAINT_VISITS]
        for context, g in every.groupby("context"):
            panels.append((context, _pivot(g, "hand", "claimed", "Challenge")))
        chal_sec.figures.append(
            FigureSpec(
                "challenge_heatmap",
                "Challenge probability by own hand and claimed character",
                "Probability of challenging, rows: own hand, columns: claimed character."
                + table_note,
                lambda p=panels: figures.heatmap_figure(
                    p, "Challenge probability (rows: own hand)"
                ),
            )
        )
    sections.append(chal_sec)
    sections.append(Section("counters", "Counters", [], [t["counters"], t["counter_rates"]]))
    sections.append(Section("reveals", "Losing influence", [], [t["reveals"]]))
    sections.append(Section("exchange", "Exchange", [], [t["exchange_keeps"]]))
    sections.append(
        Section("examine", "Inquisitor Examine", [], [t["examine_decisions"], t["examine_shows"]])
    )
    sections.append(Section("bluffs", "Bluffs", [], [t["bluffs"]]))

    values_sec = Section("values", "Values of hands and characters", [], [])
    values_sec.tables = [t["hand_values"], t["character_values"]]
    cv = t["character_values"].frame.copy()
    hv = t["hand_values"].frame.copy()
    cv_ci = hv_ci = None
    if b.exact:
        note = "Exact values (no sampling error, so no error bars)."
    else:
        note = "Sampled values; error bars are 95% confidence intervals."
        cv["lo"] = cv["value holding it"] - cv["value holding it ±95%"]
        cv["hi"] = cv["value holding it"] + cv["value holding it ±95%"]
        hv["lo"] = hv["value"] - hv["value ±95%"].fillna(0.0)
        hv["hi"] = hv["value"] + hv["value ±95%"].fillna(0.0)
        cv_ci = hv_ci = ("lo", "hi")
    if b.exact:  # sampled reports keep to 10 pages: the character table gives the same values
        values_sec.figures.append(
            FigureSpec(
                "character_values",
                "Value of holding each character",
                "Expected utility of each seat when its starting hand holds the character. " + note,
                lambda: figures.value_bars_figure(
                    cv,
                    "character",
                    "value holding it",
                    "Value when holding the character",
                    ci=cv_ci,
                    note=note,
                ),
            )
        )
    # with one card a hand is a character (the same chart twice); sampled, the hand table suffices
    if b.config.influence > 1 and b.exact:
        values_sec.figures.append(
            FigureSpec(
                "hand_values",
                "Value of each starting hand",
                "Expected utility of each seat by its starting hand. " + note,
                lambda: figures.value_bars_figure(
                    hv.sort_values("hand"),
                    "hand",
                    "value",
                    "Value of each starting hand",
                    ci=hv_ci,
                    note=note,
                ),
            )
        )
    sections.append(values_sec)
    sections, dropped = _drop_empty(sections)
    dropped = [x for x in dropped if x not in rare]
    if rare:
        sections[0].paragraphs.append(
            f"Left out, every row resting on fewer than {FAINT_VISITS} sampled decisions (the "
            "CSV files keep them): " + "; ".join(rare) + "."
        )
    if dropped:
        sections[0].paragraphs.append(
            "Not shown, because no such situation arises under this strategy in this game: "
            + "; ".join(dropped)
            + "."
        )
    appendix = None
    if not b.exact:
        sections, moved = _main_and_appendix(sections)
        if moved:
            titles = "; ".join(t.title for sec in moved for t in sec.tables)
            sections[0].paragraphs.append(
                f"In the appendix beside this report (and every row in the CSV files): {titles}."
            )
            appendix = Report(f"Complots strategy report: {name}, appendix", [], moved)
    facts = [
        ("Game", f"Complots, {name}: {run['game']}"),
        ("Line-up", run["lineup"]),
        ("Solver", solver_phrase(run)),
        ("Exploitability", exploitability_text(b)),
        ("Basis", run["method"]),
        ("Run directory", run["run_dir"]),
        *([("Solved", str(run["created"]))] if run.get("created") else []),
    ]
    if not b.exact:
        facts.insert(
            5,
            (
                "Tables",
                f"sampled from {run['games']:,} self-play games (seed {run['seed']}); "
                "estimates with 95% confidence intervals",
            ),
        )
    report = Report(
        f"Complots strategy report: {name}", facts, sections, warnings=report_warnings(b)
    )
    report.appendix = appendix
    return report


# what a sampled report shows itself; its other tables go to the appendix
MAIN_TABLES = ("opening_moves", "draft_picks", "challenges", "bluffs", "character_values")


def _main_and_appendix(sections: list[Section]) -> tuple[list[Section], list[Section]]:
    """Sections split into the report's (MAIN_TABLES, the figures) and the appendix's."""
    main, moved = [], []
    for sec in sections:
        out = [t for t in sec.tables if t.key not in MAIN_TABLES]
        if out:
            moved.append(Section(sec.key, sec.title, [], out))
        kept = replace(sec, tables=[t for t in sec.tables if t.key in MAIN_TABLES])
        if sec.key == "convergence":  # no exact convergence for a sampled run: text only
            moved.append(Section(sec.key, sec.title, list(sec.paragraphs)))
            continue
        if kept.tables or kept.figures or sec.key in ("summary", "card"):
            main.append(kept)
    return main, moved


def _drop_empty(sections: list[Section]) -> tuple[list[Section], list[str]]:
    """Sections without their empty tables, and without sections left empty; what was dropped."""
    kept, dropped = [], []
    for section in sections:
        empty = [t for t in section.tables if t.frame.empty]
        dropped += [t.title for t in empty]
        section.tables = [t for t in section.tables if not t.frame.empty]
        if section.tables or section.figures or section.key in ("summary", "card"):
            kept.append(section)
    return kept, dropped
