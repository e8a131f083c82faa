"""The bound tools against strategies whose exploitability is known exactly (ladder-1).

Expected values come from the project's exact best response on the compiled
tree (``solvers/exact/best_response.py``), never from the code under test.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.layout import S_CUR
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.bounds.belief import ResponderBelief
from complots_solver.solvers.bounds.games import Mean, StrategySeat, play_many
from complots_solver.solvers.bounds.lbr import LocalBestResponse
from complots_solver.solvers.bounds.measure import lbr_bound, trained_bound
from complots_solver.solvers.bounds.strategy import TabularStrategy
from complots_solver.solvers.bounds.trained import train_responder
from complots_solver.solvers.exact.best_response import best_response, game_value
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.tree import NodeKind
from complots_solver.solvers.rows.batch import Rows

GAME = "ladder-1-ambassador"
# fractions of the exact gain each tool reliably reaches against uniform play (measured
# about 0.9 for both at these budgets; asserted with room for sampling noise)
LBR_FRACTION = 0.5
TRAINED_FRACTION = 0.5


@cache
def _ladder():
    config, _ = resolve_game(GAME)
    cfg = config.to_array()
    return cfg, compile_complots_tree(config)


@cache
def _strategies() -> dict[str, np.ndarray]:
    _, tree = _ladder()
    out = {"uniform": tree.uniform_strategy()}
    for name, iterations in (("poor", 2), ("equilibrium", 400)):
        solver = TreeSolver(tree, algorithm="cfr+")
        solver.run(iterations)
        out[name] = solver.average_strategy()
    return out


def _exact_gains(strategy: np.ndarray) -> tuple[float, float]:
    """BR_p - v_p per seat, exactly, on the tree."""
    _, tree = _ladder()
    v0 = game_value(tree, strategy)
    return best_response(tree, strategy, 0)[0] - v0, best_response(tree, strategy, 1)[0] + v0


def _tabular(name: str) -> TabularStrategy:
    cfg, tree = _ladder()
    return TabularStrategy(cfg, tree, _strategies()[name])


def test_every_infoset_is_found_from_its_history() -> None:
    """Replaying each infoset's own history gives back that infoset (keys are one-to-one)."""
    cfg, tree = _ladder()
    strategy = _tabular("uniform")
    for info in range(0, tree.num_infosets, 5):
        rows = Rows.initial(cfg, 1, 0)
        for a in tree.keys.history(info):
            rows.step(np.array([a]), cfg, strategy.memory, 0)
        assert int(strategy.infosets(rows)[0]) == info


