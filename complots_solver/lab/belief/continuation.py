"""Leaves valued by continuation strategies the opponent chooses among (depth-limited solving).

Brown, Sandholm and Amos (2018): instead of a value that moves with every
CFR iteration's beliefs (ReBeL's leaves, whose solve converges like CFR-D,
about 1/sqrt(T)), each depth-limit leaf is a last decision of the
opponent: in each of its private states it picks one of K continuation
strategies for the rest of the game, the re-solving player continuing with
its blueprint. The leaf values of each choice are fixed for the whole
solve, so the subgame is a fixed game that CFR+ solves at its usual rate,
and the opponent's choice, learned by regret matching+ beside the
subgame's strategies, keeps the searcher from relying on one continuation
of the opponent's.

:class:`LeafChoice` is the leaf-value callback of :meth:`.VectorCFR.run`
given the K seat-0 values of every leaf hypothesis; :func:`biased` makes
the usual continuations from a blueprint (the blueprint with one class of
actions made more likely).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_EXCHANGE,
    A_FOREIGN_AID,
    A_INCOME,
    A_PASS,
    A_REVEAL,
    A_TARGETED,
    A_TAX,
    NUM_TARGETED_KINDS,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
)
from complots_solver.solvers.belief.public_tree import PublicTree
from complots_solver.solvers.belief.search import Subgame
from complots_solver.solvers.belief.vector_cfr import action_owner, normalize


class Bias(IntEnum):
    """A class of actions a continuation makes more likely than the blueprint does."""

    CHALLENGE = 0  # challenges a claim or a counter
    PASS = 1  # lets claims and actions through
    COUNTER = 2  # counters (blocks) an action
    CLAIM = 3  # character actions: Tax, Exchange, Assassinate, Steal, Examine
    PLAIN = 4  # Income, Foreign Aid, Coup


def bias_mask(actions: np.ndarray, players: int, bias: Bias) -> np.ndarray:
    """Which of the action ids ``actions`` belong to ``bias``'s class."""
    a = np.asarray(actions)
    kind = np.where(a >= A_TARGETED, (a - A_TARGETED) // players, -1)
    targeted = (a >= A_TARGETED) & (kind < NUM_TARGETED_KINDS)
    if bias == Bias.CHALLENGE:
        return a == A_CHALLENGE
    if bias == Bias.PASS:
        return a == A_PASS
    if bias == Bias.COUNTER:
        return (a >= A_COUNTER) & (a < A_REVEAL)
    if bias == Bias.CLAIM:
        claims = np.isin(kind, (T_ASSASSINATE, T_STEAL, T_EXAMINE))
        return (a == A_TAX) | (a == A_EXCHANGE) | (targeted & claims)
    if bias == Bias.PLAIN:
        return (a == A_INCOME) | (a == A_FOREIGN_AID) | (targeted & (kind == T_COUP))
    raise ValueError(f"bias must be one of {[b.name for b in Bias]}, got {bias!r}")


def biased(
    tree: PublicTree, strategy: np.ndarray, player: int, bias: Bias, factor: float = 5.0
) -> np.ndarray:
    """``strategy`` with ``player``'s actions of ``bias``'s class weighted ``factor``, renormalised.

    Other players' slots are left as they are (Modicum's continuations,
    Brown, Sandholm and Amos 2018: the blueprint biased towards one class).
    """
    if factor <= 0.0:
        raise ValueError(f"factor must be positive, got {factor}")
    owner = action_owner(tree)
    mask = bias_mask(tree.slot_actions, tree.players, bias) & (owner == player)
    weights = np.where(mask, strategy * factor, strategy)
    out = normalize(weights, tree.slot_action_start)
    return np.where(owner == player, out, strategy)


class LeafChoice:
    """Each player's choice of a continuation at every depth-limit leaf, by regret matching+.

    ``values[k0, k1, i]`` is the seat-0 value of leaf hypothesis ``i`` (in the
    order of ``tree.leaf_hyps``) when seat 0 continues with its k0-th
    strategy and seat 1 with its k1-th; a player with one continuation (the
    re-solving player with its blueprint, in Brown, Sandholm and Amos's
    form) has no choice. Each player chooses per leaf node and private
    state. Called as a leaf-value function (:meth:`.VectorCFR.run`), it
    returns the values under the current choices and, in a player's pass,
    adds that player's regrets from the counterfactual reach it is given.
    """

    def __init__(self, tree: PublicTree, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 3 or values.shape[2] != len(tree.leaf_hyps) or 0 in values.shape[:2]:
            raise ValueError(
                f"values: shape (K0, K1, {len(tree.leaf_hyps)}) needed, got {values.shape}"
            )
        self.values = values
        self.tree = tree
        node = np.searchsorted(tree.node_hyp_start, tree.leaf_hyps, side="right") - 1
        self.keys: list[np.ndarray] = []
        self.regrets: list[np.ndarray] = []
        for p in range(2):
            x = tree.hyp_x[tree.leaf_hyps, p]
            _, key = np.unique(np.column_stack([node, x]), axis=0, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            self.keys.append(key)
            num = int(key.max()) + 1 if len(key) else 0
            self.regrets.append(np.zeros((num, values.shape[p])))

    def choice(self, player: int) -> np.ndarray:
        """``player``'s current probability of each continuation per (leaf node, private state)."""
        pos = np.maximum(self.regrets[player], 0.0)
        total = pos.sum(axis=1, keepdims=True)
        uniform = np.full_like(pos, 1.0 / pos.shape[1])
        return np.where(total > 0.0, pos / np.where(total > 0.0, total, 1.0), uniform)

    def __call__(
        self, reach: np.ndarray, own: np.ndarray, strategy: np.ndarray, player: int
    ) -> np.ndarray:
        """Seat-0 leaf values under the current choices; ``player``'s regrets in its pass."""
        choices = [self.choice(0), self.choice(1)]
        q0 = choices[0][self.keys[0]]  # [L, K0]
        q1 = choices[1][self.keys[1]]  # [L, K1]
        if self.values.shape[player] > 1:
            # the value of each of the player's options against the other's current choice
            if player == 0:
                option = np.einsum("abl,lb->la", self.values, q1)
            else:
                option = np.einsum("abl,la->lb", self.values, q0)
            sign = 1.0 if player == 0 else -1.0
            w = reach[self.tree.leaf_hyps, player] * sign
            key = self.keys[player]
            num = len(self.regrets[player])
            cfv = np.stack(
                [
                    np.bincount(key, weights=w * option[:, k], minlength=num)
                    for k in range(option.shape[1])
                ],
                axis=1,
            )
            q = choices[player]
            mean = (q * cfv).sum(axis=1, keepdims=True)
            self.regrets[player] = np.maximum(self.regrets[player] + cfv - mean, 0.0)
        return np.einsum("la,abl,lb->l", q0, self.values, q1)


class ChoiceSubgame(Subgame):
    """A :class:`complots_solver.solvers.belief.search.Subgame` whose leaves are a :class:`LeafChoice` (set with :meth:`set_values`)."""

    choice: LeafChoice | None = None

    def set_values(self, values: np.ndarray) -> None:
        """The seat-0 values of every leaf hypothesis per pair of continuations (see LeafChoice)."""
        self.choice = LeafChoice(self.tree, values)

    def leaf_values(
        self, reach: np.ndarray, own: np.ndarray, strategy: np.ndarray, player: int
    ) -> np.ndarray:
        """Seat-0 leaf values under the opponent's current choice of continuation."""
        if self.choice is None:
            raise RuntimeError("set_values() first")
        return self.choice(reach, own, strategy, player)
