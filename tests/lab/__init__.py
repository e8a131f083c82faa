"""Tests of the lab (experiments and benchmarks above the library): slow, run with -m slow."""
