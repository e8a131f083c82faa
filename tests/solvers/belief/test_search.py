"""Value networks, features, depth-limited subgames, self-play training and distillation."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.layout import S_CUR, S_TURN
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.policy_net import PolicyNet, PolicyTrainer
from complots_solver.solvers.belief.search import SearchSettings, Subgame, self_play_game
from complots_solver.solvers.belief.train import Trainer, TrainSettings
from complots_solver.solvers.belief.vector_cfr import reaches
from complots_solver.solvers.knowledge.belief_features import (
    F_HANDS,
    F_PUBLIC,
    NUM_FEATURES,
    NUM_OUTPUTS,
    group_features,
    hand_index,
    public_features,
    turn_scale,
)
from complots_solver.solvers.knowledge.hypotheses import Hypotheses
from complots_solver.solvers.nets.valuenet import Adam, ValueNet


def test_value_net_round_trip_and_refusals(tmp_path) -> None:
    """Saved weights load identically; other files and pickles are refused with a ValueError."""
    net = ValueNet.create([NUM_FEATURES, 16, NUM_OUTPUTS], seed=1)
    net.meta["game"] = "complots()"
    net.save(tmp_path / "v.npz")
    back = ValueNet.load(tmp_path / "v.npz")
    x = np.random.default_rng(0).random((3, NUM_FEATURES)).astype(np.float32)
    assert np.array_equal(net.forward(x), back.forward(x))
    assert back.meta["game"] == "complots()"
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not a complots-value-net"):
        ValueNet.load(tmp_path / "other.npz")
    evil = np.empty(1, dtype=object)
    evil[0] = {"payload": "anything"}
    np.savez(
        tmp_path / "evil.npz",
        format=np.array("complots-value-net"),
        version=np.array(1),
        layers=np.array(1),
        w0=evil,
        b0=evil,
    )
    with pytest.raises(ValueError, match="pickle"):
        ValueNet.load(tmp_path / "evil.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError):
        ValueNet.load(tmp_path / "junk.npz")


def test_adam_fits_a_masked_target() -> None:
    """Training drives the masked squared error down; masked-out outputs do not count."""
    rng = np.random.default_rng(0)
    x = rng.random((64, 8)).astype(np.float32)
    y = np.tanh(x @ rng.normal(size=(8, 4))).astype(np.float32)
    mask = np.ones_like(y)
    mask[:, 3] = 0.0
    y[:, 3] = 5.0  # unreachable by tanh: would dominate the loss if it counted
    net = ValueNet.create([8, 32, 4], seed=0)
    opt = Adam(net, lr=3e-3)
    first = opt.step(x, y, mask)
    for _ in range(400):
        last = opt.step(x, y, mask)
    assert last < 0.1 * first


def _beliefs(rng: np.random.Generator, rows: int) -> np.ndarray:
    """Random feature rows whose two hand blocks are distributions."""
    x = rng.random((rows, NUM_FEATURES)).astype(np.float32)
    half = NUM_OUTPUTS // 2
    for lo in (F_HANDS, F_HANDS + half):
        x[:, lo : lo + half] /= x[:, lo : lo + half].sum(axis=1, keepdims=True)
    return x


def test_zero_sum_layer_balances_the_two_players_values(tmp_path) -> None:
    """With the zero-sum layer the belief-weighted values of the two players cancel, and stay so
    through a save and load; without it they do not; an older file loads without it."""
    rng = np.random.default_rng(3)
    x = _beliefs(rng, 6)
    plain = ValueNet.create([NUM_FEATURES, 16, NUM_OUTPUTS], seed=2)
    plain.biases[-1][:] = 0.3  # every value high for both players: far from zero-sum
    beliefs = x[:, F_HANDS : F_HANDS + NUM_OUTPUTS]
    assert np.all((beliefs * plain.forward(x)).sum(axis=1) > 0.1)
    plain.save(tmp_path / "plain.npz")
    assert ValueNet.load(tmp_path / "plain.npz").zero_sum_from == -1
    balanced = ValueNet(plain.weights, plain.biases, zero_sum_from=F_HANDS)
    out = balanced.forward(x)
    assert np.allclose((beliefs * out).sum(axis=1), 0.0, atol=1e-5)
    # the shift is the same for every output of a row: each player's ranking of hands is kept
    assert np.allclose(out - plain.forward(x), (out - plain.forward(x))[:, :1], atol=1e-6)
    balanced.save(tmp_path / "balanced.npz")
    back = ValueNet.load(tmp_path / "balanced.npz")
    assert back.zero_sum_from == F_HANDS
    assert np.array_equal(back.forward(x), out)


def test_adam_gradient_passes_through_the_zero_sum_layer() -> None:
    """The step's weight gradient equals a finite difference of the masked loss."""
    rng = np.random.default_rng(4)
    x = _beliefs(rng, 5)
    y = rng.uniform(-0.5, 0.5, (5, NUM_OUTPUTS)).astype(np.float32)
    mask = (rng.random((5, NUM_OUTPUTS)) < 0.7).astype(np.float32)
    net = ValueNet.create([NUM_FEATURES, 8, NUM_OUTPUTS], seed=5, zero_sum_from=F_HANDS)
    net.weights = [w.astype(np.float64) * 5.0 for w in net.weights]
    net.biases = [b.astype(np.float64) + 0.4 for b in net.biases]  # far from zero-sum

    def loss() -> float:
        d = (net.forward(x).astype(np.float64) - y) * mask
        return float((d * d).sum() / mask.sum())

    opt = Adam(net, lr=0.0)
    seen = {}
    opt.update = lambda acts, pre, grad: seen.setdefault("w1", acts[1].T @ grad)
    opt.step(x, y, mask)
    eps = 1e-5
    for i, j in ((0, 0), (5, 20)):  # hidden units that are active (ReLU) on this batch
        net.weights[1][i, j] += eps
        up = loss()
        net.weights[1][i, j] -= 2 * eps
        down = loss()
        net.weights[1][i, j] += eps
        assert up != down
        assert seen["w1"][i, j] == pytest.approx((up - down) / (2 * eps), rel=1e-4)
    # fitted before the layer, the step is the plain network's
    plain = ValueNet([w.copy() for w in net.weights], [b.copy() for b in net.biases])
    raw = Adam(net, lr=0.0, through_zero_sum=False)
    ref = Adam(plain, lr=0.0)
    for opt_ in (raw, ref):
        opt_.update = lambda acts, pre, grad, o=opt_: setattr(o, "seen", acts[1].T @ grad)
    assert raw.step(x, y, mask) == pytest.approx(ref.step(x, y, mask))
    assert np.allclose(raw.seen, ref.seen)
    assert not np.allclose(raw.seen, seen["w1"])


