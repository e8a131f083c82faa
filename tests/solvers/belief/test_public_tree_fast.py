"""The compiled public-tree build gives the reference construction's tree, array for array."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.layout import S_COINS, S_CUR
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.public_tree import (
    PublicTree,
    build_public_tree,
    random_beliefs,
    time_builds,
)
from complots_solver.solvers.belief.public_tree_reference import _build_public_tree_reference
from complots_solver.solvers.belief.tracker import BeliefTracker
from complots_solver.solvers.knowledge.hypotheses import CHANCE, TERMINAL, Hypotheses, Memory


def _cfg(name: str) -> np.ndarray:
    return resolve_game(name)[0].to_array()


def _assert_same(fast: PublicTree, reference: PublicTree) -> None:
    """Every field equal: arrays in dtype, shape and value; the child index in order too."""
    for f in fields(PublicTree):
        mine, theirs = getattr(fast, f.name), getattr(reference, f.name)
        if isinstance(theirs, np.ndarray):
            assert mine.dtype == theirs.dtype, f.name
            assert mine.shape == theirs.shape, f.name
            assert np.array_equal(mine, theirs), f.name
        else:
            assert mine == theirs, f.name
    assert list(fast.child_index.items()) == list(reference.child_index.items())
    assert fast._slot_index == reference._slot_index


def _check(cfg: np.ndarray, root: Hypotheses, memory: Memory, max_turns: int | None) -> PublicTree:
    fast = build_public_tree(cfg, root, memory, max_turns)
    _assert_same(fast, _build_public_tree_reference(cfg, root, memory, max_turns))
    return fast


def _midgame_root(cfg: np.ndarray, moves: int, seed: int) -> Hypotheses:
    """The exact belief (uniform play) after ``moves`` random moves of one game."""
    rng = np.random.default_rng(seed)
    state = core.initial_state(cfg)
    tracker = BeliefTracker(cfg)
    outs = np.empty(128, dtype=np.int32)
    probs = np.empty(128)
    for _ in range(moves):
        if int(state[S_CUR]) == CHANCE:
            k = core.chance_outcomes_into(state, cfg, outs, probs)
            a = int(rng.choice(outs[:k], p=probs[:k] / probs[:k].sum()))
        else:
            k = core.legal_actions_into(state, cfg, outs)
            a = int(rng.choice(outs[:k]))
        tracker.observe_move(state, a)
        core.apply_action(state, cfg, a)
    assert int(state[S_CUR]) != TERMINAL
    h = tracker.hyps
    return Hypotheses(h.states, h.xs, h.knows, h.weights)


@pytest.mark.parametrize("memory", list(Memory))
@pytest.mark.parametrize("name", ["ladder-1-ambassador", "ladder-1-inquisitor"])
def test_whole_ladder_1_games(name: str, memory: Memory) -> None:
    """Whole-game trees of the smallest games, every private-state memory."""
    cfg = _cfg(name)
    _check(cfg, Hypotheses.initial(cfg), memory, None)


def test_whole_ladder_2_canonical() -> None:
    """A larger whole-game tree, with CANONICAL merging."""
    cfg = _cfg("ladder-2-ambassador")
    tree = _check(cfg, Hypotheses.initial(cfg), Memory.CANONICAL, None)
    assert tree.num_hyps > 50_000


@pytest.mark.parametrize("memory", list(Memory))
@pytest.mark.parametrize("name", ["draft-ambassador", "draft-inquisitor"])
def test_one_turn_subgames(name: str, memory: Memory) -> None:
    """Depth-limited subgames from the initial state and from a mid-game belief."""
    cfg = _cfg(name)
    first = _check(cfg, Hypotheses.initial(cfg), memory, 1)
    assert len(first.leaf_hyps) > 0
    root = _midgame_root(cfg, 20, seed=5)
    assert len(root) > 50  # a real belief, not a known state
    later = _check(cfg, root, memory, 1)
    assert later.num_nodes > 1
    turn_start = random_beliefs(cfg, 4, seed=2)[3]
    assert len(turn_start) > 50
    whole_turn = _check(cfg, turn_start, memory, 1)
    assert whole_turn.num_nodes > 50


def test_errors_match() -> None:
    """The hypothesis bound, the root checks and the legal-action check raise as before."""
    cfg = _cfg("ladder-1-ambassador")
    root = Hypotheses.initial(cfg)
    for build in (build_public_tree, _build_public_tree_reference):
        with pytest.raises(ValueError, match="max_hyps: the public tree exceeds 1,000 hypotheses"):
            build(cfg, root, Memory.CANONICAL, None, max_hyps=1000)
        with pytest.raises(ValueError, match="max_hyps"):
            build(cfg, root, Memory.CANONICAL, None, max_hyps=0)
    empty = Hypotheses(root.states[:0], root.xs[:0], root.knows[:0], root.weights[:0])
    with pytest.raises(ValueError, match="at least one hypothesis"):
        build_public_tree(cfg, empty)
    # two hypotheses one player cannot tell apart, one of them forced to Coup (10 coins)
    cfg = _cfg("draft-ambassador")
    turn = random_beliefs(cfg, 2, seed=2)[1]  # the first turn start
    actor = int(turn.states[0, S_CUR])
    states = np.repeat(turn.states[:1], 2, axis=0)
    states[1, S_COINS + actor] = 10
    xs = np.zeros((2, turn.xs.shape[1]), dtype=np.int64)
    mixed = Hypotheses(states, xs, np.repeat(turn.knows[:1], 2, axis=0), np.full(2, 0.5))
    for build in (build_public_tree, _build_public_tree_reference):
        with pytest.raises(AssertionError, match="differ in legal actions"):
            build(cfg, mixed, Memory.CANONICAL, 1)


def test_benchmark_helpers() -> None:
    """The roots and timings behind scripts/bench_belief_build.py."""
    cfg = _cfg("ladder-1-inquisitor")
    roots = random_beliefs(cfg, 3, seed=1)
    assert len(roots) == 3 and len(roots[0]) == 1
    for root in roots:
        assert np.all(root.states[:, S_CUR] == root.states[0, S_CUR])
    fast, reference = time_builds(cfg, roots, repeats=1)
    assert fast.shape == reference.shape == (3,)
    assert np.all(fast > 0) and np.all(reference > 0)
