"""Monte Carlo CFR on the numba rules core, for games too large for a compiled tree.

``infokeys`` (information keys), ``table`` (the hash table of regrets and
strategy sums), ``walk`` (the compiled ES and OS iterations), ``solver``
(``MCCFRSolver``), ``policy_table`` (fixed keyed strategies),
``tree_keys`` (keyed tables on compiled trees), ``parallel`` (several
workers), ``run`` (resumable runs) and ``evaluate`` (sampled play and
best-response bounds).
"""
