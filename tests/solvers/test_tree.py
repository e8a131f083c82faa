"""Tests for the flat tree representation and the OpenSpiel compiler."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.tree import (
    NO_INFOSET,
    NO_PLAYER,
    NodeKind,
    Tree,
    TreeBuilder,
    compile_openspiel_tree,
    with_terminals_last,
)


def _count_states(game: pyspiel.Game) -> tuple[dict[NodeKind, int], set[str]]:
    """Independently count nodes by kind and distinct infoset strings."""
    counts = dict.fromkeys(NodeKind, 0)
    infosets: set[str] = set()
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            counts[NodeKind.TERMINAL] += 1
            continue
        if state.is_chance_node():
            counts[NodeKind.CHANCE] += 1
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
        else:
            counts[NodeKind.DECISION] += 1
            infosets.add(state.information_state_string())
            stack.extend(state.child(a) for a in state.legal_actions())
    return counts, infosets


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_compiled_sizes_match_independent_walk(game_name: str) -> None:
    game = pyspiel.load_game(game_name)
    tree = compile_openspiel_tree(game)
    counts, infosets = _count_states(game)
    for kind, expected in counts.items():
        assert tree.count(kind) == expected
    assert tree.num_nodes == sum(counts.values())
    assert set(tree.infoset_keys) == infosets
    assert tree.num_infosets == len(infosets)


def test_kuhn_known_sizes(kuhn_tree: Tree) -> None:
    assert (kuhn_tree.num_nodes, kuhn_tree.num_infosets, kuhn_tree.num_slots) == (58, 12, 24)
    assert kuhn_tree.count(NodeKind.TERMINAL) == 30
    assert "58 nodes" in kuhn_tree.summary() and "bytes/node" in kuhn_tree.summary()


def test_leduc_known_sizes(leduc_tree: Tree) -> None:
    assert (leduc_tree.num_nodes, leduc_tree.num_infosets) == (9457, 936)


def test_layouts(kuhn_game: pyspiel.Game) -> None:
    dfs = compile_openspiel_tree(kuhn_game, terminals_last=False)
    fast = compile_openspiel_tree(kuhn_game)
    assert fast.terminals_last and not dfs.terminals_last
    internal = np.flatnonzero(dfs.kind != NodeKind.TERMINAL)
    # DFS pre-order: the first child of every internal node is the next id.
    assert (dfs.children[dfs.child_offsets[internal]] == internal + 1).all()
    assert (fast.kind[: fast.num_internal] != NodeKind.TERMINAL).all()
    assert with_terminals_last(dfs).children.tolist() == fast.children.tolist()
    assert sorted(dfs.utility.tolist()) == sorted(fast.utility.tolist())


def test_solver_is_layout_independent(kuhn_game: pyspiel.Game) -> None:
    results = []
    for terminals_last in (False, True):
        solver = TreeSolver(
            compile_openspiel_tree(kuhn_game, terminals_last=terminals_last), "dcfr"
        )
        solver.run(30)
        results.append(solver.average_strategy())
    np.testing.assert_array_equal(results[0], results[1])


def test_node_arrays_are_consistent(leduc_tree: Tree) -> None:
    decision = leduc_tree.kind == NodeKind.DECISION
    assert (leduc_tree.player[~decision] == NO_PLAYER).all()
    assert (leduc_tree.infoset[~decision] == NO_INFOSET).all()
    assert leduc_tree.legal_actions.max() < pyspiel.load_game("leduc_poker").num_distinct_actions()
    np.testing.assert_allclose(leduc_tree.uniform_strategy().sum(), leduc_tree.num_infosets)


@pytest.mark.parametrize(
    ("game_string", "message"),
    [
        ("kuhn_poker(players=3)", "num_players"),
        ("trade_comm", "ZERO_SUM"),
        ("matrix_rps", "SEQUENTIAL"),
    ],
)
def test_rejects_unsupported_games(game_string: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compile_openspiel_tree(pyspiel.load_game(game_string))


def _matching_pennies() -> TreeBuilder:
    """Sequential matching pennies: P0 picks, P1 picks without seeing it."""
    builder = TreeBuilder()
    root_info = builder.infoset("p0", 0, [0, 1])
    p1_info = builder.infoset("p1", 1, [0, 1])
    root = builder.add_decision(root_info)
    for a in range(2):
        node = builder.add_decision(p1_info, parent=root, slot=a)
        for b in range(2):
            builder.add_terminal(1.0 if a == b else -1.0, parent=node, slot=b)
    return builder


def test_builder_matching_pennies_converges() -> None:
    tree = _matching_pennies().build("pennies")
    assert tree.num_nodes == 7 and tree.num_infosets == 2
    solver = TreeSolver(tree, "cfr+")
    solver.run(200)
    np.testing.assert_allclose(solver.average_strategy(), 0.5, atol=1e-3)


def test_builder_rejects_bad_input() -> None:
    builder = TreeBuilder()
    with pytest.raises(ValueError, match="player"):
        builder.infoset("x", 2, [0])
    info = builder.infoset("x", 0, [0, 1])
    with pytest.raises(ValueError, match="legal actions"):
        builder.infoset("x", 0, [0])
    root = builder.add_decision(info)
    with pytest.raises(ValueError, match="slot"):
        builder.add_terminal(0.0, parent=root, slot=2)
    builder.add_terminal(0.0, parent=root, slot=0)
    with pytest.raises(ValueError, match="already has a child"):
        builder.add_terminal(0.0, parent=root, slot=0)
    with pytest.raises(ValueError, match="no child"):
        builder.build()

    chance = TreeBuilder()
    node = chance.add_chance([0.5, 0.6])
    chance.add_terminal(1.0, parent=node, slot=0)
    chance.add_terminal(1.0, parent=node, slot=1)
    with pytest.raises(ValueError, match="sum to 1"):
        chance.build()


def test_tree_validation_rejects_non_topological_order() -> None:
    tree = _matching_pennies().build()
    fields = {name: getattr(tree, name) for name in Tree.__dataclass_fields__}
    fields["children"] = fields["children"].copy()
    fields["children"][0] = 0
    with pytest.raises(ValueError, match="children"):
        Tree(**fields)
