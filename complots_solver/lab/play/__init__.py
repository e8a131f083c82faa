"""Experiments on play: the evaluation of every strategy, claim statistics, gauntlets, timings."""
