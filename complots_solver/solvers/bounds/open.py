"""An opened strategy as the bounds' batched strategy: the adapter ``complots bound`` uses.

:func:`~complots_solver.solvers.policies.open.open_strategy` gives a ``Policy``
that answers one live state at a time; the bounds play thousands of game rows
at once and need a :class:`~complots_solver.solvers.bounds.strategy.BoundStrategy`
over the same weights.
"""

from __future__ import annotations

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.play_policies import NetPolicy
from complots_solver.solvers.bounds.strategy import BoundStrategy, NetStrategy, TabularStrategy
from complots_solver.solvers.common.protocols import Policy
from complots_solver.solvers.policies.exact_keyed import average_probabilities
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.rows.table import TableStrategy
from complots_solver.solvers.selfplay.policy import TablePolicy


def bound_strategy(policy: Policy, config: GameConfig, where: str) -> BoundStrategy:
    """``policy`` (opened from ``where``) as a batched strategy of ``config``; ValueError if none."""
    cfg = config.to_array()
    width = config.num_distinct_actions()
    if isinstance(policy, TablePolicy):
        if policy.mixture:
            raise ValueError(
                f"{where} holds a mixture of networks; lbr, trained and bots measure "
                "one network: use --method responder"
            )
        return TableStrategy(cfg, policy.net, width)
    if isinstance(policy, NetPolicy):
        return NetStrategy(cfg, policy.policy, width)
    if isinstance(policy, ExactPolicy):
        probs = average_probabilities(policy.strategy.average, policy.strategy.action_offsets)
        return TabularStrategy(cfg, policy.tree, probs)
    raise ValueError(
        f"{where} holds a strategy the bounds do not play ({type(policy).__name__}); they "
        "measure exact strategy files, policy networks and table networks"
    )
