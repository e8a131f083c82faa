"""The bot of any saved strategy: ``solved``, ``policy:DIR[:greedy]``, ``net:DIR``, ``search:DIR``.

The folder is opened by :func:`~complots_solver.solvers.policies.open.open_strategy`,
the one place that decides what a folder holds; this module only picks the
bot that plays that kind of ``Policy``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from complots_solver.play.base import Bot
from complots_solver.play.policy_bot import KeyedPolicyBot, PolicyBot
from complots_solver.play.search_bot import NetBot, SearchBot
from complots_solver.play.table_bot import TableBot
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.play_policies import NetPolicy, SearchPolicy
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy
from complots_solver.solvers.policies.open import open_strategy
from complots_solver.solvers.selfplay.policy import TablePolicy


def strategy_bot(
    spec: str | Path,
    config: GameConfig,
    rng: np.random.Generator,
    name: str,
    greedy: bool = False,
) -> Bot:
    """The bot playing the strategy ``spec`` names in games of ``config``; ValueError if unusable."""
    policy = open_strategy(spec, config)
    if isinstance(policy, KeyedPolicy):
        return KeyedPolicyBot(policy, config, rng, greedy, name)
    if isinstance(policy, ExactPolicy):
        return PolicyBot(policy, config, rng, greedy, name)
    if greedy:
        raise ValueError(f"{spec}: greedy play is for strategy files (policy:DIR:greedy)")
    if isinstance(policy, TablePolicy):
        return TableBot(config, rng, name, policy)
    if isinstance(policy, NetPolicy):
        return NetBot(config, rng, name, policy)
    if isinstance(policy, SearchPolicy):
        return SearchBot(config, rng, name, policy)
    raise ValueError(f"{spec}: no bot plays a {type(policy).__name__}")
