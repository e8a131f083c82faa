"""Saved strategies made playable from live game states, through one function.

``open.open_strategy(spec, config)`` opens every kind of strategy folder (or
``solved``, the game's shipped one) as a ``common.protocols.Policy``
(``action_probabilities(state)``): an exact (tree-aligned) strategy file as an
``exact_policy.ExactPolicy``, a keyed Monte Carlo CFR file as a
``mccfr_policy.KeyedPolicy``, a table network as a ``selfplay.policy.TablePolicy``,
a belief policy network or search player as ``belief.play_policies.NetPolicy`` or
``SearchPolicy``. ``exact_keyed`` turns an exact strategy into a keyed table for
fast sampled play.
"""
