"""Update rules and weights over the feature groups: exact values checked by brute force, the
counterfactual rule is CFR+, and a regret network in the loop learns."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.selfplay.floor import FeatureAbstraction, feature_abstraction
from complots_solver.lab.selfplay.targets import (
    GroupIteration,
    RegretNetIteration,
    SampledRegretNet,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.tree import NO_PLAYER, NodeKind

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


@pytest.fixture(scope="module")
def ladder1():
    config = resolve_game("ladder-1-ambassador")[0]
    tree = compile_complots_tree(config)
    return config, tree


def _identity(tree):
    infosets = tree.action_offsets.shape[0] - 1
    return FeatureAbstraction(
        np.arange(tree.num_slots), np.asarray(tree.action_offsets, dtype=np.int64),
        np.arange(infosets),
    )  # fmt: skip


def _random_strategy(tree, rng):
    s = rng.random(tree.num_slots) + 0.05
    sums = np.add.reduceat(s, tree.action_offsets[:-1])
    return s / np.repeat(sums, np.diff(tree.action_offsets))


def _brute_force(tree, sigma, explore, counterfactual):
    """Per slot the weighted value sum and weight, by recursion over every history."""
    qnum = np.zeros(tree.num_slots)
    den = np.zeros(tree.num_slots)

    def value(n, own, explored, chance):
        kind = NodeKind(int(tree.kind[n]))
        if kind == NodeKind.TERMINAL:
            return float(tree.utility[n])
        kids = tree.children[tree.child_offsets[n] : tree.child_offsets[n + 1]]
        if int(tree.player[n]) == NO_PLAYER:
            probs = tree.chance_prob[tree.child_offsets[n] : tree.child_offsets[n + 1]]
            return sum(
                p * value(c, own, explored, chance * p) for p, c in zip(probs, kids, strict=True)
            )
        p = int(tree.player[n])
        i = int(tree.infoset[n])
        slots = range(int(tree.action_offsets[i]), int(tree.action_offsets[i + 1]))
        w = chance * own[1 - p] * (1.0 if counterfactual else explored[p])
        total = 0.0
        for k, c in zip(slots, kids, strict=True):
            o, x = list(own), list(explored)
            o[p] *= sigma[k]
            x[p] *= (1.0 - explore) * sigma[k] + explore / len(kids)
            v = value(c, o, x, chance)
            qnum[k] += w * (v if p == 0 else -v)
            den[k] += w
            total += sigma[k] * v
        return total

    value(0, [1.0, 1.0], [1.0, 1.0], 1.0)
    return qnum, den


@pytest.mark.parametrize("counterfactual", [True, False])
def test_values_match_a_recursion_over_every_history(ladder1, counterfactual):
    """The pooled action values and weights of the sweeps equal a plain recursion's, for a
    random strategy, with the seat's own moves explored (on-policy) or left out."""
    _, tree = ladder1
    rng = np.random.default_rng(3)
    sigma = _random_strategy(tree, rng)
    pooling = "counterfactual" if counterfactual else "on-policy"
    it = GroupIteration(tree, _identity(tree), "rm+", True, pooling, explore=0.3)
    qnum, den = it.values(sigma)
    ref_q, ref_d = _brute_force(tree, sigma, 0.3, counterfactual)
    np.testing.assert_allclose(den, ref_d, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(qnum, ref_q, rtol=1e-9, atol=1e-13)
    assert np.abs(qnum).max() > 1e-3


def test_counterfactual_regret_matching_is_simultaneous_cfr_plus(ladder1):
    """Without merging, unnormalised, counterfactual pooling: the tree's CFR+ with
    simultaneous updates, iterate for iterate."""
    _, tree = ladder1
    mine = GroupIteration(tree, _identity(tree), "rm+", False, "counterfactual")
    ref = TreeSolver(tree, "cfr+", alternating=False)
    for _ in range(4):
        mine.run(3)
        ref.run(3)
        np.testing.assert_allclose(mine.current_strategy(), ref.current_strategy(), atol=1e-12)


def test_normalising_rescales_each_group_so_only_later_steps_differ(ladder1):
    """One step from uniform play is the same with values per unit of reach (a positive
    scale per group); later steps weigh iterations differently and part."""
    _, tree = ladder1
    ab = _identity(tree)
    a = GroupIteration(tree, ab, "rm+", False, "counterfactual")
    b = GroupIteration(tree, ab, "rm+", True, "counterfactual")
    a.run(1)
    b.run(1)
    np.testing.assert_allclose(a.sigma, b.sigma, atol=1e-12)
    a.run(5)
    b.run(5)
    assert np.abs(a.sigma - b.sigma).max() > 1e-3


def test_linear_regret_matching_weighs_iteration_t_by_t(ladder1):
    """Regret matching without clipping, its regrets summed plainly or with iteration t's
    weighing t: the same first step, then the second iteration's regrets counted twice."""
    _, tree = ladder1
    ab = _identity(tree)
    plain = GroupIteration(tree, ab, "rm", True, "on-policy", explore=0.1)
    linear = GroupIteration(tree, ab, "linear-rm", True, "on-policy", explore=0.1)
    plain.run(1)
    linear.run(1)
    first = plain.regret.copy()
    np.testing.assert_allclose(linear.regret, first, atol=1e-12)
    np.testing.assert_allclose(linear.sigma, plain.sigma, atol=1e-12)
    plain.run(1)
    linear.run(1)
    second = plain.regret - first
    assert np.abs(second).max() > 1e-3 and (first < 0).any()
    np.testing.assert_allclose(linear.regret, first + 2.0 * second, atol=1e-12)


def test_hedge_takes_a_softmax_step_of_the_values(ladder1):
    """Hedge from uniform play: each group's new strategy is the softmax of eta times its
    action values (per unit of reach)."""
    _, tree = ladder1
    ab = _identity(tree)
    it = GroupIteration(tree, ab, "hedge", True, "on-policy", explore=0.2, eta=2.0)
    qnum, den = it.values()
    it.run(1)
    for g in range(0, ab.num_groups, 97):
        a, b = ab.offsets[g], ab.offsets[g + 1]
        if den[a] <= 0:
            continue
        z = np.exp(2.0 * qnum[a:b] / den[a])
        np.testing.assert_allclose(it.sigma[a:b], z / z.sum(), atol=1e-12)


def test_settings_are_checked(ladder1):
    """Unknown rules and poolings, and shares out of range, are refused by name."""
    _, tree = ladder1
    ab = _identity(tree)
    with pytest.raises(ValueError, match="rm"):
        GroupIteration(tree, ab, "cfr")
    with pytest.raises(ValueError, match="on-policy"):
        GroupIteration(tree, ab, "rm+", pooling="sampled")
    with pytest.raises(ValueError, match="explore"):
        GroupIteration(tree, ab, explore=1.5)
    with pytest.raises(ValueError, match="keep_rows"):
        RegretNetIteration(tree, ab, 10)
    config = resolve_game("ladder-1-ambassador")[0]
    rows = feature_abstraction(config, tree, keep_rows=True)
    with pytest.raises(ValueError, match="plus"):
        SampledRegretNet(tree, rows, config.num_distinct_actions(), keep_all=True, plus=True)
    with pytest.raises(ValueError, match="polyak"):
        SampledRegretNet(tree, rows, config.num_distinct_actions(), polyak=0.0)


def test_a_regret_network_in_the_loop_learns(ladder1):
    """A table network holding the regrets (refitted each iteration to the update of its own
    prediction, groups drawn as a sampler meets them) takes the average far below uniform play."""
    config, tree = ladder1
    ab = feature_abstraction(config, tree, keep_rows=True)
    uniform = exploitability(tree, tree.uniform_strategy())
    it = RegretNetIteration(
        tree, ab, config.num_distinct_actions(), steps=20, minibatch=256, width=64, seed=1
    )
    it.run(40)
    result = it.exploitability()
    assert result["average"] < 0.3 * uniform


def test_sampled_regrets_are_unbiased(ladder1):
    """A sampler's regrets (one rollout per action from the true state, the seat exploring)
    average, per group, to the exact on-policy regrets per unit of reach."""
    from complots_solver.lab.selfplay import targets

    config, tree = ladder1
    ab = feature_abstraction(config, tree)
    rng = np.random.default_rng(5)
    exact = GroupIteration(tree, ab, "rm", True, "on-policy", explore=0.25)
    sizes = np.diff(ab.offsets)
    s = rng.random(int(ab.offsets[-1])) + 0.1
    exact.sigma = s / np.repeat(np.add.reduceat(s, ab.offsets[:-1]), sizes)
    qnum, den = exact.values()
    t = exact._layout
    games = 200_000
    out_group = np.empty(games * 8, dtype=np.int64)
    out_regret = np.zeros((games * 8, int(sizes.max())))
    k = targets._sample(
        t.num_internal, t.player, t.infoset, np.ascontiguousarray(ab.group, dtype=np.int64),
        ab.offsets, exact._base, t.child_offsets, t.children, t.chance_prob, ab.slot_map,
        exact.sigma, t.utility, 0, 0.25, games, 1, 11, out_group, out_regret,
    )  # fmt: skip
    g, r = out_group[:k], out_regret[:k]
    counts = np.bincount(g, minlength=ab.num_groups)
    checked = 0
    for grp in np.argsort(-counts)[:15]:
        a, b = ab.offsets[grp], ab.offsets[grp + 1]
        q = qnum[a:b] / den[a]
        want = q - (exact.sigma[a:b] * q).sum()
        got = r[g == grp, : b - a]
        err = 4.0 * got.std(axis=0) / np.sqrt(len(got)) + 1e-9
        assert np.all(np.abs(got.mean(axis=0) - want) < err), (grp, got.mean(axis=0), want)
        checked += 1
    assert checked == 15 and counts.max() > 1000


@pytest.mark.parametrize(
    ("keep_all", "plus", "alternate", "polyak"),
    [
        (False, False, False, 1.0),
        (True, False, False, 1.0),
        (False, True, False, 1.0),
        (False, True, True, 1.0),
        (False, True, False, 0.2),
    ],
)
def test_a_regret_network_learns_from_sampled_games(ladder1, keep_all, plus, alternate, polyak):
    """The sampled method (games, rollouts, a network holding the mean regrets, moved towards
    each iteration's samples, with regret matching+ or without, or fitted to all kept ones)
    takes the average far below uniform play on ladder-1."""
    config, tree = ladder1
    ab = feature_abstraction(config, tree, keep_rows=True)
    uniform = exploitability(tree, tree.uniform_strategy())
    it = SampledRegretNet(
        tree, ab, config.num_distinct_actions(), games=300, steps=30, minibatch=256, width=64,
        seed=2, keep_all=keep_all, plus=plus, alternate=alternate, polyak=polyak,
    )  # fmt: skip
    it.run(40)
    assert it.exploitability()["average"] < 0.3 * uniform
    assert it.samples > (20 if alternate else 40) * 300
