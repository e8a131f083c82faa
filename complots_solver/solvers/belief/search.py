"""Depth-limited subgame solving from a public belief state, with a value network at the leaves.

A :class:`Subgame` is the public tree of one turn (from a turn start, or from
the initial state through the deal and the draft to the end of turn 1) over
the hypotheses of a public belief state, with CANONICAL private states. Its
leaves are the next turn's starts; at every CFR iteration each leaf's belief
(the joint reach of its hypotheses) is turned into features and the value
network gives each player's value of each hand there (ReBeL, Brown et al.
2020). After solving, the root's per-hand values are a training target, and
the belief at any leaf under the solved strategy is the next turn's root.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import NUM_MULTISETS, S_CUR, S_STAGE
from complots_solver.solvers.belief.public_tree import LEAF, PublicTree, build_public_tree
from complots_solver.solvers.belief.vector_cfr import (
    CFR_RULES,
    VectorCFR,
    normalize,
    reaches,
    values_under,
)
from complots_solver.solvers.knowledge.belief_features import (
    NUM_FEATURES,
    NUM_OUTPUTS,
    group_features,
    hand_index,
    hand_targets,
    spread_values,
    turn_scale,
)
from complots_solver.solvers.knowledge.hypotheses import CHANCE, TERMINAL, Hypotheses, Memory
from complots_solver.solvers.nets.valuenet import ValueNet


@dataclass(frozen=True)
class SearchSettings:
    """How a subgame is solved."""

    iterations: int = 64
    prune: float = 1e-6  # hypotheses below this share of a leaf's belief are dropped
    epsilon: float = 0.0  # uniform mixed into the played strategy
    # True: epsilon also enters the solved strategy, so beliefs and value targets are those
    # of exploring play (the shipped networks were trained so); False: only the sampled
    # trajectory explores, and beliefs and targets stay the solved strategy's (ReBeL)
    explore_beliefs: bool = True
    # True: leaf beliefs come from the average strategy so far (CFR-AVG), the one that is
    # played and whose beliefs the next turn starts from; False: from the current iterate
    leaf_average: bool = False
    depth: int = 1  # turns in a subgame before its leaves (the first also holds deal and draft)
    # 0: to the end of the game (no leaves; a check on a rung, too large for the full game)
    # True: when solve() is given a generator, one CFR iteration drawn uniformly gives the
    # trajectory and the next beliefs (ReBeL), so that value targets cover the beliefs of the
    # iterates the leaves are queried at; the average stays the solved strategy and gives
    # the value targets
    sample_iteration: bool = False
    # True: after the first subgame each player re-solves alone, its root weighted by its own
    # and chance's reach, with a gadget holding the opponent to the values the earlier solve
    # promised it (Burch et al. 2014; DeepStack's continual re-solving); see safe_subgame
    safe: bool = False
    # with safe: True promises the opponent its leaf values of the earlier solve averaged over
    # its CFR iterations (VectorCFR.leaf_promise, DeepStack's constraint); False: the value
    # network's at the written strategy's belief
    average_promise: bool = False
    cfr: str = "cfr+"  # the regret rule of the subgame solves (vector_cfr.CFR_RULES)

    def validate(self) -> None:
        """ValueError naming the first bad setting."""
        if self.depth < 0:
            raise ValueError(f"depth must be at least 0 (0: to the end), got {self.depth}")
        if self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        if not 0.0 <= self.prune < 1.0:
            raise ValueError(f"prune must be in [0, 1), got {self.prune}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if self.cfr not in CFR_RULES:
            raise ValueError(f"cfr must be one of {', '.join(CFR_RULES)}, got {self.cfr!r}")


class Subgame:
    """One turn's public tree over a belief, solved by CFR+ with value-network leaves."""

    def __init__(
        self,
        cfg: np.ndarray,
        root: Hypotheses,
        net: ValueNet | None,
        settings: SearchSettings,
        columns: np.ndarray | None = None,
    ) -> None:
        """``columns``: each player's counterfactual reach and the joint reach of the root rows
        (``[R, 3]``, the last equal to ``root.weights``); by default every column is the joint.
        With them, hands a player's own play gave no weight stay in the solve and the targets.
        """
        settings.validate()
        self.cfg = cfg
        self.turn_scale = turn_scale(cfg)
        self.net = net
        self.settings = settings
        self.root = root
        self.tree: PublicTree = build_public_tree(
            cfg, root, Memory.CANONICAL, max_turns=settings.depth or None
        )
        t = self.tree
        leaf_nodes = np.searchsorted(t.node_hyp_start, t.leaf_hyps, side="right") - 1
        self.leaf_node_ids, self.leaf_group = np.unique(leaf_nodes, return_inverse=True)
        self.leaf_group = self.leaf_group.astype(np.int64)
        self.solver = VectorCFR(t, rule=settings.cfr)
        self.columns = columns
        if columns is not None:
            if columns.shape != (len(root), t.players + 1):
                raise ValueError(f"columns: shape {(len(root), t.players + 1)} needed")
            self.solver.set_prior(columns)
        self.strategy: np.ndarray | None = None
        self.explore_strategy: np.ndarray | None = None  # what sample_path plays, if not strategy
        self.belief_strategy: np.ndarray | None = None  # what next_root reads, if not strategy

    def set_gadget(self, opponent: int, terminate: np.ndarray) -> None:
        """Solve safely: the root's weights are the opponent's counterfactual reach (see VectorCFR)."""
        self.solver.set_gadget(
            opponent, self.tree.hyp_x[: len(self.tree.prior), opponent], terminate
        )

    @property
    def num_leaf_nodes(self) -> int:
        """Number of public leaf nodes."""
        return len(self.leaf_node_ids)

    def _leaf_outputs(self, joint: np.ndarray) -> np.ndarray:
        t = self.tree
        feats = np.empty((self.num_leaf_nodes, NUM_FEATURES), dtype=np.float32)
        group_features(
            t.leaf_states, joint, self.leaf_group, self.num_leaf_nodes, feats, self.turn_scale
        )
        if self.net is None:
            return np.zeros((self.num_leaf_nodes, NUM_OUTPUTS), dtype=np.float32)
        return self.net.forward(feats)

    def leaf_values(
        self, reach: np.ndarray, own: np.ndarray, strategy: np.ndarray, player: int
    ) -> np.ndarray:
        """Seat-0 values of the leaf hypotheses for ``player``'s pass (beliefs from ``reach``)."""
        t = self.tree
        outputs = self._leaf_outputs(reach[t.leaf_hyps, t.players])
        values = np.empty(len(t.leaf_hyps))
        spread_values(t.leaf_states, self.leaf_group, outputs, player, values)
        return values

    def solve(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Run the CFR iterations; the played strategy (average, mixed with epsilon).

        With ``sample_iteration`` and a generator, one iteration's strategy
        (drawn uniformly) becomes ``belief_strategy``: it plays the trajectory
        and gives the next root's beliefs.
        """
        st = self.settings
        keep = 0
        if st.sample_iteration and rng is not None:
            keep = int(rng.integers(1, st.iterations + 1))
        self.solver.run(st.iterations, self.leaf_values, st.leaf_average, keep)
        avg = self.solver.average_strategy()
        base = self.solver.kept.copy() if keep else avg
        eps = st.epsilon
        if eps > 0.0:
            uniform = normalize(np.ones_like(avg), self.tree.slot_action_start)
            explored = (1.0 - eps) * base + eps * uniform
            if st.explore_beliefs:
                avg = (1.0 - eps) * avg + eps * uniform
                base = explored
            else:
                self.explore_strategy = explored
        self.strategy = avg
        self.belief_strategy = base if keep else None
        return avg

    def solve_sampled(self, rng: np.random.Generator, perspective: int | None = None) -> int:
        """Stop CFR at an iteration drawn with the average's weight and play its strategy; which one.

        ReBeL's rule for play (Brown et al. 2020, section 6): the iteration's
        strategy is the one whose beliefs the leaves were valued at, so the next
        subgame, rooted at its beliefs, continues it as the leaf values assumed;
        over the draws the subgame is played as the average (each iteration
        drawn with its weight in it, :meth:`.VectorCFR.average_weight`).
        Epsilon is not mixed in. ``perspective``: the whole profile of that
        player's pass at the iteration (the beliefs its leaf values were
        computed at, under alternating updates), else each player's strategy
        of its own pass.
        """
        st = self.settings
        weights = np.array([self.solver.average_weight(k) for k in range(1, st.iterations + 1)])
        stop = int(rng.choice(st.iterations, p=weights / weights.sum())) + 1
        self.solver.run(stop, self.leaf_values, st.leaf_average, stop, perspective)
        self.strategy = self.solver.kept.copy()
        self.belief_strategy = None
        self.explore_strategy = None
        return stop

    def _reach(self, strategy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return reaches(self.tree, strategy, prior=self.columns)

    def seat_values(self) -> np.ndarray:
        """Seat-0 value of every hypothesis in each player's pass under the solved strategy."""
        if self.strategy is None:
            raise RuntimeError("solve() first")
        t = self.tree
        reach, own = self._reach(self.strategy)
        out = np.empty((t.num_hyps, 2))
        for p in range(2):
            hv = t.hyp_value.copy()
            if len(t.leaf_hyps):
                hv[t.leaf_hyps] = self.leaf_values(reach, own, self.strategy, p)
            out[:, p] = values_under(t, self.strategy, hv, reach, own)
        return out

    def root_example(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(features, per-hand targets, mask) at the root, or None if it is not a turn start."""
        root = self.root
        if int(root.states[0, S_STAGE]) != Stage.ACTION:
            return None
        n = len(root)
        feats = np.empty((1, NUM_FEATURES), dtype=np.float32)
        group_features(root.states, root.weights, np.zeros(n, np.int64), 1, feats, self.turn_scale)
        targets = np.empty(NUM_OUTPUTS)
        mask = np.empty(NUM_OUTPUTS)
        if self.columns is None:  # each player's hands weighted by the belief
            weights = np.column_stack([root.weights, root.weights])
        else:  # by the player's counterfactual reach: every hand its own play could still hold
            weights = np.ascontiguousarray(self.columns[:, :2])
        hand_targets(root.states, weights, self.seat_values()[:n], targets, mask)
        return feats[0], targets.astype(np.float32), mask.astype(np.float32)

    def policy_examples(
        self,
        num_actions: int,
        min_reach: float = 1e-4,
        slot_features: np.ndarray | None = None,
        own_reach: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Decision examples of the solved strategy, weighted by joint or the actor's own reach.

        See policy_net.decision_examples; ``slot_features`` replaces the
        features read under the solved strategy's beliefs.
        """
        from complots_solver.solvers.belief.policy_net import decision_examples

        if self.strategy is None:
            raise RuntimeError("solve() first")
        reach, own = self._reach(self.strategy)
        t = self.tree
        return decision_examples(
            t,
            self.strategy,
            reach[:, t.players],
            self.root.states,
            self.root.knows,
            self.cfg,
            num_actions,
            min_reach,
            own=own if own_reach else None,
            slot_features=slot_features,
        )

    def next_root(self, leaf_hyp: int) -> tuple[Hypotheses, int]:
        """The belief at the leaf node of ``leaf_hyp`` under the solved strategy, and its row there."""
        root, row, _ = self.next_root_columns(leaf_hyp, counterfactual=False)
        return root, row

    def next_root_columns(
        self, leaf_hyp: int, counterfactual: bool = True
    ) -> tuple[Hypotheses, int, np.ndarray]:
        """:meth:`next_root`, and its rows' reach columns (see ``columns``), in the belief's scale.

        With ``counterfactual``, rows whose joint reach is pruned stay while a
        player's counterfactual reach keeps them (a hand that player's own play
        gives no weight).
        """
        if self.strategy is None:
            raise RuntimeError("solve() first")
        t = self.tree
        if int(t.hyp_player[leaf_hyp]) != LEAF:
            raise ValueError(f"leaf_hyp: {leaf_hyp} is not a depth-limit leaf")
        beliefs = self.strategy if self.belief_strategy is None else self.belief_strategy
        reach, _ = self._reach(beliefs)
        node = int(np.searchsorted(t.node_hyp_start, leaf_hyp, side="right") - 1)
        h0, h1 = int(t.node_hyp_start[node]), int(t.node_hyp_start[node + 1])
        columns = reach[h0:h1].copy()
        weights = columns[:, t.players]
        total = weights.sum()
        if total <= 0.0:  # a move the strategy never makes: chance odds alone
            columns[:] = 1.0
            total = float(h1 - h0)
        keep = weights > self.settings.prune * total
        if counterfactual:
            for p in range(t.players):
                keep |= columns[:, p] > self.settings.prune * columns[:, p].sum()
        keep[leaf_hyp - h0] = True
        rows = np.flatnonzero(keep)
        pos = np.searchsorted(t.leaf_hyps, np.arange(h0, h1)[rows])
        scale = weights[rows].sum()
        root = Hypotheses(
            t.leaf_states[pos].copy(),
            t.hyp_x[h0:h1][rows].copy(),
            t.leaf_knows[pos].copy(),
            weights[rows] / scale,
        )
        return root, int(np.flatnonzero(rows == leaf_hyp - h0)[0]), columns[rows] / scale

    def sample_path(self, start: int, rng: np.random.Generator) -> int:
        """Play from root row ``start`` to a leaf or terminal: chance by its odds, players by the strategy.

        The players follow the exploring strategy when epsilon explores the
        trajectory only (``explore_beliefs`` off).
        """
        if self.strategy is None:
            raise RuntimeError("solve() first")
        played = self.explore_strategy
        if played is None:
            played = self.strategy if self.belief_strategy is None else self.belief_strategy
        t = self.tree
        h = start
        while True:
            actor = int(t.hyp_player[h])
            if actor in (TERMINAL, LEAF):
                return h
            e0, e1 = int(t.hyp_edge_start[h]), int(t.hyp_edge_start[h + 1])
            if actor == CHANCE:
                probs = t.edge_prob[e0:e1]
            else:
                base = int(t.slot_action_start[t.hyp_slot[h]])
                probs = played[base : base + (e1 - e0)]
            k = int(rng.choice(e1 - e0, p=probs / probs.sum()))
            h = int(t.edge_child[e0 + k])


def safe_subgame(
    cfg: np.ndarray,
    hyps: Hypotheses,
    joint: np.ndarray,
    net: ValueNet | None,
    settings: SearchSettings,
    player: int,
    promised: np.ndarray | None = None,
    make: Callable[[Hypotheses], Subgame] | None = None,
) -> Subgame:
    """``player``'s safe re-solve at a turn start, solved.

    ``hyps.weights`` are the opponent's counterfactual reach there (``player``'s
    and chance's, normalised; uniform if zero) and ``joint`` the joint reach,
    the belief the value network reads. The opponent's promised value in each
    private state is its counterfactual value: from ``promised`` (seat-0 value
    of each row for the opponent, e.g. its best response to a written
    continuation) if given, else from the value network at the joint belief,
    as the earlier subgame's leaf valued it. ``make``: builds the subgame from
    its root (with leaves of its own, e.g. a :class:`.continuation.ChoiceSubgame`)
    instead of a network's.
    """
    opp = 1 - player
    base = np.asarray(hyps.weights, dtype=np.float64)
    base = base / base.sum() if base.sum() > 0.0 else np.full(len(base), 1.0 / len(base))
    n = len(base)
    if promised is None:
        promised = np.zeros(n)
        if net is not None:
            weights = joint if joint.sum() > 0.0 else base
            feats = np.empty((1, NUM_FEATURES), dtype=np.float32)
            group = np.zeros(n, np.int64)
            group_features(hyps.states, weights, group, 1, feats, turn_scale(cfg))
            spread_values(hyps.states, group, net.forward(feats), opp, promised)
    sign = 1.0 if opp == 0 else -1.0
    _, index = np.unique(hyps.xs[:, opp], return_inverse=True)
    terminate = np.bincount(index, weights=base * sign * promised)
    root = Hypotheses(hyps.states, hyps.xs, hyps.knows, base)
    sub = Subgame(cfg, root, net, settings) if make is None else make(root)
    sub.set_gadget(opp, terminate)
    sub.solve()
    return sub


def self_play_game(
    cfg: np.ndarray,
    net: ValueNet | None,
    settings: SearchSettings,
    rng: np.random.Generator,
    outcome_weight: float = 0.0,
    policy_actions: int = 0,
    policy_out: list | None = None,
    own_reach: bool = False,
    counterfactual: bool = False,
) -> tuple[list, float, int]:
    """One self-play game by subgame solving: (root examples, seat-0 result, turns).

    ``outcome_weight`` blends the game's result into the targets of the two
    hands actually held at each root (a Monte Carlo return that carries the
    end of the game back faster than one turn per round of training).
    With ``policy_actions`` > 0, each solved subgame's decision examples are
    appended to ``policy_out``. With ``counterfactual``, each root carries the
    players' counterfactual reaches, and each player's targets cover every hand
    the opponent's and chance's reach allows, weighted so (a search asks the
    network about hands its own current play gives no weight); otherwise only
    the hands the belief holds, weighted by it.
    """
    root = Hypotheses.initial(cfg)
    columns = None
    row = 0
    examples = []
    truth = []
    turns = 0
    while True:
        sub = Subgame(cfg, root, net, settings, columns)
        sub.solve(rng)
        if policy_actions > 0 and policy_out is not None:
            policy_out.append(sub.policy_examples(policy_actions, own_reach=own_reach))
        example = sub.root_example()
        if example is not None:
            s = root.states[row]
            me = int(s[S_CUR])
            examples.append(example)
            truth.append((me, hand_index(s, me), hand_index(s, 1 - me)))
        h = sub.sample_path(row, rng)
        turns += 1
        if int(sub.tree.hyp_player[h]) == TERMINAL:
            result = float(sub.tree.hyp_value[h])
            if outcome_weight > 0.0:
                lam = outcome_weight
                for (_, targets, mask), (me, hm, ho) in zip(examples, truth, strict=True):
                    u_me = result if me == 0 else -result
                    if hm >= 0 and mask[hm] > 0:
                        targets[hm] = (1.0 - lam) * targets[hm] + lam * u_me
                    j = NUM_MULTISETS + ho
                    if ho >= 0 and mask[j] > 0:
                        targets[j] = (1.0 - lam) * targets[j] - lam * u_me
            return examples, result, turns
        root, row, cols = sub.next_root_columns(h, counterfactual)
        columns = cols if counterfactual else None
