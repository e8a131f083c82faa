"""The balance report's appendix: every table of the balance data, one function per section.

Rows resting on fewer than ``MIN_EVENTS`` events are left out of the HTML
appendix; the CSV files beside the report keep every row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from complots_solver.reports.balance_common import (
    COVERED,
    Quality,
    balance_table,
    lineup_name,
)
from complots_solver.reports.balance_stats import MIN_EVENTS, Estimate, LineupData
from complots_solver.reports.document import Section
from complots_solver.reports.tables import StrategyTable
from complots_solver.rules.presets import load_presets


def appendix_sections(
    data: dict[str, LineupData],
    quality: dict[str, Quality],
    method: str,
    full: list[StrategyTable],
) -> list[Section]:
    """Every table of the balance data; rows with few events only in ``full`` (the CSV files)."""
    sections = (
        _seats_section(data, method),
        _characters_section(data, method, full),
        _hands_section(data, method, full),
        _draft_section(data, method, full),
        _play_section(data, method, full),
        _coverage_section(data, quality),
    )
    return [s for s in sections if s.tables]


def _seats_section(data: dict[str, LineupData], method: str) -> Section:
    """Every seat's win share, and the draws, of each line-up."""
    seats = Section("seats", "Every seat's win share")
    rows = []
    for d in data.values():
        for seat, e in enumerate(d.seat_wins()):
            rows.append(
                {
                    "line-up": lineup_name(d),
                    "seat": str(seat),
                    "win share": e.pct(),
                    "minus the fair share": d.seat_over_fair(seat).points(),
                }
            )
        rows.append(
            {"line-up": lineup_name(d), "seat": "draws", "win share": d.draws().pct(),
             "minus the fair share": ""}
        )  # fmt: skip
    seats.tables.append(
        balance_table(
            "seat_win_rates", "Seat win shares", "Wilson 95% intervals.", pd.DataFrame(rows), method
        )
    )
    return seats


def _characters_section(
    data: dict[str, LineupData], method: str, full: list[StrategyTable]
) -> Section:
    """Every character's value: the win share of the seats holding it."""
    chars = Section("characters", "Every character's value")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.character_table().iterrows():
            rows.append(
                {
                    "line-up": lineup_name(d),
                    "character": r["character"],
                    "win share holding it": _cell(r["estimate"]),
                    "seats holding it": r["holders"],
                }
            )
            counts.append(r["holders"])
    chars.tables.append(
        _drop_rare(
            balance_table(
                "character_values",
                "Win share when holding each character",
                "95% intervals over games.",
                pd.DataFrame(rows),
                method,
            ),
            counts,
            "seats",
            full,
        )
    )
    return chars


def _hands_section(data: dict[str, LineupData], method: str, full: list[StrategyTable]) -> Section:
    """Every starting hand's value, best first."""
    hands = Section("hands", "Every starting hand's value")
    rows, counts = [], []
    for d in data.values():
        h = d.hand_table()
        order = np.argsort([-e.value for e in h["estimate"]], kind="stable")
        for _, r in h.iloc[order].iterrows():
            rows.append(
                {"line-up": lineup_name(d), "starting hand": r["hand"],
                 "win share": _cell(r["estimate"]), "seats": r["seats"]}
            )  # fmt: skip
            counts.append(r["seats"])
    hands.tables.append(
        _drop_rare(
            balance_table(
                "hand_values",
                "Win share of each starting hand",
                "Best first; 95% intervals.",
                pd.DataFrame(rows),
                method,
            ),
            counts,
            "seats",
            full,
        )
    )
    return hands


def _draft_section(data: dict[str, LineupData], method: str, full: list[StrategyTable]) -> Section:
    """The draft: the most picked card beside each random card (2-player draft games only)."""
    draft = Section("draft", "Draft picks")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.pick_given_random().iterrows():
            rows.append(
                {"line-up": lineup_name(d), "random card": r["random card"],
                 "most picked": r["most picked"], "share of those picks": _cell(r["estimate"]),
                 "picks": r["picks"]}
            )  # fmt: skip
            counts.append(r["picks"])
    if rows:
        draft.tables.append(
            _drop_rare(
                balance_table(
                    "draft_pick_given_card",
                    "Most picked card for each random card",
                    "Wilson 95% intervals.",
                    pd.DataFrame(rows),
                    method,
                ),
                counts,
                "picks",
                full,
            )
        )
    return draft


def _play_section(data: dict[str, LineupData], method: str, full: list[StrategyTable]) -> Section:
    """Bluffs and challenges per character, and the first-turn plays."""
    play = Section("play", "Bluffs, challenges and first turns")
    rows, counts = [], []
    for d in data.values():
        for _, r in d.play_table().iterrows():
            rows.append(
                {
                    "line-up": lineup_name(d),
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
            balance_table(
                "bluffs_and_challenges",
                "Bluffs and challenges per character",
                "95% intervals over games.",
                pd.DataFrame(rows),
                method,
            ),
            counts,
            "claims",
            full,
        )
    )
    rows, counts = [], []
    for d in data.values():
        for _, r in d.first_moves().iterrows():
            rows.append(
                {"line-up": lineup_name(d), "seat": r["seat"], "first action": r["first action"],
                 "share of first turns": _cell(r["estimate"]),
                 "bluffed": _cell(r["bluffed"]) if r["turns"] else "", "turns": r["turns"]}
            )  # fmt: skip
            counts.append(r["turns"])
    play.tables.append(
        _drop_rare(
            balance_table(
                "first_turns",
                "First-turn plays",
                "Wilson 95% intervals.",
                pd.DataFrame(rows),
                method,
            ),
            counts,
            "turns",
            full,
        )
    )
    return play


def _coverage_section(data: dict[str, LineupData], quality: dict[str, Quality]) -> Section:
    """The games covered, each strategy's quality record and the Complots 2 line-ups."""
    cover = Section("coverage", "Games covered and Complots 2 line-ups")
    cover.paragraphs += [
        f"{p}: strategy quality from its meta.json: {quality[p].detail}" for p in data
    ]
    cover.tables.append(
        balance_table(
            "coverage",
            "Games covered by this report",
            "Each covered game and its status.",
            _coverage_frame(data, quality),
            "presets and shipped strategies",
        )
    )
    cover.tables.append(
        balance_table(
            "complots2_lineups",
            "Complots 2 line-ups",
            "Each named line-up, its characters, its presets and whether a strategy ships.",
            _complots2_frame(data),
            "presets and shipped strategies",
        )
    )
    return cover


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


def _cell(e: Estimate) -> str:
    """A share with its interval, and its count when small."""
    if e.n == 0:
        return "no data"
    text = e.pct()
    return text if e.n >= MIN_EVENTS else f"{text} (n={e.n})"


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
    return balance_table(table.key, table.title, table.description, frame, table.method, note=note)
