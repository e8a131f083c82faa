"""Side-by-side comparison of two solved character sets of the same game.

Typically Ambassador vs Inquisitor, or any two Complots 2 sets (docs/rules.md section 7). A
clan whose character differs between the runs gets one shared row label such
as 'Ambassador / Inquisitor'.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from complots_solver.browse import PROB_CI, Browser, signed
from complots_solver.reports import figures
from complots_solver.reports.document import (
    FigureSpec,
    Report,
    Section,
    quoted_headline,
    report_warnings,
)
from complots_solver.reports.tables import (
    StrategyTable,
    bluffs,
    draft_picks,
    exploitability_text,
    solver_phrase,
)
from complots_solver.reports.tables import action_frequencies as af_table
from complots_solver.reports.tables import character_values as cv_table

FIFTH = "Ambassador / Inquisitor"  # the shared label of the Complots 1 Negotiators
HEAT_COLUMNS = ("bluff frequency", "bluffs challenged", "true claims challenged")
VARYING_KEYS = ("lineup", "characters")  # parameters a comparison is about


def _label(b: Browser) -> str:
    """Short name of a run's line-up ('Ambassador', or the five Complots 2 names)."""
    return b.config.lineup_label()


def _clan_labels(a: Browser, b: Browser) -> dict[str, str]:
    """Character name -> row label; clans whose character differs share 'X / Y'."""
    labels: dict[str, str] = {}
    for clan in range(5):
        na, nb = a.config.clan_name(clan), b.config.clan_name(clan)
        shared = na if na == nb else f"{na} / {nb}"
        if {na, nb} == {"Ambassador", "Inquisitor"}:
            shared = FIFTH
        labels[na] = shared
        labels[nb] = shared
    return labels


def _basis(a: Browser, b: Browser) -> tuple[str, str]:
    """(basis, method) of a table built from both runs."""
    if a.exact and b.exact:
        return "exact", f"{a.method}, both runs"
    return "sampled", f"run A {a.method}; run B {b.method}"


def _table(
    a: Browser,
    b: Browser,
    key: str,
    title: str,
    description: str,
    frame: pd.DataFrame,
    note: str = "",
) -> StrategyTable:
    """A comparison table carrying both runs' basis."""
    basis, method = _basis(a, b)
    return StrategyTable(
        key, title, description, frame.reset_index(drop=True), basis, method, [], note
    )


def _character(a: Browser, b: Browser, name: str) -> str:
    """The character's row label: a clan whose character differs gets one shared label."""
    return _clan_labels(a, b).get(name, name)


def seat_values(a: Browser, b: Browser) -> StrategyTable:
    """Each seat's value in both line-ups, the difference and certain bounds on it."""
    la, lb = _label(a), _label(b)
    ba, bb = a.value_bounds(), b.value_bounds()
    ca, cb = _value_ci(a), _value_ci(b)
    sampled = not (a.exact and b.exact)
    rows = []
    for seat in range(2):
        va, vb = a.game_value()[seat], b.game_value()[seat]
        row = {"seat": seat, f"value {la}": va, f"value {lb}": vb, "difference": vb - va}
        if sampled:
            row[f"value {la} ±95%"] = ca[seat]
            row[f"value {lb} ±95%"] = cb[seat]
            row["difference ±95%"] = math.hypot(ca[seat], cb[seat])
        if ba and bb:
            row["difference >="] = bb[seat][0] - ba[seat][1]
            row["difference <="] = bb[seat][1] - ba[seat][0]
        rows.append(row)
    if sampled:
        how = (
            "the '±95%' columns are half-widths of 95% confidence intervals (sampled "
            "self-play games; the two runs are sampled independently, so the difference's "
            "half-width is the root sum of squares)."
        )
    else:
        how = (
            "its bounds hold for the equilibrium values (from the exact best responses of "
            "both runs)."
        )
    return _table(
        a,
        b,
        "seat_values",
        "Seat values",
        f"Expected utility of each seat under each solved profile; 'difference' is "
        f"{lb} minus {la}; " + how,
        pd.DataFrame(rows),
    )


def _value_ci(b: Browser) -> tuple[float, ...]:
    """Half-widths of a run's seat-value 95% intervals (0 for exact values)."""
    ci = b.game_value_ci()
    return tuple(ci) if ci is not None else (0.0,) * b.config.players


