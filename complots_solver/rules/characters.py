"""The fifteen characters of Complots and Complots 2, as data (docs/rules.md sections 1, 3 and 7).

One table says, for each character, its clan, names, the action kinds its power
gives, their cost, and whether the power is *inferred* (docs/rules.md section 7: the card
texts of Complots 2 are not in our sources). Counter powers belong to clans and
are defined once, in :data:`CLAN_COUNTERS`. The effect of each power lives in
one hook of :mod:`complots_solver.rules.powers` (``_power_*``), so a power can be
corrected in one place.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from complots_solver.rules.enums import NUM_CLANS, ActionKind, Character, Clan


@dataclass(frozen=True)
class CharacterInfo:
    """One character: clan, names, power and where the power comes from."""

    character: Character
    clan: Clan
    name: str  # display name (Ferti English for Complots 1, French for Complots 2)
    ident: str  # ASCII id used in game strings
    aliases: tuple[str, ...]
    actions: tuple[ActionKind, ...]  # action kinds its power gives (none: passive)
    cost: int  # coins needed to use the power
    inferred: bool  # power inferred (docs/rules.md section 7) rather than from a rulebook
    power: str  # one-line power text
    complots2: bool  # a Complots 2 character


_C = Character
_K = ActionKind

CHARACTERS: dict[Character, CharacterInfo] = {
    info.character: info
    for info in (
        CharacterInfo(
            _C.DUCHESS,
            Clan.COLLECTOR,
            "Duchess",
            "duchess",
            ("duke", "duchesse"),
            (_K.TAX,),
            0,
            False,
            "Tax: take 3 coins from the treasury.",
            False,
        ),
        CharacterInfo(
            _C.ASSASSIN,
            Clan.ASSASSIN,
            "Assassin",
            "assassin",
            (),
            (_K.ASSASSINATE,),
            3,
            False,
            "Assassinate: pay 3 to the treasury; the target loses 1 influence.",
            False,
        ),
        CharacterInfo(
            _C.COUNTESS,
            Clan.UNTOUCHABLE,
            "Countess",
            "countess",
            ("contessa", "comtesse"),
            (),
            0,
            False,
            "No action; counters the Assassins clan.",
            False,
        ),
        CharacterInfo(
            _C.CAPTAIN,
            Clan.THIEF,
            "Captain",
            "captain",
            ("capitaine",),
            (_K.STEAL,),
            0,
            False,
            "Steal: take up to 2 coins from the target.",
            False,
        ),
        CharacterInfo(
            _C.AMBASSADOR,
            Clan.NEGOTIATOR,
            "Ambassador",
            "ambassador",
            ("ambassadeur",),
            (_K.EXCHANGE,),
            0,
            False,
            "Exchange: draw 2 from the Court, keep as many as you had, return the rest.",
            False,
        ),
        CharacterInfo(
            _C.INQUISITOR,
            Clan.NEGOTIATOR,
            "Inquisitor",
            "inquisitor",
            ("inquisiteur",),
            (_K.EXCHANGE, _K.EXAMINE),
            0,
            False,
            "Exchange 1 card with the Court, or Examine a target's card and maybe force a swap.",
            False,
        ),
        CharacterInfo(
            _C.BOURREAU,
            Clan.ASSASSIN,
            "Bourreau",
            "bourreau",
            ("executioner",),
            (_K.EXECUTE,),
            3,
            True,
            "Pay 3 to the target, who loses 1 influence; countered, the 3 still go to the target.",
            True,
        ),
        CharacterInfo(
            _C.MAITRE_CHANTEUR,
            Clan.ASSASSIN,
            "Maître-Chanteur",
            "maitre-chanteur",
            ("blackmailer", "maitrechanteur"),
            (_K.BLACKMAIL,),
            3,
            True,
            "The target pays you 3, or refuses: you pay them 3 and they lose 1 influence.",
            True,
        ),
        CharacterInfo(
            _C.JUSTICIER,
            Clan.THIEF,
            "Justicier",
            "justicier",
            ("vigilante",),
            (_K.JUSTICE,),
            0,
            True,
            "Take 3 from the richest opponent, keep 1, give 2 to the poorest player.",
            True,
        ),
        CharacterInfo(
            _C.PAPE,
            Clan.THIEF,
            "Pape",
            "pape",
            ("pope",),
            (_K.TITHE,),
            0,
            True,
            "Take 1 coin from every opponent; each may counter for themselves.",
            True,
        ),
        CharacterInfo(
            _C.ESPION,
            Clan.NEGOTIATOR,
            "Espion",
            "espion",
            ("spy",),
            (_K.SPY,),
            0,
            True,
            "Draw 1 from the Court, keep or swap it, return 1; repeat for 1 coin each time.",
            True,
        ),
        CharacterInfo(
            _C.URSULINE,
            Clan.COLLECTOR,
            "Ursuline",
            "ursuline",
            (),
            (_K.DONATE,),
            0,
            True,
            "Take 3 from the treasury and give 1 of them to the target.",
            True,
        ),
        CharacterInfo(
            _C.ILLUSIONNISTE,
            Clan.COLLECTOR,
            "Illusionniste",
            "illusionniste",
            ("illusionist",),
            (_K.ILLUSION,),
            0,
            True,
            "Take 4 from the treasury; each opponent who also claims it takes 1 of them.",
            True,
        ),
        CharacterInfo(
            _C.SORCIERE,
            Clan.UNTOUCHABLE,
            "Sorcière",
            "sorciere",
            ("witch",),
            (),
            0,
            True,
            "Passive: lose it face down to take 5 from the treasury (challengeable).",
            True,
        ),
        CharacterInfo(
            _C.CROQUE_MORT,
            Clan.UNTOUCHABLE,
            "Croque-Mort",
            "croque-mort",
            ("undertaker", "croquemort"),
            (),
            0,
            True,
            "Passive: at an elimination, claimants share the eliminated player's coins.",
            True,
        ),
    )
}

# ---- counter powers, one per clan (docs/rules.md sections 4 and 7) -------------
# Clan -> the action kinds its counter power stops. Collectors counter Foreign
# Aid (anyone may counter); the others counter only as the target.
CLAN_COUNTERS: dict[Clan, tuple[ActionKind, ...]] = {
    Clan.COLLECTOR: (_K.FOREIGN_AID,),
    Clan.ASSASSIN: (),
    Clan.UNTOUCHABLE: (_K.ASSASSINATE, _K.EXECUTE, _K.BLACKMAIL),  # the Assassins clan
    Clan.THIEF: (_K.STEAL, _K.JUSTICE, _K.TITHE),  # the Voleurs clan
    Clan.NEGOTIATOR: (_K.STEAL, _K.JUSTICE),  # the Voleurs clan except the Pape
}


def _counter_masks() -> np.ndarray:
    """ActionKind -> bitmask of the clans whose counter power stops it."""
    masks = np.zeros(len(ActionKind), dtype=np.int32)
    for clan, kinds in CLAN_COUNTERS.items():
        for kind in kinds:
            masks[kind] |= 1 << clan
    return masks


COUNTER_MASK = _counter_masks()  # read by the compiled core

# Action kinds whose counter window is open to every opponent (not only a target).
OPEN_COUNTERS = (_K.FOREIGN_AID,)

TARGETED_KINDS = (
    _K.COUP,
    _K.ASSASSINATE,
    _K.STEAL,
    _K.EXAMINE,
    _K.EXECUTE,
    _K.BLACKMAIL,
    _K.JUSTICE,
    _K.DONATE,
)


def kind_clan_table() -> np.ndarray:
    """ActionKind -> clan claimed by announcing it (-1: a general action)."""
    table = np.full(len(ActionKind), -1, dtype=np.int32)
    for info in CHARACTERS.values():
        for kind in info.actions:
            table[kind] = info.clan
    return table


def kind_cost_table() -> np.ndarray:
    """ActionKind -> coins needed to announce it (Coup: 7)."""
    table = np.zeros(len(ActionKind), dtype=np.int32)
    table[_K.COUP] = 7
    for info in CHARACTERS.values():
        for kind in info.actions:
            table[kind] = info.cost
    return table


def slot_kinds(chars: tuple[Character, ...]) -> tuple[list[int], list[int]]:
    """Per clan, (untargeted ActionKind, targeted ActionKind) of its character (-1: none)."""
    untargeted, targeted = [], []
    for ch in chars:
        acts = CHARACTERS[ch].actions
        untargeted.append(next((int(k) for k in acts if k not in TARGETED_KINDS), -1))
        targeted.append(next((int(k) for k in acts if k in TARGETED_KINDS), -1))
    return untargeted, targeted


# ---- line-ups --------------------------------------------------------------------
COMPLOTS1_AMBASSADOR = (_C.DUCHESS, _C.ASSASSIN, _C.COUNTESS, _C.CAPTAIN, _C.AMBASSADOR)
COMPLOTS1_INQUISITOR = (_C.DUCHESS, _C.ASSASSIN, _C.COUNTESS, _C.CAPTAIN, _C.INQUISITOR)


def _key(name: str) -> str:
    """Accent-, case- and separator-free form of a name."""
    text = unicodedata.normalize("NFKD", name.strip().lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return "".join(ch for ch in text if ch.isalnum())


_BY_KEY: dict[str, Character] = {}
for _info in CHARACTERS.values():
    for _name in (_info.name, _info.ident, *_info.aliases):
        _BY_KEY[_key(_name)] = _info.character


def allowed_names() -> str:
    """The accepted character ids, by clan, for error messages."""
    parts = []
    for clan in Clan:
        ids = [i.ident for i in CHARACTERS.values() if i.clan == clan]
        parts.append(f"{clan.name.lower()}: {'|'.join(ids)}")
    return "; ".join(parts)


def parse_character(name: str) -> Character:
    """A character from any of its names (accents, case, '-', '_' optional)."""
    found = _BY_KEY.get(_key(name))
    if found is None:
        raise ValueError(f"characters: unknown character {name!r}; allowed: {allowed_names()}")
    return found


def parse_characters(text: str) -> tuple[Character, ...]:
    """Five characters, one per clan, from 'a+b+c+d+e' (or commas), in clan order."""
    names = [p for p in text.replace(",", "+").split("+") if p.strip()]
    chosen: dict[Clan, Character] = {}
    for name in names:
        ch = parse_character(name)
        clan = CHARACTERS[ch].clan
        if clan in chosen:
            raise ValueError(
                f"characters: {CHARACTERS[chosen[clan]].ident} and {CHARACTERS[ch].ident} are "
                f"both of the {clan.name.lower()} clan; choose one character per clan "
                f"({allowed_names()})"
            )
        chosen[clan] = ch
    missing = [c.name.lower() for c in Clan if c not in chosen]
    if missing:
        raise ValueError(
            f"characters must name five characters, one per clan; missing clan "
            f"{', '.join(missing)} in {text!r} ({allowed_names()})"
        )
    return tuple(chosen[c] for c in Clan)


def characters_string(chars: tuple[Character, ...]) -> str:
    """The canonical 'a+b+c+d+e' form (ASCII ids in clan order)."""
    return "+".join(CHARACTERS[c].ident for c in chars)


def is_extended(chars: tuple[Character, ...]) -> bool:
    """Whether a Complots 2 character is in play (extended action space)."""
    return any(CHARACTERS[c].complots2 for c in chars)


assert len(Clan) == NUM_CLANS