def test_policy_trainer_learns_a_fixed_strategy() -> None:
    """Cross-entropy training reproduces target probabilities over the legal actions only."""
    rng = np.random.default_rng(1)
    x = rng.random((32, 10)).astype(np.float32)
    legal = np.zeros((32, 6), dtype=np.float32)
    legal[:, :3] = 1.0
    target = np.zeros((32, 6), dtype=np.float32)
    target[:, 0], target[:, 1] = 0.7, 0.3
    policy = PolicyNet(ValueNet.create([10, 32, 6], seed=0))
    trainer = PolicyTrainer(policy, lr=3e-3)
    for _ in range(500):
        trainer.step(x, target, legal, np.ones(32, dtype=np.float32))
    probs = policy.probabilities(x, legal)
    assert np.allclose(probs[:, 3:], 0.0)
    assert np.allclose(probs[:, 0], 0.7, atol=0.05)
    assert np.allclose(probs[:, 2], 0.0, atol=0.05)


def test_group_features_hold_normalised_hand_marginals() -> None:
    """The belief part of the features is a distribution over hands for each player."""
    config, _ = resolve_game("draft-inquisitor")
    cfg = config.to_array()
    sub = Subgame(cfg, Hypotheses.initial(cfg), None, SearchSettings(iterations=2))
    sub.solve()
    root, _ = sub.next_root(int(sub.tree.leaf_hyps[0]))
    feats = np.empty((1, NUM_FEATURES), dtype=np.float32)
    group_features(root.states, root.weights, np.zeros(len(root), np.int64), 1, feats, 200.0)
    me = feats[0, F_HANDS : F_HANDS + 20]
    opp = feats[0, F_HANDS + 20 : F_HANDS + 40]
    assert me.sum() == pytest.approx(1.0, abs=1e-5)
    assert opp.sum() == pytest.approx(1.0, abs=1e-5)


