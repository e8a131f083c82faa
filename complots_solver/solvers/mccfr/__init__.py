"""Monte Carlo CFR on the numba rules core, for games too large for a compiled tree.

Information keys (``infokeys``), the solver and its compiled walk
(``solver``), parallel workers (``parallel``), resumable runs (``run``) and
sampled evaluation with best-response bounds (``evaluate``).
"""
