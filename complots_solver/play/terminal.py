"""A person against bots in the terminal: the table, what happened, and one question at a time.

The person sees exactly their seat's information: coins, face-up cards and
face-down counts of every seat, their own hand, and the moves as their seat
observed them, each said as a sentence about the table ("P1 claims the Duchess
to take Tax (3 coins)", "P1 shows you the Captain"). The table is printed when
it has changed since the person last saw it; each prompt says what is being
answered ("P1 claims the Assassin against you: challenge or accept?"); each
move of a menu that claims a character names it, marked "(bluff)" when the
person's hand does not hold it; a decision with a single legal move is played
for the person.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import Bot, make_bot
from complots_solver.rules import core, view
from complots_solver.rules.characters import CHARACTERS
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import (
    NUM_CLANS,
    ActionKind,
    Character,
    Clan,
    Context,
    Stage,
    TokenKind,
    Variant,
)
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_FORCE_SWAP,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_RETURN_CARD,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    C_COUNTERS,
    X_CLAIM,
    X_GIVE,
    X_PAY,
    X_REFUSE,
    X_SPY_AGAIN,
    X_WITCH,
    c2_base,
)
from complots_solver.rules.text import (
    action_to_string,
    multiset_string,
    split_token,
    token_to_string,
)

HINT_COMMAND = "?"
HINT_OFF = (
    "  Advice is off: '?' works in a game started with --show-strategy "
    "(complots play GAME --against BOT --show-strategy)."
)
BLUFF_NOTE = (
    "  (bluff: your hand does not hold that character; a challenge would catch it and cost "
    "you a card)"
)
QUIT_COMMANDS = ("q", "quit")
ACCEPT_WORDS = ("accept", "a", "no", "n")  # typed for Pass where the prompt says "accept"


def coins_text(n: int) -> str:
    """'1 coin', '3 coins'."""
    return f"{n} coin" if n == 1 else f"{n} coins"


def _cards(config: GameConfig, counts: np.ndarray) -> str:
    names = [config.clan_name(c) for c in range(NUM_CLANS) for _ in range(int(counts[c]))]
    return ", ".join(names) if names else "-"


def board(state: pyspiel.State, seat: int) -> str:
    """The table as seat ``seat`` sees it: coins, face-down counts, face-up cards, own hand."""
    config: GameConfig = state.config
    s = state.s
    rows = []
    for p in range(config.players):
        down = view.hand_size(s, p)
        up = _cards(config, view.face_up(s, p))
        name = f"P{p} (you)" if p == seat else f"P{p}"
        out = ", out of the game" if not down and up != "-" else ""
        rows.append(
            f"  {name}: {coins_text(view.coins(s, p))}, {down} face down, face up [{up}]{out}"
        )
    rows.append(f"  your hand: {_cards(config, view.hand(s, seat))}   treasury {view.treasury(s)}")
    return "\n".join(rows)


def format_probabilities(state: pyspiel.State, probs: dict[int, float]) -> str:
    """'Tax 0.60, Income 0.40' (most likely first)."""
    player = state.current_player()
    items = sorted(probs.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{state.action_to_string(player, a)} {p:.2f}" for a, p in items)


# ---- what is being answered ------------------------------------------------------------
def _who(p: int, seat: int) -> str:
    return "you" if p == seat else f"P{p}"


def ordinal(n: int) -> str:
    """'1st', '2nd', '3rd', '4th', '11th', '22nd'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def own_turns(state: pyspiel.State, seat: int) -> int:
    """Turns in which ``seat`` has announced its action so far (its turns, not the table's)."""
    said = (split_token(t) for t in state.view_tokens(seat))
    return sum(1 for _, stage, who, _ in said if stage == Stage.ACTION and who == seat)


