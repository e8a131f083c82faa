"""Write (or --check) the golden playthroughs in tests/openspiel/playthroughs/.

Each file is one seeded random game of a 2-player configuration: per move the
full state, the player to move, every player's information state and
observation strings, the legal moves with their strings (chance: with exact
probabilities), and the move chosen; at the end the returns. Chance outcomes
are sampled by their probabilities and actions uniformly, from
numpy.random.default_rng(seed).

    python scripts/make_playthroughs.py           # regenerate the files
    python scripts/make_playthroughs.py --check   # exit 1 if any file differs
"""

from __future__ import annotations

import argparse
import difflib
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "tests" / "openspiel" / "playthroughs"

# file stem -> (game string, seed)
PLAYTHROUGHS: dict[str, tuple[str, int]] = {
    "p2_ambassador": ("complots(players=2,lineup=ambassador)", 1),
    "p2_inquisitor": ("complots(players=2,lineup=inquisitor)", 2),
    "p2_deal": ("complots(players=2,variant=deal)", 3),
    "p2_influence1": ("complots(players=2,influence=1)", 4),
    "p2_influence1_inquisitor": ("complots(players=2,influence=1,lineup=inquisitor)", 5),
    # Complots 2 (docs/rules.md section 7): a Sorciere set dealt, and the Expert set at 3 players
    "p2_c2_catechumene": (
        "complots(players=2,variant=deal,characters=bourreau+espion+justicier+sorciere+ursuline)",
        6,
    ),
    "p3_c2_expert": (
        "complots(players=3,characters=maitre-chanteur+espion+pape+croque-mort+illusionniste)",
        7,
    ),
}


def _indent(text: str, prefix: str = "  ") -> list[str]:
    """The lines of `text`, each prefixed."""
    return [prefix + line for line in text.split("\n")]


def _fraction(p: float) -> str:
    """An exact-looking probability, e.g. '3/55'."""
    return str(Fraction(p).limit_denominator(100_000))


def render(game_string: str, seed: int) -> str:
    """The playthrough text of one seeded random game."""
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    n = game.num_players()
    lines = [
        f"game: {game_string}",
        f"seed: {seed}",
        f"num_distinct_actions: {game.num_distinct_actions()}",
        f"max_game_length: {game.max_game_length()}",
        f"information_state_tensor_size: {game.information_state_tensor_size()}",
        f"observation_tensor_size: {game.observation_tensor_size()}",
    ]
    move = 0
    while True:
        lines.append("")
        lines.append(f"# move {move}")
        lines.append("state:")
        lines += _indent(str(state))
        player = state.current_player()
        lines.append(f"current_player: {player}")
        for p in range(n):
            lines.append(f"information_state_string({p}):")
            lines += _indent(state.information_state_string(p))
            lines.append(f"observation_string({p}):")
            lines += _indent(state.observation_string(p))
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            lines.append("chance_outcomes:")
            for a, p in outcomes:
                lines.append(f"  {a} {state.action_to_string(player, a)} p={_fraction(p)}")
            u = rng.random()
            acc = 0.0
            action = outcomes[-1][0]
            for a, p in outcomes:
                acc += p
                if u < acc:
                    action = a
                    break
        else:
            legal = state.legal_actions()
            lines.append("legal_actions:")
            for a in legal:
                lines.append(f"  {a} {state.action_to_string(player, a)}")
            action = legal[int(rng.integers(len(legal)))]
        lines.append(f"action: {action} {state.action_to_string(player, action)}")
        state.apply_action(action)
        move += 1
    lines.append(f"returns: {' '.join(f'{r:g}' for r in state.returns())}")
    return "\n".join(lines) + "\n"


def path_of(stem: str) -> Path:
    """Where the playthrough `stem` is stored."""
    return OUT_DIR / f"{stem}.txt"


def main(argv: list[str] | None = None) -> int:
    """Regenerate the playthroughs, or with --check compare them; return an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    status = 0
    for stem, (game_string, seed) in PLAYTHROUGHS.items():
        text = render(game_string, seed)
        path = path_of(stem)
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                status = 1
                diff = difflib.unified_diff(
                    old.splitlines(), text.splitlines(), str(path), "regenerated", lineterm=""
                )
                print("\n".join(list(diff)[:40]))
            else:
                print(f"ok {path.relative_to(ROOT)}")
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return status


if __name__ == "__main__":
    sys.exit(main())
