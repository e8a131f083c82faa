"""Named game configurations (presets), kept as data in ``games/presets/*.toml``.

A game is named on the command line by a preset (``draft-inquisitor``), a
preset with overrides (``complots-inquisitor(players=5)``), or an OpenSpiel
game string (``complots(players=3,lineup=inquisitor)``).
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GAME_NAME, GameConfig

GAMES_DIR_ENV = "COMPLOTS_GAMES_DIR"
CHARACTERS_PARAM = "characters"
_SPEC = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Preset:
    """A named configuration with a description."""

    name: str
    description: str
    params: dict[str, Any]
    ladder: int | None = None
    path: Path | None = field(default=None, compare=False)
    recommended: str | None = None  # "solve" or "play": a first game to try for that
    exact_seconds: float | None = None  # measured exact solve to 1e-3, tree build included
    exact_peak_gb: float | None = None  # peak memory of that solve, when it matters

    def config(self, **overrides: Any) -> GameConfig:
        """The resolved configuration, with optional parameter overrides."""
        return GameConfig.from_params({**self.params, **overrides})

    def solve_hint(self) -> str:
        """Whether the preset solves exactly and roughly how long (reports/exact-ladder.md)."""
        config = self.config()
        if config.players > 2:
            return (
                f"not exactly solvable ({config.players} players); complots solve trains a table "
                "network by league self-play (selfplay)"
            )
        if self.ladder is None:
            return (
                "not exactly solvable (full game); complots solve trains a table network by "
                "sampled regret matching+ (regret; strategies weak so far), or use selfplay, the "
                "public-belief solver (belief) or MCCFR"
            )
        if self.exact_seconds is None:
            return "exact in principle (not measured; larger than the Complots 1 rung)"
        memory = f", {self.exact_peak_gb:g} GB peak" if self.exact_peak_gb else ""
        return f"exact to 1e-3 in {duration_text(self.exact_seconds)}{memory}"


def duration_text(seconds: float) -> str:
    """'under 1 s', 'about 40 s', 'about 19 min': a rough duration for people."""
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.0f} min"


def games_dir() -> Path:
    """Folder holding the presets: $COMPLOTS_GAMES_DIR, else the repository's games/."""
    env = os.environ.get(GAMES_DIR_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[2] / "games"


@cache
def load_presets(directory: Path | None = None) -> dict[str, Preset]:
    """All presets by name, read from games/presets/*.toml."""
    folder = (directory or games_dir()) / "presets"
    presets: dict[str, Preset] = {}
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        params = dict(data.get("params", {}))
        GameConfig.from_params(params)  # a broken preset file fails loudly
        presets[path.stem] = Preset(
            name=path.stem,
            description=str(data.get("description", "")),
            params=params,
            ladder=data.get("ladder"),
            path=path,
            recommended=data.get("recommended"),
            exact_seconds=data.get("exact_seconds"),
            exact_peak_gb=data.get("exact_peak_gb"),
        )
    return presets


def parse_params(text: str) -> dict[str, Any]:
    """'players=3,lineup=inquisitor' -> {'players': 3, 'lineup': 'inquisitor'}.

    `characters` may list its five names with commas too (characters=a,b,c,d,e).
    """
    params: dict[str, Any] = {}
    last = ""
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep and last == CHARACTERS_PARAM:
            # characters=a,b,c,d,e: the comma-separated form of a+b+c+d+e
            params[CHARACTERS_PARAM] += "+" + item
            continue
        if not sep:
            raise ValueError(f"game parameters must be key=value, got {item!r}")
        last = key.strip()
        value = value.strip()
        params[key.strip()] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return params


def resolve_game(spec: str) -> tuple[GameConfig, str | None]:
    """(configuration, preset name or None) for a preset name or game string."""
    match = _SPEC.match(spec)
    if not match:
        raise ValueError(
            f"game must be a preset name or a game string like {GAME_NAME}(players=3); got {spec!r}"
        )
    name, inner = match.group(1), match.group(2) or ""
    overrides = parse_params(inner)
    if name == GAME_NAME:
        return GameConfig.from_params(overrides), None
    presets = load_presets()
    if name not in presets:
        raise ValueError(f"unknown game or preset {name!r}; {_suggest(name, presets)}")
    return presets[name].config(**overrides), name


def preset_of(config: GameConfig) -> str | None:
    """The first preset (in the presets' order) whose game is exactly ``config``'s, or None."""
    game = config.game_string()
    for name, preset in load_presets().items():
        if preset.config().game_string() == game:
            return name
    return None


def _suggest(name: str, presets: dict[str, Preset]) -> str:
    """'did you mean draft-inquisitor?' for a near miss, else where the names are listed."""
    close = difflib.get_close_matches(name, [*presets, GAME_NAME], n=1, cutoff=0.6)
    listed = (
        f"'complots presets' lists all {len(presets)}, "
        f"or give a game string like {GAME_NAME}(players=3)"
    )
    if close:
        guess = f"{GAME_NAME}(...)" if close[0] == GAME_NAME else close[0]
        return f"did you mean {guess}? ({listed})"
    return listed
