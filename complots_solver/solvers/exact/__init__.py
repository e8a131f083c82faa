"""Exact solving of 2-player games whose whole tree fits in memory.

A game is compiled into flat arrays (``tree``, ``complots_tree``), solved by
tabular CFR variants (``cfr``), measured by exact best responses
(``best_response``) and driven as a resumable run (``run``); ``policy``
converts strategies to and from OpenSpiel's ``TabularPolicy``.
"""
