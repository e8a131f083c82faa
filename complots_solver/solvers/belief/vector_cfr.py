"""Vector-form CFR and exact best response on a :class:`PublicTree`.

One forward pass computes, for every hypothesis, each player's
counterfactual reach (everybody's probability but the player's own, times
chance and the root prior) and own reach; one backward pass computes seat
0's value of every hypothesis and adds regrets to the updating player's
slots. Every hypothesis of a public node is handled in the same pass, so a
private state is never sampled: this is CFR over the whole public tree with
all private states at once (Johanson et al. 2012's vector form, on
hypotheses instead of independent private hands, since Court cards and
picks tie the players' private states together).

Regret matching+ with alternating updates and linear averaging (CFR+) by
default; ``plus=False`` gives vanilla regret matching with uniform averaging;
``rule`` picks another: predictive CFR+ (Farina, Kroer and Sandholm 2021:
each strategy from the regrets plus the last iteration's, quadratic
averaging) or discounted CFR (Brown and Sandholm 2019, alpha 1.5, beta 0,
gamma 2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.solvers.belief.public_tree import PublicTree
from complots_solver.solvers.knowledge.hypotheses import CHANCE

_TERMINAL = -4
_LEAF = -5


@njit(cache=True)
def regret_matching(regrets, slot_action_start, out):
    """Current strategy of every slot from its cumulative regrets."""
    for s in range(slot_action_start.shape[0] - 1):
        a0 = slot_action_start[s]
        a1 = slot_action_start[s + 1]
        total = 0.0
        for i in range(a0, a1):
            if regrets[i] > 0.0:
                total += regrets[i]
        if total > 0.0:
            for i in range(a0, a1):
                out[i] = regrets[i] / total if regrets[i] > 0.0 else 0.0
        else:
            u = 1.0 / (a1 - a0)
            for i in range(a0, a1):
                out[i] = u


@njit(cache=True)
def forward(
    hyp_player,
    hyp_slot,
    edge_start,
    edge_child,
    edge_prob,
    slot_action_start,
    strategy,
    prior,
    players,
    reach,
    own,
):
    """reach[h, p]: counterfactual reach of p at h; own[h, p]: p's own reach.

    ``reach[h, players]`` is the joint reach (everybody's, chance and prior):
    the unnormalised belief over the hypotheses of a public node.
    ``prior[r, c]`` is the root row r's starting value of column c (the same in
    every column, except under a re-solving gadget).
    """
    n = hyp_player.shape[0]
    for h in range(n):
        for p in range(players + 1):
            reach[h, p] = 0.0
        for p in range(players):
            own[h, p] = 0.0
    for h in range(prior.shape[0]):
        for p in range(players + 1):
            reach[h, p] = prior[h, p]
        for p in range(players):
            own[h, p] = 1.0
    for h in range(n):
        actor = hyp_player[h]
        if actor == _TERMINAL or actor == _LEAF:
            continue
        e0 = edge_start[h]
        e1 = edge_start[h + 1]
        if actor == CHANCE:
            for e in range(e0, e1):
                c = edge_child[e]
                pr = edge_prob[e]
                reach[c, players] += reach[h, players] * pr
                for p in range(players):
                    reach[c, p] += reach[h, p] * pr
                    if own[h, p] > own[c, p]:
                        own[c, p] = own[h, p]
        else:
            base = slot_action_start[hyp_slot[h]]
            for e in range(e0, e1):
                c = edge_child[e]
                sigma = strategy[base + e - e0]
                reach[c, players] += reach[h, players] * sigma
                for p in range(players):
                    if p == actor:
                        reach[c, p] += reach[h, p]
                        o = own[h, p] * sigma
                    else:
                        reach[c, p] += reach[h, p] * sigma
                        o = own[h, p]
                    if o > own[c, p]:
                        own[c, p] = o


@njit(cache=True)
def backward(
    hyp_player,
    hyp_slot,
    edge_start,
    edge_child,
    edge_prob,
    slot_action_start,
    strategy,
    hyp_value,
    reach,
    own,
    update,
    regrets,
    strat_sum,
    weight,
    values,
):
    """Seat-0 values of every hypothesis; regrets and averages of ``update``'s slots (-1: both)."""
    n = hyp_player.shape[0]
    for h in range(n - 1, -1, -1):
        actor = hyp_player[h]
        if actor == _TERMINAL or actor == _LEAF:
            values[h] = hyp_value[h]
            continue
        e0 = edge_start[h]
        e1 = edge_start[h + 1]
        v = 0.0
        if actor == CHANCE:
            for e in range(e0, e1):
                v += edge_prob[e] * values[edge_child[e]]
            values[h] = v
            continue
        base = slot_action_start[hyp_slot[h]]
        for e in range(e0, e1):
            v += strategy[base + e - e0] * values[edge_child[e]]
        values[h] = v
        if update == -1 or actor == update:
            sign = 1.0 if actor == 0 else -1.0
            q = reach[h, actor]
            w = weight * own[h, actor]
            for e in range(e0, e1):
                i = base + e - e0
                regrets[i] += q * sign * (values[edge_child[e]] - v)
                strat_sum[i] += w * strategy[i]


