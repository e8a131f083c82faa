"""Readable, stable names for actions, chance outcomes and observation tokens."""

from __future__ import annotations

from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage, TokenKind
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
    MS_FIRST,
    MS_SECOND,
    STAGE_SLOTS,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
    VALUE_SLOTS,
    WHO_SLOTS,
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


def multiset_string(cfg: GameConfig, m: int) -> str:
    """'Duchess' or 'Duchess+Assassin' for a multiset id."""
    names = [cfg.clan_name(int(MS_FIRST[m]))]
    if MS_SECOND[m] >= 0:
        names.append(cfg.clan_name(int(MS_SECOND[m])))
    return "+".join(names)


def action_to_string(cfg: GameConfig, action: int) -> str:
    """Name of a player action id, e.g. 'Steal from P1' or 'Keep Duchess+Assassin'."""
    a = int(action)
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
    block, target = divmod(a - A_TARGETED, cfg.players)
    if a >= A_TARGETED and block in _TARGETED:
        return f"{_TARGETED[block]} P{target}"
    raise ValueError(
        f"action must be a valid action id (0 to {cfg.num_distinct_actions() - 1}), got {a}"
    )


def chance_to_string(cfg: GameConfig, stage: int, outcome: int) -> str:
    """Name of a chance outcome at a chance node of `stage`."""
    cards = multiset_string(cfg, int(outcome))
    return f"Deal {cards}" if stage == Stage.DEAL else f"Draw {cards}"


def split_token(token: int) -> tuple[int, int, int, int]:
    """(TokenKind, Stage, who, value) of an observation token."""
    rest, value = divmod(int(token), VALUE_SLOTS)
    rest, who = divmod(rest, WHO_SLOTS)
    kind, stage = divmod(rest, STAGE_SLOTS)
    return kind, stage, who, value


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
        }
        return f"P{who} {hidden[Stage(stage)]}"
    text = f"P{who} {action_to_string(cfg, value)}"
    if kind == TokenKind.CHALLENGE_TRUE:
        text += " (claim true)"
    elif kind == TokenKind.CHALLENGE_FALSE:
        text += " (bluff caught)"
    return text
