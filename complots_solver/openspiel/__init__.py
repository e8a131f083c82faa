"""Layer 2, the OpenSpiel adapter: importing it registers the game ``complots``."""

from complots_solver.openspiel.game import ComplotsGame, ComplotsObserver, ComplotsState

__all__ = ["ComplotsGame", "ComplotsObserver", "ComplotsState"]