@njit(cache=True)
def floor_regrets(regrets, slot_player, slot_action_start, player):
    """Regret matching+: cumulative regrets of ``player``'s slots floored at zero."""
    for s in range(slot_player.shape[0]):
        if slot_player[s] != player:
            continue
        for i in range(slot_action_start[s], slot_action_start[s + 1]):
            if regrets[i] < 0.0:
                regrets[i] = 0.0


@njit(cache=True)
def best_response_values(
    node_player,
    node_hyp_start,
    hyp_slot,
    edge_start,
    edge_child,
    edge_prob,
    slot_action_start,
    strategy,
    hyp_value,
    reach,
    br,
    values,
    slot_value,
    choice,
):
    """Seat-0 values when ``br`` best-responds to ``strategy`` (``reach`` computed for br)."""
    sign = 1.0 if br == 0 else -1.0
    for node in range(node_player.shape[0] - 1, -1, -1):
        actor = node_player[node]
        h0 = node_hyp_start[node]
        h1 = node_hyp_start[node + 1]
        if actor == _TERMINAL or actor == _LEAF:
            for h in range(h0, h1):
                values[h] = hyp_value[h]
            continue
        if actor == CHANCE:
            for h in range(h0, h1):
                v = 0.0
                for e in range(edge_start[h], edge_start[h + 1]):
                    v += edge_prob[e] * values[edge_child[e]]
                values[h] = v
            continue
        if actor != br:
            for h in range(h0, h1):
                base = slot_action_start[hyp_slot[h]]
                v = 0.0
                for e in range(edge_start[h], edge_start[h + 1]):
                    v += strategy[base + e - edge_start[h]] * values[edge_child[e]]
                values[h] = v
            continue
        for h in range(h0, h1):
            base = slot_action_start[hyp_slot[h]]
            for e in range(edge_start[h], edge_start[h + 1]):
                slot_value[base + e - edge_start[h]] = 0.0
        for h in range(h0, h1):
            base = slot_action_start[hyp_slot[h]]
            q = reach[h, br]
            for e in range(edge_start[h], edge_start[h + 1]):
                slot_value[base + e - edge_start[h]] += q * sign * values[edge_child[e]]
        for h in range(h0, h1):
            s = hyp_slot[h]
            best = slot_action_start[s]
            for i in range(slot_action_start[s], slot_action_start[s + 1]):
                if slot_value[i] > slot_value[best] + 1e-15:
                    best = i
            choice[s] = best - slot_action_start[s]
            values[h] = values[edge_child[edge_start[h] + best - slot_action_start[s]]]


CFR_RULES = ("cfr+", "pcfr+", "dcfr")


