"""Layer 1, the rules core: enums, configuration, flat state and compiled transitions."""

from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import (
    ActionKind,
    Character,
    Clan,
    Lineup,
    Stage,
    Variant,
)

__all__ = ["ActionKind", "Character", "Clan", "GameConfig", "Lineup", "Stage", "Variant"]
