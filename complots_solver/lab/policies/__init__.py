"""Measurements of saved strategies and Monte Carlo CFR run folders, for the experiments."""
