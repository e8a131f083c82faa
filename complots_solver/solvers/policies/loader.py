"""Tabular strategy files as policies: :func:`load_policy`, a spelling of ``open_strategy``."""

from __future__ import annotations

from pathlib import Path

from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy
from complots_solver.solvers.policies.open import Kind, open_strategy, strategy_kind

EXACT = "exact"
KEYED = "keyed"


def policy_kind(directory: str | Path) -> str:
    """Which kind of strategy file ``directory`` holds: :data:`EXACT` or :data:`KEYED`."""
    return KEYED if strategy_kind(directory, "policy") == Kind.KEYED else EXACT


def load_policy(directory: str | Path) -> ExactPolicy | KeyedPolicy:
    """The strategy file saved in ``directory``, playable from live states (cached per process)."""
    policy = open_strategy(f"policy:{directory}")
    assert isinstance(policy, ExactPolicy | KeyedPolicy)
    return policy
