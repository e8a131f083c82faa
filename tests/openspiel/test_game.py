"""The OpenSpiel adapter: API conformance, perfect recall, serialization, shapes."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pyspiel
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import load_presets
from tests.helpers import (
    CHANCE,
    COMPLOTS2_SETS,
    all_configs,
    chance_action,
    complots2_configs,
    load,
    random_spiel_game,
)

C2_PRESETS = sorted(n for n, p in load_presets().items() if "characters" in p.params)

SIM_CONFIGS: list[dict[str, Any]] = [
    *({"players": n} for n in range(2, 9)),
    *({"players": n, "lineup": "inquisitor"} for n in (2, 3, 5, 8)),
    *({"players": n, "influence": 1} for n in (2, 4, 6, 8)),
    {"players": 2, "influence": 1, "lineup": "inquisitor"},
    {"players": 2, "variant": "deal"},
    {"players": 2, "variant": "deal", "influence": 1},
    {"players": 3, "max_turns": 3},
]


def _id(params: dict[str, Any]) -> str:
    """Short test id of a parameter dict."""
    return ",".join(f"{k}={v}" for k, v in params.items())


@pytest.mark.parametrize("params", SIM_CONFIGS, ids=[_id(p) for p in SIM_CONFIGS])
def test_random_sim_test(params: dict[str, Any]) -> None:
    game = load(**params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("preset", C2_PRESETS)
def test_random_sim_test_complots2_presets(preset: str) -> None:
    """Every Complots 2 preset passes OpenSpiel's random simulation test."""
    game = pyspiel.load_game(load_presets()[preset].config().game_string())
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_and_info() -> None:
    game = load(players=4)
    gt = game.get_type()
    assert gt.short_name == "complots"
    assert gt.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_players() == 4
    assert game.min_utility() == -1.0 and game.max_utility() == 1.0
    assert game.utility_sum() == 0.0
    assert game.max_game_length() == GameConfig.from_params({"players": 4}).max_game_length()


API_CONFIGS = all_configs() + complots2_configs()


@pytest.mark.parametrize("params", API_CONFIGS, ids=[_id(p) for p in API_CONFIGS])
def test_api_along_random_games(params: dict[str, Any]) -> None:
    """Returns, legal actions, chance probabilities and tensor shapes on 4 random games."""
    game = load(**params)
    n = game.num_players()
    info_size = game.information_state_tensor_size()
    obs_size = game.observation_tensor_size()
    assert game.information_state_tensor_shape() == [info_size]
    rng = np.random.default_rng(zlib.crc32(_id(params).encode()))
    for _ in range(4):
        states = random_spiel_game(game, rng)
        assert len(states) - 1 <= game.max_game_length()
        for s in states:
            if s.is_terminal():
                r = s.returns()
                assert len(r) == n and sum(r) == pytest.approx(0.0)
                assert all(x in (0.0, 1.0, pytest.approx(-1 / (n - 1))) for x in r)
                assert s.legal_actions() == []
                continue
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                assert all(p > 0 for _, p in outcomes)
                ids = [a for a, _ in outcomes]
                assert ids == sorted(set(ids))
                assert all(0 <= a < game.max_chance_outcomes() for a in ids)
                assert s.current_player() == CHANCE
                continue
            legal = s.legal_actions()
            assert legal and legal == sorted(set(legal))
            assert 0 <= legal[0] and legal[-1] < game.num_distinct_actions()
            mask = s.legal_actions_mask()
            assert [i for i, m in enumerate(mask) if m] == legal
            for p in range(n):
                assert len(s.information_state_tensor(p)) == info_size
                assert len(s.observation_tensor(p)) == obs_size
        last = states[-1]
        for p in range(n):
            assert len(last.information_state_tensor(p)) == info_size
            assert len(last.observation_tensor(p)) == obs_size


PR_CONFIGS: list[dict[str, Any]] = [
    {"players": 2},
    {"players": 2, "influence": 1},
    {"players": 2, "lineup": "inquisitor", "variant": "deal"},
    {"players": 3, "lineup": "inquisitor"},
    {"players": 4, "influence": 1},
    {"players": 6},
    {"players": 2, "characters": COMPLOTS2_SETS["catechumene"]},
    {"players": 3, "characters": COMPLOTS2_SETS["expert"], "influence": 1},
]


