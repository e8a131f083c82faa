"""Layer 4, playing the game: card counting, baseline bots, tournaments, terminal play.

This package sits above the solvers: it may import ``rules``, ``openspiel`` and
``solvers``; nothing below imports it.
"""
