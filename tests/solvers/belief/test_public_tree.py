"""Public trees with hypothesis sets: structure, exact CFR, and agreement with the exact tree."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.exact_eval import to_tree_strategy
from complots_solver.solvers.belief.public_tree import LEAF, build_public_tree
from complots_solver.solvers.belief.vector_cfr import (
    VectorCFR,
    best_response,
    exploitability,
    normalize,
)
from complots_solver.solvers.exact.best_response import best_response as tree_best_response
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory


def _setup(name: str, memory: Memory, max_turns: int | None = None):
    config, _ = resolve_game(name)
    cfg = config.to_array()
    tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=memory, max_turns=max_turns)
    return config, cfg, tree


@pytest.fixture(scope="module")
def ladder1_inq():
    config, _ = resolve_game("ladder-1-inquisitor")
    return config, compile_complots_tree(config)


def test_perfect_recall_tree_has_one_hypothesis_per_history(ladder1_inq) -> None:
    """With perfect recall nothing merges: hypotheses are the history tree's nodes, slots its infosets."""
    _, ctree = ladder1_inq
    _, _, tree = _setup("ladder-1-inquisitor", Memory.PERFECT)
    assert tree.num_hyps == ctree.num_nodes
    assert tree.num_slots == ctree.num_infosets
    # every node's hypotheses share the acting player, and priors sum to one
    assert tree.prior.sum() == pytest.approx(1.0)
    # parents come before children
    parents = np.repeat(np.arange(tree.num_hyps), np.diff(tree.hyp_edge_start))
    assert np.all(tree.edge_child > parents)


def test_best_response_agrees_with_exact_tree(ladder1_inq) -> None:
    """The public tree's best response to a random strategy equals the history tree's, per seat."""
    _, ctree = ladder1_inq
    _, _, tree = _setup("ladder-1-inquisitor", Memory.PERFECT)
    rng = np.random.default_rng(3)
    strategy = normalize(rng.random(int(tree.slot_action_start[-1])) ** 3, tree.slot_action_start)
    mapped = to_tree_strategy(tree, strategy, ctree)
    for seat in (0, 1):
        mine, _ = best_response(tree, strategy, seat)
        theirs, _ = tree_best_response(ctree, mapped, seat)
        assert mine == pytest.approx(theirs, abs=1e-12)
    assert exploitability(tree, strategy) > 0.05  # a random strategy is far from equilibrium


@pytest.mark.parametrize("memory", [Memory.PERFECT, Memory.CANONICAL])
@pytest.mark.parametrize("name", ["ladder-1-ambassador", "ladder-1-inquisitor"])
def test_vector_cfr_solves_ladder_1(name: str, memory: Memory) -> None:
    """CFR+ on the public tree reaches exact exploitability <= 1e-3, measured on the history tree."""
    config, cfg, tree = _setup(name, memory)
    solver = VectorCFR(tree)
    solver.run(150)
    avg = solver.average_strategy()
    ctree = compile_complots_tree(config)
    exact = tree_exploitability(ctree, to_tree_strategy(tree, avg, ctree))
    assert exact <= 1e-3
    assert exploitability(tree, avg) <= 1e-3


@pytest.mark.parametrize("rule", ["pcfr+", "dcfr"])
def test_other_regret_rules_solve_ladder_1(rule: str) -> None:
    """Predictive CFR+ and discounted CFR converge too (exact exploitability <= 1e-3 on the
    history tree); a bad rule name is refused."""
    config, cfg, tree = _setup("ladder-1-ambassador", Memory.CANONICAL)
    solver = VectorCFR(tree, rule=rule)
    solver.run(150)
    avg = solver.average_strategy()
    ctree = compile_complots_tree(config)
    assert tree_exploitability(ctree, to_tree_strategy(tree, avg, ctree)) <= 1e-3
    with pytest.raises(ValueError, match="rule"):
        VectorCFR(tree, rule="cfr")


def test_canonical_memory_is_lossless_on_ladder_2_inquisitor() -> None:
    """CANONICAL merges information states (fewer hypotheses) yet its exact exploitability matches its own."""
    config, cfg, tree = _setup("ladder-2-inquisitor", Memory.CANONICAL)
    ctree = compile_complots_tree(config)
    assert tree.num_hyps < 0.6 * ctree.num_nodes
    solver = VectorCFR(tree)
    solver.run(200)
    avg = solver.average_strategy()
    exact = tree_exploitability(ctree, to_tree_strategy(tree, avg, ctree))
    assert exact == pytest.approx(exploitability(tree, avg), abs=1e-6)
    assert exact < 2e-3


def test_summary_memory_loses_what_canonical_keeps() -> None:
    """SUMMARY (cards and certain Court knowledge only) is exploitable where CANONICAL is not."""
    config, cfg, tree = _setup("ladder-1-inquisitor", Memory.SUMMARY)
    ctree = compile_complots_tree(config)
    solver = VectorCFR(tree)
    solver.run(300)
    avg = solver.average_strategy()
    exact = tree_exploitability(ctree, to_tree_strategy(tree, avg, ctree))
    assert exact > 2 * exploitability(tree, avg)


def test_depth_limit_makes_leaves_at_turn_starts() -> None:
    """A one-turn subgame of the full draft game stops at the next turn's start, with states kept."""
    config, cfg, tree = _setup("draft-ambassador", Memory.CANONICAL, max_turns=1)
    assert len(tree.leaf_hyps) > 0
    assert np.all(tree.hyp_player[tree.leaf_hyps] == LEAF)
    from complots_solver.rules.layout import S_STAGE, S_TURN

    assert np.all(tree.leaf_states[:, S_TURN] == 1)
    assert np.all(tree.leaf_states[:, S_STAGE] == 2)  # Stage.ACTION
    # a target who wrongly challenges a true Assassin loses both cards in one turn (rulebook
    # clarification): the one-turn subgame already holds terminals
    assert np.any(tree.hyp_player == -4)
    # with every leaf worth +0.5 to seat 0, seat 0's best response to a uniform seat 1 is worth
    # at least 0.5 (Income reaches a leaf) and more (the double loss wins outright)
    hv = tree.hyp_value.copy()
    hv[tree.leaf_hyps] = 0.5
    uniform = normalize(np.ones(int(tree.slot_action_start[-1])), tree.slot_action_start)
    value, _ = best_response(tree, uniform, 0, hv)
    assert 0.5 < value < 1.0
