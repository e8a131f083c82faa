"""The file names of strategy and run folders, defined once, and the shipped strategies' folders.

Every family writes its result under these names; every reader (bots,
browsers, reports, bounds) finds them here.
"""

from __future__ import annotations

from pathlib import Path

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import games_dir, load_presets

META_FILE = "meta.json"  # what a run did, beside every kind of strategy
STRATEGY_FILE = "strategy.npz"  # a tabular or keyed strategy (exact, mccfr)
POLICY_FILE = "policy-net.npz"  # a policy network (belief) or a table network (selfplay, regret)
VALUE_FILE = "value-net.npz"  # the belief value network the search player reads
SEARCH_SETTINGS_FILE = "search.json"  # optional settings of the search player
REGRET_STATE_FILE = "regret-state.npz"  # a regret run's networks without the reservoir
SELFPLAY_STATE_FILE = "selfplay-state.npz"  # a selfplay run's network without its past selves
TRAINING_LOG = "training.csv"  # the log of the network families


def strategies_dir() -> Path:
    """Folder of the shipped strategies, one sub-folder per preset."""
    return games_dir() / "strategies"


SECOND_OPINION_DIR = "second"  # under strategies_dir(): a second strategy per preset


def second_opinion_dir(preset: str) -> Path | None:
    """The second strategy of ``preset`` (another run or method, for robust verdicts), or None."""
    folder = strategies_dir() / SECOND_OPINION_DIR / preset
    return folder if (folder / POLICY_FILE).is_file() else None


def shipped_presets() -> list[str]:
    """Presets that have a shipped strategy."""
    root = strategies_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / POLICY_FILE).is_file())


def shipped_dir(config: GameConfig) -> Path:
    """The shipped strategy folder of the preset whose game is ``config``; ValueError if none."""
    game = config.game_string()
    for name, preset in load_presets().items():
        if (
            preset.config().game_string() == game
            and (strategies_dir() / name / POLICY_FILE).is_file()
        ):
            return strategies_dir() / name
    have = ", ".join(shipped_presets()) or "none yet"
    raise ValueError(f"solved: no shipped strategy for {game}; presets with one: {have}")
