"""Experiments on sampled regret matching+ (the regret family), run from scripts/."""
