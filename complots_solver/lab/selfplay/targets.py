"""Which targets a table network can learn from: update rules and weights measured exactly.

Section 18 of docs/lab/2026-full-game-journal.md found that the network and its
features are good enough on ladder-3 and the training is not. A method that
scales to the full game sees the game only at sampled information sets, and
there it can estimate, by rolling the strategy out from the true state,
the **value of each action** (the expected return of taking it, given the
set: a ``Q`` value, normalised by how likely the set is). What it cannot
see is the counterfactual weight CFR gives each set (the opponent's and
chance's reach alone), and merged sets are pooled by how often the
sampling reaches them (their whole reach, the seat's own moves included).

This module runs those updates with **exact** values on a ladder tree,
over the groups a table network sees (:mod:`.floor`), so that each
ingredient is measured without sampling noise:

- ``rule``: regret matching+ on cumulative regrets, or Hedge (the policy's
  logits accumulate the values: the state a policy network holds);
- ``normalise``: each group's values divided by its reach (what rollouts
  estimate) or left weighted (CFR's counterfactual values);
- ``pooling``: merged sets weighted counterfactually (chance and the
  opponent only, CFR over an abstraction) or by their whole reach with the
  seat's own moves drawn from the strategy mixed with ``explore`` uniform
  play (what a sampler exploring that much produces);

updates are simultaneous (a sampler improves both seats from the same
games) and the average is linear (iteration ``t`` weighs ``t``), reach
weighted on the tree. :class:`RegretNetIteration` puts a table network in the
loop: it holds the cumulative regrets, refitted each iteration to the
exact update of its own prediction on groups drawn as a sampler would
draw them.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numba import njit

from complots_solver.lab.selfplay.floor import FeatureAbstraction
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.cfr import slot_base
from complots_solver.solvers.exact.tree import NO_PLAYER, Tree, with_terminals_last
from complots_solver.solvers.nets.tablenet import TableNet, regret_loss
from complots_solver.solvers.nets.valuenet import Adam
from complots_solver.solvers.selfplay.exact import own_reach

ROWS = 65536  # network rows evaluated at once


class Rule(StrEnum):
    """How a group's strategy follows from the values it has seen."""

    RM_PLUS = "rm+"
    RM = "rm"  # regret matching without clipping the cumulative regrets (a sampler's average)
    LINEAR_RM = "linear-rm"  # the same with iteration t's regrets weighing t (a sampler's buffer)
    HEDGE = "hedge"


class Pooling(StrEnum):
    """How the information sets merged in one group are weighted."""

    COUNTERFACTUAL = "counterfactual"  # chance and the opponent only (CFR)
    ON_POLICY = "on-policy"  # whole reach, own moves explored (a sampler)


# reach columns: each seat's own moves under the strategy, each seat's own moves explored, chance
_OWN, _EXPLORED, _CHANCE = 0, 2, 4


