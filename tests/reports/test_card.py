"""The strategy card's sentences, on hand-made tables whose answers are read off by eye."""

from __future__ import annotations

import pandas as pd

from complots_solver.reports.card import strategy_card
from complots_solver.reports.tables import SAMPLED, StrategyTable


def _t(key: str, frame: pd.DataFrame) -> StrategyTable:
    return StrategyTable(key, key, "", frame, SAMPLED, "sampled")


def test_card_sentences_pool_the_seats_and_skip_rare_rows() -> None:
    """Duchess+Captain opens Tax: 90% in 60 visits (seat 0), 60% in 20 (seat 1) pool to 82.5%;
    a hand seen 10 times is left out; an Assassin draft card keeps the Duchess."""
    opening = pd.DataFrame(
        {
            "seat": [0, 1, 0],
            "hand": ["Duchess+Captain", "Duchess+Captain", "Assassin+Assassin"],
            "Tax": [0.9, 0.6, 0.1],
            "Steal": [0.1, 0.4, 0.9],
            "reach": [0.1, 0.1, 0.01],
            "value": [0.0, 0.0, 0.0],
            "visits": [60, 20, 10],
        }
    )
    draft = pd.DataFrame(
        {
            "seat": [0],
            "draft_card": ["Assassin"],
            "Pick Duchess": [0.7],
            "Pick Assassin": [0.3],
            "visits": [40],
        }
    )
    challenges = pd.DataFrame(
        {
            "context": ["action claim"] * 2,
            "claimed": ["Assassin"] * 2,
            "hand": ["Duchess", "Countess"],
            "Challenge": [0.2, 0.6],
            "Pass": [0.8, 0.4],
            "visits": [30, 30],
        }
    )
    card = strategy_card(
        {
            "opening_moves": _t("opening_moves", opening),
            "draft_picks": _t("draft_picks", draft),
            "challenges": _t("challenges", challenges),
        }
    )
    text = " ".join(card)
    assert "given an Assassin, keep the Duchess (70%)" in text
    assert "Tax (82% of first turns) holding Duchess+Captain" in text  # (54 + 12) / 80
    assert "Assassin+Assassin" not in text
    assert "an Assassin claim 40% of the time, most (60%) holding Countess" in text


def test_no_card_without_well_visited_rows() -> None:
    """Only rare rows: no card at all."""
    opening = pd.DataFrame({"seat": [0], "hand": ["Duchess"], "Tax": [1.0], "visits": [5]})
    assert strategy_card({"opening_moves": _t("opening_moves", opening)}) == []


def test_a_table_card_names_the_first_turn_bluffs_of_each_hand() -> None:
    """At 3 players: Captain+Countess opens Tax 60% / 20% over 40 + 40 visits (40% pooled, a bluff:
    no Duchess) and Steal 30% / 70% (50%, honest: it holds the Captain); Duchess+Captain opens
    Tax always and never bluffs. The 2-player card has the same sentence."""
    opening = pd.DataFrame(
        {
            "seat": [0, 1, 2],
            "hand": ["Countess+Captain", "Countess+Captain", "Duchess+Captain"],
            "Income": [0.1, 0.1, 0.0],
            "Tax": [0.6, 0.2, 1.0],
            "Steal": [0.3, 0.7, 0.0],
            "reach": [0.1, 0.1, 0.1],
            "value": [0.0, 0.0, 0.0],
            "visits": [40, 40, 50],
        }
    )
    table = {"opening_moves": _t("opening_moves", opening)}
    text = " ".join(strategy_card(table, players=3))
    assert "all 3 seats pooled" in text
    assert "holding Countess+Captain, 40% of first turns (Tax 40%)" in text
    assert "It never bluffs on its first turn holding Duchess+Captain." in text
    assert "Steal 50%" not in text
    two = " ".join(strategy_card(table, players=2))  # the 2-player card says the same
    assert "both seats pooled" in two and "holding Countess+Captain, 40% of first turns" in two


def test_an_inquisitor_exchanging_is_no_bluff() -> None:
    """Inquisitor+Inquisitor opening Exchange 94% (the Inquisitor exchanges) and Examine 6%
    never bluffs; Duchess+Duchess exchanging 30% of first turns does."""
    opening = pd.DataFrame(
        {
            "seat": [0, 1],
            "hand": ["Inquisitor+Inquisitor", "Duchess+Duchess"],
            "Tax": [0.0, 0.7],
            "Exchange": [0.94, 0.3],
            "Examine": [0.06, 0.0],
            "visits": [40, 40],
        }
    )
    text = " ".join(strategy_card({"opening_moves": _t("opening_moves", opening)}, players=4))
    assert "It never bluffs on its first turn holding Inquisitor+Inquisitor." in text
    assert "holding Duchess+Duchess, 30% of first turns (Exchange 30%)" in text
