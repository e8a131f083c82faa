"""Equilibrium solvers, one sub-package per family.

``common`` (atomic files, digests, run directories, strategy files), ``exact``
(compiled trees, CFR, exact best responses), ``mccfr`` (Monte Carlo CFR for
games too large for a tree), ``belief`` (public-belief search and value
networks, 2 players), ``selfplay`` (table networks for 3+ players, league
self-play), ``policies`` (saved strategies made playable), ``bounds`` and
``compare``.
This package re-exports the exact solver's public API, and finds the families'
registrations (:func:`families`).
"""

import importlib
import pkgutil

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.registry import FAMILY_ATTRIBUTE, FAMILY_MODULE, SolverFamily
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


def families() -> list[SolverFamily]:
    """Every registered solver family (each sub-package's ``family.py``), in listing order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}.{FAMILY_MODULE}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{info.name}.{FAMILY_MODULE}":
                raise
            continue
        found.append(getattr(module, FAMILY_ATTRIBUTE))
    return sorted(found, key=lambda family: family.order)


def pick_algorithm(config: GameConfig) -> tuple[str, str]:
    """The method ``solve`` uses for a game by default, and why."""
    from complots_solver.solvers.exact.estimate import estimate_tree

    if config.players != 2:
        return "selfplay", (
            f"{config.players} players: league self-play of a table network (PPO against itself, "
            "past selves and the bots)"
        )
    est = estimate_tree(config)
    if est.fits:
        return "cfr+", f"the exact tree, about {est.nodes:.2g} nodes, fits in memory"
    return "regret", (
        f"the exact tree, about {est.nodes:.2g} nodes, cannot fit: sampled regret matching+ of a "
        "table network, the method of the shipped 2-player draft strategies, least exploitable of "
        "those measured (docs/regret.md; --algorithm selfplay for "
        "league self-play, belief for public-belief search)"
    )


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
    "families",
    "pick_algorithm",
    "from_tabular_policy",
    "game_value",
    "to_tabular_policy",
]