@njit(cache=True)
def _group_values(
    num_internal, player, base, child_offsets, children, chance_prob, slot_map, sigma,
    explore, counterfactual, reach, value, qnum, den,
):  # fmt: skip
    """Each abstract slot's summed weight times the mover's value of its action, and the weight.

    The weight of a decision node is chance's and the opponent's reach, times (unless
    ``counterfactual``) the mover's own reach with its moves mixed with ``explore`` uniform."""
    for k in range(5):
        reach[0, k] = 1.0
    for n in range(num_internal):
        actor = player[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        for e in range(e0, e1):
            c = children[e]
            for k in range(5):
                reach[c, k] = reach[n, k]
            if actor == NO_PLAYER:
                reach[c, _CHANCE] *= chance_prob[e]
            else:
                s = sigma[slot_map[base[n] + e]]
                reach[c, _OWN + actor] *= s
                reach[c, _EXPLORED + actor] *= (1.0 - explore) * s + explore / (e1 - e0)
    for n in range(num_internal - 1, -1, -1):
        actor = player[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        v = 0.0
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                v += chance_prob[e] * value[children[e]]
            value[n] = v
            continue
        w = reach[n, _CHANCE] * reach[n, _OWN + 1 - actor]
        if not counterfactual:
            w *= reach[n, _EXPLORED + actor]
        sign = 1.0 if actor == 0 else -1.0
        for e in range(e0, e1):
            s = slot_map[base[n] + e]
            v += sigma[s] * value[children[e]]
            qnum[s] += w * sign * value[children[e]]
            den[s] += w
        value[n] = v


@njit(cache=True)
def _update(offsets, sigma, qnum, den, normalise, hedge, plus, eta, weight, regret, out):
    """One group-wise update: regret matching (+ if ``plus``) on ``regret`` or Hedge from ``sigma``."""
    for g in range(offsets.shape[0] - 1):
        a, b = offsets[g], offsets[g + 1]
        d = den[a] if normalise else 1.0
        if d <= 0.0:  # no weight this iteration: nothing learnt
            for s in range(a, b):
                out[s] = sigma[s]
            continue
        v = 0.0
        for s in range(a, b):
            v += sigma[s] * qnum[s] / d
        if hedge:
            top = -np.inf
            for s in range(a, b):
                out[s] = np.log(max(sigma[s], 1e-300)) + eta * (qnum[s] / d - v)
                top = max(top, out[s])
            total = 0.0
            for s in range(a, b):
                out[s] = np.exp(out[s] - top)
                total += out[s]
            for s in range(a, b):
                out[s] /= total
            continue
        total = 0.0
        for s in range(a, b):
            regret[s] += weight * (qnum[s] / d - v)
            if plus:
                regret[s] = max(regret[s], 0.0)
            total += max(regret[s], 0.0)
        for s in range(a, b):
            out[s] = max(regret[s], 0.0) / total if total > 0.0 else 1.0 / (b - a)


class GroupIteration:
    """Simultaneous updates over a feature abstraction with exact values (see the module note)."""

    def __init__(
        self,
        tree: Tree,
        abstraction: FeatureAbstraction,
        rule: str = "rm+",
        normalise: bool = False,
        pooling: str = "counterfactual",
        explore: float = 0.0,
        eta: float = 1.0,
    ) -> None:
        """Ready to run from uniform play; ``explore`` and ``eta`` as the module note says."""
        if rule not in {r.value for r in Rule}:
            raise ValueError(f"rule: one of {', '.join(r.value for r in Rule)}, got {rule!r}")
        if pooling not in {p.value for p in Pooling}:
            allowed = ", ".join(p.value for p in Pooling)
            raise ValueError(f"pooling: one of {allowed}, got {pooling!r}")
        self.rule = Rule(rule)
        self.pooling = Pooling(pooling)
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore: a share in [0, 1], got {explore}")
        if not eta > 0.0:
            raise ValueError(f"eta: a positive step, got {eta}")
        self.normalise = bool(normalise)
        self.explore = float(explore)
        self.eta = float(eta)
        self.tree = tree
        self.abstraction = abstraction
        self._layout = with_terminals_last(tree)
        self._base = slot_base(self._layout)
        self._reach = np.zeros((tree.num_nodes, 5))
        self._value = self._layout.utility.copy()
        sizes = np.diff(abstraction.offsets)
        self.sigma = np.repeat(1.0 / sizes, sizes)  # per abstract slot
        self.regret = np.zeros(int(abstraction.offsets[-1]))
        self._avg_num = np.zeros(tree.num_slots)
        self._avg_den = np.zeros(tree.num_infosets)
        self._counts = np.diff(tree.action_offsets)
        self.iteration = 0

    def values(self, sigma: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per abstract slot: the pooled weight times the mover's value of the action, and the
        pooled weight (their ratio is the group's value of the action), under ``sigma``."""
        t = self._layout
        sigma = self.sigma if sigma is None else sigma
        qnum = np.zeros_like(self.sigma)
        den = np.zeros_like(self.sigma)
        _group_values(
            t.num_internal, t.player, self._base, t.child_offsets, t.children, t.chance_prob,
            self.abstraction.slot_map, sigma, self.explore,
            self.pooling is Pooling.COUNTERFACTUAL, self._reach, self._value, qnum, den,
        )  # fmt: skip
        return qnum, den

    def step(self, regret: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One update from the current strategy and the given cumulative regrets: the new
        strategy, the new regrets and the pooled weights (``regret`` is not changed)."""
        qnum, den = self.values()
        regret = regret.copy()
        out = np.empty_like(self.sigma)
        _update(
            self.abstraction.offsets, self.sigma, qnum, den, self.normalise,
            self.rule is Rule.HEDGE, self.rule is Rule.RM_PLUS, self.eta,
            float(self.iteration + 1) if self.rule is Rule.LINEAR_RM else 1.0, regret, out,
        )  # fmt: skip
        return out, regret, den

    def _add_average(self) -> None:
        strategy = self.current_strategy()
        weight = own_reach(self.tree, strategy) * float(self.iteration)
        self._avg_num += np.repeat(weight, self._counts) * strategy
        self._avg_den += weight

    def run(self, iterations: int) -> None:
        """``iterations`` more updates, each iterate added to the linear average."""
        for _ in range(iterations):
            self.sigma, self.regret, _ = self.step(self.regret)
            self.iteration += 1
            self._add_average()

    def current_strategy(self) -> np.ndarray:
        """The current strategy on the tree's slots."""
        return self.abstraction.expand(self.sigma)

    def average_strategy(self) -> np.ndarray:
        """The linear reach-weighted average of the iterates on the tree's slots."""
        den = np.repeat(self._avg_den, self._counts)
        current = self.current_strategy()
        return np.where(den > 0, self._avg_num / np.where(den > 0, den, 1.0), current)

    def exploitability(self) -> dict[str, float]:
        """Exact exploitability of the current strategy and of the average."""
        return {
            "current": float(tree_exploitability(self.tree, self.current_strategy())),
            "average": float(tree_exploitability(self.tree, self.average_strategy())),
        }


def slot_outputs(net: TableNet, abstraction: FeatureAbstraction) -> np.ndarray:
    """The network's action outputs on every abstract slot (its group's row, the slot's action)."""
    feats = abstraction.features
    rows, cols = np.nonzero(abstraction.legal > 0)  # abstract slots, in order
    out = np.empty(rows.shape[0])
    for i in range(0, feats.shape[0], ROWS):
        o = net.outputs(feats[i : i + ROWS])[:, :-1]
        sel = (rows >= i) & (rows < i + ROWS)
        out[sel] = o[rows[sel] - i, cols[sel]]
    return out


def regret_matching(regret: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per group, the positive regrets normalised (uniform where none is positive)."""
    positive = np.maximum(regret, 0.0)
    sizes = np.diff(offsets)
    total = np.repeat(np.add.reduceat(positive, offsets[:-1]), sizes)
    uniform = np.repeat(1.0 / sizes, sizes)
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)


class RegretNetIteration(GroupIteration):
    """:class:`GroupIteration` with regret matching+ whose cumulative regrets a table network holds.

    Each iteration the exact update of the network's own prediction (its outputs clipped at
    0, times the iteration: the network learns the regret per iteration, which stays bounded)
    is the target of ``steps`` Adam steps on minibatches of groups drawn by this iteration's
    pooled weight (``uniform_share`` uniformly), as a sampler would meet them."""

    def __init__(
        self,
        tree: Tree,
        abstraction: FeatureAbstraction,
        actions: int,
        normalise: bool = True,
        pooling: str = "on-policy",
        explore: float = 0.1,
        steps: int = 100,
        minibatch: int = 2048,
        lr: float = 1e-3,
        width: int = 256,
        uniform_share: float = 0.1,
        seed: int = 0,
    ) -> None:
        """Ready to run from uniform play with a fresh network."""
        if abstraction.features is None or abstraction.legal is None:
            raise ValueError("abstraction: built without keep_rows")
        if steps < 1 or minibatch < 1:
            raise ValueError(f"steps and minibatch: at least 1, got {steps} and {minibatch}")
        if not 0.0 <= uniform_share <= 1.0:
            raise ValueError(f"uniform_share: a share in [0, 1], got {uniform_share}")
        super().__init__(tree, abstraction, "rm+", normalise, pooling, explore)
        self.net = TableNet.create(abstraction.features.shape[1], actions, (width, width), seed)
        self._opt = Adam(self.net.net, lr=lr)
        self._rng = np.random.default_rng(seed)
        self._nz = np.nonzero(abstraction.legal > 0)  # abstract slots, in order
        self.steps, self.minibatch, self.uniform_share = steps, minibatch, uniform_share

    def predicted_regret(self) -> np.ndarray:
        """The network's cumulative regrets per abstract slot (outputs clipped at 0, times the
        iterations run)."""
        return np.maximum(slot_outputs(self.net, self.abstraction), 0.0) * float(self.iteration)

    def run(self, iterations: int) -> None:
        """``iterations`` more updates, each refitting the network to the regrets' update."""
        ab = self.abstraction
        for _ in range(iterations):
            _, regret, den = self.step(self.predicted_regret())
            self.iteration += 1
            target = np.zeros_like(ab.legal)
            target[self._nz] = regret / self.iteration
            weight = den[ab.offsets[:-1]]  # every slot of a group carries the group's weight
            p = (
                weight / weight.sum()
                if weight.sum() > 0
                else np.full(len(weight), 1.0 / len(weight))
            )
            p = (1.0 - self.uniform_share) * p + self.uniform_share / len(p)
            for _ in range(self.steps):
                idx = self._rng.choice(len(p), size=self.minibatch, p=p)
                acts, pre, out = self._opt.outputs(ab.features[idx])
                _, grad = regret_loss(out, ab.legal[idx], target[idx])
                self._opt.update(acts, pre, grad.astype(np.float32))
            self.sigma = regret_matching(self.predicted_regret(), ab.offsets)
            self._add_average()


@njit(cache=True)
def _pick(weights, lo, hi, u):
    """The index in [lo, hi) that ``u`` (uniform in [0, 1)) falls on under ``weights``."""
    total = 0.0
    for k in range(lo, hi):
        total += weights[k]
    acc = 0.0
    for k in range(lo, hi):
        acc += weights[k]
        if u * total < acc:
            return k
    return hi - 1


@njit(cache=True)
def _rollout(node, num_internal, player, base, child_offsets, children, chance_prob, slot_map,
             sigma, utility):  # fmt: skip
    """Player 0's return of one game played on from ``node`` by ``sigma`` and chance."""
    n = node
    while n < num_internal:
        e0, e1 = child_offsets[n], child_offsets[n + 1]
        u = np.random.random()
        if player[n] == NO_PLAYER:
            e = _pick(chance_prob, e0, e1, u)
        else:
            total = 0.0
            for e in range(e0, e1):
                total += sigma[slot_map[base[n] + e]]
            acc = 0.0
            e = e1 - 1
            for k in range(e0, e1):
                acc += sigma[slot_map[base[n] + k]]
                if u * total < acc:
                    e = k
                    break
        n = children[e]
    return utility[n]


@njit(cache=True)
def _sample(num_internal, player, infoset, group_of, offsets, base, child_offsets, children,
            chance_prob, slot_map, sigma, utility, traverser, explore, games, rollouts, seed,
            out_group, out_regret):  # fmt: skip
    """``games`` games with ``traverser`` exploring; at each of its decisions, each action's
    value by ``rollouts`` games played on from the true state, and the regrets against
    ``sigma``'s mix, per abstract slot of the group. Returns the number of samples written."""
    np.random.seed(seed)
    k = 0
    sign = 1.0 if traverser == 0 else -1.0
    values = np.zeros(out_regret.shape[1])
    for _ in range(games):
        n = 0
        while n < num_internal:
            e0, e1 = child_offsets[n], child_offsets[n + 1]
            actor = player[n]
            if actor == NO_PLAYER:
                n = children[_pick(chance_prob, e0, e1, np.random.random())]
                continue
            if actor == traverser and k < out_group.shape[0]:
                g = group_of[infoset[n]]
                mean = 0.0
                for e in range(e0, e1):
                    v = 0.0
                    for _r in range(rollouts):
                        v += _rollout(children[e], num_internal, player, base, child_offsets,
                                      children, chance_prob, slot_map, sigma, utility)  # fmt: skip
                    values[e - e0] = sign * v / rollouts
                    mean += sigma[slot_map[base[n] + e]] * values[e - e0]
                out_group[k] = g
                for j in range(out_regret.shape[1]):
                    out_regret[k, j] = 0.0
                for e in range(e0, e1):
                    out_regret[k, slot_map[base[n] + e] - offsets[g]] = values[e - e0] - mean
                k += 1
            u = np.random.random()
            total = 0.0
            for e in range(e0, e1):
                total += sigma[slot_map[base[n] + e]]
            acc = 0.0
            pick = e1 - 1
            for e in range(e0, e1):
                p = sigma[slot_map[base[n] + e]] / total
                if actor == traverser:
                    p = (1.0 - explore) * p + explore / (e1 - e0)
                acc += p
                if u < acc:
                    pick = e
                    break
            n = children[pick]
    return k


class SampledRegretNet(GroupIteration):
    """Regret matching whose mean regrets a table network holds, learnt from **sampled** games:
    what a method for the full game can do, run on a ladder tree so that it is measured exactly.

    Each iteration, per seat, ``games`` games with that seat exploring (``explore`` uniform);
    at each of its decisions every action is valued by ``rollouts`` games played on from the
    true state (no belief needed: the true state is drawn from it), and the regrets against
    the strategy's mix are the targets: the network's mean regret so far, moved by 1/t towards
    the sample, fitted by ``steps`` Adam steps on this iteration's samples. In expectation this
    is :class:`GroupIteration` with rule ``rm``, values per unit of reach, on-policy pooling."""

    def __init__(
        self,
        tree: Tree,
        abstraction: FeatureAbstraction,
        actions: int,
        games: int = 2000,
        rollouts: int = 1,
        explore: float = 0.1,
        steps: int = 100,
        minibatch: int = 1024,
        lr: float = 1e-3,
        width: int = 256,
        seed: int = 0,
        keep_all: bool = False,
        plus: bool = False,
        alternate: bool = False,
        polyak: float = 1.0,
    ) -> None:
        """Ready to run from uniform play with a fresh network; ``keep_all`` keeps every sample
        and fits each iteration's steps to all of them, iteration ``t``'s weighing ``t`` (the
        linear average of the regrets, as Deep CFR's buffer), instead of moving towards the
        new ones; ``plus`` moves from the prediction clipped at 0 instead (regret matching+:
        clipping the running sum before adding the new regrets, not the noisy samples, is
        the same rule and keeps the targets' mean right); ``alternate`` samples one seat an
        iteration (seat ``t`` mod 2), the other holding its strategy, as alternating CFR;
        ``polyak`` < 1 reads the running sum from a copy of the network that follows it by
        that share of the way after each iteration (a bootstrap target that moves less with
        the fitting noise)."""
        if abstraction.features is None or abstraction.legal is None:
            raise ValueError("abstraction: built without keep_rows")
        if keep_all and plus:
            raise ValueError("plus: regret matching+ needs the running sum, not keep_all")
        if not 0.0 < polyak <= 1.0:
            raise ValueError(f"polyak: a share in (0, 1], got {polyak}")
        if games < 1 or rollouts < 1 or steps < 1 or minibatch < 1:
            raise ValueError("games, rollouts, steps and minibatch: at least 1 each")
        super().__init__(tree, abstraction, "rm", True, "on-policy", explore)
        self.net = TableNet.create(abstraction.features.shape[1], actions, (width, width), seed)
        self._opt = Adam(self.net.net, lr=lr)
        self.seed = seed
        self.games, self.rollouts = games, rollouts
        self.steps, self.minibatch = steps, minibatch
        self._nz = np.nonzero(abstraction.legal > 0)
        sizes = np.diff(abstraction.offsets)
        self._width = int(sizes.max())
        self.samples = 0
        self.keep_all = bool(keep_all)
        self.plus = bool(plus)
        self.alternate = bool(alternate)
        self.polyak = float(polyak)
        self._target = self.net.copy()
        self._kept: list[tuple[np.ndarray, np.ndarray]] = []  # (groups, targets) per iteration

    def _mean_regret(self, groups: np.ndarray) -> np.ndarray:
        """The network's mean regrets for each of ``groups`` (rows over action ids)."""
        return self.net.outputs(self.abstraction.features[groups])[:, :-1].astype(np.float64)

    def run(self, iterations: int) -> None:
        """``iterations`` more iterations of sampling and fitting."""
        t = self._layout
        ab = self.abstraction
        group_of = np.ascontiguousarray(ab.group, dtype=np.int64)
        for _ in range(iterations):
            groups, regrets = [], []
            seats = [self.iteration % 2] if self.alternate else [0, 1]
            for seat in seats:
                cap = self.games * 64
                out_group = np.empty(cap, dtype=np.int64)
                out_regret = np.zeros((cap, self._width))
                k = _sample(
                    t.num_internal, t.player, t.infoset, group_of, ab.offsets, self._base,
                    t.child_offsets, t.children, t.chance_prob, ab.slot_map, self.sigma,
                    t.utility, seat, self.explore, self.games, self.rollouts,
                    (self.seed * 1_000_003 + self.iteration) * 2 + seat, out_group, out_regret,
                )  # fmt: skip
                groups.append(out_group[:k])
                regrets.append(out_regret[:k])
            g = np.concatenate(groups)
            r = np.concatenate(regrets)
            self.iteration += 1
            self.samples += len(g)
            # the target: the mean regret so far moved by 1/t towards this sample
            target = np.zeros((len(g), ab.legal.shape[1]))
            cols = self._nz[1]
            width = np.diff(ab.offsets)[g]
            for j in range(self._width):
                has = j < width
                slot = ab.offsets[g[has]] + j
                target[np.nonzero(has)[0], cols[slot]] = r[has, j]
            rng = np.random.default_rng([self.seed, self.iteration])
            if self.keep_all:
                self._kept.append((g, target.astype(np.float32)))
                g = np.concatenate([k[0] for k in self._kept])
                target = np.concatenate([k[1] for k in self._kept])
                weight = np.concatenate(
                    [np.full(len(k[0]), i + 1.0) for i, k in enumerate(self._kept)]
                )
                cdf = np.cumsum(weight)
            else:
                before = self._target.outputs(ab.features[g])[:, :-1].astype(np.float64)
                before *= ab.legal[g] > 0
                if self.plus:
                    before = np.maximum(before, 0.0)
                t_ = float(self.iteration)
                target = before * (t_ - 1.0) / t_ + target / t_
            for _ in range(self.steps):
                if self.keep_all:
                    idx = np.searchsorted(cdf, rng.random(self.minibatch) * cdf[-1], side="right")
                    idx = np.minimum(idx, len(g) - 1)
                else:
                    idx = rng.integers(0, len(g), size=self.minibatch)
                acts, pre, out = self._opt.outputs(ab.features[g[idx]])
                _, grad = regret_loss(out, ab.legal[g[idx]], target[idx])
                self._opt.update(acts, pre, grad.astype(np.float32))
            if self.polyak == 1.0:  # exactly the network (a + (b - a) need not round to b)
                self._target.assign(self.net)
            else:
                for mine, live in zip(self._target.params(), self.net.params(), strict=True):
                    mine += self.polyak * (live - mine)
            self.sigma = regret_matching(slot_outputs(self.net, ab), ab.offsets)
            self._add_average()
