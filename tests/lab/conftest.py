"""Fixtures for the lab's tests."""

from __future__ import annotations

import pyspiel
import pytest

from complots_solver.solvers.exact.tree import Tree, compile_openspiel_tree


@pytest.fixture(scope="session")
def leduc_tree() -> Tree:
    """The compiled tree of OpenSpiel Leduc poker."""
    return compile_openspiel_tree(pyspiel.load_game("leduc_poker"))
