"""Measurements across solver families on the same games (e.g. strength per core-hour)."""
