"""Play by search: one seat follows a real game's public history and solves each turn's subgame.

The agent keeps the current turn's solved :class:`.search.Subgame`, its
position in that subgame's public tree and its own private-state id there.
Every move of the real game (read from the full history, of which it uses
only what its seat observes: the public token, and its own private token)
moves it down the tree; at the next turn start the belief at that leaf under
the solved strategy becomes the root of the next subgame. The opponent is
assumed to play the solved strategy (the equilibrium assumption of
ReBeL-style play); a move the belief gives no weight resets the leaf belief
to the chance odds alone.

With ``settings.safe`` every turn after the first is re-solved twice, once
for each player (:func:`.search.safe_subgame`): the agent plays its own
re-solve and models the opponent by the opponent's, exactly as
:func:`.search_exact.search_strategy` writes them. It then carries three
reaches through each turn's tree: each player's counterfactual reach (the
other player's and chance's) and the joint reach.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from complots_solver.rules import core
from complots_solver.solvers.belief.public_tree import LEAF
from complots_solver.solvers.belief.search import SearchSettings, Subgame, safe_subgame
from complots_solver.solvers.belief.vector_cfr import action_owner, reaches
from complots_solver.solvers.knowledge.hypotheses import Hypotheses
from complots_solver.solvers.nets.valuenet import ValueNet


class SearchAgent:
    """The search player of one seat (see the module note)."""

    def __init__(
        self,
        cfg: np.ndarray,
        seat: int,
        net: ValueNet | None,
        settings: SearchSettings | None = None,
    ) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.seat = seat
        self.net = net
        self.settings = settings or SearchSettings()
        self.restart()

    def restart(self) -> None:
        """Forget the game: back to the initial state."""
        self.state = core.initial_state(self.cfg)
        self.seen = 0
        self.sub = Subgame(self.cfg, Hypotheses.initial(self.cfg), self.net, self.settings)
        self.sub.solve()
        self.subs = [self.sub, self.sub]  # each player's last solve (safe: its own re-solve)
        self.strategy = self.sub.strategy  # both players' (safe: each from its own re-solve)
        self.prior = np.ones((1, 3))  # counterfactual reach of each player, joint reach
        self.node = 0
        self.my_x = 0
        self.subgames = 1

    def _advance(self, action: int) -> None:
        """Move down the public tree by one real move."""
        t = self.sub.tree
        s = self.state
        pub = int(core.observation_token(s, action, core.PUBLIC_VIEWER))
        mine = int(core.observation_token(s, action, self.seat))
        child = t.child_index[(self.node, pub)]
        h0, h1 = int(t.node_hyp_start[self.node]), int(t.node_hyp_start[self.node + 1])
        c0, c1 = int(t.node_hyp_start[child]), int(t.node_hyp_start[child + 1])
        new_x = None
        for h in range(h0, h1):
            if int(t.hyp_x[h, self.seat]) != self.my_x:
                continue
            for e in range(int(t.hyp_edge_start[h]), int(t.hyp_edge_start[h + 1])):
                c = int(t.edge_child[e])
                if not c0 <= c < c1:
                    continue
                if mine != pub and int(t.edge_move[e]) != action:
                    continue
                new_x = int(t.hyp_x[c, self.seat])
                break
            if new_x is not None:
                break
        if new_x is None:
            raise RuntimeError("the real move is not in the subgame's tree for this seat")
        core.apply_action(s, self.cfg, action)
        self.node = child
        self.my_x = new_x
        if int(t.node_player[child]) == LEAF:
            self._next_subgame()

    def _next_safe_subgame(self) -> None:
        t = self.sub.tree
        reach, _ = reaches(t, self.strategy, self.prior)
        h0, h1 = int(t.node_hyp_start[self.node]), int(t.node_hyp_start[self.node + 1])
        pos = np.searchsorted(t.leaf_hyps, np.arange(h0, h1))
        rows = reach[h0:h1]
        subs = []
        for player in range(2):
            hyps = Hypotheses(
                t.leaf_states[pos].copy(),
                t.hyp_x[h0:h1].copy(),
                t.leaf_knows[pos].copy(),
                rows[:, 1 - player].copy(),
            )
            promised = None
            if self.settings.average_promise:  # the same node and rows in both players' trees
                values = self.subs[player].solver.leaf_promise(1 - player)
                promised = np.nan_to_num(values[pos])
            subs.append(
                safe_subgame(self.cfg, hyps, rows[:, 2], self.net, self.settings, player, promised)
            )
        st = subs[0].tree
        if not np.array_equal(st.slot_action_start, subs[1].tree.slot_action_start):
            raise RuntimeError("the two re-solves built different public trees")
        owner = action_owner(st)
        self.strategy = np.where(owner == 0, subs[0].strategy, subs[1].strategy)
        total = rows.sum(axis=0)
        self.prior = rows / np.where(total > 0.0, total, 1.0)
        self.sub = subs[self.seat]
        self.subs = subs
        self.node = 0
        self.subgames += 1

    def _next_subgame(self) -> None:
        if self.settings.safe:
            self._next_safe_subgame()
            return
        t = self.sub.tree
        h0, h1 = int(t.node_hyp_start[self.node]), int(t.node_hyp_start[self.node + 1])
        mine = np.flatnonzero(t.hyp_x[h0:h1, self.seat] == self.my_x)
        leaf = h0 + int(mine[0])
        root, _ = self.sub.next_root(leaf)
        ok = root.xs[:, self.seat] == self.my_x
        if root.weights.sum() <= 0.0 or not np.any(root.weights[ok] > 0.0):
            root.weights = np.full(len(root), 1.0 / len(root))
        self.sub = Subgame(self.cfg, root, self.net, self.settings)
        self.sub.solve()
        self.strategy = self.sub.strategy
        self.node = 0
        self.subgames += 1

    def observe(self, history: Sequence[int]) -> None:
        """Catch up with the real game's full move history (chance outcomes included)."""
        if len(history) < self.seen:
            raise ValueError("history: shorter than what was already seen; call restart()")
        for a in history[self.seen :]:
            self._advance(int(a))
        self.seen = len(history)

    def action_probabilities(self, history: Sequence[int]) -> dict[int, float]:
        """The solved strategy's probability of each legal action of this seat, now."""
        self.observe(history)
        t = self.sub.tree
        h0, h1 = int(t.node_hyp_start[self.node]), int(t.node_hyp_start[self.node + 1])
        mine = np.flatnonzero(t.hyp_x[h0:h1, self.seat] == self.my_x)
        if len(mine) == 0 or int(t.node_player[self.node]) != self.seat:
            raise RuntimeError("it is not this seat's decision")
        slot = int(t.hyp_slot[h0 + int(mine[0])])
        a0, a1 = int(t.slot_action_start[slot]), int(t.slot_action_start[slot + 1])
        probs = self.strategy[a0:a1]
        return {int(a): float(p) for a, p in zip(t.slot_actions[a0:a1], probs, strict=True)}
