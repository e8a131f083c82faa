"""complots-solver: rules, OpenSpiel game, solvers and reports for Complots (Coup)."""

__version__ = "0.1.0"
