"""The play layer's bots as ``complots solve`` lends them to the solver families that use them."""

from __future__ import annotations

from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig


class BotMaker:
    """The baseline bots a league seats, by name (the play layer's; picklable for workers)."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config

    def __call__(self, name: str, rng: np.random.Generator) -> Any:
        """A fresh bot ``name`` drawing from ``rng``."""
        from complots_solver.play.bots import make_bot

        return make_bot(name, self.config, rng)


class PlayBots:
    """The play layer's bots: a maker for leagues, name checks and a value network's pretraining."""

    def factory(self, config: GameConfig) -> BotMaker:
        """A picklable maker of fresh bots by name."""
        return BotMaker(config)

    def check(self, name: str) -> None:
        """Raise ValueError naming a bot that does not exist."""
        from complots_solver.play.bots import parse_bot_spec

        parse_bot_spec(name)

    def pretrain(
        self, net: Any, config: GameConfig, games: int, steps: int, seed: int, zero_sum: bool
    ) -> None:
        """Fit a belief value network to who won ``games`` games between the bots."""
        from complots_solver.play.pretrain import bot_game_examples, pretrain

        examples = bot_game_examples(config, games, seed=seed)
        pretrain(net, examples, steps, seed=seed, through_zero_sum=zero_sum)
