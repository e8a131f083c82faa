"""What every part of the balance report shares: its games, thresholds, inputs and table maker.

The report is built by :mod:`complots_solver.reports.balance` from its parts:
the answer and how sure it is (:mod:`~complots_solver.reports.balance_verdict`),
the measures behind it (:mod:`~complots_solver.reports.balance_detail`) and the
appendix of every table (:mod:`~complots_solver.reports.balance_appendix`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

from complots_solver.browse.net_sampled import responder_name
from complots_solver.reports.balance_stats import LineupData, Metric
from complots_solver.reports.tables import SAMPLED, StrategyTable

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


def lineup_name(d: LineupData) -> str:
    """'Ambassador' or the five Complots 2 names; '3-player Ambassador' at a table of 3+."""
    label = d.config.lineup_label()
    # the 2- and 3-player Ambassador games share a line-up: the player count tells them apart
    return label if d.players == 2 else f"{d.players}-player {label}"


def balance_table(
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
    # the second opinion: the same games played by each pair's second strategies
    second: dict[str, LineupData] = field(default_factory=dict)
    second_qualities: dict[str, Quality] = field(default_factory=dict)


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


def count_tests(comps: Iterable[Comparison]) -> int:
    """How many counted measures (tests) the comparisons make."""
    return sum(m.criterion for c in comps for m in c.metrics or [])