def character_values(a: Browser, b: Browser) -> StrategyTable:
    """Value of holding each character, per seat, in both line-ups."""
    la, lb = _label(a), _label(b)
    fa, fb = _cv(a, b, a), _cv(a, b, b)
    merged = fa.merge(fb, on=["character", "seat"], suffixes=(f" {la}", f" {lb}"))
    merged["difference"] = merged[f"value holding it {lb}"] - merged[f"value holding it {la}"]
    ci = "value holding it ±95%"
    if a.exact and b.exact:
        merged = merged.drop(columns=[f"{ci} {la}", f"{ci} {lb}"])
    else:
        merged["difference ±95%"] = np.hypot(merged[f"{ci} {la}"], merged[f"{ci} {lb}"])
    return _table(
        a,
        b,
        "character_values",
        "Value of holding each character",
        "Expected utility of a seat whose starting hand holds the character, in each "
        "line-up (a clan whose character differs is labelled 'A's / B's').",
        merged,
    )


def _cv(a: Browser, b: Browser, run: Browser) -> pd.DataFrame:
    """Character values of one run with the shared labels of differing clans."""
    full = cv_table(run).frame
    frame = full[["character", "seat", "value holding it"]].copy()
    frame["value holding it ±95%"] = full.get("value holding it ±95%", 0.0)  # 0: exact
    frame["character"] = frame["character"].map(lambda n: _character(a, b, n))
    return frame


def action_frequencies(a: Browser, b: Browser) -> StrategyTable:
    """Share of each action among all turns, per seat, in both line-ups."""
    la, lb = _label(a), _label(b)
    parts = []
    for label, br in ((la, a), (lb, b)):
        table = af_table(br)
        long = table.frame.melt(
            id_vars=["seat"], value_vars=table.prob_columns, var_name="action", value_name=label
        )
        if PROB_CI in table.frame.columns:  # sampled: the seat's largest half-width
            half = table.frame.set_index("seat")[PROB_CI]
            long[f"{label} ±95% (max)"] = long["seat"].map(half)
        parts.append(long)
    merged = parts[0].merge(parts[1], on=["seat", "action"], how="outer")
    merged[[la, lb]] = merged[[la, lb]].fillna(0.0)
    merged["difference"] = merged[lb] - merged[la]
    return _table(
        a,
        b,
        "action_frequencies",
        "Action frequencies",
        "Share of each action among all the turns a seat plays (reach-weighted), in each "
        "line-up (each character action is named by its power). For a sampled run, "
        "'±95% (max)' is the largest half-width of a 95% CI among the seat's shares.",
        merged.sort_values(["seat", "action"]),
    )


def bluff_frequencies(a: Browser, b: Browser) -> StrategyTable:
    """Bluff frequency and how often bluffs are challenged, per character, in both line-ups."""
    la, lb = _label(a), _label(b)
    base = ["claims per game", "bluff frequency", "bluffs challenged"]
    frames = []
    for label, br in ((la, a), (lb, b)):
        f = bluffs(br).frame
        cols = [*base, *(f"{c} ±95%" for c in base if f"{c} ±95%" in f.columns)]
        if f.empty:
            f = pd.DataFrame(columns=["character", *cols])
        f = f[["character", *cols]].copy()
        f["character"] = f["character"].map(lambda n: _character(a, b, n))
        frames.append(f.rename(columns={c: f"{c} {label}" for c in cols}))
    merged = frames[0].merge(frames[1], on="character", how="outer")
    return _table(
        a,
        b,
        "bluff_frequencies",
        "Bluffs per character",
        "Claims per game, the share that are bluffs, and the probability that a bluff is "
        "challenged, in each line-up (with 95% CI half-widths for a sampled run).",
        merged,
    )


def draft_tables(a: Browser, b: Browser) -> StrategyTable:
    """The draft pick table of both line-ups, stacked."""
    frames, notes = [], []
    for br in (a, b):
        t = draft_picks(br)
        if t.frame.empty:
            notes.append(f"{_label(br)}: {t.note}")
            continue
        f = t.frame.copy()
        f.insert(0, "line-up", _label(br))
        f = f.rename(columns={c: _pick_label(a, b, c) for c in t.prob_columns})
        frames.append(f)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return _table(
        a,
        b,
        "draft",
        "Draft: card picked for each random card",
        "Probability of each pick given the random card, per line-up (a clan whose "
        "character differs is shown as 'Pick A's / B's').",
        frame,
        " ".join(notes),
    )


def _pick_label(a: Browser, b: Browser, column: str) -> str:
    """'Pick X' with a differing clan's character given the shared label."""
    if column.startswith("Pick "):
        return "Pick " + _character(a, b, column[len("Pick ") :])
    return column


