"""One loader for saved strategies: exact (tree-aligned) or keyed (Monte Carlo CFR) files."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from complots_solver.solvers.common.strategy_file import is_keyed_strategy
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

EXACT = "exact"
KEYED = "keyed"


def policy_kind(directory: str | Path) -> str:
    """Which kind of strategy ``directory`` holds: :data:`EXACT` or :data:`KEYED`."""
    return KEYED if is_keyed_strategy(Path(directory)) else EXACT


def load_policy(directory: str | Path) -> ExactPolicy | KeyedPolicy:
    """The strategy saved in ``directory``, playable from live states (cached per process)."""
    return _load(str(Path(directory).resolve()))


@cache
def _load(directory: str) -> ExactPolicy | KeyedPolicy:
    """Load once per directory and process (compiling a tree or indexing a table is slow)."""
    if policy_kind(directory) == KEYED:
        return KeyedPolicy.load(directory)
    return ExactPolicy.load(directory)
