"""Saved strategies made playable from live game states, through one loader.

``loader.load_policy(dir)`` reads an exact (tree-aligned) strategy file as an
``exact_policy.ExactPolicy`` or a keyed Monte Carlo CFR file as a
``mccfr_policy.KeyedPolicy``; both answer ``action_probabilities(state)``
(``common.protocols.Policy``). ``exact_keyed`` turns an exact strategy into a
keyed table for fast sampled play.
"""
