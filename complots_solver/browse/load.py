"""Open a run directory with the browser its strategy file needs (exact or sampled)."""

from __future__ import annotations

from pathlib import Path

from complots_solver.browse.browser import StrategyBrowser
from complots_solver.browse.protocol import Browser
from complots_solver.browse.sampled import DEFAULT_GAMES, DEFAULT_SEED, SampledBrowser
from complots_solver.solvers.policies.loader import KEYED, policy_kind


def load_run(run_dir: Path | str, games: int | None = None, seed: int | None = None) -> Browser:
    """The browser of a run directory: exact for tree-aligned files, sampled for keyed ones.

    ``games`` and ``seed`` set the sampled browser's self-play games (defaults
    :data:`~complots_solver.browse.sampled.DEFAULT_GAMES` and seed 0); exact
    runs need no sampling and ignore them.
    """
    path = Path(run_dir)
    if policy_kind(path) == KEYED:
        return SampledBrowser(
            path,
            DEFAULT_GAMES if games is None else games,
            DEFAULT_SEED if seed is None else seed,
        )
    return StrategyBrowser(path)
