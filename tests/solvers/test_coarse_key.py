"""The ``coarse`` key: what it keeps, what it forgets, and that it never merges different action sets."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import S_COINS, S_CUR
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.infokeys import (
    CLAIM_BITS,
    KEY_COARSE,
    KEY_MARKOV,
    KNOWN_SHIFT,
    coarse_key,
    key_after_history,
)
from complots_solver.solvers.mccfr import MCCFRSolver
from tests.helpers import deal_hands, load, play

PARAMS = {"players": 2, "variant": "deal"}


def _seat0_to_act() -> tuple[np.ndarray, np.ndarray]:
    """(cfg, state) with seat 0 to choose an action after the deal."""
    game = load(**PARAMS)
    s = game.new_initial_state()
    deal_hands(s, "Duchess+Assassin", "Captain+Countess")
    assert s.current_player() == 0
    return GameConfig.from_params(PARAMS).to_array(), s.s.copy()


def _key(cfg: np.ndarray, s: np.ndarray, memory: list[int]) -> int:
    return int(coarse_key(s, cfg, np.array(memory, dtype=np.int64)))


@pytest.mark.parametrize(
    ("low", "high", "same"),
    [
        (4, 6, True),
        (3, 5, True),
        (2, 3, False),
        (6, 7, False),
        (9, 10, False),
        (0, 1, False),
        (10, 12, True),
    ],
)
def test_opponent_coins_are_bucketed(low: int, high: int, same: bool) -> None:
    cfg, s = _seat0_to_act()
    t = s.copy()
    s[S_COINS + 1] = low
    t[S_COINS + 1] = high
    assert (_key(cfg, s, [0, 0]) == _key(cfg, t, [0, 0])) is same


def test_own_coins_are_exact() -> None:
    cfg, s = _seat0_to_act()
    t = s.copy()
    s[S_COINS + 0] = 4
    t[S_COINS + 0] = 5
    assert _key(cfg, s, [0, 0]) != _key(cfg, t, [0, 0])


def test_complots2_keeps_opponent_coins_exact() -> None:
    config, _ = resolve_game("draft-c2-expert")
    cfg = config.to_array()
    s = core.initial_state(cfg)
    s[S_CUR] = 0
    t = s.copy()
    s[S_COINS + 1] = 4
    t[S_COINS + 1] = 5
    assert _key(cfg, s, [0, 0]) != _key(cfg, t, [0, 0])


def test_opponent_claims_kept_own_claims_and_known_court_forgotten() -> None:
    cfg, s = _seat0_to_act()
    base = _key(cfg, s, [0, 0])
    assert _key(cfg, s, [0, 0b00010]) != base  # the opponent claimed a clan
    assert _key(cfg, s, [0b00010, 0]) == base  # seat 0's own claims
    assert _key(cfg, s, [1 << KNOWN_SHIFT, 0]) == base  # seat 0's known Court cards
    assert CLAIM_BITS == 0b11111


def test_coarse_merges_what_markov_separates() -> None:
    """Two histories differing only in the mover's known Court cards: one coarse key, two markov keys."""
    cfg = GameConfig.from_params(PARAMS).to_array()
    histories = []
    for draw in ("Assassin+Captain", "Countess+Countess"):
        s = load(**PARAMS).new_initial_state()
        deal_hands(s, "Ambassador+Duchess", "Captain+Countess")
        play(s, "Exchange")
        play(s, "Pass")
        deal_hands(s, f"Draw {draw}")
        play(s, "Keep Duchess+Ambassador")
        play(s, "Income")
        histories.append(np.array(s.history()))
    markov = [key_after_history(cfg, KEY_MARKOV, h)[0] for h in histories]
    coarse = [key_after_history(cfg, KEY_COARSE, h)[0] for h in histories]
    assert markov[0] != markov[1]
    assert coarse[0] == coarse[1]


@pytest.mark.parametrize(
    "preset", ["draft-ambassador", "draft-inquisitor", "draft-c2-expert", "complots-inquisitor-3"]
)
def test_coarse_key_never_merges_different_action_sets(preset: str) -> None:
    """Legal actions are a function of the key: no row is ever met with another action count."""
    config, _ = resolve_game(preset)
    counts = {}
    for key in ("markov", "coarse"):
        solver = MCCFRSolver(config, algorithm="os", key=key, seed=3)
        solver.run(3000)
        assert solver.key_conflicts == 0
        counts[key] = solver.num_infostates
    assert counts["coarse"] < counts["markov"]