def _when(state: pyspiel.State, seat: int) -> str:
    """When in the game the person is: 'during the draft', 'during your 2nd turn', ..."""
    s = state.s
    stage = view.stage(s)
    if stage in (Stage.DEAL, Stage.PICK):
        return "during the draft" if state.config.variant == Variant.DRAFT else "during the deal"
    done = own_turns(state, seat)
    if view.actor(s) == seat:
        return f"during your {ordinal(done + (stage == Stage.ACTION))} turn"
    return f"after your {ordinal(done)} turn" if done else "before your first turn"


def move_claim(state: pyspiel.State, action: int) -> int:
    """The clan whose character the player to move claims by ``action`` (-1: no claim).

    Read from the rules core (the clan an action kind claims) and the character data
    (the Complots 2 claims made outside one's turn), so it follows any line-up.
    """
    config: GameConfig = state.config
    stage = view.stage(state.s)
    if stage == Stage.ACTION:
        kind, _ = core.target_of_action(state.cfg, action)
        return int(core.claim_of(kind))
    if stage == Stage.COUNTER and A_COUNTER <= action < A_REVEAL:
        return action - A_COUNTER
    x = action - c2_base(config.players)
    if config.extended and x == X_CLAIM and stage == Stage.ILLUSION_CLAIM:
        return _character_clan(Character.ILLUSIONNISTE)
    if config.extended and x == X_CLAIM and stage == Stage.UNDERTAKER_CLAIM:
        return _character_clan(Character.CROQUE_MORT)
    if config.extended and X_WITCH <= x < X_GIVE:
        return _character_clan(Character.SORCIERE)
    return -1


def is_bluff(state: pyspiel.State, seat: int, action: int, clan: int) -> bool:
    """Whether ``seat``'s hand does not back the claim of ``clan`` it makes by ``action``."""
    x = action - c2_base(state.config.players)
    if state.config.extended and X_WITCH <= x < X_GIVE:
        return x - X_WITCH != clan  # a Sorciere claim is true when the card lost is one
    return view.hidden(state.s, seat, clan) == 0


def menu_notes(state: pyspiel.State, seat: int, legal: list[int], names: list[str]) -> list[str]:
    """Beside each move: the character it claims ('claims the Duchess') and '(bluff)' if
    the hand does not hold it ('' for a move that claims nothing)."""
    config: GameConfig = state.config
    notes = []
    for action, name in zip(legal, names, strict=True):
        clan = move_claim(state, action)
        if clan < 0:
            notes.append("")
            continue
        character = config.clan_name(clan)
        named = re.search(rf"\b{re.escape(character)}\b", name) is not None  # 'Counter as X'
        said = "" if named else f"claims the {character}"
        bluff = "(bluff)" if is_bluff(state, seat, action, clan) else ""
        notes.append(" ".join(w for w in (said, bluff) if w))
    return notes


def _announcement(state: pyspiel.State, seat: int) -> str:
    """This turn's announced action as text, 'you' for the person ('Assassinate you')."""
    config: GameConfig = state.config
    for token in reversed(state.view_tokens(seat)):
        _, stage, _, value = split_token(token)
        if stage == Stage.ACTION:
            return action_to_string(config, value).replace(f"P{seat}", "you")
    return "its action"


def _counters_against(state: pyspiel.State) -> str:
    """'Countess' or 'Captain or Inquisitor': who may counter this turn's action."""
    config: GameConfig = state.config
    mask = int(state.cfg[C_COUNTERS + view.announced(state.s)])
    return " or the ".join(config.clan_name(c) for c in range(NUM_CLANS) if mask >> c & 1)