def _run_line(tag: str, b: Browser) -> str:
    """One run in words: preset, solver, iterations, exploitability, basis."""
    r = b.describe_run()
    return (
        f"Run {tag} ({_label(b)}): {r['preset'] or r['game']}, {solver_phrase(r)}, "
        f"exploitability {exploitability_text(b)} "
        f"({r['run_dir']}; {r['method']})."
    )


def _sampled_summary(a: Browser, b: Browser) -> list[str]:
    """Summary paragraphs when at least one run is sampled: differences with 95% CIs."""
    la, lb = _label(a), _label(b)
    va, vb = a.game_value()[0], b.game_value()[0]
    ca, cb = _value_ci(a)[0], _value_ci(b)[0]
    lines = [_run_line("A", a) + " " + _run_line("B", b)]
    same = {k: v for k, v in a.config.params().items() if k != "lineup"} == {
        k: v for k, v in b.config.params().items() if k != "lineup"
    }
    if not same:
        lines.append(
            "Warning: the two runs differ in more than the line-up; the comparison mixes "
            "two different games."
        )

    def who(v: float, c: float, label: str) -> str:
        text = f"With the {label}, seat 0 expects {signed(v)} ± {c:.4f} (95% CI)"
        if abs(v) > c:
            return text + f": the strategy favours seat {0 if v > 0 else 1}."
        return text + ": not significantly different from an even game."

    qa, qb = quoted_headline(a), quoted_headline(b)
    if qa is not None and qb is not None and {qa[0], qb[0]} == {"Ambassador", "Inquisitor"}:
        head = qa[1]
        lines.append(
            head.edge_sentence("Ambassador")
            + " "
            + head.edge_sentence("Inquisitor")
            + " "
            + head.verdict_sentence()
            + " Every report of this project states these answers from that one computation "
            "(the most games, with the correction for the number of tests); the tables below "
            "compare how the two strategies play, from this report's own games."
        )
        return lines
    lines.append(who(va, ca, la) + " " + who(vb, cb, lb))
    diff = vb - va
    half = math.hypot(ca, cb)
    if abs(diff) > half:
        verdict = (
            f"The difference is significant at the 95% level: seat 0 does better with the "
            f"{lb if diff > 0 else la}."
        )
    else:
        verdict = (
            "The difference is not significant at the 95% level: these samples cannot tell "
            "which line-up favours seat 0 more."
        )
    lines.append(
        f"Switching from the {la} to the {lb} changes seat 0's value by {signed(diff)} ± "
        f"{half:.4f} (95% CI: {signed(diff - half)} to {signed(diff + half)}). {verdict} These "
        "are the values of the two solved strategy profiles as sampled, not of the game's "
        "equilibrium: the strategies' exploitability (above) limits how far they speak "
        "for optimal play."
    )
    return lines


def summary(a: Browser, b: Browser) -> list[str]:
    """Plain-language paragraphs: which line-up favours whom, by how much, how sure."""
    if not (a.exact and b.exact):
        return _sampled_summary(a, b)
    la, lb = _label(a), _label(b)
    va, vb = a.game_value()[0], b.game_value()[0]
    ba, bb = a.value_bounds(), b.value_bounds()
    ra, rb = a.describe_run(), b.describe_run()
    lines = [
        f"Run A ({la}): {ra['preset'] or ra['game']}, {ra['algorithm']} after "
        f"{ra['iterations']} iterations, exploitability {ra['exploitability']:.3g} "
        f"({ra['run_dir']}). Run B ({lb}): {rb['preset'] or rb['game']}, "
        f"{rb['algorithm']} after {rb['iterations']} iterations, exploitability "
        f"{rb['exploitability']:.3g} ({rb['run_dir']}).",
    ]
    same = {k: v for k, v in a.config.params().items() if k not in VARYING_KEYS} == {
        k: v for k, v in b.config.params().items() if k not in VARYING_KEYS
    }
    if not same:
        lines.append(
            "Warning: the two runs differ in more than the line-up; the comparison mixes "
            "two different games."
        )

    def who(v: float, bounds: tuple[tuple[float, float], ...] | None) -> str:
        lo, hi = bounds[0] if bounds else (v, v)
        if lo <= 0.0 <= hi:
            return "is balanced between the seats (seat 0's equilibrium value is within the bound of 0)"
        return f"favours seat {0 if v > 0 else 1} by {abs(v):.4f}"

    lines.append(
        f"With the {la}, the game {who(va, ba)}: seat 0 expects {signed(va)}. With the {lb}, "
        f"it {who(vb, bb)}: seat 0 expects {signed(vb)}."
    )
    if ba and bb:
        lo = bb[0][0] - ba[0][1]
        hi = bb[0][1] - ba[0][0]
        diff = vb - va
        if lo > 0:
            verdict = f"The {lb} line-up is certainly better for seat 0 than the {la}"
        elif hi < 0:
            verdict = f"The {lb} line-up is certainly better for seat 1 than the {la}"
        else:
            verdict = "Which line-up favours seat 0 more cannot be told at this precision"
        lines.append(
            f"{verdict}: switching from the {la} to the {lb} changes seat 0's value by "
            f"{signed(diff)}, and the change in equilibrium value is certainly between "
            f"{signed(lo, 5)} and {signed(hi, 5)}. This uncertainty comes only from the two strategies' "
            "exploitability (exact best responses); no number in this report is sampled."
        )
    return lines


