"""Sampled regret matching+ on real 2-player games: a regret network learnt from rollouts."""