def question(state: pyspiel.State, seat: int) -> str:
    """What the person answers at this decision, in words."""
    config: GameConfig = state.config
    s = state.s
    stage = view.stage(s)
    actor = view.actor(s)
    names = [state.action_to_string(seat, a) for a in state.legal_actions()]
    counters = [n.removeprefix("Counter as ") for n in names if n.startswith("Counter as ")]
    if stage == Stage.PICK:
        return "Draft: pick the card you add to your hand from your own pile"
    if stage == Stage.ACTION:
        turn = ordinal(own_turns(state, seat) + 1)
        return f"Your {turn} turn ({coins_text(view.coins(s, seat))}): choose your move"
    if stage == Stage.CHALLENGE:
        claim = config.clan_name(view.claim(s))
        what = _announcement(state, seat)
        if "you" not in what.split():
            return f"P{actor} claims the {claim} ({what}): challenge or accept?"
        later = _counters_against(state)
        then = f" (if you accept, you may then counter as the {later})" if later else ""
        return f"P{actor} claims the {claim} against you ({what}): challenge or accept?{then}"
    if stage == Stage.COUNTER:
        what = _announcement(state, seat)
        options = " or ".join(counters)
        return f"P{actor} announces {what}: counter as {options}, or accept?"
    if stage == Stage.COUNTER_CHALLENGE:
        who = view.counterer(s)
        clan = config.clan_name(view.counter_clan(s))
        whose = "your" if actor == seat else f"P{actor}'s"
        return (
            f"P{who} counters {whose} {_announcement(state, seat)} as the {clan}: "
            "challenge or accept?"
        )
    if stage == Stage.CLAIM_CHALLENGE:
        clan = config.clan_name(view.claimed(s))
        return f"P{view.claimant(s)} claims the {clan}: challenge or accept?"
    if stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS):
        return "You lose a card: choose which one to turn face up"
    if stage == Stage.EXCHANGE_KEEP:
        keep = view.keep_count(s)
        return f"Exchange: choose the {'card' if keep == 1 else f'{keep} cards'} you keep"
    if stage == Stage.EXAMINE_SHOW:
        return f"P{actor} examines you as the {config.clan_name(Clan.NEGOTIATOR)}: choose the card to show"
    if stage == Stage.EXAMINE_DECIDE:
        shown = config.clan_name(view.shown(s))
        return f"P{view.target(s)} shows you their {shown}: give it back or force a swap?"
    if stage == Stage.BLACKMAIL_CHOICE:
        return (
            f"P{actor} blackmails you: pay 3 coins, or refuse "
            f"(P{actor} pays you 3 and you lose a card)?"
        )
    if stage == Stage.SPY_AGAIN:
        return "Draw again for 1 coin, or pass?"
    if stage == Stage.JUSTICE_GIVE:
        return "Choose which of the poorest players receives the coins"
    if stage == Stage.ILLUSION_CLAIM:
        clan = config.clan_name(Clan.COLLECTOR)
        return f"P{actor} claims the {clan}: claim it too (to take 1 of the coins), or pass?"
    if stage == Stage.UNDERTAKER_CLAIM:
        clan = config.clan_name(Clan.UNTOUCHABLE)
        return f"P{view.dead(s)} is out: claim the {clan} to share their coins, or pass?"
    return "Your move"


# ---- what happened --------------------------------------------------------------------
def _verb(p: int, seat: int, you: str, other: str) -> str:
    return f"you {you}" if p == seat else f"P{p} {other}"