def build_comparison(a: Browser, b: Browser) -> Report:
    """The comparison report of two runs (two line-ups or character sets of one game)."""
    if a.config.players != 2 or b.config.players != 2:
        # its seat values, character values and verdicts are written for two seats
        raise ValueError(
            "the comparison reads 2-player strategies only; report each table strategy "
            "with complots report, and compare line-ups at 3 or more players with complots balance"
        )
    la, lb = _label(a), _label(b)
    sv = seat_values(a, b)
    cv = character_values(a, b)
    af = action_frequencies(a, b)
    bl = bluff_frequencies(a, b)
    dr = draft_tables(a, b)
    ra = a.describe_run()
    name = ra["preset"] or ra["game"]
    sections = [
        Section("summary", "Summary", summary(a, b), [sv]),
        Section("characters", "Character values", [], [cv]),
        Section("actions", "Action frequencies", [], [af]),
        Section("bluffs", "Bluffs", [], [bl]),
        Section("draft", "Draft", [], [dr]),
    ]
    long = cv.frame.melt(
        id_vars=["character", "seat"],
        value_vars=[f"value holding it {la}", f"value holding it {lb}"],
        var_name="line-up",
        value_name="value",
    )
    long["line-up"] = long["line-up"].str.replace("value holding it ", "")
    sampled = not (a.exact and b.exact)
    if sampled:  # each bar's own 95% half-width, from its run's sampled games
        half = cv.frame.melt(
            id_vars=["character", "seat"],
            value_vars=[f"value holding it ±95% {la}", f"value holding it ±95% {lb}"],
            var_name="line-up",
            value_name="half",
        )
        long["half"] = half["half"].fillna(0.0).to_numpy()
        long["lo"] = long["value"] - long["half"]
        long["hi"] = long["value"] + long["half"]
    for seat in range(2):
        sub = long[long["seat"] == seat]
        sections[1].figures.append(
            FigureSpec(
                f"character_values_seat{seat}",
                f"Value of holding each character, seat {seat}",
                "Sampled values, with their 95% confidence intervals as error bars."
                if sampled
                else "Exact values (no sampling error, so no error bars).",
                lambda s=sub, k=seat, ci=("lo", "hi") if sampled else None: (
                    figures.value_bars_figure(
                        s,
                        "character",
                        "value",
                        f"Seat {k}: value when holding",
                        group="line-up",
                        ci=ci,
                    )
                ),
            )
        )
    panels = []
    for label, br in ((la, a), (lb, b)):
        f = bluffs(br).frame
        if not f.empty:
            f = f.assign(character=f["character"].map(lambda n: _character(a, b, n)))
            panels.append((label, f.set_index("character")[list(HEAT_COLUMNS)]))
    if panels:
        sections[3].figures.append(
            FigureSpec(
                "bluff_heatmaps",
                "Bluff and challenge rates per character, side by side",
                "Per character: the share of its claims that are bluffs, and how often a "
                "bluffed and a true claim of it are challenged, in each line-up.",
                lambda p=panels: figures.heatmap_figure(p, "Bluffs and challenges", "rate"),
            )
        )
    rb = b.describe_run()
    facts = [
        ("Game", f"Complots: {la} vs {lb} line-ups ({name})"),
        ("Run A", f"{ra['run_dir']}: {ra['game']}"),
        ("Run B", f"{rb['run_dir']}: {rb['game']}"),
        (
            "Solvers",
            f"A: {solver_phrase(ra)}; B: {solver_phrase(rb)}",
        ),
        (
            "Exploitability",
            f"A: {exploitability_text(a)}; B: {exploitability_text(b)}",
        ),
        ("Basis", ": ".join(_basis(a, b))),
    ]
    warnings = [f"{la}: {w}" for w in report_warnings(a)] + [
        f"{lb}: {w}" for w in report_warnings(b)
    ]
    return Report(f"Complots: {la} vs {lb}", facts, sections, warnings=warnings)
