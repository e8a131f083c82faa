"""The belief family's networks as ``Policy`` objects: the policy network and the search player.

:class:`NetPolicy` plays the distilled policy network with the exact public
belief under its own strategy (:class:`~complots_solver.solvers.belief.netplay.NetPlayer`);
:class:`SearchPolicy` solves each decision's turn subgame from the exact
public belief with the value network (:class:`~complots_solver.solvers.belief.agent.SearchAgent`).
Both keep one player per seat and start it again when a new game begins.
"""

from __future__ import annotations

from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.agent import SearchAgent
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.nets.valuenet import ValueNet


class NetPolicy:
    """The policy network of a belief run, played with exact beliefs (2-player games)."""

    def __init__(self, config: GameConfig, policy: PolicyNet) -> None:
        """A policy playing ``policy`` in games of ``config``."""
        if config.players != 2:
            raise ValueError("players: policy-network bots play 2-player games")
        self.config = config
        self.policy = policy
        self.players: dict[int, NetPlayer] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.players = {}

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """The network's probabilities for the seat to move."""
        seat = state.current_player()
        player = self.players.get(seat)
        history = state.history()
        if player is None or len(history) < player.seen:
            width = self.config.num_distinct_actions()
            player = NetPlayer(self.config.to_array(), seat, self.policy, width)
            self.players[seat] = player
        return player.action_probabilities(history)


class SearchPolicy:
    """The search player: each decision from the solved subgame of its turn (2-player games)."""

    def __init__(self, config: GameConfig, net: ValueNet, settings: SearchSettings) -> None:
        """A search player with value network ``net`` and search ``settings``."""
        if config.players != 2:
            raise ValueError("players: search bots play 2-player games")
        self.config = config
        self.net = net
        self.settings = settings
        self.agents: dict[int, SearchAgent] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.agents = {}

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """The subgame solution's probabilities for the seat to move."""
        seat = state.current_player()
        agent = self.agents.get(seat)
        history = state.history()
        if agent is None or len(history) < agent.seen:
            agent = SearchAgent(self.config.to_array(), seat, self.net, self.settings)
            self.agents[seat] = agent
        return agent.action_probabilities(history)
