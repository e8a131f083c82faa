"""A person against bots in the terminal: the table, what happened, and one question at a time.

The person sees exactly their seat's information: coins, face-up cards and
face-down counts of every seat, their own hand, and the moves as their seat
observed them (:func:`complots_solver.rules.text.token_to_string`). The table
is printed when it has changed since the person last saw it; each prompt says
what is being answered ("P1 claims the Assassin against you: challenge or
accept?"); a decision with a single legal move is played for the person.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import Bot, make_bot
from complots_solver.rules import view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Clan, Stage, Variant
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_PASS,
    A_REVEAL,
    A_SHOW,
    C_COUNTERS,
)
from complots_solver.rules.text import action_to_string, split_token, token_to_string

HINT_COMMAND = "?"
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
        return f"Turn {view.turn(s) + 1}, your move ({coins_text(view.coins(s, seat))})"
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


def narrate(before: np.ndarray, state: pyspiel.State, player: int, action: int, seat: int) -> str:
    """One line saying what a move did, as the person saw it (``before``: the state array)."""
    config: GameConfig = state.config
    token = state.view_tokens(seat)[-1]
    text = token_to_string(config, token)
    if player < 0:  # chance: what the person saw of a deal or draw
        return text
    stage = view.stage(before)
    if action == A_CHALLENGE and stage in (
        Stage.CHALLENGE,
        Stage.COUNTER_CHALLENGE,
        Stage.CLAIM_CHALLENGE,
    ):
        if stage == Stage.CHALLENGE:
            claimant, clan = view.actor(before), view.claim(before)
        elif stage == Stage.COUNTER_CHALLENGE:
            claimant, clan = view.counterer(before), view.counter_clan(before)
        else:
            claimant, clan = view.claimant(before), view.claimed(before)
        name = config.clan_name(clan)
        whose = "your" if claimant == seat else f"P{claimant}'s"
        head = f"{_verb(player, seat, 'challenge', 'challenges')} {whose} {name}: "
        if view.claim_true(state.s) == 1:
            had = _verb(claimant, seat, "had", "had")
            loses = _verb(player, seat, "lose a card", "loses a card")
            swap = "shuffled back into the Court for a new card"
            return f"{head}{had} the {name} ({swap}); {loses}"
        return f"{head}{_verb(claimant, seat, 'were', 'was')} bluffing; " + _verb(
            claimant, seat, "lose a card", "loses a card"
        )
    if A_REVEAL <= action < A_SHOW:
        card = config.clan_name(action - A_REVEAL)
        line = f"{_verb(player, seat, 'turn', 'turns')} {card} face up"
        if not view.alive(state.s, player):
            line += " and " + _verb(player, seat, "are out of the game", "is out of the game")
        return line
    if A_COUNTER <= action < A_REVEAL:
        return f"{_verb(player, seat, 'counter', 'counters')} as the {config.clan_name(action - A_COUNTER)}"
    return text


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
) -> int | None:
    """Ask the person for one of the legal actions; None if they quit."""
    player = state.current_player()
    seat = player if seat is None else seat
    legal = state.legal_actions()
    names = [state.action_to_string(player, a) for a in legal]
    asked = question(state, seat)
    labels = [f"{n} (accept)" if n == "Pass" and "accept" in asked else n for n in names]
    lines = [asked] + [f"  {i}. {label}" for i, label in enumerate(labels, 1)]
    hint = f", '{HINT_COMMAND}' for the bot's advice" if advisor is not None else ""
    echo("\n".join(lines))
    while True:
        answer = prompt(f"Choose 1-{len(legal)} or a name{hint}, 'q' to quit").strip()
        lowered = answer.lower()
        if lowered in QUIT_COMMANDS:
            return None
        if answer == HINT_COMMAND and advisor is not None:
            echo(f"  advice: {format_probabilities(state, advisor.action_probabilities(state))}")
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
        echo(f"Game left at turn {view.turn(state.s) + 1}. So far: {_standing(state, seat)}.")
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
    passes: list[int] = []

    def flush_passes() -> None:
        if passes:
            names = ", ".join(_who(p, seat) for p in passes)
            verb = "pass" if len(passes) > 1 or passes[0] == seat else "passes"
            echo(f"> {names[0].upper()}{names[1:]} {verb}")
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
                only = state.action_to_string(seat, action)
                echo(f"  {question(state, seat)}: only {only} is possible, played for you.")
            else:
                show_board()
                chosen = choose_action(state, prompt, echo, advisor, seat)
                if chosen is None:
                    echo(f"You left the game. So far: {_standing(state, seat)}.")
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
            passes.append(player)
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
        echo(f"Game over: draw at the turn cap ({config.max_turns} turns). Hands: {hands}")
    elif winner == seat:
        echo(f"Game over: you win! Hands: {hands}")
    else:
        echo(f"Game over: P{winner} ({against}) wins. Hands: {hands}")
    return winner
