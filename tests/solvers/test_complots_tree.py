"""The numba Complots tree compiler against the generic OpenSpiel compiler."""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import complots_solver.openspiel  # noqa: F401  (registers the game "complots")
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import (
    ComplotsTree,
    InfosetKeys,
    compile_complots_tree,
    count_tree,
)
from complots_solver.solvers.exact.tree import (
    NODE_DTYPES,
    NUM_PLAYERS,
    NodeKind,
    Tree,
    compile_openspiel_tree,
    with_terminals_last,
)
from tests.helpers import COMPLOTS2_SETS

TOLERANCE = 1e-9
LADDER_1 = {"influence": 1, "max_turns": 2}
# Configurations compared with compile_openspiel_tree, node for node.
MATCH_CONFIGS = {
    "ladder-1-ambassador": {**LADDER_1, "lineup": "ambassador"},
    "ladder-1-inquisitor": {**LADDER_1, "lineup": "inquisitor"},
    "draft-2-influence-1-turn": {"max_turns": 1},
    "deal-1-copy-inquisitor": {
        "variant": "deal",
        "copies": 1,
        "max_turns": 1,
        "lineup": "inquisitor",
    },
    # Complots 2 (docs/rules.md section 7): Sorciere windows, Espion redraws, Maitre-Chanteur...
    "c2-catechumene-deal-1-copy": {
        "variant": "deal",
        "copies": 1,
        "max_turns": 1,
        "characters": COMPLOTS2_SETS["catechumene"],
    },
    "c2-expert-deal-1-copy": {
        "variant": "deal",
        "copies": 1,
        "max_turns": 1,
        "characters": COMPLOTS2_SETS["expert"],
    },
    "c2-tractations-draft-1-turn": {
        "influence": 1,
        "max_turns": 1,
        "characters": COMPLOTS2_SETS["tractations"],
    },
}
# OpenSpiel's Python best response needs ~25 s per ladder-1 game: small games by default.
EXPLOITABILITY_CONFIGS = [
    {"influence": 1, "max_turns": 1, "lineup": "ambassador"},
    {"influence": 1, "max_turns": 1, "lineup": "inquisitor"},
    MATCH_CONFIGS["deal-1-copy-inquisitor"],
    MATCH_CONFIGS["c2-tractations-draft-1-turn"],
    MATCH_CONFIGS["c2-expert-deal-1-copy"],
]
SLOW_EXPLOITABILITY_CONFIGS = [
    MATCH_CONFIGS["ladder-1-ambassador"],
    MATCH_CONFIGS["ladder-1-inquisitor"],
    MATCH_CONFIGS["draft-2-influence-1-turn"],
]
TINY = {"influence": 1, "max_turns": 1}


def _config(params: dict) -> GameConfig:
    return GameConfig.from_params(params)


def _game(config: GameConfig) -> pyspiel.Game:
    return pyspiel.load_game(config.game_string())


@pytest.fixture(scope="module", params=list(MATCH_CONFIGS), ids=list(MATCH_CONFIGS))
def tree_pair(request: pytest.FixtureRequest) -> tuple[ComplotsTree, Tree]:
    """(numba-compiled tree, OpenSpiel-compiled tree) of one configuration."""
    config = _config(MATCH_CONFIGS[request.param])
    return compile_complots_tree(config), compile_openspiel_tree(_game(config))


def _terminal_outcomes(tree: Tree) -> np.ndarray:
    """Sorted (utility, chance reach) rows of the terminal nodes."""
    reach = np.ones(tree.num_nodes)
    degree = np.diff(tree.child_offsets)
    parents = np.repeat(np.arange(tree.num_nodes), degree)
    edge_chance = np.repeat(tree.kind == NodeKind.CHANCE, degree)
    factor = np.where(edge_chance, tree.chance_prob, 1.0)
    for e in np.argsort(tree.children, kind="stable"):  # children in topological order
        reach[tree.children[e]] = reach[parents[e]] * factor[e]
    terminal = tree.kind == NodeKind.TERMINAL
    rows = np.stack([tree.utility[terminal], reach[terminal]], axis=1)
    return rows[np.lexsort((rows[:, 1], rows[:, 0]))]


def _actions_by_key(tree: Tree) -> dict[str, list[int]]:
    """Infoset key -> legal actions."""
    offsets = tree.action_offsets
    return {
        key: tree.legal_actions[offsets[i] : offsets[i + 1]].tolist()
        for i, key in enumerate(tree.infoset_keys)
    }


def test_arrays_equal_openspiel_compiler(tree_pair: tuple[ComplotsTree, Tree]) -> None:
    ours, reference = tree_pair
    for attr in NODE_DTYPES:
        assert np.array_equal(getattr(ours, attr), getattr(reference, attr)), attr


def test_sizes_match(tree_pair: tuple[ComplotsTree, Tree]) -> None:
    ours, reference = tree_pair
    for kind in NodeKind:
        assert ours.count(kind) == reference.count(kind), kind.name
    for p in range(NUM_PLAYERS):
        assert np.count_nonzero(ours.infoset_player == p) == np.count_nonzero(
            reference.infoset_player == p
        )
    assert ours.num_slots == reference.num_slots
    assert ours.terminals_last