def _listed(words: list[str]) -> str:
    """'P2', 'P2 and P3', 'P2, P3 and P4'."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _the_cards(config: GameConfig, multiset: int) -> str:
    """'the Duchess', 'the Duchess and the Assassin' or 'two Duchess cards' for a multiset id."""
    names = multiset_string(config, multiset).split("+")
    if len(names) == 2 and names[0] == names[1]:
        return f"two {names[0]} cards"
    return _listed([f"the {name}" for name in names])


def _some_cards(n: int) -> str:
    return "a card" if n == 1 else f"{n} cards"


def _character_clan(character: Character) -> int:
    """The clan a character stands for (character data, so Complots 2 claims follow it)."""
    return int(CHARACTERS[character].clan)


# what the claimed character does, for the kinds of action that claim one ({target}: whom)
_DOING: dict[int, str] = {
    ActionKind.TAX: f"take Tax ({coins_text(core.TAX_GAIN)})",
    ActionKind.ASSASSINATE: f"assassinate {{target}} (paying {coins_text(core.ASSASSINATE_COST)})",
    ActionKind.STEAL: f"steal {coins_text(core.STEAL_AMOUNT)} from {{target}}",
    ActionKind.EXCHANGE: "exchange cards with the Court",
    ActionKind.EXAMINE: "examine a card of {target}",
    ActionKind.EXECUTE: "execute {target}",
    ActionKind.BLACKMAIL: "blackmail {target}",
    ActionKind.JUSTICE: "do Justice on {target}",
    ActionKind.TITHE: "collect the Tithe",
    ActionKind.SPY: "spy in the Court",
    ActionKind.DONATE: "donate to {target}",
    ActionKind.ILLUSION: "cast an Illusion",
}


def _announcement_sentence(state: pyspiel.State, who: int, action: int, seat: int) -> str:
    """'P1 claims the Duchess to take Tax (3 coins)', 'you take Income (1 coin)'."""
    config: GameConfig = state.config
    kind, target = core.target_of_action(state.cfg, action)
    whom = _who(int(target), seat) if target >= 0 else ""
    if kind == ActionKind.INCOME:
        return f"{_verb(who, seat, 'take', 'takes')} Income ({coins_text(core.INCOME_GAIN)})"
    if kind == ActionKind.FOREIGN_AID:
        gain = coins_text(core.FOREIGN_AID_GAIN)
        return f"{_verb(who, seat, 'ask', 'asks')} for Foreign Aid ({gain})"
    if kind == ActionKind.COUP:
        paid = coins_text(core.COUP_COST)
        return f"{_verb(who, seat, 'pay', 'pays')} {paid} to launch a Coup on {whom}"
    clan = int(core.claim_of(kind))
    doing = _DOING.get(int(kind))
    if clan < 0 or doing is None:  # a kind this table does not know yet: name it plainly
        named = action_to_string(config, action).replace(f"P{seat}", "you")
        return f"{_verb(who, seat, 'announce', 'announces')} {named}"
    claims = _verb(who, seat, "claim", "claims")
    return f"{claims} the {config.clan_name(clan)} to {doing.format(target=whom)}"


CHALLENGE_STAGES = (Stage.CHALLENGE, Stage.COUNTER_CHALLENGE, Stage.CLAIM_CHALLENGE)


def passes_sentence(config: GameConfig, stage: int, players: list[int], seat: int) -> str:
    """What passing means at ``stage``, said of ``players``: 'P1 lets it pass'."""
    names = _listed([_who(p, seat) for p in players])
    one = len(players) == 1 and players[0] != seat  # 'P1 lets', else 'you let', 'P2 and P3 let'
    if stage in CHALLENGE_STAGES:
        return f"{names} {'lets' if one else 'let'} it pass"
    if stage == Stage.COUNTER:
        return f"{names} {'does' if one else 'do'} not counter"
    if stage in (Stage.ILLUSION_CLAIM, Stage.UNDERTAKER_CLAIM):
        who = Character.ILLUSIONNISTE if stage == Stage.ILLUSION_CLAIM else Character.CROQUE_MORT
        name = config.clan_name(_character_clan(who))
        return f"{names} {'does' if one else 'do'} not claim the {name}"
    if stage == Stage.SPY_AGAIN:
        return f"{names} {'stops' if one else 'stop'} drawing"
    return f"{names} {'passes' if one else 'pass'}"


def _chance_sentence(before: np.ndarray, state: pyspiel.State, token: int, seat: int) -> str:
    """A deal or a draw as the person saw it: their own cards named, others' counted."""
    config: GameConfig = state.config
    kind, stage, who, value = split_token(token)
    n = view.hand_size(state.s, who) - view.hand_size(before, who)
    if stage == Stage.DEAL:
        if kind == TokenKind.PRIVATE:
            return f"you are dealt {_the_cards(config, value)}"
        return f"P{who} is dealt {_some_cards(n)}"
    if kind == TokenKind.PRIVATE:
        return f"you draw {_the_cards(config, value)} from the Court"
    if stage == Stage.EXCHANGE_DRAW:
        return f"P{who} draws {_some_cards(n)} from the Court"
    return f"P{who} draws a new card from the Court"