def _leaf_nodes_first_hyps(sub: Subgame) -> list[int]:
    t = sub.tree
    nodes = np.searchsorted(t.node_hyp_start, t.leaf_hyps, side="right") - 1
    return [int(t.leaf_hyps[np.flatnonzero(nodes == n)[0]]) for n in np.unique(nodes)]


def test_counterfactual_roots_keep_hands_the_belief_drops_and_give_them_targets() -> None:
    """A root with reach columns keeps the rows a player's own play left at zero joint weight,
    and its targets cover their hands, weighted by that player's counterfactual reach; with
    every column the joint, the example is the plain one."""
    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()
    settings = SearchSettings(iterations=32)
    sub = Subgame(cfg, Hypotheses.initial(cfg), None, settings)
    sub.solve()
    grew = 0
    for leaf in _leaf_nodes_first_hyps(sub):
        plain, prow = sub.next_root(leaf)
        wide, wrow, cols = sub.next_root_columns(leaf)
        assert np.array_equal(wide.states[wrow], plain.states[prow])
        assert np.allclose(cols[:, 2], wide.weights)  # the joint column is the belief
        assert np.isclose(wide.weights.sum(), 1.0)
        if len(wide) == len(plain):
            continue
        grew += 1
        assert np.any(wide.weights <= settings.prune) and np.all(cols[:, :2].max(axis=1) > 0)
        a = Subgame(cfg, plain, None, settings)
        a.solve()
        b = Subgame(cfg, wide, None, settings, cols)
        b.solve()
        ea, eb = a.root_example(), b.root_example()
        assert ea is not None and eb is not None
        assert np.all(eb[2] >= ea[2])  # every hand the belief holds, and maybe more
        values = b.seat_values()[: len(wide)]
        me = int(wide.states[0, S_CUR])
        for p in range(2):  # each player's hand means weighted by its counterfactual reach
            sign = 1.0 if p == 0 else -1.0
            hands = np.array([hand_index(st, p) for st in wide.states])
            for hand in np.unique(hands):
                w = cols[hands == hand, p]
                if w.sum() <= 0.0:
                    continue
                want = (w * sign * values[hands == hand, p]).sum() / w.sum()
                slot = hand if p == me else NUM_OUTPUTS // 2 + hand
                assert eb[2][slot] == 1.0 and eb[1][slot] == pytest.approx(want, abs=1e-5)
        same = Subgame(cfg, plain, None, settings, np.repeat(plain.weights[:, None], 3, axis=1))
        same.solve()
        es = same.root_example()
        assert es is not None
        assert np.array_equal(es[2], ea[2]) and np.allclose(es[1], ea[1])
    assert grew >= 1
    with pytest.raises(ValueError, match="columns"):
        Subgame(cfg, plain, None, settings, np.ones((len(plain), 2)))


def test_leaf_promise_holds_the_iterations_counterfactual_values() -> None:
    """Weighted by the average's counterfactual reach, a leaf's promise sums to the player's
    counterfactual values over the iterations (weighted by the iteration, CFR+); for the player
    updated first it is the reach-weighted mean of its passes' values."""
    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()
    sub = Subgame(cfg, Hypotheses.initial(cfg), None, SearchSettings(iterations=6))
    t = sub.tree
    seen = {0: [], 1: []}
    rng = np.random.default_rng(0)

    def leaf_values(reach, own, strategy, player):
        values = rng.uniform(-1, 1, len(t.leaf_hyps))  # a new value each pass
        seen[player].append((reach[t.leaf_hyps, player].copy(), values))
        return values

    sub.solver.run(6, leaf_values)
    avg_reach, _ = reaches(t, sub.solver.average_strategy())
    w = np.arange(1, 7, dtype=float)[:, None]
    for p in range(2):
        q = np.array([r for r, _ in seen[p]])
        v = np.array([x for _, x in seen[p]])
        got = sub.solver.leaf_promise(p)
        live = avg_reach[t.leaf_hyps, p] > 0
        assert live.any() and np.isnan(got[~live]).all()
        np.testing.assert_allclose(
            avg_reach[t.leaf_hyps, p][live] * got[live],
            (w * q * v).sum(axis=0)[live] / w.sum(),
            rtol=1e-9,
            atol=1e-15,
        )
        assert not np.allclose(got[live], v[-1][live])  # not the last pass's values
        if p == 0:
            want = (w * q * v).sum(axis=0)[live] / (w * q).sum(axis=0)[live]
            np.testing.assert_allclose(got[live], want, rtol=1e-9)


