"""A table network (with any mixture members beside it) as a ``Policy`` for live game states.

``SelfPlayTrainer.policy()`` and ``RegretSampler.policy()`` return the bare
:class:`~complots_solver.solvers.nets.tablenet.TableNet`, which other code
trains and measures; :class:`TablePolicy` is what plays it from a live state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.player import TablePlayer


class TablePolicy:
    """Plays a table network (the mixture of ``net`` and ``mixture``), one player per seat."""

    def __init__(self, config: GameConfig, net: TableNet, mixture: Sequence[TableNet] = ()) -> None:
        """A policy playing ``net`` (and the mixture members) in games of ``config``."""
        self.config = config
        self.net = net
        self.mixture = tuple(mixture)
        self.players: dict[int, TablePlayer] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.players = {}

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """The network's probabilities for the seat to move (the OpenSpiel policy interface)."""
        seat = state.current_player()
        history = state.history()
        player = self.players.get(seat)
        if player is None or len(history) < player.seen:
            player = TablePlayer(self.config.to_array(), self.net, self.mixture, seat)
            self.players[seat] = player
        player.observe(history)
        if not np.array_equal(player.state, state.s):  # another game of the same length
            player.restart()
            player.observe(history)
        return player.probabilities()
