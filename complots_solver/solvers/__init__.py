"""Equilibrium solvers, one sub-package per family.

``common`` (atomic files, digests, run directories, strategy files), ``exact``
(compiled trees, CFR, exact best responses), ``mccfr`` (Monte Carlo CFR for
games too large for a tree), ``belief`` (public-belief search and value
networks, 2 players), ``selfplay`` (table networks for 3+ players, league
self-play), ``policies`` (saved strategies made playable), ``bounds`` and
``compare``.
This package re-exports the exact solver's public API.
"""

from complots_solver.solvers.exact.best_response import (
    ExploitabilityReport,
    best_response,
    exploitability,
    exploitability_report,
    game_value,
)
from complots_solver.solvers.exact.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.exact.policy import from_tabular_policy, to_tabular_policy
from complots_solver.solvers.exact.tree import NodeKind, Tree, TreeBuilder, compile_openspiel_tree

__all__ = [
    "ALGORITHMS",
    "ExploitabilityReport",
    "NodeKind",
    "Tree",
    "TreeBuilder",
    "TreeSolver",
    "best_response",
    "compile_openspiel_tree",
    "exploitability",
    "exploitability_report",
    "from_tabular_policy",
    "game_value",
    "to_tabular_policy",
]
