"""Experiments on the belief family: exact search measurements, subgame sizes, value checks, the ladder."""
