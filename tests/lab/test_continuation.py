"""Continuation leaves: biased blueprints, the players' choice at the leaves, the search over them."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.lab.belief.continuation import (
    Bias,
    ChoiceSubgame,
    LeafChoice,
    bias_mask,
    biased,
)
from complots_solver.lab.belief.search_exact import (
    blueprint_strategy,
    continuation_exploitability,
    continuation_values,
)
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_INCOME,
    A_PASS,
    A_TARGETED,
    A_TAX,
    T_COUP,
    T_STEAL,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.belief.vector_cfr import best_response, profile_values
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_bias_classes() -> None:
    """Each class holds its actions and no other (2 players: one targeted block of 2 ids per kind)."""
    players = 2
    steal = A_TARGETED + T_STEAL * players + 1
    coup = A_TARGETED + T_COUP * players
    ids = np.array([A_CHALLENGE, A_PASS, A_COUNTER + 1, A_TAX, steal, A_INCOME, coup])
    expect = {
        Bias.CHALLENGE: [1, 0, 0, 0, 0, 0, 0],
        Bias.PASS: [0, 1, 0, 0, 0, 0, 0],
        Bias.COUNTER: [0, 0, 1, 0, 0, 0, 0],
        Bias.CLAIM: [0, 0, 0, 1, 1, 0, 0],
        Bias.PLAIN: [0, 0, 0, 0, 0, 1, 1],
    }
    for bias, row in expect.items():
        assert bias_mask(ids, players, bias).tolist() == [bool(v) for v in row], bias


def _ladder_tree(name: str):
    config, _ = resolve_game(name)
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    return config, cfg, root, build_public_tree(cfg, root, Memory.CANONICAL)


def test_biased_moves_only_one_players_class() -> None:
    """The biased player's challenges gain probability wherever it can challenge; the other's
    slots are untouched, and every slot still sums to one."""
    config, _, _, whole = _ladder_tree("ladder-1-ambassador")
    base = blueprint_strategy(config, 3)
    out = biased(whole, base, 1, Bias.CHALLENGE, factor=4.0)
    owner = np.repeat(whole.slot_player, np.diff(whole.slot_action_start))
    assert np.array_equal(out[owner == 0], base[owner == 0])
    sums = np.add.reduceat(out, whole.slot_action_start[:-1])
    assert np.allclose(sums, 1.0)
    challenge = (whole.slot_actions == A_CHALLENGE) & (owner == 1)
    interior = challenge & (base > 1e-6) & (base < 1.0 - 1e-6)
    assert interior.any()
    assert np.all(out[interior] > base[interior])
    with pytest.raises(ValueError, match="factor"):
        biased(whole, base, 1, Bias.CHALLENGE, factor=0.0)


@pytest.mark.parametrize("chooser", [0, 1])
def test_leaf_choice_takes_the_dominant_continuation(chooser: int) -> None:
    """Given a continuation better for it at every leaf hypothesis, the choosing seat takes it,
    and the subgame is solved as the game with that continuation alone (its NashConv there is
    that of a solve given only that continuation; a solve given only the other is far off)."""
    _, cfg, root, _ = _ladder_tree("ladder-2-ambassador")
    settings = SearchSettings(iterations=60)
    rng = np.random.default_rng(0)

    def solved(values: np.ndarray) -> ChoiceSubgame:
        sub = ChoiceSubgame(cfg, root, None, settings)
        sub.set_values(values)
        sub.solve()
        return sub

    tree = ChoiceSubgame(cfg, root, None, settings).tree
    v = rng.uniform(-1.0, 1.0, len(tree.leaf_hyps))
    better = v + (0.3 if chooser == 0 else -0.3)
    shape = (2, 1) if chooser == 0 else (1, 2)
    sub = solved(np.stack([v, better]).reshape(*shape, -1))
    assert sub.choice is not None
    q = sub.choice.choice(chooser)[:, 1]
    # keys the chooser's counterfactual reach never weighs keep the uniform choice
    assert np.all(q >= 0.5) and (q == 1.0).mean() > 0.5
    game = tree.hyp_value.copy()
    game[tree.leaf_hyps] = better

    def nash_conv(strategy: np.ndarray) -> float:
        return sum(best_response(sub.tree, strategy, p, game)[0] for p in range(2))

    alone = nash_conv(solved(better.reshape(1, 1, -1)).strategy)
    other = nash_conv(solved(v.reshape(1, 1, -1)).strategy)
    assert alone < 0.005 and other > 0.02
    assert nash_conv(sub.strategy) < 0.005


def test_leaf_choice_refuses_bad_values() -> None:
    """Values must hold one entry per leaf hypothesis for each pair of continuations."""
    _, cfg, root, _ = _ladder_tree("ladder-2-ambassador")
    sub = ChoiceSubgame(cfg, root, None, SearchSettings(iterations=1))
    with pytest.raises(ValueError, match="values"):
        LeafChoice(sub.tree, np.zeros((2, len(sub.tree.leaf_hyps))))
    with pytest.raises(RuntimeError, match="set_values"):
        sub.solve()


def test_continuation_values_layout_and_best_response() -> None:
    """Rows are seat 0's continuations, columns seat 1's; the blueprint pair is the blueprint's
    value, and the opponent's best response is worth at least any of its biased blueprints."""
    config, _, _, whole = _ladder_tree("ladder-1-ambassador")
    bp = blueprint_strategy(config, 3)
    plain = profile_values(whole, bp)
    root = len(whole.prior)
    for player in range(2):
        values = continuation_values(whole, bp, player, best_response=True)
        k = 2 + len(Bias)
        assert values.shape == ((1, k) if player == 0 else (k, 1)) + (whole.num_hyps,)
        assert np.allclose(values.reshape(k, -1)[0], plain)
        sign = -1.0 if player == 0 else 1.0  # the opponent's sign
        at_root = sign * values.reshape(k, -1)[:, :root] @ whole.prior
        assert at_root[-1] >= at_root[:-1].max() - 1e-12


def test_continuation_search_improves_a_short_blueprint() -> None:
    """On ladder-1 the search over a 5-iteration CFR+ blueprint (about 0.1 exploitable) is
    below 0.01, exactly measured; the blueprint alone is not."""
    config, _ = resolve_game("ladder-1-ambassador")
    out = continuation_exploitability(config, SearchSettings(iterations=100, safe=True), 5)
    assert out["blueprint_exploitability"] > 0.05
    assert out["exploitability"] < 0.01
    assert out["missed"] == 0
