"""The bot of a table network (league self-play, any number of players): ``net:DIR`` and ``solved``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.policies.open import open_strategy
from complots_solver.solvers.selfplay.policy import TablePolicy


def load_table_bot(path: Path, config: GameConfig, rng: np.random.Generator, name: str) -> Bot:
    """A :class:`TableBot` playing the network in ``path`` (and the mixture beside it, if any);
    ValueError if it is for another game."""
    policy = open_strategy(f"net:{Path(path).parent}", config)
    if not isinstance(policy, TablePolicy):
        raise ValueError(f"{path} is not a table network")
    return TableBot(config, rng, name, policy)


class TableBot(Bot):
    """Plays a table network through its :class:`TablePolicy` (one player per seat)."""

    def __init__(
        self, config: GameConfig, rng: np.random.Generator, name: str, policy: TablePolicy
    ) -> None:
        """A bot playing ``policy`` (a network, or the mixture of several) at ``config``."""
        super().__init__(config, rng, name)
        self.policy = policy

    @property
    def net(self) -> TableNet:
        """The network played (the first member of a mixture)."""
        return self.policy.net

    @property
    def mixture(self) -> tuple[TableNet, ...]:
        """The further members of a mixture (none: one network)."""
        return self.policy.mixture

    def restart(self) -> None:
        """Forget the previous game."""
        self.policy.restart()

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The network's probabilities for the seat to move."""
        return self.policy.action_probabilities(state)