def _challenge_sentence(before: np.ndarray, state: pyspiel.State, player: int, seat: int) -> str:
    """'You challenge P1's Assassin: P1 had the Assassin (...); you lose a card'."""
    config: GameConfig = state.config
    stage = view.stage(before)
    if stage == Stage.CHALLENGE:
        claimant, clan = view.actor(before), view.claim(before)
    elif stage == Stage.COUNTER_CHALLENGE:
        claimant, clan = view.counterer(before), view.counter_clan(before)
    else:
        claimant, clan = view.claimant(before), view.claimed(before)
    name = config.clan_name(clan)
    whose = "your" if claimant == seat else f"P{claimant}'s"
    head = f"{_verb(player, seat, 'challenge', 'challenges')} {whose} {name}: "
    if stage == Stage.CLAIM_CHALLENGE and view.challenge_context(before) == Context.WITCH:
        # the card lost face down is turned face up: the token names it
        _, _, _, value = split_token(state.view_tokens(seat)[-1])
        shown = config.clan_name(value - A_REVEAL)
        lost = f"the card {_verb(claimant, seat, 'lost', 'lost')} face down is the {shown}"
        if view.claim_true(state.s) == 1:
            return f"{head}{lost}; {_verb(player, seat, 'lose a card', 'loses a card')}"
        loses = _verb(claimant, seat, "lose another card", "loses another card")
        return f"{head}{lost}, a bluff; {loses}"
    if view.claim_true(state.s) == 1:
        had = _verb(claimant, seat, "had", "had")
        loses = _verb(player, seat, "lose a card", "loses a card")
        swap = "shuffled back into the Court for a new card"
        return f"{head}{had} the {name} ({swap}); {loses}"
    return f"{head}{_verb(claimant, seat, 'were', 'was')} bluffing; " + _verb(
        claimant, seat, "lose a card", "loses a card"
    )


