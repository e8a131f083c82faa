"""The balance report's measures in detail: the first player's edge, characters, play, method.

One function per section of the report after its answer
(:mod:`complots_solver.reports.balance_verdict`), with the two figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from complots_solver.reports import figures
from complots_solver.reports.balance_common import (
    COVERED,
    EXTREME_BLUFF,
    FIFTH_SHORT,
    PAIRS,
    BalanceInputs,
    balance_table,
    lineup_name,
)
from complots_solver.reports.balance_stats import MIN_EVENTS, Estimate, LineupData
from complots_solver.reports.document import FigureSpec, Section


def edge_section(data: dict[str, LineupData], method: str) -> Section:
    """The first player's edge: seat 0's win share at each line-up, with its figure."""
    edge_sec = Section("edge", "The first player's edge")
    rows = []
    for d in data.values():
        rows.append(
            {
                "line-up": lineup_name(d),
                "players": d.players,
                "games": d.games,
                "seat 0 wins": d.seat_win(0).pct(),
                "fair share": f"{100 / d.players:.0f}%",
                "draws": d.draws().pct(),
                "first player's edge": d.first_player_edge().points(),
            }
        )
    edge_sec.tables.append(
        balance_table(
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
    return edge_sec


def characters_section(data: dict[str, LineupData], method: str) -> Section:
    """Which character is best to start with: the strongest and weakest of each line-up."""
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
                "line-up": lineup_name(d),
                "strongest": f"{best['character']} {best['estimate'].pct()}",
                "weakest": f"{worst['character']} {worst['estimate'].pct()}",
                "fair share": f"{100 / d.players:.0f}%",
            }
        )
    chars_sec.tables.append(
        balance_table(
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
    return chars_sec


def play_section(data: dict[str, LineupData], method: str) -> Section:
    """How the strategies play: the draft's favourite picks, bluffs and challenges."""
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
        rows.append({"line-up": lineup_name(d), "most picked in the draft": order})
    if rows:
        play_sec.tables.append(
            balance_table(
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
                "line-up": lineup_name(d),
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
        balance_table(
            "bluffs",
            "Bluffs and challenges",
            f"Shares with 95% intervals over games; characters with fewer than {MIN_EVENTS} "
            "claims or decisions are left out. Every character is in the appendix.",
            pd.DataFrame(rows),
            method,
        )
    )
    return play_sec


def method_section(inputs: BalanceInputs) -> Section:
    """How these numbers were made: the command, the games, the intervals and the appendix."""
    data = inputs.data
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
        "Games: " + ", ".join(f"{p} ({lineup_name(d)})" for p, d in data.items()) + ".",
    ]
    if inputs.second:
        method_sec.paragraphs.append(
            "Second opinion games: "
            + ", ".join(
                f"{p} by the bot net:games/strategies/second/{p} ({d.games:,} games)"
                for p, d in inputs.second.items()
            )
            + ", the same seed and the same randomness per game as the shipped strategy's."
        )
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
    return method_sec


def _unavailable(have: Sequence[str]) -> list[str]:
    """Covered games without a shipped strategy."""
    return [p for p in COVERED if p not in have]


def _extremes(d: LineupData) -> list[str]:
    """Sentences on extreme behaviour: a claim bluffed over 90% or under 2%, a claim never made."""
    out = []
    name = lineup_name(d)
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
