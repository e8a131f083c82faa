"""Game parameters: validation, defaults, and the configuration array.

A :class:`GameConfig` is what a game string such as
``complots(players=3,lineup=inquisitor)`` means. Every invalid value raises a
``ValueError`` that names the parameter and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from complots_solver.rules.enums import NUM_CLANS, Character, Clan, Lineup, Variant
from complots_solver.rules.layout import (
    C_COPIES,
    C_EXCHANGE_DRAW,
    C_INFLUENCE,
    C_LINEUP,
    C_MAX_TURNS,
    C_PLAYERS,
    C_START_COINS,
    C_TOTAL_COINS,
    C_VARIANT,
    CFG_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    num_distinct_actions,
)

GAME_NAME = "complots"
TREASURY_COINS = 54  # 24 silver + 6 gold worth 5
AUTO = "auto"
LINEUPS = {"ambassador": Lineup.AMBASSADOR, "inquisitor": Lineup.INQUISITOR}
VARIANTS = {"deal": Variant.DEAL, "draft": Variant.DRAFT}
INFLUENCES = (1, 2)
EXCHANGE_DRAW = {Lineup.AMBASSADOR: 2, Lineup.INQUISITOR: 1}

# Character names as shown, and the Coup aliases accepted on input.
CHARACTER_NAMES = {c: c.name.capitalize() for c in Character}
CHARACTER_ALIASES = {"duke": Character.DUCHESS, "contessa": Character.COUNTESS}


def parse_character(name: str) -> Character:
    """A character from its Ferti English name or Coup alias (any case)."""
    key = name.strip().lower()
    if key in CHARACTER_ALIASES:
        return CHARACTER_ALIASES[key]
    for c in Character:
        if c.name.lower() == key:
            return c
    allowed = ", ".join(CHARACTER_NAMES.values())
    raise ValueError(f"character must be one of {allowed} (or Duke, Contessa); got {name!r}")


DEFAULT_MAX_TURNS = 200  # D-11 default; README gives the measured share of capped games

# Parameter name -> default as OpenSpiel sees it. "auto" / 0 / -1 mean "from
# the rulebook, given the other parameters".
DEFAULT_PARAMS: dict[str, Any] = {
    "players": 2,
    "lineup": "ambassador",
    "variant": AUTO,
    "influence": 2,
    "copies": 0,
    "coins": TREASURY_COINS,
    "start_coins": -1,
    "max_turns": DEFAULT_MAX_TURNS,
}

PARAM_HELP = {
    "players": "number of players, 2 to 8",
    "lineup": "fifth character: ambassador or inquisitor",
    "variant": "draft (2 players only) or deal; auto = draft for 2 players, else deal",
    "influence": "starting face-down cards per player, 1 or 2 (D-13 for 1)",
    "copies": "copies of each character; 0 = 3 for 2-6 players, 4 for 7-8",
    "coins": "coins in the game (treasury plus hands); 54 in the box",
    "start_coins": "starting coins of every seat; -1 = 2 each, 1 for seat 0 with 2 players",
    "max_turns": "turn cap: a game with this many turns done and no winner is a draw (D-11)",
}


@dataclass(frozen=True)
class GameConfig:
    """A fully resolved Complots configuration (no "auto" values left)."""

    players: int = 2
    lineup: Lineup = Lineup.AMBASSADOR
    variant: Variant = Variant.DRAFT
    influence: int = 2
    copies: int = 3
    coins: int = TREASURY_COINS
    start_coins: tuple[int, ...] = (1, 2)
    max_turns: int = DEFAULT_MAX_TURNS

    @classmethod
    def from_params(cls, params: dict[str, Any] | None = None) -> GameConfig:
        """Validate OpenSpiel-style parameters and resolve their defaults."""
        raw = dict(DEFAULT_PARAMS)
        for key, value in (params or {}).items():
            if key not in DEFAULT_PARAMS:
                allowed = ", ".join(DEFAULT_PARAMS)
                raise ValueError(f"unknown parameter {key!r}; allowed: {allowed}")
            raw[key] = value
        players = _int(raw, "players")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, got {players}")
        lineup_name = str(raw["lineup"]).strip().lower()
        if lineup_name not in LINEUPS:
            raise ValueError(f"lineup must be one of {', '.join(LINEUPS)}, got {raw['lineup']!r}")
        variant_name = str(raw["variant"]).strip().lower()
        if variant_name == AUTO:
            variant_name = "draft" if players == 2 else "deal"
        if variant_name not in VARIANTS:
            raise ValueError(
                f"variant must be one of {AUTO}, {', '.join(VARIANTS)}, got {raw['variant']!r}"
            )
        variant = VARIANTS[variant_name]
        if variant == Variant.DRAFT and players != 2:
            raise ValueError(f"variant=draft needs players=2, got players={players}")
        influence = _int(raw, "influence")
        if influence not in INFLUENCES:
            raise ValueError(f"influence must be 1 or 2, got {influence}")
        copies = _int(raw, "copies")
        if copies == 0:
            copies = 3 if players <= 6 else 4
        if variant == Variant.DRAFT and copies != 3:
            raise ValueError(
                f"copies must be 3 (or 0) with variant=draft (three piles), got {copies}"
            )
        if copies < 1:
            raise ValueError(f"copies must be 0 (auto) or at least 1, got {copies}")
        if variant == Variant.DEAL and players * influence > copies * NUM_CLANS:
            raise ValueError(
                f"copies={copies} gives {copies * NUM_CLANS} cards, too few to deal "
                f"{influence} to each of {players} players"
            )
        coins = _int(raw, "coins")
        if coins < 0:
            raise ValueError(f"coins must be >= 0, got {coins}")
        start = _int(raw, "start_coins")
        if start < -1:
            raise ValueError(f"start_coins must be -1 (rulebook) or >= 0, got {start}")
        if start == -1:
            start_coins = tuple(1 if (players == 2 and p == 0) else 2 for p in range(players))
        else:
            start_coins = (start,) * players
        if sum(start_coins) > coins:
            raise ValueError(
                f"coins={coins} is less than the {sum(start_coins)} coins handed out at the start"
            )
        max_turns = _int(raw, "max_turns")
        if max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {max_turns}")
        return cls(
            players=players,
            lineup=LINEUPS[lineup_name],
            variant=variant,
            influence=influence,
            copies=copies,
            coins=coins,
            start_coins=start_coins,
            max_turns=max_turns,
        )

    def to_array(self) -> np.ndarray:
        """The int32 configuration array read by the compiled rules core."""
        cfg = np.zeros(CFG_SIZE, dtype=np.int32)
        cfg[C_PLAYERS] = self.players
        cfg[C_LINEUP] = self.lineup
        cfg[C_COPIES] = self.copies
        cfg[C_INFLUENCE] = self.influence
        cfg[C_VARIANT] = self.variant
        cfg[C_MAX_TURNS] = self.max_turns
        cfg[C_TOTAL_COINS] = self.coins
        cfg[C_EXCHANGE_DRAW] = EXCHANGE_DRAW[self.lineup]
        cfg[C_START_COINS : C_START_COINS + self.players] = self.start_coins
        return cfg

    def params(self) -> dict[str, Any]:
        """Explicit OpenSpiel parameters that reproduce this configuration."""
        uniform = len(set(self.start_coins)) == 1
        rulebook = GameConfig.from_params({"players": self.players}).start_coins
        start = -1 if self.start_coins == rulebook else self.start_coins[0]
        if not uniform and self.start_coins != rulebook:
            raise ValueError("start_coins must be uniform or the rulebook's")
        return {
            "players": self.players,
            "lineup": self.lineup.name.lower(),
            "variant": self.variant.name.lower(),
            "influence": self.influence,
            "copies": self.copies,
            "coins": self.coins,
            "start_coins": start,
            "max_turns": self.max_turns,
        }

    def game_string(self) -> str:
        """The OpenSpiel game string of this configuration, all parameters explicit."""
        inner = ",".join(f"{k}={v}" for k, v in self.params().items())
        return f"{GAME_NAME}({inner})"

    @property
    def characters(self) -> tuple[Character, ...]:
        """The character standing for each clan, in clan order."""
        fifth = Character.AMBASSADOR if self.lineup == Lineup.AMBASSADOR else Character.INQUISITOR
        return (Character.DUCHESS, Character.ASSASSIN, Character.COUNTESS, Character.CAPTAIN, fifth)

    def clan_name(self, clan: int) -> str:
        """Display name of the character standing for `clan` in this game."""
        return CHARACTER_NAMES[self.characters[Clan(clan)]]

    def clan_of(self, name: str) -> Clan:
        """The clan of a character named on input; it must be in this game."""
        ch = parse_character(name)
        if ch not in self.characters:
            allowed = ", ".join(CHARACTER_NAMES[c] for c in self.characters)
            raise ValueError(f"character {name!r} is not in this game; allowed: {allowed}")
        return Clan(self.characters.index(ch))

    def num_distinct_actions(self) -> int:
        """Distinct player action ids."""
        return num_distinct_actions(self.players)

    def max_turn_length(self) -> int:
        """Upper bound on moves (decisions and chance) in one turn.

        Announce 1; challenge window n-1; replacement + loss 2; counter window
        n-1; counter-challenge window n-1; replacement + loss 2; effect at most
        3 (Examine show, decide, replacement draw).
        """
        n = self.players
        return 1 + 3 * (n - 1) + 2 + 2 + 3

    def max_game_length(self) -> int:
        """Upper bound on moves in a game, chance moves included."""
        setup = self.players + (2 if self.variant == Variant.DRAFT and self.influence == 2 else 0)
        return setup + self.max_turns * self.max_turn_length()

    def replace(self, **changes: Any) -> GameConfig:
        """A copy with some fields changed (re-validated through the parameters)."""
        params = self.params()
        params.update(changes)
        return GameConfig.from_params(params)


def _int(raw: dict[str, Any], key: str) -> int:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        try:
            return int(str(value))
        except ValueError:
            raise ValueError(f"{key} must be an integer, got {value!r}") from None
    return int(value)
