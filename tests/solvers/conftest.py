"""Shared fixtures for solver tests; registers the ``slow`` marker."""

from __future__ import annotations

import pyspiel
import pytest

from complots_solver.solvers.exact.tree import Tree, compile_openspiel_tree


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``slow`` marker."""
    config.addinivalue_line("markers", "slow: long-running test (deselect with -m 'not slow')")


@pytest.fixture(scope="session")
def kuhn_game() -> pyspiel.Game:
    """OpenSpiel Kuhn poker."""
    return pyspiel.load_game("kuhn_poker")


@pytest.fixture(scope="session")
def leduc_game() -> pyspiel.Game:
    """OpenSpiel Leduc poker."""
    return pyspiel.load_game("leduc_poker")


@pytest.fixture(scope="session")
def kuhn_tree(kuhn_game: pyspiel.Game) -> Tree:
    """Compiled Kuhn poker tree."""
    return compile_openspiel_tree(kuhn_game)


@pytest.fixture(scope="session")
def leduc_tree(leduc_game: pyspiel.Game) -> Tree:
    """Compiled Leduc poker tree."""
    return compile_openspiel_tree(leduc_game)
