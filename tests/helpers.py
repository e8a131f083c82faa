"""Shared helpers for the rules and OpenSpiel tests: drive games by action strings."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers the game "complots")
from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import (
    S_COINS,
    S_COURT,
    S_CUR,
    S_HIDDEN,
    S_OUT,
    S_REVEALED,
    S_STAGE,
    S_TREASURY,
    S_WINNER,
)

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def load(**params: Any) -> pyspiel.Game:
    """Load `complots` with the given parameters (keyword form)."""
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    return pyspiel.load_game(f"complots({inner})")


def legal_strings(state: pyspiel.State) -> list[str]:
    """Strings of the legal moves (player actions or chance outcomes) at `state`."""
    player = state.current_player()
    if state.is_chance_node():
        return [state.action_to_string(player, a) for a, _ in state.chance_outcomes()]
    return [state.action_to_string(player, a) for a in state.legal_actions()]


def play(state: pyspiel.State, text: str) -> None:
    """Apply the legal player action whose string is exactly `text`."""
    assert not state.is_chance_node(), f"expected a player node, got chance; wanted {text!r}"
    assert not state.is_terminal(), f"game is over; wanted {text!r}"
    player = state.current_player()
    matches = [a for a in state.legal_actions() if state.action_to_string(player, a) == text]
    assert matches, f"{text!r} is not legal for P{player}; legal: {legal_strings(state)}"
    assert len(matches) == 1, f"{text!r} matches several actions: {matches}"
    state.apply_action(matches[0])


def _cards_of(text: str) -> Counter[str]:
    """Multiset of card names in 'Duchess+Captain' (order free)."""
    return Counter(name.strip() for name in text.split("+"))


def deal(state: pyspiel.State, text: str) -> float:
    """Apply the chance outcome for the cards `text` ('Captain', 'Deal Duchess+Captain',
    'Draw Captain'); return its probability."""
    assert state.is_chance_node(), f"expected a chance node, got P{state.current_player()}"
    cards = text.split(" ", 1)[1] if text.startswith(("Deal ", "Draw ")) else text
    wanted = _cards_of(cards)
    found = []
    for a, p in state.chance_outcomes():
        label = state.action_to_string(CHANCE, a)
        if text.startswith(("Deal ", "Draw ")) and not label.startswith(text.split(" ", 1)[0]):
            continue
        if _cards_of(label.split(" ", 1)[1]) == wanted:
            found.append((a, p))
    assert len(found) == 1, (
        f"{text!r} is not a chance outcome here; outcomes: {legal_strings(state)}"
    )
    state.apply_action(found[0][0])
    return found[0][1]


def deal_hands(state: pyspiel.State, *hands: str) -> None:
    """Deal each seat in turn the cards given (one 'A+B' string per seat)."""
    for h in hands:
        deal(state, h)


def cards(*names: str) -> Counter[str]:
    """A multiset of card names, to compare with hand(), face_up(), court()."""
    return Counter(names)


def _counts(state: pyspiel.State, base: int) -> Counter[str]:
    """Cards counted by clan at offset `base`, as a multiset of names."""
    config: GameConfig = state.get_game().config
    s = state.s
    return Counter({config.clan_name(c): int(s[base + c]) for c in range(NUM_CLANS) if s[base + c]})


def hand(state: pyspiel.State, p: int) -> Counter[str]:
    """Face-down cards of seat p."""
    return _counts(state, S_HIDDEN + p * NUM_CLANS)


def face_up(state: pyspiel.State, p: int) -> Counter[str]:
    """Face-up cards of seat p."""
    return _counts(state, S_REVEALED + p * NUM_CLANS)


def court(state: pyspiel.State) -> Counter[str]:
    """Cards in the Court."""
    return _counts(state, S_COURT)


def out_of_game(state: pyspiel.State) -> Counter[str]:
    """Cards out of the game (the draft's unpicked cards)."""
    return _counts(state, S_OUT)


def coins(state: pyspiel.State) -> list[int]:
    """Coins of every seat."""
    n = state.get_game().num_players()
    return [int(state.s[S_COINS + p]) for p in range(n)]


def treasury(state: pyspiel.State) -> int:
    """Coins in the treasury."""
    return int(state.s[S_TREASURY])


def stage(state: pyspiel.State) -> Stage:
    """Current stage of the rules core."""
    return Stage(int(state.s[S_STAGE]))


def winner(state: pyspiel.State) -> int:
    """Winning seat, -1 if none."""
    return int(state.s[S_WINNER])


def all_configs() -> list[dict[str, Any]]:
    """A broad set of configurations: every player count, both line-ups, both
    influences, and the 2-player deal/draft variants."""
    out: list[dict[str, Any]] = []
    for players in range(2, 9):
        for lineup in ("ambassador", "inquisitor"):
            for influence in (1, 2):
                out.append({"players": players, "lineup": lineup, "influence": influence})
    for lineup in ("ambassador", "inquisitor"):
        for influence in (1, 2):
            out.append({"players": 2, "lineup": lineup, "influence": influence, "variant": "deal"})
    return out


COMPLOTS2_SETS = {
    "catechumene": "bourreau+espion+justicier+sorciere+ursuline",
    "expert": "maitre-chanteur+espion+pape+croque-mort+illusionniste",
    "mixed-catechumene": "bourreau+ambassador+captain+sorciere+duchess",
    "mixed-expert": "assassin+inquisitor+pape+croque-mort+illusionniste",
    "finances": "maitre-chanteur+espion+pape+sorciere+duchess",
    "fraternite": "bourreau+ambassador+justicier+countess+ursuline",
    "tractations": "maitre-chanteur+inquisitor+justicier+croque-mort+illusionniste",
}


def complots2_configs() -> list[dict[str, Any]]:
    """Every booklet line-up (docs/rules.md section 7) at 4 players, plus 2-player drafts, other
    player counts and one influence."""
    out: list[dict[str, Any]] = [{"players": 4, "characters": c} for c in COMPLOTS2_SETS.values()]
    for name in ("catechumene", "expert", "finances", "tractations"):
        chars = COMPLOTS2_SETS[name]
        out.append({"players": 2, "characters": chars})
        out.append({"players": 2, "characters": chars, "influence": 1})
    for players, name in ((3, "expert"), (6, "catechumene"), (8, "mixed-expert"), (5, "finances")):
        out.append({"players": players, "characters": COMPLOTS2_SETS[name]})
    out.append({"players": 3, "characters": COMPLOTS2_SETS["expert"], "influence": 1})
    return out


def random_core_game(
    cfg: np.ndarray, seed: int, check: Any = None, max_steps: int = 100_000
) -> np.ndarray:
    """Play one random game on the core (chance by exact probabilities, actions
    uniform); call check(s_before, a, s_after) after each move; return the final state."""
    rng = np.random.default_rng(seed)
    s = core.initial_state(cfg)
    buf = np.empty(256, dtype=np.int32)
    outcomes = np.empty(32, dtype=np.int32)
    probs = np.empty(32, dtype=np.float64)
    for _ in range(max_steps):
        if s[S_STAGE] == Stage.TERMINAL:
            return s
        if s[S_CUR] == CHANCE:
            k = core.chance_outcomes_into(s, cfg, outcomes, probs)
            a = int(outcomes[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        else:
            k = core.legal_actions_into(s, cfg, buf)
            a = int(buf[rng.integers(k)])
        before = s.copy()
        core.apply_action(s, cfg, a)
        if check is not None:
            check(before, a, s)
    raise AssertionError("game did not end")


def chance_action(state: pyspiel.State, rng: np.random.Generator) -> int:
    """A chance outcome of ``state`` drawn with its probability."""
    outs, probs = zip(*state.chance_outcomes(), strict=True)
    return outs[rng.choice(len(outs), p=np.asarray(probs) / sum(probs))]


def random_spiel_game(game: pyspiel.Game, rng: np.random.Generator) -> list[pyspiel.State]:
    """Play one random pyspiel game; return every state visited (clones), terminal last."""
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        if state.is_chance_node():
            a = chance_action(state, rng)
        else:
            legal = state.legal_actions()
            a = legal[rng.integers(len(legal))]
        state.apply_action(a)
        states.append(state.clone())
    return states


def load_script(name: str) -> ModuleType:
    """Import ``scripts/NAME.py`` as a module (the scripts are not a package)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