class VectorCFR:
    """CFR+ (vanilla CFR, or another regret rule) over a public tree, with optional leaf values."""

    def __init__(self, tree: PublicTree, plus: bool = True, rule: str = "cfr+") -> None:
        if rule not in CFR_RULES:
            raise ValueError(f"rule must be one of {', '.join(CFR_RULES)}, got {rule!r}")
        if rule != "cfr+" and not plus:
            raise ValueError("rule: plus=False is vanilla CFR; pick one or the other")
        self.tree = tree
        self.plus = plus
        self.rule = rule
        slots = int(tree.slot_action_start[-1])
        self.regrets = np.zeros(slots)
        self.strat_sum = np.zeros(slots)
        self.strategy = np.empty(slots)
        self.iteration = 0
        self._reach = np.empty((tree.num_hyps, tree.players + 1))
        self._own = np.empty((tree.num_hyps, tree.players))
        self._values = np.empty(tree.num_hyps)
        self.hyp_value = tree.hyp_value.copy()
        self.kept = np.zeros(slots)  # one iteration's strategy, see run(keep=...)
        self._last = np.zeros(slots)  # pcfr+'s prediction: the last iteration's regrets
        self._prior = _columns(tree.prior, tree.players)
        self.gadget: Gadget | None = None
        # each player's leaf values over the iterations, weighted by its counterfactual reach
        # and the average's iteration weight (see leaf_promise)
        self._leaf_num = np.zeros((tree.players, len(tree.leaf_hyps)))
        self._leaf_weight = np.zeros(tree.players)
        regret_matching(self.regrets, tree.slot_action_start, self.strategy)

    def set_gadget(self, opponent: int, opponent_x: np.ndarray, terminate: np.ndarray) -> None:
        """Re-solve safely (Burch et al. 2014): ``opponent`` may take ``terminate`` instead of playing.

        The tree's prior must then be the re-solving player's and chance's reach
        only (the opponent's counterfactual reach). ``opponent_x[r]`` is the
        opponent's private state at root row r and ``terminate[k]`` the
        counterfactual value it was promised in private state k (numbered as
        ``np.unique(opponent_x)``), in the prior's units, for the opponent.
        """
        ids, index = np.unique(opponent_x, return_inverse=True)
        if len(terminate) != len(ids):
            raise ValueError(f"terminate: {len(ids)} values needed, got {len(terminate)}")
        self.gadget = Gadget(opponent, index.astype(np.int64), np.asarray(terminate, float))

    def set_prior(self, columns: np.ndarray) -> None:
        """Root rows' starting reach per column (each player's counterfactual, then the joint)."""
        if columns.shape != self._prior.shape:
            raise ValueError(f"columns: shape {self._prior.shape} needed, got {columns.shape}")
        self._prior = np.ascontiguousarray(columns, dtype=np.float64)

    def _forward(self, strategy: np.ndarray) -> None:
        forward_tree(self.tree, strategy, self._prior, self._reach, self._own)

    def run(
        self,
        iterations: int,
        leaf_values: object | None = None,
        leaf_average: bool = False,
        keep: int = 0,
        keep_pass: int | None = None,
    ) -> None:
        """Run ``iterations`` alternating iterations.

        ``leaf_values(reach, own, strategy, player)`` returns the seat-0 values
        of the leaf hypotheses for ``player``'s regret pass. With
        ``leaf_average`` the reaches it is given are those of the average
        strategy so far (CFR-AVG, Brown et al. 2020, appendix), so that the
        leaf beliefs are those of the strategy that is played. ``keep`` > 0
        stores the strategy each player used at that iteration in ``kept``;
        with ``keep_pass`` the whole profile of that player's pass instead
        (under alternating updates the passes' profiles differ: the later
        player's pass sees the earlier one's next strategy).
        """
        t = self.tree
        owner = action_owner(t)
        predictive = self.rule == "pcfr+"
        if leaf_average:
            avg_reach = np.empty_like(self._reach)
            avg_own = np.empty_like(self._own)
            leaf_before: list[np.ndarray | None] = [None] * t.players
        for done in range(iterations):
            self.iteration += 1
            # discounted CFR weighs the average by discounting its sum instead (below)
            weight = 1.0 if self.rule == "dcfr" else self.average_weight(self.iteration)
            for player in range(t.players):
                self._match()
                if self.gadget is not None:
                    self.gadget.enter(t.prior, self._prior)
                if self.iteration == keep and keep_pass is None:
                    mine = owner == player
                    self.kept[mine] = self.strategy[mine]
                elif self.iteration == keep and keep_pass == player:
                    self.kept[:] = self.strategy
                self._forward(self.strategy)
                if leaf_values is not None and len(t.leaf_hyps):
                    if leaf_average:
                        avg = self.strategy if self.iteration == 1 else self.average_strategy()
                        forward_tree(t, avg, self._prior, avg_reach, avg_own)
                        now = leaf_values(avg_reach, avg_own, avg, player)
                        # telescoped so that the sum of the leaf values over the iterations,
                        # which the regrets add up, is the count times the average's values
                        before = leaf_before[player]
                        leaf = now if before is None else (done + 1.0) * now - done * before
                        leaf_before[player] = now
                        self.hyp_value[t.leaf_hyps] = leaf
                    else:
                        self.hyp_value[t.leaf_hyps] = leaf_values(
                            self._reach, self._own, self.strategy, player
                        )
                    drawn = self.average_weight(self.iteration)
                    q = drawn * self._reach[t.leaf_hyps, player]
                    self._leaf_num[player] += q * self.hyp_value[t.leaf_hyps]
                    self._leaf_weight[player] += drawn
                if predictive:
                    start = self.regrets.copy()
                backward(
                    *topology(t),
                    self.strategy,
                    self.hyp_value,
                    self._reach,
                    self._own,
                    player,
                    self.regrets,
                    self.strat_sum,
                    weight,
                    self._values,
                )
                if predictive:
                    mine = owner == player
                    self._last[mine] = self.regrets[mine] - start[mine]
                if self.rule == "dcfr":
                    mine = owner == player
                    k = float(self.iteration)
                    r = self.regrets[mine]
                    self.regrets[mine] = np.where(r > 0.0, r * k**1.5 / (k**1.5 + 1.0), r * 0.5)
                    self.strat_sum[mine] *= (k / (k + 1.0)) ** 2
                elif self.plus:
                    floor_regrets(self.regrets, t.slot_player, t.slot_action_start, player)
                if self.gadget is not None and player == self.gadget.opponent:
                    self.gadget.update(t.prior, self._values[: len(t.prior)], self.plus)
        self._match()

    def average_weight(self, iteration: int) -> float:
        """The weight of ``iteration`` (from 1) in the average strategy, up to a common factor."""
        if not self.plus:
            return 1.0
        # discounted CFR's (t / (t + 1))^2 discounts telescope to t^2 / (T + 1)^2
        return float(iteration) if self.rule == "cfr+" else float(iteration) ** 2

    def _match(self) -> None:
        regrets = self.regrets + self._last if self.rule == "pcfr+" else self.regrets
        regret_matching(regrets, self.tree.slot_action_start, self.strategy)

    def leaf_promise(self, player: int) -> np.ndarray:
        """Seat-0 value of each leaf hypothesis for ``player``, as the iterations promised it.

        Scaled so that, weighted by ``player``'s counterfactual reach under the
        average strategy, it sums to ``player``'s counterfactual values of its
        passes averaged over the iterations (with the average's iteration
        weights): what the solve promised each private state at that leaf
        (DeepStack's re-solving constraint), not the value at the average's
        belief. For the player updated first it is the reach-weighted mean of
        its passes' values (the average's reach is the iterations' mean there);
        alternating updates shift the other's by one iteration. NaN where the
        average does not reach.
        """
        t = self.tree
        total = self._leaf_weight[player]
        if total <= 0.0:
            return np.full(len(t.leaf_hyps), np.nan)
        avg_reach, _ = reaches(t, self.average_strategy(), prior=self._prior)
        q = avg_reach[t.leaf_hyps, player]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(q > 0.0, self._leaf_num[player] / total / q, np.nan)

    def average_strategy(self) -> np.ndarray:
        """Average strategy per slot action (uniform where a slot was never reached)."""
        return normalize(self.strat_sum, self.tree.slot_action_start)


