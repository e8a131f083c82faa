"""Game parameters: validation, defaults, and the configuration array.

A :class:`GameConfig` is what a game string such as
``complots(players=3,lineup=inquisitor)`` means. Every invalid value raises a
``ValueError`` that names the parameter and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from complots_solver.rules.characters import (
    CHARACTERS,
    COMPLOTS1_AMBASSADOR,
    COMPLOTS1_INQUISITOR,
    COUNTER_MASK,
    characters_string,
    is_extended,
    kind_cost_table,
    parse_characters,
    slot_kinds,
)
from complots_solver.rules.characters import parse_character as _parse_any
from complots_solver.rules.enums import NUM_CLANS, Character, Clan, Lineup, Variant
from complots_solver.rules.layout import (
    C_CHARS,
    C_COPIES,
    C_COUNTERS,
    C_EXCHANGE_DRAW,
    C_EXTENDED,
    C_INFLUENCE,
    C_KIND_COST,
    C_LINEUP,
    C_MAX_TURNS,
    C_PLAYERS,
    C_SLOT_TARGETED,
    C_SLOT_UNTARGETED,
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

# Character names as shown (rules/characters.py), and the Coup aliases accepted on input.
CHARACTER_NAMES = {c: CHARACTERS[c].name for c in Character}
CHARACTER_ALIASES = {"duke": Character.DUCHESS, "contessa": Character.COUNTESS}
LINEUP_CHARACTERS = {
    Lineup.AMBASSADOR: COMPLOTS1_AMBASSADOR,
    Lineup.INQUISITOR: COMPLOTS1_INQUISITOR,
}


def parse_character(name: str) -> Character:
    """A character from any of its names or aliases (any case, accents optional)."""
    try:
        return _parse_any(name)
    except ValueError:
        allowed = ", ".join(CHARACTER_NAMES.values())
        raise ValueError(
            f"character must be one of {allowed} (or Duke, Contessa); got {name!r}"
        ) from None


FORCED_COUP_COINS = 10  # D-1
WITCH_COINS = 5  # a Sorciere claim's gain (docs/rules.md section 7)
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
    "characters": "",
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
    "characters": "five characters, one per clan, joined by '+' (Complots 2, docs/rules.md "
    "section 7), e.g. "
    "bourreau+espion+justicier+sorciere+ursuline; empty = the line-up's Complots 1 five; "
    "overrides lineup",
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
    character_set: tuple[Character, ...] = COMPLOTS1_AMBASSADOR

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
        lineup, chars = _lineup_and_characters(
            LINEUPS[lineup_name], str(raw["characters"]), "lineup" in (params or {})
        )
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
            lineup=lineup,
            variant=variant,
            influence=influence,
            copies=copies,
            coins=coins,
            start_coins=start_coins,
            max_turns=max_turns,
            character_set=chars,
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
        cfg[C_EXCHANGE_DRAW] = self.exchange_draw()
        cfg[C_START_COINS : C_START_COINS + self.players] = self.start_coins
        cfg[C_CHARS : C_CHARS + NUM_CLANS] = self.character_set
        cfg[C_EXTENDED] = int(self.extended)
        cfg[C_COUNTERS : C_COUNTERS + len(COUNTER_MASK)] = COUNTER_MASK
        costs = kind_cost_table()
        cfg[C_KIND_COST : C_KIND_COST + len(costs)] = costs
        untargeted, targeted = slot_kinds(self.character_set)
        cfg[C_SLOT_UNTARGETED : C_SLOT_UNTARGETED + NUM_CLANS] = untargeted
        cfg[C_SLOT_TARGETED : C_SLOT_TARGETED + NUM_CLANS] = targeted
        return cfg

    def exchange_draw(self) -> int:
        """Cards drawn by the Negotiator's exchange: 2 (Ambassador), else 1 (Inquisitor, Espion)."""
        return 2 if self.character_set[Clan.NEGOTIATOR] == Character.AMBASSADOR else 1

    @property
    def extended(self) -> bool:
        """Whether a Complots 2 character is in play (extended actions and stages)."""
        return is_extended(self.character_set)

    def characters_param(self) -> str:
        """The `characters` parameter: '' for a Complots 1 line-up, else the five ids."""
        return characters_string(self.character_set) if self.extended else ""

    def params(self) -> dict[str, Any]:
        """Explicit OpenSpiel parameters that reproduce this configuration."""
        uniform = len(set(self.start_coins)) == 1
        rulebook = GameConfig.from_params({"players": self.players}).start_coins
        start = -1 if self.start_coins == rulebook else self.start_coins[0]
        if not uniform and self.start_coins != rulebook:
            raise ValueError("start_coins must be uniform or the rulebook's")
        params: dict[str, Any] = {
            "players": self.players,
            "lineup": self.lineup.name.lower(),
            "variant": self.variant.name.lower(),
            "influence": self.influence,
            "copies": self.copies,
            "coins": self.coins,
            "start_coins": start,
            "max_turns": self.max_turns,
        }
        if self.extended:
            # Complots 2: the characters replace the line-up, right after the
            # player count (Complots 1 game strings stay as they were).
            del params["lineup"]
            params = {"players": self.players, "characters": self.characters_param(), **params}
        return params

    def game_string(self) -> str:
        """The OpenSpiel game string of this configuration, all parameters explicit."""
        inner = ",".join(f"{k}={v}" for k, v in self.params().items())
        return f"{GAME_NAME}({inner})"

    @property
    def characters(self) -> tuple[Character, ...]:
        """The character standing for each clan, in clan order."""
        return self.character_set

    def has(self, character: Character) -> bool:
        """Whether `character` is in play."""
        return character in self.character_set

    def rules_name(self) -> str:
        """'Complots 1, line-up ambassador' or 'Complots 2, characters Ursuline, ...'."""
        if not self.extended:
            return f"Complots 1, line-up {self.lineup.name.lower()}"
        return "Complots 2, characters " + ", ".join(CHARACTER_NAMES[c] for c in self.characters)

    def lineup_label(self) -> str:
        """Display label of the character set: 'Ambassador', 'Inquisitor' or the five names."""
        if not self.extended:
            return self.lineup.name.capitalize()
        return "+".join(CHARACTER_NAMES[c] for c in self.characters)

    def lineup_name(self) -> str:
        """Short name of the character set: 'ambassador', 'inquisitor' or the five ids."""
        return self.characters_param() or self.lineup.name.lower()

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
        return num_distinct_actions(self.players, self.extended)

    def max_turn_length(self) -> int:
        """Upper bound on moves (decisions and chance) in one turn.

        Announce 1; challenge window n-1; replacement + loss 2; counter window
        n-1; counter-challenge window n-1; replacement + loss 2; effect at most
        3 (Examine show, decide, replacement draw).
        """
        n = self.players
        c1 = 1 + 3 * (n - 1) + 2 + 2 + 3
        if not self.extended:
            return c1
        # Complots 2: every loss counts 1 move here; the Sorciere and
        # Croque-Mort windows are bounded per game (passive_moves).
        chars = self.character_set
        challenge = (n - 1) + 1 + 1
        counter = (n - 1) + (n - 1) + 1 + 1
        if Character.PAPE in chars:
            counter = max(counter, (n - 1) * (1 + (n - 1) + 1 + 1))
        effect = 3
        if Character.ILLUSIONNISTE in chars:
            effect = max(effect, (n - 1) * (1 + (n - 2) + 1 + 1))
        if Character.ESPION in chars:
            # the actor starts with at most 9 coins (D-1), +5 from a Sorciere claim;
            # coins from a Croque-Mort window are counted in passive_moves
            coins = FORCED_COUP_COINS - 1 + (WITCH_COINS if Character.SORCIERE in chars else 0)
            effect = max(effect, 3 * (min(coins, self.coins) + 1))
        return max(c1, 1 + challenge + counter + effect)

    def passive_moves(self) -> int:
        """Upper bound on the extra moves of Sorciere and Croque-Mort windows in a game.

        A Sorciere claim (at most influence - 1 per player) adds its challenge
        window and one more loss; a Croque-Mort window (at most one per
        elimination) has each responder claim, face a challenge window, draw
        and lose, and the coins it hands out can pay Espion redraws.
        """
        n = self.players
        chars = self.character_set
        extra = 0
        if Character.SORCIERE in chars:
            extra += n * (self.influence - 1) * ((n - 1) + 1)
        if Character.CROQUE_MORT in chars:
            extra += (n - 1) * (n - 1) * (1 + (n - 2) + 1 + 1)
            if Character.ESPION in chars:
                extra += (n - 1) * 3 * self.coins
        return extra

    def max_game_length(self) -> int:
        """Upper bound on moves in a game, chance moves included."""
        setup = self.players + (2 if self.variant == Variant.DRAFT and self.influence == 2 else 0)
        return setup + self.max_turns * self.max_turn_length() + self.passive_moves()

    def replace(self, **changes: Any) -> GameConfig:
        """A copy with some fields changed (re-validated through the parameters)."""
        params = self.params()
        params.update(changes)
        return GameConfig.from_params(params)


def _lineup_and_characters(
    lineup: Lineup, text: str, lineup_given: bool
) -> tuple[Lineup, tuple[Character, ...]]:
    """Resolve `lineup` and `characters` together: characters override the line-up.

    `lineup=ambassador` is the default (OpenSpiel passes it along with every
    parameter set), so only `lineup=inquisitor` with a character set whose
    Negotiator is not the Inquisitor is a conflict, and an error.
    """
    if not text.strip():
        return lineup, LINEUP_CHARACTERS[lineup]
    chars = parse_characters(text)
    negotiator = chars[Clan.NEGOTIATOR]
    implied = Lineup.INQUISITOR if negotiator == Character.INQUISITOR else Lineup.AMBASSADOR
    if lineup_given and lineup == Lineup.INQUISITOR and implied != lineup:
        raise ValueError(
            f"characters names the {CHARACTER_NAMES[negotiator]} as Negotiator but "
            f"lineup=inquisitor; leave lineup out when characters is given"
        )
    return implied, chars


def _int(raw: dict[str, Any], key: str) -> int:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        try:
            return int(str(value))
        except ValueError:
            raise ValueError(f"{key} must be an integer, got {value!r}") from None
    return int(value)
