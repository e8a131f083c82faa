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
``games/strategies/<preset>/``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.agent import SearchAgent
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.belief.valuenet import ValueNet
from complots_solver.solvers.common.folders import (
    POLICY_FILE,
    SEARCH_SETTINGS_FILE,
    VALUE_FILE,
    shipped_dir,
    shipped_presets,
    strategies_dir,
)


@cache
def _load(directory: str) -> tuple[ValueNet, SearchSettings]:
    path = Path(directory)
    net = ValueNet.load(path / VALUE_FILE)
    settings = SearchSettings()
    sfile = path / SEARCH_SETTINGS_FILE
    if sfile.is_file():
        try:
            raw = json.loads(sfile.read_text())
            settings = SearchSettings(
                iterations=int(raw.get("iterations", settings.iterations)),
                prune=float(raw.get("prune", settings.prune)),
                leaf_average=bool(raw.get("leaf_average", settings.leaf_average)),
                safe=bool(raw.get("safe", settings.safe)),
                average_promise=bool(raw.get("average_promise", settings.average_promise)),
                cfr=str(raw.get("cfr", settings.cfr)),
            )
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{sfile}: unreadable search settings ({exc})") from None
    settings.validate()
    return net, settings


def load_search_bot(
    directory: str | Path, config: GameConfig, rng: np.random.Generator, name: str
) -> SearchBot:
    """A :class:`SearchBot` from a folder holding ``value-net.npz``; ValueError if unusable."""
    path = Path(directory)
    if not (path / VALUE_FILE).is_file():
        raise ValueError(f"{path}: no {VALUE_FILE} (train one with the belief solver)")
    net, settings = _load(str(path.resolve()))
    game = net.meta.get("game")
    if game is not None and game != config.game_string():
        raise ValueError(f"{path}: a value network for {game}, not {config.game_string()}")
    return SearchBot(config, rng, name, net, settings)


class SearchBot(Bot):
    """Plays each decision from the solved subgame of the current turn (exact beliefs)."""

    def __init__(
        self,
        config: GameConfig,
        rng: np.random.Generator,
        name: str,
        net: ValueNet,
        settings: SearchSettings,
    ) -> None:
        """A search bot with value network ``net``."""
        super().__init__(config, rng, name)
        if config.players != 2:
            raise ValueError("players: search bots play 2-player games")
        self.net = net
        self.settings = settings
        self.agents: dict[int, SearchAgent] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.agents = {}

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The subgame solution's probabilities for the seat to move."""
        seat = state.current_player()
        agent = self.agents.get(seat)
        history = state.history()
        if agent is None or len(history) < agent.seen:
            agent = SearchAgent(self.config.to_array(), seat, self.net, self.settings)
            self.agents[seat] = agent
        return agent.action_probabilities(history)


@cache
def _load_policy(path: str) -> PolicyNet:
    return PolicyNet.load(Path(path))


def load_net_bot(
    directory: str | Path, config: GameConfig, rng: np.random.Generator, name: str
) -> Bot:
    """The bot of the policy network in ``directory/policy-net.npz``; ValueError if unusable.

    A table network (league self-play; every network at 3 or more players)
    plays as :mod:`complots_solver.play.table_bot`; a 2-player network of the
    belief solver as :class:`NetBot`.
    """
    path = Path(directory) / POLICY_FILE
    if not path.is_file():
        raise ValueError(f"{directory}: no {POLICY_FILE} (train one with complots solve)")
    from complots_solver.solvers.selfplay.net import is_table_net

    if config.players >= 3 or is_table_net(path):
        from complots_solver.play.table_bot import load_table_bot

        return load_table_bot(path, config, rng, name)
    policy = _load_policy(str(path.resolve()))
    game = policy.net.meta.get("game")
    if game is not None and game != config.game_string():
        raise ValueError(f"{path}: a policy network for {game}, not {config.game_string()}")
    if policy.net.sizes[-1] != config.num_distinct_actions():
        raise ValueError(f"{path}: the network's actions do not match {config.game_string()}")
    return NetBot(config, rng, name, policy)


class NetBot(Bot):
    """Plays the distilled policy network with exact beliefs under its own strategy."""

    def __init__(
        self, config: GameConfig, rng: np.random.Generator, name: str, policy: PolicyNet
    ) -> None:
        """A bot playing ``policy``."""
        super().__init__(config, rng, name)
        if config.players != 2:
            raise ValueError("players: policy-network bots play 2-player games")
        self.policy = policy
        self.players: dict[int, NetPlayer] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.players = {}

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The network's probabilities for the seat to move."""
        seat = state.current_player()
        player = self.players.get(seat)
        history = state.history()
        if player is None or len(history) < player.seen:
            player = NetPlayer(
                self.config.to_array(), seat, self.policy, self.config.num_distinct_actions()
            )
            self.players[seat] = player
        return player.action_probabilities(history)


# the shipped strategies' folders, for the reports (which may not import the solvers)
__all__ = [
    "POLICY_FILE",
    "NetBot",
    "SearchBot",
    "load_net_bot",
    "load_search_bot",
    "shipped_dir",
    "shipped_presets",
    "strategies_dir",
]
