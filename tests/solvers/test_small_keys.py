"""The ``compact`` key: what it keeps, what it forgets, and that it never merges different action sets."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Clan, Stage
from complots_solver.rules.layout import S_COINS, S_CUR, S_REVEALED, S_STAGE
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.mccfr.infokeys import (
    KEY_COMPACT,
    KEY_MARKOV,
    KNOWN_SHIFT,
    compact_key,
    key_after_history,
)
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from tests.helpers import deal_hands, load, play

PARAMS = {"players": 2, "variant": "deal"}


def _seat0_to_act() -> tuple[np.ndarray, np.ndarray]:
    """(cfg, state) with seat 0 to choose an action after the deal."""
    s = load(**PARAMS).new_initial_state()
    deal_hands(s, "Duchess+Assassin", "Captain+Countess")
    assert s.current_player() == 0
    return GameConfig.from_params(PARAMS).to_array(), s.s.copy()


def _key(cfg: np.ndarray, s: np.ndarray, memory: list[int] | None = None) -> int:
    return int(compact_key(s, cfg, np.array(memory or [0, 0], dtype=np.int64)))


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
def test_opponent_coins_are_bucketed_at_an_action(low: int, high: int, same: bool) -> None:
    cfg, s = _seat0_to_act()
    t = s.copy()
    s[S_COINS + 1] = low
    t[S_COINS + 1] = high
    assert (_key(cfg, s) == _key(cfg, t)) is same


@pytest.mark.parametrize(("stage", "same"), [(Stage.ACTION, False), (Stage.CHALLENGE, True)])
def test_own_coins_are_bucketed_only_where_no_legal_action_depends_on_them(
    stage: Stage, same: bool
) -> None:
    cfg, s = _seat0_to_act()
    s[S_STAGE] = stage
    t = s.copy()
    s[S_COINS + 0] = 4
    t[S_COINS + 0] = 6  # same response bucket (3-6), different exact coins
    assert (_key(cfg, s) == _key(cfg, t)) is same
    t[S_COINS + 0] = 7  # another bucket
    assert _key(cfg, s) != _key(cfg, t)


def test_complots2_keeps_opponent_coins_exact() -> None:
    config, _ = resolve_game("draft-c2-expert")
    cfg = config.to_array()
    s = core.initial_state(cfg)
    s[S_STAGE] = Stage.ACTION
    s[S_CUR] = 0
    t = s.copy()
    s[S_COINS + 1] = 4
    t[S_COINS + 1] = 5
    assert _key(cfg, s) != _key(cfg, t)


def test_claims_known_court_and_whose_face_up_card_are_forgotten() -> None:
    cfg, s = _seat0_to_act()
    base = _key(cfg, s)
    assert _key(cfg, s, [0b00110, 0b00010]) == base  # claim masks
    assert _key(cfg, s, [1 << KNOWN_SHIFT, 0]) == base  # known Court cards
    a, b = s.copy(), s.copy()
    a[S_REVEALED + 0 * NUM_CLANS + Clan.ASSASSIN] = 1  # seat 0 shows an Assassin ...
    b[S_REVEALED + 1 * NUM_CLANS + Clan.ASSASSIN] = 1  # ... or seat 1 does
    assert _key(cfg, a) == _key(cfg, b) != base


def test_compact_merges_what_markov_separates() -> None:
    """Two histories differing only in the mover's known Court cards: one compact key, two markov keys."""
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
    compact = [key_after_history(cfg, KEY_COMPACT, h)[0] for h in histories]
    assert markov[0] != markov[1]
    assert compact[0] == compact[1]


@pytest.mark.parametrize(
    "preset", ["draft-ambassador", "draft-inquisitor", "draft-c2-expert", "complots-inquisitor-3"]
)
def test_compact_key_never_merges_different_action_sets(preset: str) -> None:
    """Legal actions are a function of the key: no row is ever met with another action count."""
    config, _ = resolve_game(preset)
    counts = {}
    for key in ("markov", "compact"):
        solver = MCCFRSolver(config, algorithm="os", key=key, seed=3)
        solver.run(3000)
        assert solver.key_conflicts == 0
        counts[key] = solver.num_infostates
    assert counts["compact"] < counts["markov"]
