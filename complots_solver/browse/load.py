"""Open a run directory with the browser its strategy file needs (exact or sampled)."""

from __future__ import annotations

from pathlib import Path

from complots_solver.browse.browser import StrategyBrowser
from complots_solver.browse.net_sampled import DEFAULT_NET_GAMES, NetSampledBrowser
from complots_solver.browse.protocol import Browser
from complots_solver.browse.sampled import DEFAULT_GAMES, DEFAULT_SEED, SampledBrowser
from complots_solver.solvers.policies.open import Kind, held_kinds


def load_run(run_dir: Path | str, games: int | None = None, seed: int | None = None) -> Browser:
    """The browser of a run directory: exact for tree-aligned files, sampled otherwise.

    Keyed (Monte Carlo CFR) strategies and policy networks (belief runs and
    shipped strategies) are read from sampled self-play games: ``games``
    (default :data:`~complots_solver.browse.sampled.DEFAULT_GAMES` for keyed
    runs, :data:`~complots_solver.browse.net_sampled.DEFAULT_NET_GAMES` for a
    network, whose games cost far more) with ``seed`` (default 0). Exact runs
    need no sampling and ignore them.
    """
    path = Path(run_dir)
    seed = DEFAULT_SEED if seed is None else seed
    held = held_kinds(path)
    if Kind.TABLE_NET in held or Kind.POLICY_NET in held:
        return NetSampledBrowser(path, DEFAULT_NET_GAMES if games is None else games, seed)
    if Kind.KEYED in held:
        return SampledBrowser(path, DEFAULT_GAMES if games is None else games, seed)
    return StrategyBrowser(path)  # an exact file, or the error saying what the folder lacks