def _columns(prior: np.ndarray, players: int) -> np.ndarray:
    return np.repeat(prior[:, None], players + 1, axis=1)


def topology(tree: PublicTree) -> tuple[np.ndarray, ...]:
    """The tree arrays :func:`forward` and :func:`backward` take first, in their order."""
    return (
        tree.hyp_player,
        tree.hyp_slot,
        tree.hyp_edge_start,
        tree.edge_child,
        tree.edge_prob,
        tree.slot_action_start,
    )


def action_owner(tree: PublicTree) -> np.ndarray:
    """The player of each slot action (a strategy array's entries)."""
    return np.repeat(tree.slot_player, np.diff(tree.slot_action_start))


def forward_tree(
    tree: PublicTree,
    strategy: np.ndarray,
    prior: np.ndarray,
    reach: np.ndarray,
    own: np.ndarray,
) -> None:
    """:func:`forward` on ``tree`` into ``reach`` and ``own``, from root columns ``prior``."""
    forward(
        *topology(tree),
        strategy,
        prior,
        tree.players,
        reach,
        own,
    )


class Gadget:
    """The opponent's choice at a re-solved root: follow into the subgame or take its promised value."""

    def __init__(self, opponent: int, index: np.ndarray, terminate: np.ndarray) -> None:
        self.opponent = opponent
        self.index = index  # root row -> opponent private state
        self.terminate = terminate
        self.regrets = np.zeros((len(terminate), 2))  # follow, terminate
        self.follow = np.ones(len(terminate))

    def enter(self, base: np.ndarray, prior: np.ndarray) -> None:
        """Regret matching on follow / terminate; the root's reach columns under it."""
        pos = np.maximum(self.regrets, 0.0)
        total = pos.sum(axis=1)
        self.follow = np.where(total > 0.0, pos[:, 0] / np.where(total > 0, total, 1.0), 1.0)
        scaled = base * self.follow[self.index]
        prior[:, :] = scaled[:, None]
        prior[:, self.opponent] = base  # its counterfactual reach leaves out its own choice

    def update(self, base: np.ndarray, root_values: np.ndarray, plus: bool) -> None:
        """Add the opponent's regrets of following against terminating, from seat-0 root values."""
        sign = 1.0 if self.opponent == 0 else -1.0
        cfv = np.bincount(
            self.index, weights=base * sign * root_values, minlength=len(self.terminate)
        )
        v = self.follow * cfv + (1.0 - self.follow) * self.terminate
        self.regrets[:, 0] += cfv - v
        self.regrets[:, 1] += self.terminate - v
        if plus:
            np.maximum(self.regrets, 0.0, out=self.regrets)