def test_turn_feature_is_the_share_of_the_turn_cap_played() -> None:
    """A 4-turn rung reads turn 2 as half the game; the 200-turn game as turn/200 (shipped nets)."""
    for preset, cap in (("ladder-3-ambassador", 4), ("draft-ambassador", 200)):
        config, _ = resolve_game(preset)
        cfg = config.to_array()
        assert turn_scale(cfg) == cap
        s = Hypotheses.initial(cfg).states[0].copy()
        s[S_TURN] = 2
        out = np.zeros(NUM_FEATURES, dtype=np.float32)
        public_features(s, out, turn_scale(cfg))
        assert out[F_PUBLIC - 1] == pytest.approx(2.0 / cap)


def test_leaf_beliefs_are_the_posterior_under_the_solved_strategy() -> None:
    """The next root's weights are the joint reach of its leaf node, normalised."""
    config, _ = resolve_game("draft-ambassador")
    cfg = config.to_array()
    sub = Subgame(cfg, Hypotheses.initial(cfg), None, SearchSettings(iterations=4, prune=0.0))
    sub.solve()
    leaf = int(sub.tree.leaf_hyps[len(sub.tree.leaf_hyps) // 2])
    root, row = sub.next_root(leaf)
    assert root.weights.sum() == pytest.approx(1.0)
    assert np.all(root.weights > 0)
    assert np.array_equal(
        root.states[row], sub.tree.leaf_states[np.searchsorted(sub.tree.leaf_hyps, leaf)]
    )


def test_exploring_the_trajectory_only_keeps_the_solved_strategy() -> None:
    """explore_beliefs off: beliefs and values use the average; the sampled path still explores."""
    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()

    def solved(**kw: object) -> Subgame:
        sub = Subgame(cfg, Hypotheses.initial(cfg), None, SearchSettings(iterations=30, **kw))
        sub.solve()
        return sub

    plain = solved()
    kept = solved(epsilon=0.5, explore_beliefs=False)
    mixed = solved(epsilon=0.5)
    np.testing.assert_array_equal(kept.strategy, plain.strategy)
    assert not np.allclose(mixed.strategy, plain.strategy)
    np.testing.assert_allclose(kept.explore_strategy, mixed.strategy)  # the same CFR average
    t = kept.tree
    reach, _ = reaches(t, plain.strategy)
    joint = reach[:, t.players]

    def off_path(sub: Subgame) -> int:
        """Sampled paths ending where the solved strategy all but never goes."""
        ends = [sub.sample_path(0, np.random.default_rng(seed)) for seed in range(300)]
        return sum(joint[h] < 1e-4 for h in ends)

    assert off_path(plain) <= 3 < 30 <= off_path(kept)
    leaf = int(t.leaf_hyps[0])
    a, _ = kept.next_root(leaf)
    b, _ = plain.next_root(leaf)
    np.testing.assert_allclose(a.weights, b.weights)


def test_leaf_average_gives_the_leaves_the_average_strategys_beliefs() -> None:
    """CFR-AVG: leaf values see the average strategy's reaches; by default the current iterate's."""
    config, _ = resolve_game("ladder-3-ambassador")
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    for average in (False, True):
        sub = Subgame(cfg, root, None, SearchSettings(iterations=6, leaf_average=average))
        t = sub.tree
        seen: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

        def record(reach, own, strategy, player, sub=sub, seen=seen, t=t):
            solver = sub.solver
            avg = solver.average_strategy() if solver.iteration > 1 else solver.strategy
            seen.append((reach.copy(), reaches(t, avg)[0], reaches(t, solver.strategy)[0]))
            return np.zeros(len(t.leaf_hyps))

        sub.solver.run(6, record, average)
        assert len(seen) == 12
        for got, of_average, of_current in seen:
            np.testing.assert_allclose(got, of_average if average else of_current, atol=1e-12)
        # the two differ once the average lags the iterate, so the check above can fail
        assert any(not np.allclose(a, c) for _, a, c in seen[2:])


def test_a_sampled_iteration_carries_the_beliefs_and_the_average_stays_solved() -> None:
    """sample_iteration: one iterate's strategy gives the next beliefs; the average is unchanged."""
    config, _ = resolve_game("ladder-2-ambassador")
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    plain = Subgame(cfg, root, None, SearchSettings(iterations=8, prune=0.0))
    plain.solve()
    settings = SearchSettings(iterations=8, prune=0.0, sample_iteration=True)
    sampled = Subgame(cfg, root, None, settings)
    sampled.solve(np.random.default_rng(3))
    np.testing.assert_array_equal(sampled.strategy, plain.strategy)
    t = sampled.tree
    kept = sampled.belief_strategy
    assert kept is not None and not np.allclose(kept, plain.strategy)
    keep = int(np.random.default_rng(3).integers(1, 9))
    # player 0 moves first in an iteration: its kept strategy is regret matching after keep - 1
    ref = Subgame(cfg, root, None, SearchSettings(iterations=max(keep - 1, 1), prune=0.0))
    if keep > 1:
        ref.solver.run(keep - 1, ref.leaf_values)
    owner = np.repeat(t.slot_player, np.diff(t.slot_action_start))
    np.testing.assert_allclose(kept[owner == 0], ref.solver.strategy[owner == 0], atol=1e-12)
    # the next root's beliefs are the joint reach under the kept iterate, not the average
    reach, _ = reaches(t, kept)
    avg_reach, _ = reaches(t, plain.strategy)
    differing = 0
    for leaf in t.leaf_hyps[::7]:
        node = int(np.searchsorted(t.node_hyp_start, leaf, side="right") - 1)
        h0, h1 = int(t.node_hyp_start[node]), int(t.node_hyp_start[node + 1])
        want = reach[h0:h1, t.players]
        if want.sum() <= 0.0:
            continue
        got, _ = sampled.next_root(int(leaf))
        # (next_root also keeps the leaf's own row, even at zero weight)
        kept_rows = got.weights[got.weights > 0]
        np.testing.assert_allclose(kept_rows, want[want > 0] / want.sum(), atol=1e-12)
        other, _ = plain.next_root(int(leaf))
        differing += other.weights.shape != got.weights.shape or not np.allclose(
            other.weights, got.weights
        )
    assert differing > 0
    # without a generator solve() keeps the average for everything, as the players use it
    again = Subgame(cfg, root, None, settings)
    again.solve()
    assert again.belief_strategy is None


def test_self_play_is_deterministic_and_ends() -> None:
    """Same seed, same game; a game ends in a terminal with a result of +-1 or 0."""
    config, _ = resolve_game("draft-ambassador")
    cfg = config.to_array()
    settings = SearchSettings(iterations=8)
    a = self_play_game(cfg, None, settings, np.random.default_rng(5))
    b = self_play_game(cfg, None, settings, np.random.default_rng(5))
    assert a[1] == b[1] and a[2] == b[2]
    assert a[1] in (-1.0, 0.0, 1.0)
    for (fa, ta, ma), (fb, tb, mb) in zip(a[0], b[0], strict=True):
        assert np.array_equal(fa, fb) and np.array_equal(ta, tb) and np.array_equal(ma, mb)
        assert np.all(np.abs(ta) <= 1.0 + 1e-6)


def test_training_resumes_exactly(tmp_path) -> None:
    """Two rounds in one go equal one round, a resume from the checkpoint, and one more."""
    config, _ = resolve_game("draft-ambassador")
    settings = TrainSettings(games=2, iterations=4, steps=5, batch=16, hidden=(16,))
    straight = Trainer(config, settings, tmp_path / "a")
    straight.run(rounds=2)
    first = Trainer(config, settings, tmp_path / "b")
    first.run(rounds=1)
    resumed = Trainer(config, settings, tmp_path / "b", resume=True)
    assert resumed.state.round == 1
    resumed.run(rounds=1)
    for w1, w2 in zip(straight.state.net.weights, resumed.state.net.weights, strict=True):
        assert np.array_equal(w1, w2)
    assert np.array_equal(straight.state.feats, resumed.state.feats)
    assert (tmp_path / "b" / "training.csv").read_text().count("\n") == 3


def test_zero_sum_training_keeps_its_layer_across_a_resume(tmp_path) -> None:
    """A run with ``zero_sum`` trains and exports a zero-sum network, and resumes with it."""
    config, _ = resolve_game("ladder-1-ambassador")
    settings = TrainSettings(games=2, iterations=4, steps=5, batch=16, hidden=(16,), zero_sum=1)
    Trainer(config, settings, tmp_path).run(rounds=1)
    resumed = Trainer(config, settings, tmp_path, resume=True)
    assert resumed.state.net.zero_sum_from == F_HANDS
    assert not resumed.state.adam.through_zero_sum  # 1 fits the outputs before the shift
    assert ValueNet.load(tmp_path / "value-net.npz").zero_sum_from == F_HANDS
    assert (
        Trainer(config, TrainSettings(hidden=(16,)), tmp_path / "off").state.net.zero_sum_from == -1
    )


def test_counterfactual_training_gives_targets_to_hands_the_belief_rules_out(tmp_path) -> None:
    """Only with ``counterfactual`` do examples hold targets for hands of zero belief."""
    config, _ = resolve_game("ladder-2-ambassador")
    base = dict(
        games=4, iterations=16, steps=1, hidden=(16,), sample_iteration=True, explore_beliefs=False
    )
    counts = []
    for flag in (False, True):
        trainer = Trainer(config, TrainSettings(**base, counterfactual=flag), tmp_path / str(flag))
        trainer.run(rounds=1)
        st = trainer.state
        beliefs = st.feats[:, F_HANDS : F_HANDS + NUM_OUTPUTS]
        counts.append(int(((st.masks > 0) & (beliefs <= 0)).sum()))
    assert counts[0] == 0 and counts[1] > 0


def _trained(config, settings, out, ray_address=None):
    trainer = Trainer(config, settings, out)
    trainer.run(rounds=1, ray_address=ray_address)
    return trainer.state


@pytest.mark.slow
def test_training_on_workers_or_ray_equals_one_process(tmp_path) -> None:
    """A round played on 2 processes, or on 2 Ray actors, equals the same round in one process."""
    config, _ = resolve_game("draft-ambassador")
    base = dict(games=3, iterations=4, steps=5, batch=16, hidden=(16,))
    alone = _trained(config, TrainSettings(**base), tmp_path / "one")
    pooled = _trained(config, TrainSettings(**base, workers=2), tmp_path / "two")
    runs = [pooled]
    ray = pytest.importorskip("ray")
    try:
        runs.append(_trained(config, TrainSettings(**base, workers=2), tmp_path / "ray", "local"))
    finally:
        ray.shutdown()
    for other in runs:
        assert np.array_equal(alone.feats, other.feats)
        for w1, w2 in zip(alone.net.weights, other.net.weights, strict=True):
            assert np.array_equal(w1, w2)


def test_corrupt_checkpoint_is_a_clear_error(tmp_path) -> None:
    """A truncated checkpoint is a ValueError naming it, not a zip-file traceback."""
    config, _ = resolve_game("draft-ambassador")
    settings = TrainSettings(games=1, iterations=2, steps=1, batch=4, hidden=(8,))
    Trainer(config, settings, tmp_path).run(rounds=1)
    path = tmp_path / "belief-checkpoint.npz"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="corrupt checkpoint"):
        Trainer(config, settings, tmp_path, resume=True)


def test_value_ensemble_is_the_mean_of_its_networks() -> None:
    """An ensemble's outputs are its networks' mean; networks of other shapes are refused."""
    from complots_solver.solvers.nets.valuenet import ValueEnsemble

    a = ValueNet.create([NUM_FEATURES, 8, NUM_OUTPUTS], seed=1)
    b = ValueNet.create([NUM_FEATURES, 16, NUM_OUTPUTS], seed=2)
    x = np.random.default_rng(0).random((5, NUM_FEATURES)).astype(np.float32)
    both = ValueEnsemble([a, b]).forward(x)
    np.testing.assert_allclose(both, (a.forward(x) + b.forward(x)) / 2, rtol=1e-6)
    assert not np.allclose(both, a.forward(x))
    with pytest.raises(ValueError, match="different"):
        ValueEnsemble([a, ValueNet.create([NUM_FEATURES, 8, 3], seed=0)])
    with pytest.raises(ValueError, match="at least one"):
        ValueEnsemble([])
