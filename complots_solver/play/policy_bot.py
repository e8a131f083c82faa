"""A bot that plays a solved strategy file (``policy:DIR`` or ``policy:DIR:greedy``).

Two kinds of strategy directory are played, both opened by
:func:`~complots_solver.solvers.policies.open.open_strategy`: exact,
tree-aligned files (:class:`PolicyBot`, playing an
:class:`~complots_solver.solvers.policies.exact_policy.ExactPolicy`) and keyed
Monte Carlo CFR files (:class:`KeyedPolicyBot`, which looks the state's
information key up with
:class:`~complots_solver.solvers.policies.mccfr_policy.KeyedPolicy`; information
states the solver never visited play uniformly and are counted in ``misses``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy
from complots_solver.solvers.policies.open import open_strategy


def _check_game(solved: GameConfig, config: GameConfig) -> None:
    """A strategy only plays the game it was solved for."""
    if config != solved:
        raise ValueError(
            f"the strategy was solved for {solved.game_string()}, not {config.game_string()}"
        )


def load_policy_bot(
    directory: str | Path,
    config: GameConfig,
    rng: np.random.Generator,
    greedy: bool = False,
    name: str = "policy",
) -> Bot:
    """A bot for the strategy in ``directory``: exact (tree-aligned) or keyed MCCFR file."""
    policy = open_strategy(f"policy:{directory}", config)
    if isinstance(policy, KeyedPolicy):
        return KeyedPolicyBot(policy, config, rng, greedy, name)
    assert isinstance(policy, ExactPolicy)  # policy: opens strategy files only
    return PolicyBot(policy, config, rng, greedy, name)


class PolicyBot(Bot):
    """Plays a solved strategy: samples its average strategy, or plays the likeliest action."""

    def __init__(
        self,
        table: ExactPolicy,
        config: GameConfig,
        rng: np.random.Generator,
        greedy: bool = False,
        name: str = "policy",
    ) -> None:
        """A bot for games of ``config``, which must be the strategy's game."""
        _check_game(table.config, config)
        super().__init__(config, rng, name)
        self.table = table
        self.greedy = greedy

    @classmethod
    def from_directory(
        cls,
        directory: str | Path,
        config: GameConfig,
        rng: np.random.Generator,
        greedy: bool = False,
        name: str = "policy",
    ) -> PolicyBot:
        """A policy bot for the exact strategy saved in ``directory`` (cached per process)."""
        policy = open_strategy(f"policy:{directory}")
        if not isinstance(policy, ExactPolicy):
            raise ValueError(f"{directory} holds a keyed strategy: use load_policy_bot")
        return cls(policy, config, rng, greedy, name)

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The strategy's probabilities at the state's information set."""
        info = self.table.infoset_of(list(state.history()))
        probs = self.table.probabilities(info, self.greedy)
        self.table_lookups += 1  # an exact table holds every infoset: never a miss
        legal = set(state.legal_actions())
        if not set(probs) <= legal:
            raise ValueError("the strategy's actions do not match the legal actions here")
        return probs


class KeyedPolicyBot(Bot):
    """Plays a keyed Monte Carlo CFR strategy: samples its average strategy, or greedy.

    Information states missing from the table play uniformly: ``misses`` counts
    them out of ``lookups`` over every bot sharing the loaded policy,
    ``table_misses`` out of ``table_lookups`` for this bot only.
    """

    def __init__(
        self,
        policy: KeyedPolicy,
        config: GameConfig,
        rng: np.random.Generator,
        greedy: bool = False,
        name: str = "policy",
    ) -> None:
        """A bot for games of ``config``, which must be the strategy's game."""
        _check_game(policy.config, config)
        super().__init__(config, rng, name)
        self.policy = policy
        self.greedy = greedy

    @property
    def lookups(self) -> int:
        """Decisions looked up in the table so far (all bots of this policy)."""
        return self.policy.lookups

    @property
    def misses(self) -> int:
        """Of those, the ones whose information state the table lacks (played uniformly)."""
        return self.policy.misses

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The strategy's probabilities at the state's information key."""
        before = self.policy.misses
        probs = self.policy.probabilities(state, state.current_player(), self.greedy)
        self.table_lookups += 1
        self.table_misses += self.policy.misses - before
        return probs
