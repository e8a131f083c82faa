"""Playing a Monte Carlo CFR strategy: keyed strategy files and lookups from live game states.

:class:`KeyedPolicy` loads a keyed strategy file
(:class:`~complots_solver.solvers.common.strategy_file.KeyedStrategyFile`) and answers
:meth:`KeyedPolicy.probabilities` for a live pyspiel ``ComplotsState``: the
state's history is replayed through the rules core in numba to recompute the
information key the solver used (``perfect`` or ``markov``), which is then
looked up in a hash index. States the table never saw play uniformly (counted
in :attr:`KeyedPolicy.misses`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.strategy_file import KeyedStrategyFile, load_keyed_strategy
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION, KEYS, key_after_history
from complots_solver.solvers.mccfr.policy_table import PolicyTable


class KeyedPolicy:
    """A keyed strategy ready to play: ``probabilities(state, player)`` for live states."""

    def __init__(self, strategy: KeyedStrategyFile, config: GameConfig) -> None:
        scheme = strategy.meta.get("key_scheme", {})
        name = scheme.get("name")
        if name not in KEYS:
            raise ValueError(f"keyed strategy names an unknown key scheme {name!r}")
        if scheme.get("version") != KEY_SCHEME_VERSION:
            raise ValueError(
                f"keyed strategy uses key scheme version {scheme.get('version')}; "
                f"this version computes {KEY_SCHEME_VERSION}"
            )
        self.strategy = strategy
        self.config = config
        self.key = name
        self._cfg = config.to_array()
        self.table = PolicyTable.from_arrays(
            name,
            strategy.key,
            strategy.player,
            strategy.action_offsets,
            strategy.legal_actions,
            strategy.average,
        )
        self.lookups = 0
        self.misses = 0

    @classmethod
    def load(cls, directory: str | Path) -> KeyedPolicy:
        """Load the keyed strategy saved in ``directory`` (its game comes from meta.json)."""
        strategy = load_keyed_strategy(Path(directory))
        game = strategy.meta.get("game")
        if not isinstance(game, str):
            raise ValueError(f"{directory}: meta.json names no game")
        config, _ = resolve_game(game)
        return cls(strategy, config)

    def key_of_history(self, history: list[int]) -> tuple[int, int]:
        """(information key, player to move) after ``history`` (actions and chance outcomes)."""
        key, cur = key_after_history(self._cfg, KEYS[self.key], np.asarray(history, np.int64))
        return int(key), int(cur)

    def row_probabilities(self, row: int) -> dict[int, float]:
        """Action id -> probability of one table row."""
        lo, hi = self.table.action_offsets[row], self.table.action_offsets[row + 1]
        return {
            int(a): float(p)
            for a, p in zip(self.table.legal_actions[lo:hi], self.table.probs[lo:hi], strict=True)
        }

    def probabilities(self, state: Any, player: int, greedy: bool = False) -> dict[int, float]:
        """The strategy at a live ``ComplotsState`` for ``player`` (who must be to move).

        Unknown information states (never visited by the solver) play uniformly
        over the state's legal actions. ``greedy`` puts all weight on the likeliest action.
        """
        if state.current_player() != player:
            raise ValueError(f"player {player} is not to move (player {state.current_player()} is)")
        key, cur = self.key_of_history(list(state.history()))
        if cur != player:
            raise ValueError("the state's history does not lead to this player's decision")
        legal = [int(a) for a in state.legal_actions()]
        self.lookups += 1
        row = self.table.row_of(key)
        probs = self.row_probabilities(row) if row >= 0 else None
        if probs is None or sorted(probs) != sorted(legal):
            self.misses += 1
            probs = {a: 1.0 / len(legal) for a in legal}
        if greedy:
            best = max(probs, key=lambda a: (probs[a], -a))
            return {best: 1.0}
        return probs

    def action_probabilities(self, state: Any) -> dict[int, float]:
        """The strategy for the player to move at a live state (the OpenSpiel policy interface)."""
        return self.probabilities(state, state.current_player())

    def tree_strategy(self, tree: Tree) -> tuple[np.ndarray, int, int]:
        """The strategy on a compiled 2-player tree of this game; (strategy, found, missing)."""
        return self.table.tree_strategy(self.config, tree)