def narrate(before: np.ndarray, state: pyspiel.State, player: int, action: int, seat: int) -> str:
    """One sentence saying what a move did, as the person saw it (``before``: the state array)."""
    config: GameConfig = state.config
    token = state.view_tokens(seat)[-1]
    if player < 0:  # chance: what the person saw of a deal or draw
        return _chance_sentence(before, state, token, seat)
    kind, stage, who, value = split_token(token)
    private = kind == TokenKind.PRIVATE
    if action == A_CHALLENGE and stage in CHALLENGE_STAGES:
        return _challenge_sentence(before, state, player, seat)
    if action == A_PASS:
        return passes_sentence(config, stage, [player], seat)
    if stage == Stage.ACTION:
        return _announcement_sentence(state, player, action, seat)
    if stage == Stage.PICK:
        if private:
            return f"you pick the {config.clan_name(value - A_PICK)}"
        return f"P{player} picks a card from their pile"
    base = c2_base(config.players)
    if stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS) and (
        kind == TokenKind.HIDDEN or action >= A_TARGETED
    ):
        witch = config.clan_name(_character_clan(Character.SORCIERE))
        if private:
            lost = config.clan_name(action - base - X_WITCH)
            return f"you lose the {lost} face down, claiming it is the {witch}"
        return f"P{player} loses a card face down, claiming it is the {witch}"
    if A_REVEAL <= action < A_SHOW:
        card = config.clan_name(action - A_REVEAL)
        line = f"{_verb(player, seat, 'turn', 'turns')} the {card} face up"
        if not view.alive(state.s, player):
            line += " and are out of the game" if player == seat else " and is out of the game"
        return line
    if A_COUNTER <= action < A_REVEAL:
        clan = config.clan_name(action - A_COUNTER)
        return f"{_verb(player, seat, 'counter', 'counters')} as the {clan}"
    if A_SHOW <= action < A_RETURN_CARD:
        examiner = view.actor(before)
        if not private:
            return f"P{player} shows P{examiner} a card"
        card = config.clan_name(action - A_SHOW)
        if player == seat:
            return f"you show P{examiner} the {card}"
        return f"P{player} shows you the {card}"
    if action in (A_RETURN_CARD, A_FORCE_SWAP):
        target = view.target(before)
        theirs = "your" if target == seat else "their"
        if action == A_RETURN_CARD:
            return f"{_verb(player, seat, 'give', 'gives')} {_who(target, seat)} {theirs} card back"
        return (
            f"{_verb(player, seat, 'make', 'makes')} {_who(target, seat)} swap {theirs} card "
            "for a new one from the Court"
        )
    if stage == Stage.EXCHANGE_KEEP:
        if private:
            kept = _the_cards(config, action - A_KEEP)
            return f"you keep {kept} and put the rest back in the Court"
        kept = _some_cards(view.keep_count(before))
        return f"P{player} keeps {kept} and puts the rest back in the Court"
    actor = view.actor(before)
    if action == base + X_PAY:
        paid = coins_text(core.BLACKMAIL_AMOUNT)
        return f"{_verb(player, seat, 'pay', 'pays')} {_who(actor, seat)} {paid}"
    if action == base + X_REFUSE:
        paid = coins_text(core.BLACKMAIL_AMOUNT)
        refuses = _verb(player, seat, "refuse", "refuses")
        pays = _verb(actor, seat, "pay", "pays")
        loses = _verb(player, seat, "lose a card", "loses a card")
        return f"{refuses} to pay: {pays} {_who(player, seat)} {paid} and {loses}"
    if action == base + X_SPY_AGAIN:
        return (
            f"{_verb(player, seat, 'pay', 'pays')} {coins_text(core.SPY_DRAW_COST)} to draw again"
        )
    if action == base + X_CLAIM and stage == Stage.ILLUSION_CLAIM:
        name = config.clan_name(_character_clan(Character.ILLUSIONNISTE))
        share = core.ILLUSION_SHARE
        return (
            f"{_verb(player, seat, 'claim', 'claims')} the {name} too, to take {share} of the coins"
        )
    if action == base + X_CLAIM and stage == Stage.UNDERTAKER_CLAIM:
        name = config.clan_name(_character_clan(Character.CROQUE_MORT))
        dead = view.dead(before)
        whose = "your" if dead == seat else f"P{dead}'s"
        return f"{_verb(player, seat, 'claim', 'claims')} the {name} to share {whose} coins"
    if base + X_GIVE <= action < base + X_GIVE + config.players:
        to = _who(action - base - X_GIVE, seat)
        return f"{_verb(player, seat, 'give', 'gives')} the coins to {to}"
    return token_to_string(config, token)  # a move this narrator does not know: its plain name


# ---- the person's decision --------------------------------------------------------------
def _match(answer: str, legal: list[int], names: list[str]) -> list[int]:
    """Legal actions an answer names: the full name, a character name, or a unique start."""
    lowered = answer.lower()
    exact = [a for a, n in zip(legal, names, strict=True) if n.lower() == lowered]
    if exact:
        return exact
    if lowered in ACCEPT_WORDS and A_PASS in legal:
        return [A_PASS]
    words = [a for a, n in zip(legal, names, strict=True) if lowered in n.lower().split()]
    if words:
        return words
    return [a for a, n in zip(legal, names, strict=True) if n.lower().startswith(lowered)]


