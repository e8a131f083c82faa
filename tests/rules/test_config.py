"""Configuration validation: every bad input raises ValueError naming the parameter."""

from __future__ import annotations

import pyspiel
import pytest

from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Lineup, Variant
from tests.helpers import load


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"lineup": "espion"}, "lineup"),
        ({"lineup": ""}, "lineup"),
        ({"players": 1}, "players"),
        ({"players": 9}, "players"),
        ({"players": 0}, "players"),
        ({"players": "two"}, "players"),
        ({"players": 3, "variant": "draft"}, "variant"),
        ({"players": 8, "variant": "draft"}, "variant"),
        ({"variant": "auction"}, "variant"),
        ({"coins": -1}, "coins"),
        ({"coins": 2}, "coins"),  # fewer than the 3 handed out
        ({"start_coins": -2}, "start_coins"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": -5}, "max_turns"),
        ({"influence": 3}, "influence"),
        ({"influence": 0}, "influence"),
        ({"copies": -1}, "copies"),
        ({"players": 8, "copies": 3}, "copies"),  # 15 cards for 16 face-down
        ({"players": 6, "copies": 2}, "copies"),
        ({"variant": "draft", "copies": 4}, "copies"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_parameter_raises_naming_it(params: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        GameConfig.from_params(params)


def test_defaults_two_players() -> None:
    c = GameConfig.from_params({})
    assert c.players == 2 and c.variant == Variant.DRAFT and c.lineup == Lineup.AMBASSADOR
    assert c.copies == 3 and c.start_coins == (1, 2) and c.influence == 2 and c.coins == 54


@pytest.mark.parametrize(("players", "copies"), [(3, 3), (6, 3), (7, 4), (8, 4)])
def test_default_copies(players: int, copies: int) -> None:
    c = GameConfig.from_params({"players": players})
    assert c.copies == copies and c.variant == Variant.DEAL
    assert c.start_coins == (2,) * players


def test_coup_aliases_accepted() -> None:
    c = GameConfig.from_params({})
    assert c.clan_of("Duke") == c.clan_of("Duchess")
    assert c.clan_of("contessa") == c.clan_of("Countess")
    with pytest.raises(ValueError, match="Inquisitor"):
        c.clan_of("Inquisitor")  # not in the Ambassador line-up


def test_load_game_nine_players_fails() -> None:
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("complots(players=9)")


def test_load_game_unknown_parameter_fails() -> None:
    with pytest.raises(Exception):  # noqa: B017  (pyspiel rejects it before our code)
        pyspiel.load_game("complots(bogus=1)")


def test_game_string_round_trip() -> None:
    c = GameConfig.from_params({"players": 3, "lineup": "inquisitor", "influence": 1})
    g = pyspiel.load_game(c.game_string())
    assert g.config == c


def test_illegal_action_raises() -> None:
    state = load(players=2, variant="deal").new_initial_state()
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(0)  # "Deal Duchess" does not exist: deals are pairs
    state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0
    legal = set(state.legal_actions())
    illegal = next(a for a in range(load(players=2).num_distinct_actions()) if a not in legal)
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(illegal)
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(10_000)


def test_preset_of_finds_the_preset_of_a_game_string() -> None:
    """A run that stored only its game string is named by its preset again; a modified game by none."""
    from complots_solver.rules.presets import preset_of, resolve_game

    for name in ("draft-inquisitor", "draft-c2-expert", "complots-inquisitor-3"):
        config, _ = resolve_game(name)
        assert preset_of(resolve_game(config.game_string())[0]) == name
    assert preset_of(resolve_game("draft-inquisitor(max_turns=199)")[0]) is None
