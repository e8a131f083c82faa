"""The balance report's answers, computed once and quoted by every other report.

The first player's edge of each shipped strategy and the Ambassador-or-Inquisitor
verdict at each player count are measured by ``complots balance`` on its games of
the shipped strategies (the most games, Holm's correction over all its tests). It
writes them to ``<report>-tables/answer.csv`` and ``first_player_edge.csv``; the
strategy and comparison reports of the shipped strategies (the 2-player drafts, the
3- and 4-player tables) read those files instead of answering from their own smaller
samples, so every report states the same numbers and the same verdict.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from complots_solver.play.search_bot import strategies_dir
from complots_solver.rules.presets import load_presets

BALANCE_TABLES = Path(__file__).resolve().parents[2] / "reports" / "balance-tables"
PAIR = {"draft-ambassador": "Ambassador", "draft-inquisitor": "Inquisitor"}
_INTERVAL = re.compile(r"\[([-+]?\d+\.?\d*), ([-+]?\d+\.?\d*)\]")


@dataclass(frozen=True)
class Headline:
    """The balance report's answers at one player count, as it shows them."""

    edges: dict[str, str]  # 'Ambassador' -> '+1.2 points [-0.3, +2.7]'
    games: dict[str, int]  # games per line-up behind each edge
    verdict: str  # 'Ambassador', 'Inquisitor', 'cannot tell' or 'mixed ...'
    measure: str
    difference: str
    sure: str
    source: str  # the folder read
    players: int = 2

    def edge_sentence(self, lineup: str) -> str:
        """'The first player's edge with the Ambassador line-up is ... (balance report, ...).'"""
        edge = self.edges[lineup]
        m = _INTERVAL.search(edge)
        sig = ""
        if m:
            low, high = float(m.group(1)), float(m.group(2))
            ahead, behind = (
                ("seat 0 has the edge", "seat 1 has the edge")
                if self.players == 2
                else (
                    "the first player wins more than the fair share",
                    "the first player wins less than the fair share",
                )
            )
            sig = (
                f"; significant, {ahead}"
                if low > 0
                else f"; significant, {behind}"
                if high < 0
                else "; not significant"
            )
        return (
            f"The first player's edge with the {lineup} line-up is {edge} (the balance "
            f"report's {self.games[lineup]:,} self-play games{sig})."
        )

    def verdict_sentence(self) -> str:
        """The line-up verdict at 2 players as the balance report states it ('' without one)."""
        if not self.verdict:
            return ""
        return (
            f"Ambassador or Inquisitor at {self.players} players, from the balance report: "
            "better balanced: "
            f"{self.verdict} ({self.measure} difference, Ambassador minus Inquisitor, "
            f"{self.difference}; {self.sure})."
        )


def _csv(path: Path) -> pd.DataFrame:
    """A table written by StrategyTable.to_csv (leading '#' lines skipped)."""
    text = "".join(line for line in path.open(encoding="utf-8") if not line.startswith("#"))
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


def read_headline(folder: Path | None = None, players: int = 2) -> Headline | None:
    """The answers at ``players`` from a balance report's CSV folder (default: the committed one)."""
    folder = BALANCE_TABLES if folder is None else folder
    try:
        answer = _csv(folder / "answer.csv")
        edges = _csv(folder / "first_player_edge.csv")
    except (OSError, ValueError):
        return None
    row = answer[answer["players"] == str(players)]
    two = edges[edges["players"] == str(players)].set_index("line-up")
    if two.empty:
        return None
    r = row.iloc[0] if not row.empty else None
    compared = r is not None and r["better balanced"] != "not compared"
    return Headline(
        edges={k: two.loc[k, "first player's edge"] for k in two.index},
        games={k: int(two.loc[k, "games"]) for k in two.index},
        verdict=r["better balanced"] if compared else "",
        measure=r["deciding measure"] if compared else "",
        difference=r["difference (Ambassador - Inquisitor)"] if compared else "",
        sure=r["how sure"] if compared else "",
        source=str(folder),
        players=players,
    )


def shipped_lineup(preset: str | None, run_dir: str | Path) -> str | None:
    """The line-up's name in the balance report when the run is a shipped strategy ('Ambassador'
    at 2 players, '3-player Ambassador' at a table of 3 or more)."""
    presets = load_presets()
    if not preset or preset not in presets:
        return None
    config = presets[preset].config()
    label = config.lineup_label()
    if config.players != 2:
        label = f"{config.players}-player {label}"  # as the balance report names it
    try:
        same = Path(run_dir).resolve() == (strategies_dir() / preset).resolve()
    except OSError:
        return None
    return label if same else None
