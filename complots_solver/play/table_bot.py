"""The bot of a table network (league self-play, any number of players): ``net:DIR`` and ``solved``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.selfplay.net import TableNet, load_mixture
from complots_solver.solvers.selfplay.player import TablePlayer


@cache
def _load(path: str) -> tuple[TableNet, tuple[TableNet, ...]]:
    net = TableNet.load(Path(path))
    return net, tuple(load_mixture(Path(path).parent))


def load_table_bot(path: Path, config: GameConfig, rng: np.random.Generator, name: str) -> Bot:
    """A :class:`TableBot` playing the network in ``path`` (and the mixture beside it, if any);
    ValueError if it is for another game."""
    net, mixture = _load(str(Path(path).resolve()))
    for member in (net, *mixture):
        game = member.net.meta.get("game")
        if game is not None and game != config.game_string():
            raise ValueError(f"{path}: a table network for {game}, not {config.game_string()}")
        if member.num_actions != config.num_distinct_actions():
            raise ValueError(f"{path}: the network's actions do not match {config.game_string()}")
    return TableBot(config, rng, name, net, mixture)


class TableBot(Bot):
    """Plays a table network; one :class:`TablePlayer` per seat it holds."""

    def __init__(
        self,
        config: GameConfig,
        rng: np.random.Generator,
        name: str,
        net: TableNet,
        mixture: tuple[TableNet, ...] = (),
    ) -> None:
        """A bot playing ``net`` (with ``mixture``: the mixture of all of them) at ``config``."""
        super().__init__(config, rng, name)
        self.net = net
        self.mixture = mixture
        self.players: dict[int, TablePlayer] = {}

    def restart(self) -> None:
        """Forget the previous game."""
        self.players = {}

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The network's probabilities for the seat to move."""
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
