"""Layer 4: read-only browsers over solved strategies.

Exact reach and values on the compiled tree (:class:`StrategyBrowser`), or
estimates with 95% confidence intervals from sampled self-play games for
Monte Carlo CFR strategy files (:class:`SampledBrowser`); both implement the
:class:`Browser` protocol, and :func:`load_run` picks the right one. Imports the rules, OpenSpiel and solver layers only;
reports build on it.
"""

from complots_solver.browse.browser import Situation, StrategyBrowser
from complots_solver.browse.load import load_run
from complots_solver.browse.protocol import Browser
from complots_solver.browse.sampled import (
    CI_COLUMNS,
    DEFAULT_GAMES,
    DEFAULT_SEED,
    PROB_CI,
    REACH_CI,
    VALUE_CI,
    SampledBrowser,
    mean_ci,
)
from complots_solver.rules.text import signed  # one number format for every report

__all__ = [
    "Browser",
    "CI_COLUMNS",
    "DEFAULT_GAMES",
    "DEFAULT_SEED",
    "PROB_CI",
    "REACH_CI",
    "VALUE_CI",
    "SampledBrowser",
    "Situation",
    "StrategyBrowser",
    "load_run",
    "mean_ci",
    "signed",
]
