"""Playing an exact (tree-aligned) strategy file from live game states.

Exact strategy files hold one row of action probabilities per information set of
the compiled tree (:func:`complots_solver.solvers.exact.complots_tree.compile_complots_tree`).
:class:`ExactPolicy` finds the row of a live game state by walking the
compiled tree along the state's history (a decision edge is the position of
the action among the infoset's legal actions, a chance edge the position of the
outcome among the core's chance outcomes): ``O(depth)`` per lookup, with no
need to build every infoset key. :meth:`ExactPolicy.slot_ranges_by_key` gives
the equivalent dictionary ``information_state_string -> slot range`` (one
pyspiel replay per infoset: fine for small trees, used to cross-check).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.strategy_file import StrategyFile, load_strategy
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.tree import ROOT, NodeKind, Tree


class ExactPolicy:
    """A strategy file matched to its compiled tree: infoset lookup and probabilities."""

    def __init__(self, strategy: StrategyFile, tree: Tree, config: GameConfig) -> None:
        """Check that ``strategy`` fits ``tree`` (layout fingerprint) and keep both."""
        strategy.check_matches(tree.action_offsets, tree.legal_actions, tree.infoset_player)
        self.strategy = strategy
        self.tree = tree
        self.config = config
        self._cfg = config.to_array()
        self._outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
        self._probs = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.float64)
        # incremental walk: the last history followed, its node and core state
        self._history: list[int] = []
        self._node = ROOT
        self._s = core.initial_state(self._cfg)

    @classmethod
    def load(cls, directory: str | Path) -> ExactPolicy:
        """Load ``directory``'s strategy and compile its game's tree."""

        strategy = load_strategy(Path(directory))
        game = strategy.meta.get("game")
        if not isinstance(game, str):
            raise ValueError(f"{directory}: meta.json names no game")
        config, _ = resolve_game(game)
        return cls(strategy, compile_complots_tree(config), config)

    def _child(self, node: int, action: int) -> int:
        tree = self.tree
        start = int(tree.child_offsets[node])
        kind = int(tree.kind[node])
        if kind == NodeKind.DECISION:
            info = int(tree.infoset[node])
            slots = tree.legal_actions[tree.action_offsets[info] : tree.action_offsets[info + 1]]
            hits = np.flatnonzero(slots == action)
        elif kind == NodeKind.CHANCE:
            k = core.chance_outcomes_into(self._s, self._cfg, self._outcomes, self._probs)
            hits = np.flatnonzero(self._outcomes[:k] == action)
        else:
            hits = np.empty(0, dtype=np.int64)
        if hits.size != 1:
            raise ValueError(f"move {action} is not in the strategy's game tree at node {node}")
        core.apply_action(self._s, self._cfg, action)
        return int(tree.children[start + int(hits[0])])

    def infoset_of(self, history: list[int]) -> int:
        """Infoset id of the decision node reached by ``history`` (actions and chance outcomes)."""
        if history[: len(self._history)] != self._history:
            self._history, self._node = [], ROOT
            self._s = core.initial_state(self._cfg)
        for action in history[len(self._history) :]:
            self._node = self._child(self._node, int(action))
            self._history.append(int(action))
        if int(self.tree.kind[self._node]) != NodeKind.DECISION:
            raise ValueError("the history does not end at a decision node")
        return int(self.tree.infoset[self._node])

    def probabilities(self, infoset: int, greedy: bool = False) -> dict[int, float]:
        """Action id -> probability at ``infoset`` (average strategy; uniform if all zero)."""
        lo, hi = self.slot_range(infoset)
        actions = self.tree.legal_actions[lo:hi]
        weights = np.maximum(self.strategy.average[lo:hi], 0.0)
        total = weights.sum()
        weights = weights / total if total > 0 else np.full(hi - lo, 1.0 / (hi - lo))
        if greedy:
            return {int(actions[int(np.argmax(weights))]): 1.0}
        return {int(a): float(w) for a, w in zip(actions, weights, strict=True)}

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """The strategy at a live state's information set (the OpenSpiel policy interface)."""
        return self.probabilities(self.infoset_of(list(state.history())))

    def slot_range(self, infoset: int) -> tuple[int, int]:
        """Slots ``[lo, hi)`` of ``infoset`` in the strategy arrays."""
        offsets = self.tree.action_offsets
        return int(offsets[infoset]), int(offsets[infoset + 1])

    def slot_ranges_by_key(self) -> dict[str, tuple[int, int]]:
        """``information_state_string -> slot range`` for every infoset (slow on big trees)."""
        return {key: self.slot_range(i) for i, key in enumerate(self.tree.infoset_keys)}