def choose_action(
    state: pyspiel.State,
    prompt: Callable[[str], str],
    echo: Callable[[str], None],
    advisor: Bot | None = None,
    seat: int | None = None,
    told: set[str] | None = None,
) -> int | None:
    """Ask the person for one of the legal actions; None if they quit.

    ``told`` holds the notes already given this game (the bluff mark is explained once).
    """
    player = state.current_player()
    seat = player if seat is None else seat
    legal = state.legal_actions()
    names = [state.action_to_string(player, a) for a in legal]
    asked = question(state, seat)
    labels = [f"{n} (accept)" if n == "Pass" and "accept" in asked else n for n in names]
    notes = menu_notes(state, seat, legal, names)
    width = max(len(label) for label in labels)
    lines = [asked] + [
        f"  {i}. {label:<{width}}  {note}".rstrip()
        for i, (label, note) in enumerate(zip(labels, notes, strict=True), 1)
    ]
    if told is not None and "bluff" not in told and any("(bluff)" in n for n in notes):
        told.add("bluff")
        lines.append(BLUFF_NOTE)
    hint = f", '{HINT_COMMAND}' for the bot's advice" if advisor is not None else ""
    echo("\n".join(lines))
    while True:
        answer = prompt(f"Choose 1-{len(legal)} or a name{hint}, 'q' to quit").strip()
        lowered = answer.lower()
        if lowered in QUIT_COMMANDS:
            return None
        if answer == HINT_COMMAND:
            if advisor is None:
                echo(HINT_OFF)
            else:
                advice = format_probabilities(state, advisor.action_probabilities(state))
                echo(f"  advice: {advice}")
            continue
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        found = _match(answer, legal, names) if answer else []
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            which = ", ".join(n for a, n in zip(legal, names, strict=True) if a in found)
            echo(f"  '{answer}' could be {which}: type the number.")
            continue
        echo(
            f"  '{answer}' is not a legal move: enter a number from 1 to {len(legal)} "
            "or one of the names listed."
        )


def draft_explanation(config: GameConfig) -> str:
    """The 2-player three-pile draft, said once as it starts."""
    chars = ", ".join(config.clan_name(c) for c in range(NUM_CLANS))
    if config.influence == 1:
        return (
            "The 2-player set-up: three piles of one card of each character "
            f"({chars}). Each player is dealt one card at random from the third pile; with "
            "1 influence that card is your only card (no pick), the other piles leave the game "
            "and the 3 cards left in the third pile are the Court."
        )
    return (
        "The 2-player draft: there are three piles of one card of each character "
        f"({chars}). Each player is dealt one card at random from the third pile (the 3 "
        "left there are the Court). Then each player picks a second card from their own pile of "
        "five, without seeing the other's pick; the four cards not picked leave the game."
    )


def _standing(state: pyspiel.State, seat: int) -> str:
    """'you: 2 cards, 3 coins; P1: 1 card, 5 coins' (public counts only)."""
    parts = []
    for p in range(state.config.players):
        down = view.hand_size(state.s, p)
        cards = "1 card" if down == 1 else f"{down} cards"
        parts.append(f"{_who(p, seat)}: {cards}, {coins_text(view.coins(state.s, p))}")
    return "; ".join(parts)


