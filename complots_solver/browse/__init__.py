"""Layer 4: a read-only browser over solved strategies (exact reach and values).

Imports the rules, OpenSpiel and solver layers only; reports build on it.
"""

from complots_solver.browse.browser import Situation, StrategyBrowser, load_run

__all__ = ["Situation", "StrategyBrowser", "load_run"]
