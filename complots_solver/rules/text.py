"""Readable, stable names for actions, chance outcomes and observation tokens."""

from __future__ import annotations

import re

from complots_solver.rules.characters import CHARACTERS, slot_kinds
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import ActionKind, Clan, Stage, TokenKind
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_EXCHANGE,
    A_FORCE_SWAP,
    A_FOREIGN_AID,
    A_INCOME,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_RETURN_CARD,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    A_TAX,
    HIDDEN_VALUE,
    KIND_SLOTS,
    MS_FIRST,
    MS_SECOND,
    STAGE_SLOTS,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
    VALUE_SLOTS,
    WHO_SLOTS,
    X_CLAIM,
    X_GIVE,
    X_PAY,
    X_REFUSE,
    X_SPY_AGAIN,
    X_TITHE,
    X_WITCH,
    c2_base,
    c2_donate,
)

_FIXED = {
    A_INCOME: "Income",
    A_FOREIGN_AID: "Foreign Aid",
    A_TAX: "Tax",
    A_EXCHANGE: "Exchange",
    A_PASS: "Pass",
    A_CHALLENGE: "Challenge",
    A_RETURN_CARD: "Return card",
    A_FORCE_SWAP: "Force swap",
}
_TARGETED = {
    T_COUP: "Coup on",
    T_ASSASSINATE: "Assassinate",
    T_STEAL: "Steal from",
    T_EXAMINE: "Examine",
}


# Names of the clan-slot actions whose meaning depends on the character in play.
_KIND_UNTARGETED = {
    ActionKind.TAX: "Tax",
    ActionKind.EXCHANGE: "Exchange",
    ActionKind.SPY: "Spy",
    ActionKind.ILLUSION: "Illusion",
    ActionKind.TITHE: "Tithe",
}
_KIND_TARGETED = {
    ActionKind.ASSASSINATE: "Assassinate",
    ActionKind.STEAL: "Steal from",
    ActionKind.EXAMINE: "Examine",
    ActionKind.EXECUTE: "Execute",
    ActionKind.BLACKMAIL: "Blackmail",
    ActionKind.JUSTICE: "Justice on",
    ActionKind.DONATE: "Donate to",
}
_SLOT_BLOCK = {T_ASSASSINATE: Clan.ASSASSIN, T_STEAL: Clan.THIEF, T_EXAMINE: Clan.NEGOTIATOR}


def _slot_kind(cfg: GameConfig, clan: Clan, targeted: bool) -> ActionKind | None:
    """The action kind of the character standing for `clan`, targeted or not."""
    untargeted, targeted_kinds = slot_kinds(cfg.characters)
    kind = (targeted_kinds if targeted else untargeted)[clan]
    return ActionKind(kind) if kind >= 0 else None


def kind_label(kind: ActionKind) -> str:
    """A power's action name without its target, as move labels show it ('Steal', 'Justice')."""
    text = _KIND_UNTARGETED.get(kind) or _KIND_TARGETED[kind]
    return re.sub(r" (on|from|to)$", "", text)


def claims_by_label() -> dict[str, frozenset[str]]:
    """Each power's action name and the characters announcing it claims ('Exchange' ->
    Ambassador and Inquisitor: a game holds one of them), from the characters' data."""
    claims: dict[str, set[str]] = {}
    for info in CHARACTERS.values():
        for kind in info.actions:
            claims.setdefault(kind_label(kind), set()).add(info.name)
    return {label: frozenset(names) for label, names in claims.items()}


def multiset_string(cfg: GameConfig, m: int) -> str:
    """'Duchess' or 'Duchess+Assassin' for a multiset id."""
    names = [cfg.clan_name(int(MS_FIRST[m]))]
    if MS_SECOND[m] >= 0:
        names.append(cfg.clan_name(int(MS_SECOND[m])))
    return "+".join(names)