@njit(cache=True)
def _normalize(weights, slot_action_start, out):
    for s in range(slot_action_start.shape[0] - 1):
        a0 = slot_action_start[s]
        a1 = slot_action_start[s + 1]
        total = 0.0
        for i in range(a0, a1):
            total += weights[i]
        for i in range(a0, a1):
            out[i] = weights[i] / total if total > 0.0 else 1.0 / (a1 - a0)


def normalize(weights: np.ndarray, slot_action_start: np.ndarray) -> np.ndarray:
    """Per-slot normalisation of action weights (uniform where they sum to zero)."""
    out = np.empty_like(weights)
    _normalize(weights, slot_action_start, out)
    return out


def reaches(
    tree: PublicTree, strategy: np.ndarray, prior: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Counterfactual and joint reach (``[H, players + 1]``) and own reach of every hypothesis.

    ``prior``: the root rows' starting value per column (default: the tree's prior in all).
    """
    reach = np.empty((tree.num_hyps, tree.players + 1))
    own = np.empty((tree.num_hyps, tree.players))
    columns = _columns(tree.prior, tree.players) if prior is None else prior
    forward_tree(tree, strategy, columns, reach, own)
    return reach, own


def values_under(
    tree: PublicTree,
    strategy: np.ndarray,
    hyp_value: np.ndarray,
    reach: np.ndarray,
    own: np.ndarray,
) -> np.ndarray:
    """Seat-0 value of every hypothesis under ``strategy``, given the terminal and leaf values."""
    values = np.empty(tree.num_hyps)
    dummy = np.zeros(len(strategy))
    backward(
        *topology(tree),
        strategy,
        hyp_value,
        reach,
        own,
        -2,
        dummy,
        dummy,
        0.0,
        values,
    )
    return values


def profile_values(
    tree: PublicTree, strategy: np.ndarray, hyp_value: np.ndarray | None = None
) -> np.ndarray:
    """Seat-0 value of every hypothesis under ``strategy``."""
    reach, own = reaches(tree, strategy)
    hv = tree.hyp_value if hyp_value is None else hyp_value
    return values_under(tree, strategy, hv, reach, own)


def best_response_hyp_values(
    tree: PublicTree, strategy: np.ndarray, br: int, hyp_value: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Seat-0 value of every hypothesis when ``br`` best-responds to ``strategy``; its choices."""
    reach, _ = reaches(tree, strategy)
    values = np.empty(tree.num_hyps)
    slot_value = np.empty(len(strategy))
    choice = np.full(tree.num_slots, -1, dtype=np.int64)
    hv = tree.hyp_value if hyp_value is None else hyp_value
    best_response_values(
        tree.node_player,
        tree.node_hyp_start,
        tree.hyp_slot,
        tree.hyp_edge_start,
        tree.edge_child,
        tree.edge_prob,
        tree.slot_action_start,
        strategy,
        hv,
        reach,
        br,
        values,
        slot_value,
        choice,
    )
    return values, choice


def best_response(
    tree: PublicTree, strategy: np.ndarray, br: int, hyp_value: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Value for ``br`` of its best response to ``strategy``, and its choice per slot."""
    values, choice = best_response_hyp_values(tree, strategy, br, hyp_value)
    root = len(tree.prior)
    sign = 1.0 if br == 0 else -1.0
    return float(sign * np.dot(tree.prior, values[:root])), choice


def exploitability(tree: PublicTree, strategy: np.ndarray) -> float:
    """NashConv / 2 of ``strategy`` on the tree (exact for a whole-game, perfect-recall tree)."""
    if tree.players != 2:
        raise ValueError("players: exploitability is defined here for 2 players")
    return 0.5 * (best_response(tree, strategy, 0)[0] + best_response(tree, strategy, 1)[0])