def _posterior_by_enumeration(cfg, tree, strategy, seat, history) -> dict[bytes, float]:
    """Posterior over states given ``seat``'s tokens along ``history``, walking the tree."""
    outcomes = np.empty(64, dtype=np.int32)
    probs = np.empty(64)
    real = core.initial_state(cfg)
    want = []
    for a in history:
        want.append(
            (
                int(core.observation_token(real, a, core.PUBLIC_VIEWER)),
                int(core.observation_token(real, a, seat)),
            )
        )
        core.apply_action(real, cfg, a)
    out: dict[bytes, float] = {}
    stack = [(0, core.initial_state(cfg), 0, 1.0)]
    while stack:
        node, state, depth, reach = stack.pop()
        if depth == len(want):
            out[state.tobytes()] = out.get(state.tobytes(), 0.0) + reach
            continue
        kind = int(tree.kind[node])
        start = int(tree.child_offsets[node])
        if kind == NodeKind.TERMINAL:
            continue
        if kind == NodeKind.CHANCE:
            k = core.chance_outcomes_into(state, cfg, outcomes, probs)
            moves = [(int(outcomes[j]), float(probs[j])) for j in range(k)]
        else:
            info = int(tree.infoset[node])
            lo, hi = int(tree.action_offsets[info]), int(tree.action_offsets[info + 1])
            mine = int(tree.infoset_player[info]) == seat
            moves = [
                (int(tree.legal_actions[i]), 1.0 if mine else float(strategy[i]))
                for i in range(lo, hi)
            ]
        for j, (a, p) in enumerate(moves):
            tok = (
                int(core.observation_token(state, a, core.PUBLIC_VIEWER)),
                int(core.observation_token(state, a, seat)),
            )
            if tok != want[depth] or p == 0.0:
                continue
            child = state.copy()
            core.apply_action(child, cfg, a)
            stack.append((int(tree.children[start + j]), child, depth + 1, reach * p))
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("seat", [0, 1])
def test_responder_belief_is_the_exact_posterior(seed: int, seat: int) -> None:
    """Along sampled games, the belief over states equals brute-force enumeration."""
    cfg, tree = _ladder()
    strategy_array = _strategies()["poor"]
    strategy = _tabular("poor")
    belief = ResponderBelief(cfg, seat, strategy)
    rng = np.random.default_rng(seed)
    state = core.initial_state(cfg)
    history: list[int] = []
    legal = np.empty(256, dtype=np.int32)
    outcomes = np.empty(64, dtype=np.int32)
    probs = np.empty(64)
    while int(state[S_CUR]) != -4:
        cur = int(state[S_CUR])
        if cur == -1:
            k = core.chance_outcomes_into(state, cfg, outcomes, probs)
            a = int(outcomes[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        else:
            k = core.legal_actions_into(state, cfg, legal)
            a = int(legal[rng.integers(k)])
        belief.observe(state, a)
        core.apply_action(state, cfg, a)
        history.append(a)
        assert belief.weight_of(state) > 0.0
        expected = _posterior_by_enumeration(cfg, tree, strategy_array, seat, history)
        got: dict[bytes, float] = {}
        for row, w in zip(belief.rows.states, belief.weights, strict=True):
            got[row.tobytes()] = got.get(row.tobytes(), 0.0) + float(w)
        assert got.keys() == expected.keys()
        for key, p in expected.items():
            assert got[key] == pytest.approx(p, abs=1e-9)


def test_self_play_matches_the_exact_value() -> None:
    """Sampled self-play of the tabular strategy agrees with the tree's value."""
    cfg, tree = _ladder()
    strategy = _tabular("poor")
    seeds = [(5, g) for g in range(3000)]
    returns, _ = play_many(cfg, strategy, 0, lambda: StrategySeat(cfg), seeds)
    m = Mean.of(returns)
    assert abs(m.mean - game_value(tree, _strategies()["poor"])) < 4 * m.stderr


@pytest.mark.parametrize("name", ["uniform", "poor"])
def test_lbr_finds_most_of_the_exact_gain_and_never_more(name: str) -> None:
    """LBR's gain per seat: within its interval of the exact gain or below, at least half of it."""
    cfg, _ = _ladder()
    exact = _exact_gains(_strategies()[name])
    bound = lbr_bound(cfg, _tabular(name), games=200, seed=1, rollouts=16)
    for seat in (0, 1):
        gain = bound.seats[seat]
        assert gain.value_stderr == 0.0  # the tabular strategy's value is exact
        assert gain.ci95[0] <= exact[seat]
        assert gain.gain >= LBR_FRACTION * exact[seat]
    assert bound.ci95[0] <= (exact[0] + exact[1]) / 2


@pytest.mark.parametrize("name", ["uniform", "poor"])
def test_trained_responder_finds_most_of_the_exact_gain_and_never_more(name: str) -> None:
    """The trained responder (4,000 games of training per seat on perfect keys)."""
    cfg, _ = _ladder()
    exact = _exact_gains(_strategies()[name])
    bound = trained_bound(cfg, _tabular(name), games=300, seed=2, key="perfect", train_games=4000)
    for seat in (0, 1):
        gain = bound.seats[seat]
        assert gain.extra["train_games"] == 4000
        assert gain.ci95[0] <= exact[seat]
        assert gain.gain >= TRAINED_FRACTION * exact[seat]


def test_no_gain_against_an_equilibrium() -> None:
    """Against CFR+ after 400 iterations neither tool finds a gain beyond its interval."""
    cfg, _ = _ladder()
    exact = _exact_gains(_strategies()["equilibrium"])
    assert max(exact) < 0.01
    strategy = _tabular("equilibrium")
    for bound in (
        lbr_bound(cfg, strategy, games=200, seed=3, rollouts=8),
        trained_bound(cfg, strategy, games=200, seed=3, key="perfect", train_games=2000),
    ):
        for seat in (0, 1):
            assert bound.seats[seat].ci95[0] <= exact[seat]
            assert bound.seats[seat].gain < 0.1


def test_same_seed_same_result_with_any_workers() -> None:
    """Games are seeded one by one: batching and worker processes do not change them."""
    cfg, _ = _ladder()
    strategy = _tabular("uniform")
    seeds = [(9, g) for g in range(24)]
    one, _ = play_many(cfg, strategy, 1, lambda: LocalBestResponse(cfg, strategy, 4), seeds)
    two, _ = play_many(
        cfg, strategy, 1, lambda: LocalBestResponse(cfg, strategy, 4), seeds, workers=2, batch=5
    )
    assert np.array_equal(one, two)
    t1, _ = train_responder(cfg, strategy, 0, "perfect", 4, games=200)
    t2, _ = train_responder(cfg, strategy, 0, "perfect", 4, games=200, workers=2)
    assert t1.keys() == t2.keys()
    assert all(np.array_equal(t1[k], t2[k]) for k in t1)


def test_bad_input() -> None:
    """Bad settings are refused with the parameter's name."""
    cfg, _ = _ladder()
    strategy = _tabular("uniform")
    with pytest.raises(ValueError, match="rollouts"):
        LocalBestResponse(cfg, strategy, 0)
    with pytest.raises(ValueError, match="games"):
        lbr_bound(cfg, strategy, games=1, seed=0)
    with pytest.raises(ValueError, match="key"):
        train_responder(cfg, strategy, 0, "markov", 0, games=10)
    with pytest.raises(ValueError, match="budget"):
        train_responder(cfg, strategy, 0, "perfect", 0)
    with pytest.raises(ValueError, match="budget"):
        train_responder(cfg, strategy, 0, "perfect", 0, games=5, seconds=1.0)
    with pytest.raises(ValueError, match="strategy"):
        TabularStrategy(cfg, _ladder()[1], np.ones(3))


@pytest.mark.parametrize(
    "kind",
    ["uniform", pytest.param("random", marks=pytest.mark.slow)],
)
def test_table_responder_finds_most_of_the_exact_gain_and_never_more(kind: str) -> None:
    """``--method responder`` (the strongest recorded bounds): a table network trained by PPO
    against a table network whose exact gains are known on the tree. Its mean return per game
    (seats alternating) estimates at most the mean of the two seats' exact gains: it finds at
    least half of that, and its interval does not lie above it."""
    from complots_solver.solvers.knowledge.table_features import config_features
    from complots_solver.solvers.nets.tablenet import TableNet
    from complots_solver.solvers.selfplay.exact import table_tree_strategy
    from complots_solver.solvers.selfplay.responder import responder_bound

    config, _ = resolve_game(GAME)
    _, tree = _ladder()
    net = TableNet.create(
        config_features(config.to_array()), config.num_distinct_actions(), (64, 64), seed=5
    )
    if kind == "uniform":  # zero last layer: every legal action equally likely
        net.net.weights[-1][...] = 0.0
        net.net.biases[-1][...] = 0.0
    exact = float(np.mean(_exact_gains(table_tree_strategy(config, net, tree))))
    assert exact > 0.3  # far from equilibrium: a responder that finds little fails
    result = responder_bound(config, net, iterations=60, games=2000, seed=1)
    lo, hi = result.return_interval()
    assert result.train_games == 60 * 256
    assert lo <= exact
    assert result.mean_return >= TRAINED_FRACTION * exact
