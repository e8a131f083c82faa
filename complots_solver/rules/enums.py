"""Enumerations shared by every layer: characters, clans, action kinds, stages.

All are ``IntEnum`` so that numba-compiled code can use their members as
integer constants.
"""

from __future__ import annotations

from enum import IntEnum


class Character(IntEnum):
    """A character of Complots 1 (0-5) or Complots 2 (6-14); see rules/characters.py."""

    DUCHESS = 0
    ASSASSIN = 1
    COUNTESS = 2
    CAPTAIN = 3
    AMBASSADOR = 4
    INQUISITOR = 5
    BOURREAU = 6
    MAITRE_CHANTEUR = 7
    JUSTICIER = 8
    PAPE = 9
    ESPION = 10
    URSULINE = 11
    ILLUSIONNISTE = 12
    SORCIERE = 13
    CROQUE_MORT = 14


class Clan(IntEnum):
    """A card kind in a game: one character per clan (docs/rules.md sections 1 and 7).

    The engine counts cards by clan; the line-up says which character stands
    for each clan. In Complots 1 only the Negotiator clan varies (Ambassador
    or Inquisitor).
    """

    COLLECTOR = 0  # Duchess
    ASSASSIN = 1  # Assassin
    UNTOUCHABLE = 2  # Countess
    THIEF = 3  # Captain
    NEGOTIATOR = 4  # Ambassador or Inquisitor


NUM_CLANS = len(Clan)


class Lineup(IntEnum):
    """The fifth character of a Complots 1 game."""

    AMBASSADOR = 0
    INQUISITOR = 1


class Variant(IntEnum):
    """How hands are formed: a plain deal, or the 2-player draft."""

    DEAL = 0
    DRAFT = 1


class ActionKind(IntEnum):
    """What the active player announces on their turn."""

    INCOME = 0
    FOREIGN_AID = 1
    COUP = 2
    TAX = 3
    ASSASSINATE = 4
    STEAL = 5
    EXCHANGE = 6
    EXAMINE = 7
    # Complots 2 powers (docs/rules.md section 7), appended so Complots 1 values never move.
    EXECUTE = 8  # Bourreau
    BLACKMAIL = 9  # Maitre-Chanteur
    JUSTICE = 10  # Justicier
    TITHE = 11  # Pape
    SPY = 12  # Espion
    DONATE = 13  # Ursuline
    ILLUSION = 14  # Illusionniste


NUM_C1_ACTION_KINDS = 8  # ActionKind values used by Complots 1 line-ups


class Stage(IntEnum):
    """Where a game stands; says who moves and what they may do."""

    DEAL = 0  # chance: a hand (or the draft's random card) to deal_next
    PICK = 1  # 2-player draft: the current player picks from their own pile
    ACTION = 2  # the actor announces an action
    CHALLENGE = 3  # responder may challenge the actor's claim
    CHALLENGE_DRAW = 4  # chance: a claimant who was right draws a replacement
    CHALLENGE_LOSS = 5  # the loser of a challenge turns a card face up
    COUNTER = 6  # responder may counter the action
    COUNTER_CHALLENGE = 7  # responder may challenge the counter
    EFFECT_LOSS = 8  # the target of a Coup or Assassinate turns a card face up
    EXCHANGE_DRAW = 9  # chance: the actor draws from the Court
    EXCHANGE_KEEP = 10  # the actor chooses which cards to keep
    EXAMINE_SHOW = 11  # the Examine target chooses the card to show
    EXAMINE_DECIDE = 12  # the Inquisitor returns the card or forces a swap
    EXAMINE_DRAW = 13  # chance: the swapped target draws a replacement
    TERMINAL = 14
    # Complots 2 stages (docs/rules.md section 7), appended so Complots 1 values never move.
    JUSTICE_GIVE = 15  # the Justicier picks the poorest player among ties
    BLACKMAIL_CHOICE = 16  # the Maitre-Chanteur's target pays 3 or refuses
    SPY_AGAIN = 17  # the Espion stops or pays 1 coin to draw again
    ILLUSION_CLAIM = 18  # responder may also claim the Illusionniste
    UNDERTAKER_CLAIM = 19  # responder may claim the Croque-Mort at an elimination
    CLAIM_CHALLENGE = 20  # responder may challenge a co-claim or a Sorcière claim


NUM_C1_STAGES = 15  # Stage values used by Complots 1 line-ups

CHANCE_STAGES = (Stage.DEAL, Stage.CHALLENGE_DRAW, Stage.EXCHANGE_DRAW, Stage.EXAMINE_DRAW)


class Context(IntEnum):
    """Which claim a challenge is about."""

    ACTION = 0
    COUNTER = 1
    ILLUSION = 2  # an opponent's claim to share the Illusionniste's coins
    UNDERTAKER = 3  # a claim of the Croque-Mort at an elimination
    WITCH = 4  # a claim that the card lost face down is the Sorciere


class TokenKind(IntEnum):
    """How a transition looks to one viewer (observation tokens)."""

    PUBLIC = 0  # everyone sees the action
    PRIVATE = 1  # the viewer sees the hidden value (own cards, Examine)
    HIDDEN = 2  # the viewer sees only that something happened
    CHALLENGE_TRUE = 3  # a challenge; the claimant showed the card
    CHALLENGE_FALSE = 4  # a challenge; the claimant was bluffing


class PlayerId(IntEnum):
    """Special player ids, equal to OpenSpiel's."""

    CHANCE = -1
    TERMINAL = -4
