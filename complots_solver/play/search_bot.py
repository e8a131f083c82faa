"""Bots of the belief solver: ``net:DIR``, ``search:DIR`` and ``solved``.

``net:DIR`` plays ``DIR/policy-net.npz``, the policy network distilled from
solved subgames, with the exact public belief under its own strategy
(``solvers/belief/netplay.py``): one network evaluation per decision.
``search:DIR`` loads ``DIR/value-net.npz`` and plays every decision by
solving the current turn's subgame from the exact public belief
(``solvers/belief/agent.py``): stronger in principle, much slower. An
optional ``DIR/search.json`` sets how: ``iterations``, ``prune``,
``leaf_average``, ``safe`` (re-solve each turn safely, once per player) and
``average_promise`` (with ``safe``: promise the opponent the earlier solve's
leaf values averaged over its iterations) and ``cfr`` (the regret rule:
``cfr+``, ``pcfr+`` or ``dcfr``).
``solved`` plays the policy network shipped for the game under
``games/strategies/<preset>/``. Every folder is opened by
:func:`~complots_solver.solvers.policies.open.open_strategy`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.agent import SearchAgent
from complots_solver.solvers.belief.play_policies import NetPolicy, SearchPolicy
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.common.folders import (
    POLICY_FILE,
    second_opinion_dir,
    shipped_dir,
    shipped_presets,
    strategies_dir,
)
from complots_solver.solvers.nets.valuenet import ValueNet
from complots_solver.solvers.policies.open import open_strategy


def load_search_bot(
    directory: str | Path, config: GameConfig, rng: np.random.Generator, name: str
) -> SearchBot:
    """A :class:`SearchBot` from a folder holding ``value-net.npz``; ValueError if unusable."""
    policy = open_strategy(f"search:{directory}", config)
    assert isinstance(policy, SearchPolicy)
    return SearchBot(config, rng, name, policy)


class SearchBot(Bot):
    """Plays each decision from the solved subgame of the current turn (exact beliefs)."""

    def __init__(
        self, config: GameConfig, rng: np.random.Generator, name: str, policy: SearchPolicy
    ) -> None:
        """A search bot playing ``policy``."""
        super().__init__(config, rng, name)
        self.policy = policy

    @property
    def net(self) -> ValueNet:
        """The value network the search reads."""
        return self.policy.net

    @property
    def settings(self) -> SearchSettings:
        """How each subgame is solved."""
        return self.policy.settings

    @property
    def agents(self) -> dict[int, SearchAgent]:
        """The search agent of each seat played in this game."""
        return self.policy.agents

    def restart(self) -> None:
        """Forget the previous game."""
        self.policy.restart()

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The subgame solution's probabilities for the seat to move."""
        return self.policy.action_probabilities(state)


def load_net_bot(
    directory: str | Path, config: GameConfig, rng: np.random.Generator, name: str
) -> Bot:
    """The bot of the policy network in ``directory/policy-net.npz``; ValueError if unusable.

    A table network (league self-play; every network at 3 or more players)
    plays as :mod:`complots_solver.play.table_bot`; a 2-player network of the
    belief solver as :class:`NetBot`.
    """
    from complots_solver.play.table_bot import TableBot
    from complots_solver.solvers.selfplay.policy import TablePolicy

    policy = open_strategy(f"net:{directory}", config)
    if isinstance(policy, TablePolicy):
        return TableBot(config, rng, name, policy)
    assert isinstance(policy, NetPolicy)  # net: opens networks only
    return NetBot(config, rng, name, policy)


class NetBot(Bot):
    """Plays the distilled policy network with exact beliefs under its own strategy."""

    def __init__(
        self, config: GameConfig, rng: np.random.Generator, name: str, policy: NetPolicy
    ) -> None:
        """A bot playing ``policy``."""
        super().__init__(config, rng, name)
        self.policy = policy

    def restart(self) -> None:
        """Forget the previous game."""
        self.policy.restart()

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The network's probabilities for the seat to move."""
        return self.policy.action_probabilities(state)


# the shipped strategies' folders, for the reports (which may not import the solvers)
__all__ = [
    "POLICY_FILE",
    "NetBot",
    "SearchBot",
    "load_net_bot",
    "load_search_bot",
    "second_opinion_dir",
    "shipped_dir",
    "shipped_presets",
    "strategies_dir",
]
