"""Action names and the characters a turn action claims, as the rulebooks give them."""

from __future__ import annotations

from complots_solver.browse.frames import move_label
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import claims_by_label


def test_each_complots1_power_claims_its_rulebook_character() -> None:
    """Tax: Duchess, Assassinate: Assassin, Steal: Captain, Exchange: Ambassador (or the
    Inquisitor in its line-up), Examine: Inquisitor (docs/rules.md)."""
    claims = claims_by_label()
    assert claims["Tax"] == {"Duchess"}
    assert claims["Assassinate"] == {"Assassin"}
    assert claims["Steal"] == {"Captain"}
    assert claims["Exchange"] == {"Ambassador", "Inquisitor"}
    assert claims["Examine"] == {"Inquisitor"}
    assert not any("Countess" in names for names in claims.values())  # a passive character


def test_the_labels_are_those_the_move_tables_show() -> None:
    """Every claiming move of a 3-player Inquisitor game is named as in the claim map."""
    config, _ = resolve_game("complots-inquisitor-3")
    labels = {move_label(config, a) for a in range(config.num_distinct_actions())}
    assert {"Tax", "Assassinate", "Steal", "Exchange", "Examine"} <= labels