@pytest.mark.parametrize("params", PR_CONFIGS, ids=[_id(p) for p in PR_CONFIGS])
def test_perfect_recall_and_disjoint_infostates(params: dict[str, Any]) -> None:
    """An information state determines the player's earlier (infostate, action) pairs;
    no information state string belongs to two players."""
    game = load(**params)
    n = game.num_players()
    rng = np.random.default_rng(7)
    past_of: dict[str, tuple] = {}
    tensor_of: dict[str, tuple] = {}
    owner: dict[str, int] = {}
    games = 150 if n <= 3 else 60
    for _ in range(games):
        history: list[list[tuple[str, int]]] = [[] for _ in range(n)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                a = chance_action(state, rng)
            else:
                p = state.current_player()
                info = state.information_state_string(p)
                assert info.startswith(f"P{p}")
                assert owner.setdefault(info, p) == p, "infostate shared by two players"
                past = tuple(history[p])
                assert past_of.setdefault(info, past) == past, "perfect recall broken"
                tensor = tuple(state.information_state_tensor(p))
                assert tensor_of.setdefault(info, tensor) == tensor
                legal = state.legal_actions()
                a = legal[rng.integers(len(legal))]
                history[p].append((info, int(a)))
            state.apply_action(a)
    # Infostate tensors must also distinguish what the strings distinguish.
    assert len(set(tensor_of.values())) == len(tensor_of)
    assert len(owner) > games  # the check saw many distinct infostates


def test_infostate_strings_of_players_disjoint_at_every_node() -> None:
    """At any node, the players' information state strings all differ (they start with P<id>)."""
    game = load(players=3)
    rng = np.random.default_rng(3)
    seen: list[set[str]] = [set(), set(), set()]
    for _ in range(40):
        for s in random_spiel_game(game, rng):
            for p in range(3):
                seen[p].add(s.information_state_string(p))
    assert not (seen[0] & seen[1]) and not (seen[0] & seen[2]) and not (seen[1] & seen[2])


@pytest.mark.parametrize(
    "params",
    [{"players": 2}, {"players": 3, "lineup": "inquisitor"}, {"players": 2, "influence": 1}],
    ids=_id,
)
def test_serialization_round_trip(params: dict[str, Any]) -> None:
    game = load(**params)
    rng = np.random.default_rng(11)
    for _ in range(3):
        for s in random_spiel_game(game, rng)[::3]:
            text = pyspiel.serialize_game_and_state(game, s)
            g2, s2 = pyspiel.deserialize_game_and_state(text)
            assert str(g2) == str(game)
            assert str(s2) == str(s)
            assert s2.history() == s.history()
            assert s2.is_terminal() == s.is_terminal()
            for p in range(game.num_players()):
                assert s2.information_state_string(p) == s.information_state_string(p)
                assert s2.observation_string(p) == s.observation_string(p)
                assert s2.information_state_tensor(p) == s.information_state_tensor(p)
            if not s.is_terminal():
                assert s2.current_player() == s.current_player()
                if s.is_chance_node():
                    assert s2.chance_outcomes() == s.chance_outcomes()
                else:
                    assert s2.legal_actions() == s.legal_actions()


def test_new_game_from_string_equals_loaded() -> None:
    game = load(players=3, lineup="inquisitor")
    again = pyspiel.load_game(str(game))
    assert again.config == game.config


def test_clone_independence() -> None:
    game = load(players=3)
    rng = np.random.default_rng(5)
    states = random_spiel_game(game, rng)
    for s in states[:-1]:
        before = (str(s), s.history(), [s.information_state_string(p) for p in range(3)])
        c = s.clone()
        assert str(c) == before[0] and c.history() == before[1]
        while not c.is_terminal():  # play the clone out
            if c.is_chance_node():
                c.apply_action(c.chance_outcomes()[-1][0])
            else:
                c.apply_action(c.legal_actions()[0])
        after = (str(s), s.history(), [s.information_state_string(p) for p in range(3)])
        assert after == before


def test_history_replay_reproduces_state() -> None:
    game = load(players=4, lineup="inquisitor")
    rng = np.random.default_rng(9)
    final = random_spiel_game(game, rng)[-1]
    replay = game.new_initial_state()
    for a in final.history():
        replay.apply_action(a)
    assert str(replay) == str(final) and replay.returns() == final.returns()


def test_information_state_hides_opponent_hand() -> None:
    game = load(players=2, variant="deal")
    s = game.new_initial_state()
    s.apply_action(s.chance_outcomes()[0][0])  # Duchess+Duchess to P0
    s.apply_action(s.chance_outcomes()[-1][0])  # Ambassador+Ambassador to P1
    assert "Ambassador" not in s.information_state_string(0)
    assert "Duchess" not in s.information_state_string(1)
    assert "hand [Duchess, Duchess]" in s.information_state_string(0)
    assert "hand [Ambassador, Ambassador]" in s.observation_string(1)
