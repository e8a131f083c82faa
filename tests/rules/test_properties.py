"""Property tests over many random games: conservation, turn order, D-1, privacy, length.

Games are played on the compiled core for speed (the invariants read the flat
state); the information-state checks go through pyspiel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import (
    A_TARGETED,
    C_COPIES,
    C_INFLUENCE,
    C_MAX_TURNS,
    C_PLAYERS,
    C_TOTAL_COINS,
    S_ACTOR,
    S_BURIED,
    S_COINS,
    S_COURT,
    S_CUR,
    S_DEAL_NEXT,
    S_DRAWER,
    S_HIDDEN,
    S_OUT,
    S_REVEALED,
    S_STAGE,
    S_TREASURY,
    S_TURN,
    S_WINNER,
    T_COUP,
)
from tests.helpers import CHANCE, COMPLOTS2_SETS, all_configs, complots2_configs, load

CONFIGS = all_configs() + complots2_configs()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def _id(params: dict[str, Any]) -> str:
    """Short test id of a parameter dict."""
    return ",".join(f"{k}={v}" for k, v in params.items())


def _check_invariants(cfg: np.ndarray, s: np.ndarray) -> None:
    """Invariants that hold in every state."""
    n = int(cfg[C_PLAYERS])
    coins = s[S_COINS : S_COINS + n]
    assert (coins >= 0).all() and s[S_TREASURY] >= 0
    assert int(coins.sum()) + int(s[S_TREASURY]) == int(cfg[C_TOTAL_COINS])
    assert (s[S_COINS + n : S_HIDDEN] == 0).all()  # unused seats hold nothing
    hidden = s[S_HIDDEN : S_HIDDEN + n * NUM_CLANS].reshape(n, NUM_CLANS)
    revealed = s[S_REVEALED : S_REVEALED + n * NUM_CLANS].reshape(n, NUM_CLANS)
    courtc = s[S_COURT : S_COURT + NUM_CLANS]
    out = s[S_OUT : S_OUT + NUM_CLANS]
    buried = s[S_BURIED : S_BURIED + n * NUM_CLANS].reshape(n, NUM_CLANS)  # Sorciere claims
    for arr in (hidden, revealed, courtc, out, buried):
        assert (arr >= 0).all()
    total = hidden.sum(axis=0) + revealed.sum(axis=0) + buried.sum(axis=0) + courtc + out
    assert (total == cfg[C_COPIES]).all(), total
    influence = int(cfg[C_INFLUENCE])
    lost = revealed.sum(axis=1) + buried.sum(axis=1)
    assert (hidden.sum(axis=1) + lost <= influence + 2).all()
    assert (lost <= influence).all()
    assert 0 <= s[S_TURN] <= cfg[C_MAX_TURNS]
    stage = int(s[S_STAGE])
    cur = int(s[S_CUR])
    if stage == Stage.TERMINAL:
        alive = int((hidden.sum(axis=1) > 0).sum())
        w = int(s[S_WINNER])
        if w >= 0:
            assert alive == 1 and hidden[w].sum() > 0
        else:
            assert s[S_TURN] == cfg[C_MAX_TURNS] and alive >= 2
    elif cur >= 0:
        assert cur < n
        assert hidden[cur].sum() > 0, "an eliminated player is to move"


def _hidden_value_checks(cfg: np.ndarray, s: np.ndarray, legal: np.ndarray) -> None:
    """Tokens others receive for a private move must not depend on its value."""
    n = int(cfg[C_PLAYERS])
    stage = int(s[S_STAGE])
    cur = int(s[S_CUR])
    if cur == CHANCE:
        entitled = {int(s[S_DEAL_NEXT]) if stage == Stage.DEAL else int(s[S_DRAWER])}
    elif stage in (Stage.PICK, Stage.EXCHANGE_KEEP):
        entitled = {cur}
    elif stage == Stage.EXAMINE_SHOW:
        entitled = {cur, int(s[S_ACTOR])}  # the target and the Inquisitor
    elif stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS) and (legal >= A_TARGETED).sum() > 0:
        entitled = {cur}  # a Sorciere claim: only the loser knows the card lost face down
        legal = legal[legal >= A_TARGETED]
    else:
        return
    for viewer in [*range(n), core.PUBLIC_VIEWER]:
        if viewer in entitled:
            continue
        seen = {int(core.observation_token(s, int(a), viewer)) for a in legal}
        assert len(seen) == 1, (stage, viewer, seen)
    if len(legal) > 1:
        for viewer in entitled:
            seen = {int(core.observation_token(s, int(a), viewer)) for a in legal}
            assert len(seen) == len(legal), "the entitled viewer must tell values apart"


def _play_checked(params: dict[str, Any], seed: int) -> int:
    """Play one random game on the core checking every invariant; return its length."""
    config = GameConfig.from_params(params)
    cfg = config.to_array()
    n = config.players
    rng = np.random.default_rng(seed)
    s = core.initial_state(cfg)
    buf = np.empty(256, dtype=np.int32)
    outcomes = np.empty(32, dtype=np.int32)
    probs = np.empty(32, dtype=np.float64)
    limit = config.max_game_length()
    steps = 0
    _check_invariants(cfg, s)
    while s[S_STAGE] != Stage.TERMINAL:
        assert steps < limit, "game longer than max_game_length()"
        if s[S_CUR] == CHANCE:
            k = core.chance_outcomes_into(s, cfg, outcomes, probs)
            assert k >= 1 and abs(probs[:k].sum() - 1.0) < 1e-9
            legal = outcomes[:k].copy()
            a = int(legal[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        else:
            k = core.legal_actions_into(s, cfg, buf)
            assert k >= 1
            legal = buf[:k].copy()
            assert (np.diff(legal) > 0).all() and legal[-1] < config.num_distinct_actions()
            if s[S_STAGE] == Stage.ACTION and s[S_COINS + s[S_CUR]] >= 10:  # D-1
                coups = {A_TARGETED + T_COUP * n + t for t in range(n)}
                assert set(legal.tolist()) <= coups and len(legal) >= 1
            a = int(legal[rng.integers(k)])
        _hidden_value_checks(cfg, s, legal)
        core.apply_action(s, cfg, a)
        steps += 1
        _check_invariants(cfg, s)
    ret = np.zeros(n)
    core.returns_into(s, cfg, ret)
    assert abs(ret.sum()) < 1e-9
    return steps


@pytest.mark.parametrize("params", CONFIGS, ids=[_id(p) for p in CONFIGS])
@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_random_games_keep_invariants(params: dict[str, Any], seed: int) -> None:
    _play_checked(params, seed)


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 8), max_turns=st.integers(1, 6))
def test_short_turn_caps(seed: int, players: int, max_turns: int) -> None:
    """Tiny caps: games end by the cap (a draw) or a win within the cap."""
    _play_checked({"players": players, "max_turns": max_turns}, seed)


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 8), coins=st.integers(20, 30))
def test_small_treasury(seed: int, players: int, coins: int) -> None:
    """D-4 with a treasury that can run dry: coins are still conserved."""
    _play_checked({"players": players, "coins": coins, "start_coins": 2}, seed)


def _replay(game: Any, actions: list[int]) -> list[Any]:
    """States along `actions` (stops early at the first illegal one)."""
    state = game.new_initial_state()
    states = [state.clone()]
    for a in actions:
        legal = (
            [o for o, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        if a not in legal:
            break
        state.apply_action(a)
        states.append(state.clone())
    return states


PRIVACY_CONFIGS = [
    {"players": 2},
    {"players": 2, "variant": "deal"},
    {"players": 2, "influence": 1, "lineup": "inquisitor"},
    {"players": 3, "lineup": "inquisitor"},
    {"players": 4},
    {"players": 5, "influence": 1},
    {"players": 7, "lineup": "inquisitor"},
    {"players": 2, "characters": COMPLOTS2_SETS["catechumene"]},
    {"players": 3, "characters": COMPLOTS2_SETS["expert"]},
    {"players": 4, "characters": COMPLOTS2_SETS["finances"]},
    {"players": 3, "characters": COMPLOTS2_SETS["mixed-expert"]},
]


@pytest.mark.parametrize("params", PRIVACY_CONFIGS, ids=[_id(p) for p in PRIVACY_CONFIGS])
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, pick=st.integers(0, 10_000))
def test_hidden_cards_do_not_leak(params: dict[str, Any], seed: int, pick: int) -> None:
    """Change one private chance outcome of seat p: until the next challenge (whose
    outcome may depend on it), every other seat's information state, observation and
    their tensors are unchanged."""
    game = load(**params)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    actions: list[int] = []
    chance_points: list[tuple[int, int, list[int]]] = []
    while not state.is_terminal():
        if state.is_chance_node():
            outs, probs = zip(*state.chance_outcomes(), strict=True)
            s = state.s
            who = int(s[S_DEAL_NEXT]) if int(s[S_STAGE]) == Stage.DEAL else int(s[S_DRAWER])
            if len(outs) > 1:
                chance_points.append((len(actions), who, list(outs)))
            a = outs[rng.choice(len(outs), p=np.asarray(probs) / sum(probs))]
        else:
            legal = state.legal_actions()
            a = legal[rng.integers(len(legal))]
        actions.append(int(a))
        state.apply_action(a)
    if not chance_points:
        return
    i, p, outs = chance_points[pick % len(chance_points)]
    alt = [o for o in outs if o != actions[i]][pick % (len(outs) - 1)]
    original = _replay(game, actions)
    changed = _replay(game, [*actions[:i], alt, *actions[i + 1 :]])
    compared = 0
    for j in range(i + 1, len(changed)):
        a_orig, a_alt = original[j], changed[j]
        if j == i + 1:
            assert str(a_orig) != str(a_alt)  # the hidden cards really differ
        for q in range(game.num_players()):
            if q == p:
                continue
            assert a_orig.information_state_string(q) == a_alt.information_state_string(q)
            assert a_orig.observation_string(q) == a_alt.observation_string(q)
            assert a_orig.information_state_tensor(q) == a_alt.information_state_tensor(q)
            assert a_orig.observation_tensor(q) == a_alt.observation_tensor(q)
            compared += 1
        if j < len(actions) and not a_orig.is_chance_node():
            name = a_orig.action_to_string(a_orig.current_player(), actions[j])
            if name == "Challenge":
                break
    assert compared >= 1 or len(changed) == i + 1
