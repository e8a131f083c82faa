"""Saved strategies made playable: keyed look-ups from live game states, exact strategies as tables."""
