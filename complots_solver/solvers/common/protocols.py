"""The interfaces every solver family offers: a ``Solver`` to drive, a ``Policy`` to play.

They are structural (``typing.Protocol``): a class conforms by having the
methods, without inheriting. ``Policy`` is OpenSpiel's policy interface
(``action_probabilities(state)``); ``Solver`` is what a run driver needs to
iterate, checkpoint, resume and measure a solver.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """A strategy that answers for live game states."""

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """Probability of each legal action of the player to move at ``state``."""
        ...


@runtime_checkable
class Solver(Protocol):
    """An iterative equilibrium solver with a state a checkpoint can hold."""

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        ...

    def get_state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume, as named arrays."""
        ...

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` returned."""
        ...

    def policy(self) -> Policy:
        """The solver's current average strategy, playable from live states."""
        ...

    def evaluate(self) -> dict[str, float]:
        """Figures of the average strategy's quality (e.g. exploitability)."""
        ...
