"""Sampled regret matching+ on real games of 2 to 6 players: a regret network learnt from rollouts."""