def action_to_string(cfg: GameConfig, action: int) -> str:
    """Name of a player action id, e.g. 'Steal from P1' or 'Keep Duchess+Assassin'."""
    a = int(action)
    if a in (A_TAX, A_EXCHANGE):
        kind = _slot_kind(cfg, Clan.COLLECTOR if a == A_TAX else Clan.NEGOTIATOR, False)
        if kind is not None:
            return _KIND_UNTARGETED[kind]
    if a in _FIXED:
        return _FIXED[a]
    if A_COUNTER <= a < A_REVEAL:
        return f"Counter as {cfg.clan_name(a - A_COUNTER)}"
    if A_REVEAL <= a < A_SHOW:
        return f"Reveal {cfg.clan_name(a - A_REVEAL)}"
    if A_SHOW <= a < A_RETURN_CARD:
        return f"Show {cfg.clan_name(a - A_SHOW)}"
    if A_PICK <= a < A_KEEP:
        return f"Pick {cfg.clan_name(a - A_PICK)}"
    if A_KEEP <= a < A_TARGETED:
        return f"Keep {multiset_string(cfg, a - A_KEEP)}"
    n = cfg.players
    block, target = divmod(a - A_TARGETED, n)
    if a >= A_TARGETED and block in _TARGETED:
        kind = _slot_kind(cfg, _SLOT_BLOCK[block], True) if block in _SLOT_BLOCK else None
        verb = _KIND_TARGETED[kind] if kind is not None else _TARGETED[block]
        return f"{verb} P{target}"
    if cfg.extended and c2_base(n) <= a < cfg.num_distinct_actions():
        return _complots2_action_string(cfg, a - c2_base(n), a)
    raise ValueError(
        f"action must be a valid action id (0 to {cfg.num_distinct_actions() - 1}), got {a}"
    )


def _complots2_action_string(cfg: GameConfig, x: int, a: int) -> str:
    """Name of a Complots 2 action id (x: offset from c2_base)."""
    n = cfg.players
    if x == X_TITHE:
        return "Tithe"
    if x == X_CLAIM:
        return "Claim"
    if x == X_PAY:
        return "Pay"
    if x == X_REFUSE:
        return "Refuse"
    if x == X_SPY_AGAIN:
        return "Draw again"
    if X_WITCH <= x < X_GIVE:
        return f"Lose {cfg.clan_name(x - X_WITCH)} face down as {cfg.clan_name(Clan.UNTOUCHABLE)}"
    if X_GIVE <= x < X_GIVE + n:
        return f"Give to P{x - X_GIVE}"
    return f"Donate to P{a - c2_donate(n)}"


def chance_to_string(cfg: GameConfig, stage: int, outcome: int) -> str:
    """Name of a chance outcome at a chance node of `stage`."""
    cards = multiset_string(cfg, int(outcome))
    return f"Deal {cards}" if stage == Stage.DEAL else f"Draw {cards}"


def split_token(token: int) -> tuple[int, int, int, int]:
    """(TokenKind, Stage, who, value) of an observation token."""
    rest, value = divmod(int(token), VALUE_SLOTS)
    rest, who = divmod(rest, WHO_SLOTS)
    kind, stage = divmod(rest, STAGE_SLOTS)
    hi, kind = divmod(kind, KIND_SLOTS)  # Complots 2 stages are packed with kind + KIND_SLOTS
    return kind, stage + hi * STAGE_SLOTS, who, value


def token_to_string(cfg: GameConfig, token: int) -> str:
    """What one observation token says, e.g. 'P1 Challenge (P0 shows Captain)'."""
    kind, stage, who, value = split_token(token)
    chance = stage in (Stage.DEAL, Stage.CHALLENGE_DRAW, Stage.EXCHANGE_DRAW, Stage.EXAMINE_DRAW)
    if chance:
        verb = "dealt" if stage == Stage.DEAL else "draws"
        if value == HIDDEN_VALUE:
            return f"P{who} {verb} ?"
        return f"P{who} {verb} {multiset_string(cfg, value)}"
    if value == HIDDEN_VALUE:
        hidden = {
            Stage.PICK: "picks ?",
            Stage.EXCHANGE_KEEP: "keeps ?",
            Stage.EXAMINE_SHOW: "shows ?",
            Stage.CHALLENGE_LOSS: f"loses ? face down as {cfg.clan_name(Clan.UNTOUCHABLE)}",
            Stage.EFFECT_LOSS: f"loses ? face down as {cfg.clan_name(Clan.UNTOUCHABLE)}",
        }
        return f"P{who} {hidden[Stage(stage)]}"
    if stage == Stage.CLAIM_CHALLENGE and A_REVEAL <= value < A_SHOW:
        # a challenged Sorciere claim: the card lost face down is turned face up
        text = f"P{who} Challenge (shows {cfg.clan_name(value - A_REVEAL)})"
    else:
        text = f"P{who} {action_to_string(cfg, value)}"
    if kind == TokenKind.CHALLENGE_TRUE:
        text += " (claim true)"
    elif kind == TokenKind.CHALLENGE_FALSE:
        text += " (bluff caught)"
    return text


def signed(value: float, digits: int = 4) -> str:
    """'+0.0125' or '-0.0084'; a value that rounds to zero is '+0.0000', never '-0.0000'."""
    text = f"{float(value):+.{digits}f}"
    return "+" + text[1:] if float(text) == 0 else text