def play_session(
    config: GameConfig,
    against: str,
    seat: int,
    seed: int | None,
    prompt: Callable[[str], str],
    echo: Callable[[str], None],
    show_strategy: bool = False,
) -> int | None:
    """Play one game: the person at ``seat``, bot ``against`` at every other seat.

    Returns the winning seat (-1 on a turn-cap draw), or None if the person quit
    (by 'q', end of input or Ctrl-C: the standing so far is printed).
    """
    if not 0 <= seat < config.players:
        raise ValueError(f"seat must be from 0 to {config.players - 1}, got {seat}")
    seq = np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(child) for child in seq.spawn(config.players + 1)]
    bots = {p: make_bot(against, config, rngs[p + 1]) for p in range(config.players) if p != seat}
    advisor = make_bot(against, config, rngs[seat + 1]) if show_strategy else None
    game = pyspiel.load_game(config.game_string())
    state = game.new_initial_state()
    echo(config.game_string())
    others = "the other seat is" if config.players == 2 else "the other seats are"
    echo(
        f"You are P{seat} ({'you move first' if seat == 0 else 'P0 moves first'}); {others} {against}."
    )
    if config.variant == Variant.DRAFT:
        echo(draft_explanation(config))
    try:
        return _play(state, rngs[0], against, seat, bots, advisor, prompt, echo, show_strategy)
    except (EOFError, KeyboardInterrupt):
        echo("")
        echo(f"Game left {_when(state, seat)}. So far: {_standing(state, seat)}.")
        return None


def _play(
    state: pyspiel.State,
    chance_rng: np.random.Generator,
    against: str,
    seat: int,
    bots: dict[int, Bot],
    advisor: Bot | None,
    prompt: Callable[[str], str],
    echo: Callable[[str], None],
    show_strategy: bool,
) -> int | None:
    """The game loop of :func:`play_session`."""
    config: GameConfig = state.config
    shown_board = ""
    told: set[str] = set()
    # passes not yet said, by window: [(stage, [players])]; one line for a window's passes,
    # and 'P1 lets it pass and does not counter' when the same seats pass two windows in turn
    passes: list[tuple[int, list[int]]] = []

    def flush_passes() -> None:
        lines: list[str] = []
        for i, (stage, players) in enumerate(passes):
            said = passes_sentence(config, stage, players, seat)
            if i and players == passes[i - 1][1]:
                lines[-1] += " and " + said.removeprefix(
                    _listed([_who(p, seat) for p in players]) + " "
                )
            else:
                lines.append(said)
        for line in lines:
            echo(f"> {line[0].upper()}{line[1:]}")
        passes.clear()

    def show_board() -> None:
        nonlocal shown_board
        flush_passes()
        now = board(state, seat)
        if now != shown_board:
            echo(now)
            shown_board = now

    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            action = outcomes[int(chance_rng.choice(len(outcomes), p=probs / probs.sum()))][0]
        elif player == seat:
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
                flush_passes()
                # the narration line that follows says what the move did, as a sentence
                echo(f"  {question(state, seat)}: you have only one move, played for you.")
            else:
                show_board()
                chosen = choose_action(state, prompt, echo, advisor, seat, told)
                if chosen is None:
                    echo(
                        f"You left the game {_when(state, seat)}. So far: {_standing(state, seat)}."
                    )
                    return None
                action = chosen
        else:
            bot = bots[player]
            if show_strategy:
                flush_passes()
                probs_text = format_probabilities(state, bot.action_probabilities(state))
                echo(f"  P{player} ({against}) strategy: {probs_text}")
            action = bot.step(state)
        before = state.s.copy()
        state.apply_action(action)
        if player >= 0 and action == A_PASS:
            stage = view.stage(before)
            if passes and passes[-1][0] == stage and player not in passes[-1][1]:
                passes[-1][1].append(player)
            else:
                passes.append((stage, [player]))
            continue
        flush_passes()
        said = narrate(before, state, player, action, seat)
        echo(f"> {said[0].upper()}{said[1:]}")
    show_board()
    winner = state.winner()
    hands = "; ".join(
        f"P{p} [{_cards(config, view.hand(state.s, p))}]" for p in range(config.players)
    )
    if winner < 0:
        echo(
            f"Game over: draw at the turn cap ({config.max_turns} turns, counting every "
            f"seat's). Hands: {hands}"
        )
    elif winner == seat:
        echo(f"Game over: you win! Hands: {hands}")
    else:
        echo(f"Game over: P{winner} ({against}) wins. Hands: {hands}")
    return winner
