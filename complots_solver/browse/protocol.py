"""The interface every strategy browser offers to the reports and the CLI.

Two browsers implement it: :class:`~complots_solver.browse.browser.StrategyBrowser`
(exact, on the compiled tree) and
:class:`~complots_solver.browse.sampled.SampledBrowser` (estimates with 95%
intervals from self-play games of a keyed strategy). Neither inherits from
the other; what they share lives in :mod:`complots_solver.browse.frames`.
Reports take a :class:`Browser` and call only these members.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from complots_solver.browse.frames import Filter, Situation
from complots_solver.rules.config import GameConfig


@runtime_checkable
class Browser(Protocol):
    """A read-only view of a solved strategy: situations, actions, aggregates, whole-game figures.

    ``exact`` says whether the figures are exact (True) or sampled estimates;
    ``method`` says how they were obtained, for captions. ``situations`` has
    one row per situation (the decoded fields, ``reach`` and ``value``),
    ``actions`` one row per action slot (``probability``, ``slot_reach``,
    ``challenged_reach``, ``action_value``, ``claimed_character``, ``bluff``).
    """

    run_dir: Path
    meta: dict[str, Any]
    config: GameConfig
    preset: str | None
    exact: bool
    method: str
    situations: pd.DataFrame
    actions: pd.DataFrame

    def situation(self, infoset: int) -> Situation:
        """The decoded :class:`Situation` of one situation."""
        ...

    def distribution(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> probability under the strategy."""
        ...

    def action_values(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> expected utility of the player to move after taking it."""
        ...

    def reach(self, infoset: int | Situation) -> float:
        """How often the situation arises under the strategy (per game)."""
        ...

    def value(self, infoset: int | Situation) -> float:
        """Expected utility of the player to move, given the situation."""
        ...

    def mask(self, **filters: Filter) -> np.ndarray:
        """Boolean mask over situations matching every filter."""
        ...

    def find(self, **filters: Filter) -> pd.DataFrame:
        """Rows of ``situations`` matching the filters."""
        ...

    def situations_where(self, **filters: Filter) -> Iterator[Situation]:
        """Every :class:`Situation` matching the filters."""
        ...

    def query(self, **filters: Filter) -> pd.DataFrame:
        """Matching situations with their action distributions, one row per action."""
        ...

    def aggregate(
        self,
        by: list[str],
        column: str = "move",
        where: Callable[[pd.DataFrame], pd.Series] | None = None,
        **filters: Filter,
    ) -> pd.DataFrame:
        """Reach-weighted action distribution per group of matching situations."""
        ...

    def slot_ratio(
        self,
        slots: pd.DataFrame,
        by: list[str],
        num: str,
        num_mask: np.ndarray | None = None,
        den: str | None = None,
        den_mask: np.ndarray | None = None,
    ) -> pd.DataFrame | None:
        """A slot quantity per group with its 95% interval; None if the figures are exact."""
        ...

    def game_value(self) -> tuple[float, ...]:
        """Expected utility of each seat under the strategy."""
        ...

    def game_value_ci(self) -> tuple[float, ...] | None:
        """Half-widths of 95% intervals of the seat values; None when exact."""
        ...

    def value_bounds(self) -> tuple[tuple[float, float], ...] | None:
        """Per seat, the interval certain to hold the equilibrium value, if known."""
        ...

    def exploitability(self) -> float | None:
        """The exact exploitability recorded in the run, if any."""
        ...

    def exploitability_bound(self) -> dict[str, Any] | None:
        """The strongest sampled lower bound on exploitability recorded in the run, if any."""
        ...

    def turn_cap_share(self) -> float:
        """Share of games reaching the turn cap (a draw)."""
        ...

    def turn_cap_ci(self) -> float | None:
        """Half-width of a 95% interval of the turn-cap share; None when exact."""
        ...

    def starting_hands(self) -> pd.DataFrame:
        """Starting hands of every seat (``hand0``, ...), their probability and seat 0's value
        (``value0``; sampled browsers also give ``value1``, ... for every seat)."""
        ...

    def convergence(self) -> pd.DataFrame | None:
        """The run's convergence log, if any."""
        ...

    def describe_run(self) -> dict[str, Any]:
        """Run facts for report headers."""
        ...