def test_terminal_utilities_weighted_by_chance_match(tree_pair: tuple[ComplotsTree, Tree]) -> None:
    ours, reference = tree_pair
    np.testing.assert_allclose(
        _terminal_outcomes(ours), _terminal_outcomes(reference), rtol=0, atol=TOLERANCE
    )


def test_infoset_keys_and_legal_actions_match(tree_pair: tuple[ComplotsTree, Tree]) -> None:
    ours, reference = tree_pair
    assert isinstance(ours.infoset_keys, InfosetKeys)
    assert len(ours.infoset_keys) == ours.num_infosets
    assert _actions_by_key(ours) == _actions_by_key(reference)
    assert list(ours.infoset_keys) == reference.infoset_keys


def test_count_tree_matches_compiled_tree(tree_pair: tuple[ComplotsTree, Tree]) -> None:
    ours, _ = tree_pair
    counts = count_tree(ours.keys.config)
    assert counts.nodes == ours.num_nodes
    assert counts.edges == ours.num_edges
    assert (counts.decision, counts.chance, counts.terminal) == tuple(
        ours.count(k) for k in (NodeKind.DECISION, NodeKind.CHANCE, NodeKind.TERMINAL)
    )
    assert counts.num_infosets == ours.num_infosets
    assert counts.infosets == tuple(np.bincount(ours.infoset_player, minlength=NUM_PLAYERS))
    assert counts.slots == ours.num_slots
    assert counts.estimated_bytes() == ours.nbytes()
    quick = count_tree(ours.keys.config, infosets=False)
    assert (quick.nodes, quick.edges, quick.max_depth) == (
        counts.nodes,
        counts.edges,
        counts.max_depth,
    )
    assert quick.infosets == () and quick.slots == 0


@pytest.mark.parametrize("params", EXPLOITABILITY_CONFIGS, ids=str)
def test_uniform_exploitability_matches_openspiel(params: dict) -> None:
    config = _config(params)
    tree = compile_complots_tree(config)
    game = _game(config)
    expected = openspiel_exploitability.exploitability(
        game, openspiel_policy.UniformRandomPolicy(game)
    )
    assert exploitability(tree, tree.uniform_strategy()) == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.slow
@pytest.mark.parametrize("params", SLOW_EXPLOITABILITY_CONFIGS, ids=str)
def test_uniform_exploitability_matches_openspiel_slow(params: dict) -> None:
    test_uniform_exploitability_matches_openspiel(params)


def test_preorder_numbering_matches_openspiel_compiler() -> None:
    config = _config(TINY)
    ours = compile_complots_tree(config, terminals_last=False)
    reference = compile_openspiel_tree(_game(config), terminals_last=False)
    for attr in NODE_DTYPES:
        assert np.array_equal(getattr(ours, attr), getattr(reference, attr)), attr
    assert list(ours.infoset_keys) == reference.infoset_keys


def test_history_replays_to_an_infoset_node() -> None:
    tree = compile_complots_tree(_config(TINY))
    keys = tree.keys
    for i in (0, tree.num_infosets // 2, tree.num_infosets - 1):
        state = keys.state(i)
        player = int(tree.infoset_player[i])
        assert state.current_player() == player
        slots = slice(tree.action_offsets[i], tree.action_offsets[i + 1])
        assert state.legal_actions() == tree.legal_actions[slots].tolist()
        assert keys[i] == state.information_state_string(player)
    assert keys[-1] == keys[tree.num_infosets - 1]
    assert keys[1:3] == [keys[1], keys[2]]
    with pytest.raises(IndexError):
        keys.history(tree.num_infosets)


def test_keys_stay_lazy_through_solver_layout() -> None:
    tree = compile_complots_tree(_config(TINY), validate=False)
    assert with_terminals_last(tree) is tree
    assert isinstance(tree.infoset_keys, InfosetKeys)
    tree.validate()
    key = tree.infoset_keys[0]
    copy = pickle.loads(pickle.dumps(tree))
    assert copy.infoset_keys[0] == key
    assert np.array_equal(copy.children, tree.children)


def test_rejects_more_than_two_players() -> None:
    config = _config({"players": 3, "max_turns": 1})
    with pytest.raises(ValueError, match="players must be 2"):
        compile_complots_tree(config)
    with pytest.raises(ValueError, match="players must be 2"):
        count_tree(config)


@pytest.mark.parametrize("lineup", ["ambassador", "inquisitor"])
def test_solved_policy_exploitability_matches_openspiel(lineup: str) -> None:
    """A non-uniform policy (CFR+ after 30 iterations) gets OpenSpiel's exploitability."""
    from complots_solver.solvers.exact.cfr import TreeSolver
    from complots_solver.solvers.exact.policy import to_tabular_policy

    config = _config({**TINY, "lineup": lineup})
    tree = compile_complots_tree(config)
    solver = TreeSolver(tree, "cfr+")
    solver.run(30)
    strategy = solver.average_strategy()
    assert not np.allclose(strategy, tree.uniform_strategy())
    game = _game(config)
    expected = openspiel_exploitability.exploitability(
        game, to_tabular_policy(tree, strategy, game)
    )
    assert exploitability(tree, strategy) == pytest.approx(expected, abs=TOLERANCE)
