"""Experiments on Monte Carlo CFR: benchmarks, quality against exact answers, visit costs."""
