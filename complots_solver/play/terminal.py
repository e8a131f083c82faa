"""A person against bots in the terminal: board, numbered legal actions, re-prompts.

The person sees exactly their seat's information: coins, face-up cards and
face-down counts of every seat, their own hand, and the moves as their seat
observed them (:func:`complots_solver.rules.text.token_to_string`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import Bot, make_bot
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import S_COINS, S_HIDDEN, S_REVEALED, S_TREASURY, S_TURN
from complots_solver.rules.text import token_to_string

RECENT_MOVES = 6  # moves listed under "last" on the board
HINT_COMMAND = "?"
QUIT_COMMANDS = ("q", "quit")


def _cards(config: GameConfig, counts: np.ndarray) -> str:
    names = [config.clan_name(c) for c in range(NUM_CLANS) for _ in range(int(counts[c]))]
    return ", ".join(names) if names else "-"


def board(state: pyspiel.State, seat: int) -> str:
    """The board as seat ``seat`` sees it: coins, face-up cards, own hand, last moves."""
    config: GameConfig = state.config
    s = state.s
    n = config.players
    rows = []
    for p in range(n):
        hidden = int(s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS].sum())
        up = _cards(config, s[S_REVEALED + p * NUM_CLANS : S_REVEALED + (p + 1) * NUM_CLANS])
        you = " (you)" if p == seat else ""
        rows.append(f"  P{p}{you}: {int(s[S_COINS + p])} coins, {hidden} face down, face up [{up}]")
    own = _cards(config, s[S_HIDDEN + seat * NUM_CLANS : S_HIDDEN + (seat + 1) * NUM_CLANS])
    rows.append(f"  your hand: {own}   treasury {int(s[S_TREASURY])}   turn {int(s[S_TURN])}")
    last = [token_to_string(config, t) for t in state.view_tokens(seat)[-RECENT_MOVES:]]
    rows.append(f"  last: {'; '.join(last) if last else '-'}")
    return "\n".join(rows)


def format_probabilities(state: pyspiel.State, probs: dict[int, float]) -> str:
    """'Tax 0.60, Income 0.40' (most likely first)."""
    player = state.current_player()
    items = sorted(probs.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{state.action_to_string(player, a)} {p:.2f}" for a, p in items)


def choose_action(
    state: pyspiel.State,
    prompt: Callable[[str], str],
    echo: Callable[[str], None],
    advisor: Bot | None = None,
) -> int | None:
    """Ask the person for one of the legal actions; None if they quit."""
    player = state.current_player()
    legal = state.legal_actions()
    names = [state.action_to_string(player, a) for a in legal]
    lines = [f"Your move (P{player}):"] + [f"  {i}. {name}" for i, name in enumerate(names, 1)]
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
        by_name = [a for a, name in zip(legal, names, strict=True) if name.lower() == lowered]
        if by_name:
            return by_name[0]
        echo(
            f"  '{answer}' is not a legal move: enter a number from 1 to {len(legal)} "
            "or one of the names listed."
        )


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

    Returns the winning seat (-1 on a turn-cap draw), or None if the person quit.
    """
    if not 0 <= seat < config.players:
        raise ValueError(f"seat must be from 0 to {config.players - 1}, got {seat}")
    seq = np.random.SeedSequence(seed)
    rngs = [np.random.default_rng(child) for child in seq.spawn(config.players + 1)]
    bots = {p: make_bot(against, config, rngs[p + 1]) for p in range(config.players) if p != seat}
    advisor = make_bot(against, config, rngs[seat + 1]) if show_strategy else None
    game = pyspiel.load_game(config.game_string())
    state = game.new_initial_state()
    chance_rng = rngs[0]
    echo(f"{config.game_string()}: you are P{seat}; the other seats are {against}.")
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            action = outcomes[int(chance_rng.choice(len(outcomes), p=probs / probs.sum()))][0]
        elif player == seat:
            chosen = choose_action(state, prompt, echo, advisor)
            if chosen is None:
                echo("You left the game.")
                return None
            action = chosen
        else:
            bot = bots[player]
            if show_strategy:
                probs_text = format_probabilities(state, bot.action_probabilities(state))
                echo(f"  P{player} ({against}) strategy: {probs_text}")
            action = bot.step(state)
        state.apply_action(action)
        echo(f"> {token_to_string(config, state.view_tokens(seat)[-1])}")
        echo(board(state, seat))
    winner = state.winner()
    hands = "; ".join(
        f"P{p} [{_cards(config, state.s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS])}]"
        for p in range(config.players)
    )
    if winner < 0:
        echo(f"Game over: draw at the turn cap ({config.max_turns} turns). Hands: {hands}")
    elif winner == seat:
        echo(f"Game over: you win! Hands: {hands}")
    else:
        echo(f"Game over: P{winner} ({against}) wins. Hands: {hands}")
    return winner
