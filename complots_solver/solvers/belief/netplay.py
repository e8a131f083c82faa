"""Playing the distilled policy network: exact public beliefs under the network's own strategy.

:class:`NetPlayer` follows a real game move by move with a
:class:`.tracker.BeliefTracker` whose model of both seats is the policy
network itself, so the belief over hands fed to the network at each
decision is the exact posterior under the strategy being played. Its own
certain knowledge comes from its own observations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.layout import NUM_MULTISETS, S_CUR
from complots_solver.solvers.belief.policy_net import (
    NUM_DECISION_FEATURES,
    PolicyNet,
    batch_features,
)
from complots_solver.solvers.belief.tracker import BeliefTracker, public_token
from complots_solver.solvers.knowledge.hypotheses import KNOW_SIZE, Memory, update_knowledge


def belief_marginals(tracker: BeliefTracker) -> tuple[np.ndarray, np.ndarray]:
    """Hand marginals (player to move, other) of the tracker's current belief."""
    from complots_solver.solvers.belief.policy_net import node_marginals

    h = tracker.hyps
    m1 = np.empty(NUM_MULTISETS)
    m2 = np.empty(NUM_MULTISETS)
    node_marginals(h.states, h.weights, np.array([0, len(h)], dtype=np.int64), 0, m1, m2)
    return m1, m2


MOVE_FLOOR = 1e-4


class NetPolicyModel:
    """The policy network as the tracker's model of whoever moves."""

    def __init__(self, policy: PolicyNet, num_actions: int) -> None:
        self.policy = policy
        self.num_actions = num_actions
        self.marginals: tuple[np.ndarray, np.ndarray] | None = None
        self.knows: np.ndarray | None = None
        self._legal = np.empty(256, dtype=np.int32)

    def probabilities(
        self,
        states: np.ndarray,
        knows: np.ndarray,
        marginals: tuple[np.ndarray, np.ndarray],
        cfg: np.ndarray,
    ) -> np.ndarray:
        """Action probabilities (rows over all action ids) at each state's decision."""
        feats = np.empty((len(states), NUM_DECISION_FEATURES), dtype=np.float32)
        legal = np.empty((len(states), self.num_actions), dtype=np.float32)
        batch_features(states, knows, marginals[0], marginals[1], cfg, feats, legal)
        return self.policy.probabilities(feats, legal)


class NetPlayer:
    """One seat playing the policy network (see the module note)."""

    def __init__(
        self, cfg: np.ndarray, seat: int, policy: PolicyNet, num_actions: int, prune: float = 0.0
    ) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.seat = seat
        self.model = NetPolicyModel(policy, num_actions)
        self.prune = prune
        self.restart()

    def restart(self) -> None:
        """Back to the initial state."""
        self.state = core.initial_state(self.cfg)
        self.know = np.zeros((int(self.cfg[0]), KNOW_SIZE), dtype=np.int32)
        self.tracker = BeliefTracker(self.cfg, Memory.SUMMARY, prune=self.prune)
        self.seen = 0

    def _matrix(self, states, xs, actor, knows):
        """Tracker callback: the network's probabilities at each distinct parent, floored.

        A move the network all but rules out must not empty the belief: every
        move keeps a small likelihood (the opponent is modelled as the network
        with a little noise).
        """
        probs = self.model.probabilities(states, knows, belief_marginals(self.tracker), self.cfg)
        return (1.0 - MOVE_FLOOR) * probs + MOVE_FLOOR

    def observe(self, history: Sequence[int]) -> None:
        """Catch up with the real game's move history."""
        if len(history) < self.seen:
            raise ValueError("history: shorter than what was already seen; call restart()")
        for a in history[self.seen :]:
            a = int(a)
            s = self.state
            tok = public_token(s, a)
            actor = int(s[S_CUR])
            before = s.copy()
            core.apply_action(s, self.cfg, a)
            update_knowledge(before, a, s, int(self.cfg[0]), self.know)
            self.tracker.observe(tok, matrix=self._matrix if actor >= 0 else None)
        self.seen = len(history)

    def action_probabilities(self, history: Sequence[int]) -> dict[int, float]:
        """The network's probabilities for this seat's legal actions, now."""
        self.observe(history)
        s = self.state
        if int(s[S_CUR]) != self.seat:
            raise RuntimeError("it is not this seat's decision")
        probs = self.model.probabilities(
            s[None, :], self.know[None, :, :], belief_marginals(self.tracker), self.cfg
        )[0]
        legal = np.empty(256, dtype=np.int32)
        k = core.legal_actions_into(s, self.cfg, legal)
        return {int(a): float(probs[a]) for a in legal[:k]}
