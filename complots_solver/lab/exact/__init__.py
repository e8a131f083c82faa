"""Experiments on exact solving: solver benchmarks, and mixtures of strategies on a compiled tree."""
