"""Game-independent exact equilibrium solving on flat-array game trees."""

from complots_solver.solvers.best_response import (
    ExploitabilityReport,
    best_response,
    exploitability,
    exploitability_report,
    game_value,
)
from complots_solver.solvers.cfr import ALGORITHMS, TreeSolver
from complots_solver.solvers.policy import from_tabular_policy, to_tabular_policy
from complots_solver.solvers.tree import NodeKind, Tree, TreeBuilder, compile_openspiel_tree

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
