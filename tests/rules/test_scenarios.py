"""Scripted games: the rulebook's worked examples, each decision D-1..D-13 and the
basic actions, driven by action strings through the pyspiel API.

Every expected value below is worked out by hand from docs/rules.md and the rulebook.
Deal-variant Courts start with `copies` of each character minus the dealt cards.
"""

from __future__ import annotations

import pytest

from complots_solver.rules.enums import Stage
from tests.helpers import (
    CHANCE,
    TERMINAL,
    cards,
    coins,
    court,
    deal,
    deal_hands,
    face_up,
    hand,
    legal_strings,
    load,
    out_of_game,
    play,
    stage,
    treasury,
    winner,
)


def new(*hands: str, **params: object):
    """A deal-variant game with the given hands dealt to seats 0, 1, ... in order."""
    params.setdefault("variant", "deal")
    state = load(**params).new_initial_state()
    deal_hands(state, *hands)
    return state


# ---- the rulebook's worked examples ---------------------------------------------
def test_example_1_challenged_captain_still_steals():
    s = new("Captain+Duchess", "Assassin+Countess", "Duchess+Ambassador", players=3)
    assert court(s) == cards(
        *"Duchess Assassin Assassin Countess Countess".split(),
        *"Captain Captain Ambassador Ambassador".split(),
    )
    play(s, "Steal from P1")
    assert s.current_player() == 1
    assert legal_strings(s) == ["Pass", "Challenge"]
    play(s, "Challenge")
    # P0 shows the Captain, shuffles it into the Court and draws a replacement.
    assert s.is_chance_node()
    assert hand(s, 0) == cards("Duchess")
    assert court(s)["Captain"] == 3
    assert deal(s, "Draw Ambassador") == pytest.approx(2 / 10)
    assert hand(s, 0) == cards("Duchess", "Ambassador")
    # P2 lost the challenge: turns one card of their choice face up.
    assert s.current_player() == 1
    assert legal_strings(s) == ["Reveal Assassin", "Reveal Countess"]
    play(s, "Reveal Assassin")
    # The target may still counter; P1 does not.
    assert s.current_player() == 1
    assert legal_strings(s) == ["Pass", "Counter as Captain", "Counter as Ambassador"]
    play(s, "Pass")
    assert coins(s) == [4, 0, 2]
    assert treasury(s) == 48
    assert face_up(s, 1) == cards("Assassin")
    assert hand(s, 1) == cards("Countess")
    assert court(s) == cards(
        *"Duchess Assassin Assassin Countess Countess".split(),
        *"Captain Captain Captain Ambassador".split(),
    )
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_example_2_third_player_challenges_twice_and_is_eliminated():
    s = new("Captain+Duchess", "Ambassador+Assassin", "Countess+Duchess", players=3)
    play(s, "Steal from P1")
    play(s, "Pass")  # P1 does not challenge
    assert s.current_player() == 2
    play(s, "Challenge")  # P2 (the rulebook's Player 3) challenges
    assert deal(s, "Draw Captain") == pytest.approx(3 / 10)
    assert s.current_player() == 2
    play(s, "Reveal Countess")
    # P1 counters as Ambassador; the counter-challenge window opens with the actor.
    assert s.current_player() == 1
    play(s, "Counter as Ambassador")
    assert s.current_player() == 0
    assert legal_strings(s) == ["Pass", "Challenge"]
    play(s, "Pass")
    assert s.current_player() == 2
    play(s, "Challenge")
    assert hand(s, 1) == cards("Assassin")
    assert court(s)["Ambassador"] == 3
    assert deal(s, "Draw Countess") == pytest.approx(2 / 10)
    assert s.current_player() == 2
    assert legal_strings(s) == ["Reveal Duchess"]
    play(s, "Reveal Duchess")
    # P2 is eliminated (coins to the treasury); the steal is countered.
    assert hand(s, 2) == cards()
    assert face_up(s, 2) == cards("Countess", "Duchess")
    assert coins(s) == [2, 2, 0]
    assert treasury(s) == 50
    assert hand(s, 0) == cards("Duchess", "Captain")
    assert hand(s, 1) == cards("Assassin", "Countess")
    assert court(s) == cards(
        "Duchess",
        "Assassin",
        "Assassin",
        "Countess",
        "Captain",
        "Captain",
        "Ambassador",
        "Ambassador",
        "Ambassador",
    )
    assert not s.is_terminal()
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_two_lives_1_challenging_a_true_assassin():
    s = new("Assassin+Duchess", "Countess+Captain", players=2, start_coins=3)
    assert treasury(s) == 48
    play(s, "Assassinate P1")
    assert coins(s) == [0, 3] and treasury(s) == 51  # paid at announcement
    play(s, "Challenge")
    assert deal(s, "Draw Duchess") == pytest.approx(2 / 12)
    assert hand(s, 0) == cards("Duchess", "Duchess")
    play(s, "Reveal Captain")  # first life: the challenge
    assert s.current_player() == 1
    assert legal_strings(s) == ["Pass", "Counter as Countess"]
    play(s, "Pass")
    assert legal_strings(s) == ["Reveal Countess"]
    play(s, "Reveal Countess")  # second life: the assassination
    assert s.is_terminal()
    assert winner(s) == 0
    assert s.returns() == [1.0, -1.0]
    assert coins(s) == [0, 0] and treasury(s) == 54
    assert face_up(s, 1) == cards("Countess", "Captain")


def test_two_lives_2_countess_bluff_caught():
    s = new("Assassin+Duchess", "Captain+Ambassador", "Duchess+Countess", players=3, start_coins=3)
    play(s, "Assassinate P1")
    assert coins(s) == [0, 3, 3] and treasury(s) == 48
    play(s, "Pass")
    play(s, "Pass")
    assert s.current_player() == 1
    play(s, "Counter as Countess")
    assert s.current_player() == 0
    play(s, "Challenge")
    assert not s.is_chance_node()  # a bluff: nothing shown, no replacement
    assert s.current_player() == 1
    assert legal_strings(s) == ["Reveal Captain", "Reveal Ambassador"]
    play(s, "Reveal Captain")  # first life: the caught bluff
    assert s.current_player() == 1
    assert legal_strings(s) == ["Reveal Ambassador"]
    play(s, "Reveal Ambassador")  # second life: the assassination
    assert hand(s, 1) == cards()
    assert coins(s) == [0, 0, 3] and treasury(s) == 51
    assert hand(s, 0) == cards("Assassin", "Duchess")
    assert not s.is_terminal()
    assert s.current_player() == 2


# ---- basic actions -------------------------------------------------------------
def test_income():
    s = new("Duchess+Captain", "Assassin+Countess", "Duchess+Ambassador", players=3)
    assert coins(s) == [2, 2, 2] and treasury(s) == 48
    play(s, "Income")
    assert coins(s) == [3, 2, 2] and treasury(s) == 47
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_foreign_aid_uncountered():
    s = new("Duchess+Captain", "Assassin+Countess", "Duchess+Ambassador", players=3)
    play(s, "Foreign Aid")
    assert s.current_player() == 1  # no challenge window: straight to counters
    assert legal_strings(s) == ["Pass", "Counter as Duchess"]
    play(s, "Pass")
    assert s.current_player() == 2
    play(s, "Pass")
    assert coins(s) == [4, 2, 2] and treasury(s) == 46
    assert s.current_player() == 1


def test_foreign_aid_false_duchess_counter_caught():
    s = new("Duchess+Captain", "Assassin+Countess", "Captain+Ambassador", players=3)
    play(s, "Foreign Aid")
    play(s, "Pass")
    play(s, "Counter as Duchess")  # P2 has no Duchess
    assert s.current_player() == 0
    play(s, "Pass")
    assert s.current_player() == 1  # the counterer P2 is skipped
    play(s, "Challenge")
    assert s.current_player() == 2
    play(s, "Reveal Captain")
    assert coins(s) == [4, 2, 2]  # the action goes on
    assert s.current_player() == 1


def test_tax():
    s = new("Duchess+Captain", "Assassin+Countess", "Duchess+Ambassador", players=3)
    play(s, "Tax")
    assert legal_strings(s) == ["Pass", "Challenge"]
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [5, 2, 2] and treasury(s) == 45
    assert s.current_player() == 1


def test_coup_needs_seven():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, start_coins=6)
    assert not any(x.startswith("Coup") for x in legal_strings(s))


def test_coup_costs_seven_and_cannot_be_answered():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, start_coins=7)
    assert "Coup on P1" in legal_strings(s)
    play(s, "Coup on P1")
    assert coins(s) == [0, 7] and treasury(s) == 47
    assert s.current_player() == 1
    assert legal_strings(s) == ["Reveal Assassin", "Reveal Countess"]
    play(s, "Reveal Countess")
    assert face_up(s, 1) == cards("Countess") and hand(s, 1) == cards("Assassin")
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_assassinate_needs_three():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, start_coins=2)
    assert not any(x.startswith("Assassinate") for x in legal_strings(s))


def test_assassinate_refunded_when_bluff_caught():
    s = new("Duchess+Captain", "Countess+Captain", "Duchess+Ambassador", players=3, start_coins=3)
    play(s, "Assassinate P1")
    assert coins(s) == [0, 3, 3] and treasury(s) == 48
    play(s, "Challenge")
    assert s.current_player() == 0
    play(s, "Reveal Duchess")
    assert coins(s) == [3, 3, 3] and treasury(s) == 45
    assert hand(s, 1) == cards("Countess", "Captain")
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_assassinate_countered_not_refunded():
    s = new("Assassin+Duchess", "Countess+Captain", "Duchess+Ambassador", players=3, start_coins=3)
    play(s, "Assassinate P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Counter as Countess")
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [0, 3, 3] and treasury(s) == 48
    assert hand(s, 1) == cards("Countess", "Captain") and face_up(s, 1) == cards()
    assert s.current_player() == 1


def test_target_may_counter_after_losing_challenge():
    s = new("Assassin+Duchess", "Countess+Captain", "Duchess+Ambassador", players=3, start_coins=3)
    play(s, "Assassinate P1")
    play(s, "Challenge")  # P1 challenges a true Assassin
    deal(s, "Draw Captain")
    play(s, "Reveal Captain")
    assert s.current_player() == 1
    play(s, "Counter as Countess")  # and still counters, truly
    play(s, "Challenge")  # P0 challenges the counter and loses
    assert hand(s, 1) == cards()
    deal(s, "Draw Duchess")
    assert s.current_player() == 0
    play(s, "Reveal Duchess")
    assert hand(s, 1) == cards("Duchess") and face_up(s, 1) == cards("Captain")
    assert hand(s, 0) == cards("Captain") and face_up(s, 0) == cards("Duchess")
    assert coins(s) == [0, 3, 3]
    assert s.current_player() == 1


def test_steal_takes_two():
    s = new("Captain+Duchess", "Assassin+Countess", players=2, start_coins=3)
    play(s, "Steal from P1")
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [5, 1] and treasury(s) == 48


def test_steal_takes_min_two_coins():
    s = new("Captain+Duchess", "Assassin+Countess", players=2, start_coins=1)
    play(s, "Steal from P1")
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [2, 0] and treasury(s) == 52


def test_ambassador_exchange_draws_two_keeps_two():
    s = new("Ambassador+Duchess", "Captain+Countess", players=2)
    assert court(s) == cards(
        *["Duchess"] * 2,
        *["Assassin"] * 3,
        *["Countess"] * 2,
        *["Captain"] * 2,
        *["Ambassador"] * 2,
    )
    play(s, "Exchange")
    play(s, "Pass")
    assert s.is_chance_node()
    outcomes = dict(zip(legal_strings(s), [p for _, p in s.chance_outcomes()], strict=True))
    assert outcomes["Draw Assassin+Assassin"] == pytest.approx(3 / 55)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert deal(s, "Draw Assassin+Captain") == pytest.approx(6 / 55)
    assert s.current_player() == 0
    assert legal_strings(s) == [
        "Keep Duchess+Assassin",
        "Keep Duchess+Captain",
        "Keep Duchess+Ambassador",
        "Keep Assassin+Captain",
        "Keep Assassin+Ambassador",
        "Keep Captain+Ambassador",
    ]
    play(s, "Keep Assassin+Captain")
    assert hand(s, 0) == cards("Assassin", "Captain")
    assert court(s) == cards(
        *["Duchess"] * 3, *["Assassin"] * 2, *["Countess"] * 2, "Captain", *["Ambassador"] * 3
    )
    assert s.current_player() == 1


def test_ambassador_exchange_with_one_card_keeps_one():
    s = new("Ambassador", "Captain", players=2, influence=1)
    play(s, "Exchange")
    play(s, "Pass")
    assert deal(s, "Draw Duchess+Duchess") == pytest.approx(3 / 78)
    assert legal_strings(s) == ["Keep Duchess", "Keep Ambassador"]
    play(s, "Keep Duchess")
    assert hand(s, 0) == cards("Duchess")
    assert court(s)["Duchess"] == 2 and court(s)["Ambassador"] == 3
    assert sum(court(s).values()) == 13


def test_inquisitor_exchange_draws_one():
    s = new("Inquisitor+Duchess", "Captain+Countess", players=2, lineup="inquisitor")
    play(s, "Exchange")
    play(s, "Pass")
    assert legal_strings(s) == [
        "Draw Duchess",
        "Draw Assassin",
        "Draw Countess",
        "Draw Captain",
        "Draw Inquisitor",
    ]
    assert deal(s, "Draw Assassin") == pytest.approx(3 / 11)
    assert legal_strings(s) == [
        "Keep Duchess+Assassin",
        "Keep Duchess+Inquisitor",
        "Keep Assassin+Inquisitor",
    ]
    play(s, "Keep Duchess+Assassin")
    assert hand(s, 0) == cards("Duchess", "Assassin")
    assert court(s)["Inquisitor"] == 3 and court(s)["Assassin"] == 2
    assert sum(court(s).values()) == 11


def _examine_setup():
    """3-player Inquisitor game where P0 examines P1 unchallenged."""
    s = new(
        "Inquisitor+Duchess",
        "Captain+Countess",
        "Assassin+Assassin",
        players=3,
        lineup="inquisitor",
    )
    play(s, "Examine P1")
    play(s, "Pass")
    play(s, "Pass")
    return s


def test_examine_target_chooses_shown_card_and_card_returned():
    s = _examine_setup()
    assert s.current_player() == 1
    assert legal_strings(s) == ["Show Countess", "Show Captain"]
    play(s, "Show Captain")
    assert s.current_player() == 0
    assert legal_strings(s) == ["Return card", "Force swap"]
    assert "examined Captain" in s.observation_string(0)
    assert "examined Captain" in s.observation_string(1)
    assert "examined" not in s.observation_string(2)
    assert "Captain" not in s.information_state_string(2).split("history:")[1]
    play(s, "Return card")
    assert hand(s, 1) == cards("Captain", "Countess")
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_examine_force_swap_target_draws_replacement():
    s = _examine_setup()
    play(s, "Show Captain")
    play(s, "Force swap")
    assert s.is_chance_node()
    assert hand(s, 1) == cards("Countess")
    assert court(s) == cards(
        *["Duchess"] * 2, "Assassin", *["Countess"] * 2, *["Captain"] * 3, *["Inquisitor"] * 2
    )
    assert deal(s, "Draw Assassin") == pytest.approx(1 / 10)
    assert hand(s, 1) == cards("Countess", "Assassin")
    assert court(s)["Assassin"] == 0 and court(s)["Captain"] == 3
    # The swap is public, the replacement is private to the target.
    assert "P1 Force swap" not in s.information_state_string(2)
    assert "Force swap" in s.information_state_string(2)
    assert "P1 draws ?" in s.information_state_string(2)
    assert "P1 draws ?" in s.information_state_string(0)
    assert "P1 draws Assassin" in s.information_state_string(1)
    assert coins(s) == [2, 2, 2]
    assert s.current_player() == 1


def test_elimination_returns_coins():
    s = new("Duchess", "Captain", "Countess", players=3, influence=1, start_coins=7)
    play(s, "Coup on P2")
    assert coins(s) == [0, 7, 7] and treasury(s) == 40
    play(s, "Reveal Countess")
    assert coins(s) == [0, 7, 0] and treasury(s) == 47
    assert s.current_player() == 1
    assert "Coup on P2" not in legal_strings(s)  # the eliminated are no targets


def test_two_player_draft_setup():
    s = load(players=2).new_initial_state()
    assert coins(s) == [1, 2] and treasury(s) == 51
    assert legal_strings(s) == [
        "Deal Duchess",
        "Deal Assassin",
        "Deal Countess",
        "Deal Captain",
        "Deal Ambassador",
    ]
    assert deal(s, "Captain") == pytest.approx(1 / 5)
    assert deal(s, "Duchess") == pytest.approx(1 / 4)
    assert s.current_player() == 0 and stage(s) == Stage.PICK
    assert legal_strings(s) == [
        "Pick Duchess",
        "Pick Assassin",
        "Pick Countess",
        "Pick Captain",
        "Pick Ambassador",
    ]
    assert "Captain" not in s.information_state_string(1)
    play(s, "Pick Captain")
    assert s.current_player() == 1
    p1_view = s.information_state_string(1)
    assert "P0 picks ?" in p1_view and "Captain" not in p1_view
    play(s, "Pick Assassin")
    assert s.current_player() == 0 and stage(s) == Stage.ACTION
    assert hand(s, 0) == cards("Captain", "Captain")
    assert hand(s, 1) == cards("Duchess", "Assassin")
    assert court(s) == cards("Assassin", "Countess", "Ambassador")
    assert out_of_game(s) == cards(
        *["Duchess"] * 2, "Assassin", *["Countess"] * 2, "Captain", *["Ambassador"] * 2
    )
    assert coins(s) == [1, 2] and treasury(s) == 51


def test_two_player_deal_variant():
    s = load(players=2, variant="deal").new_initial_state()
    assert coins(s) == [1, 2] and treasury(s) == 51
    assert len(s.chance_outcomes()) == 15
    assert deal(s, "Deal Duchess+Duchess") == pytest.approx(3 / 105)
    assert deal(s, "Deal Duchess+Captain") == pytest.approx(3 / 78)
    assert stage(s) == Stage.ACTION and s.current_player() == 0
    assert sum(court(s).values()) == 11 and court(s)["Duchess"] == 0
    assert out_of_game(s) == cards()


def test_start_coins_override():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, start_coins=4)
    assert coins(s) == [4, 4] and treasury(s) == 46


# ---- decisions D-1..D-13 --------------------------------------------------------
def test_d1_ten_coins_must_coup():
    s = new("Duchess+Captain", "Assassin+Countess", "Duchess+Ambassador", players=3, start_coins=10)
    assert legal_strings(s) == ["Coup on P1", "Coup on P2"]


def test_d1_reaching_ten_coins_forces_coup_next_turn():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, start_coins=9)
    assert "Income" in legal_strings(s)  # 9 coins: free choice
    play(s, "Income")
    assert coins(s) == [10, 9]
    assert "Income" in legal_strings(s)
    play(s, "Income")
    assert legal_strings(s) == ["Coup on P1"]
    play(s, "Coup on P1")
    assert coins(s) == [3, 10]
    play(s, "Reveal Assassin")
    assert legal_strings(s) == ["Coup on P0"]


def test_d2_examine_cannot_be_countered():
    s = new("Inquisitor+Duchess", "Captain+Countess", players=2, lineup="inquisitor")
    play(s, "Examine P1")
    assert legal_strings(s) == ["Pass", "Challenge"]
    play(s, "Pass")
    assert stage(s) == Stage.EXAMINE_SHOW
    assert legal_strings(s) == ["Show Countess", "Show Captain"]
    assert not any("Counter" in x for x in legal_strings(s))


def test_d3_steal_from_zero_coins_is_legal():
    s = new("Captain+Duchess", "Assassin+Countess", players=2, start_coins=0)
    assert "Steal from P1" in legal_strings(s)
    play(s, "Steal from P1")
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [0, 0] and treasury(s) == 54
    assert s.current_player() == 1


def test_d4_gain_cut_to_treasury():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, coins=5, start_coins=2)
    assert treasury(s) == 1
    play(s, "Tax")
    play(s, "Pass")
    assert coins(s) == [3, 2] and treasury(s) == 0
    play(s, "Foreign Aid")
    play(s, "Pass")
    assert coins(s) == [3, 2] and treasury(s) == 0
    play(s, "Income")
    assert coins(s) == [3, 2] and treasury(s) == 0


def test_d5_first_clockwise_challenger():
    s = new(
        "Assassin+Countess", "Captain+Ambassador", "Duchess+Captain", "Assassin+Countess", players=4
    )
    play(s, "Income")
    play(s, "Income")
    play(s, "Tax")  # P2 acts; the window runs P3, P0, P1
    assert s.current_player() == 3
    play(s, "Pass")
    assert s.current_player() == 0
    play(s, "Challenge")  # P0 is the challenger; P1 is never asked
    assert deal(s, "Draw Duchess") == pytest.approx(3 / 8)
    assert s.current_player() == 0
    play(s, "Reveal Assassin")
    assert coins(s) == [3, 3, 5, 2]
    assert face_up(s, 1) == cards()
    assert s.current_player() == 3


def test_d5_eliminated_players_skipped_in_windows():
    s = new("Duchess", "Captain", "Countess", "Assassin", players=4, influence=1, start_coins=7)
    play(s, "Coup on P1")
    play(s, "Reveal Captain")
    assert s.current_player() == 2  # P1 is skipped as actor
    play(s, "Tax")
    assert s.current_player() == 3
    play(s, "Pass")
    assert s.current_player() == 0  # and as responder
    play(s, "Pass")
    assert s.current_player() == 3
    assert coins(s) == [0, 0, 10, 7]


def test_d6_holder_always_shows():
    s = new("Duchess+Captain", "Assassin+Countess", "Duchess+Ambassador", players=3)
    play(s, "Tax")
    play(s, "Challenge")
    # No choice for P0: the Duchess is shown and goes back to the Court.
    assert s.is_chance_node()
    assert hand(s, 0) == cards("Captain") and court(s)["Duchess"] == 2
    assert "(claim true)" in s.information_state_string(2)
    deal(s, "Draw Countess")
    assert s.current_player() == 1  # the challenger loses
    play(s, "Reveal Assassin")
    assert coins(s) == [5, 2, 2]


def test_d7_replacement_drawn_before_exchange():
    s = new("Ambassador+Duchess", "Captain+Countess", players=2)
    play(s, "Exchange")
    play(s, "Challenge")
    assert court(s)["Ambassador"] == 3
    assert deal(s, "Draw Captain") == pytest.approx(2 / 12)
    assert stage(s) == Stage.CHALLENGE_LOSS and s.current_player() == 1
    play(s, "Reveal Countess")
    # The exchange draws from the Court holding the shown Ambassador.
    assert court(s) == cards(
        *["Duchess"] * 2, *["Assassin"] * 3, *["Countess"] * 2, "Captain", *["Ambassador"] * 3
    )
    assert deal(s, "Draw Ambassador+Ambassador") == pytest.approx(3 / 55)
    strings = legal_strings(s)
    assert "Keep Duchess+Captain" in strings  # the replacement takes part
    assert "Keep Ambassador+Ambassador" in strings
    play(s, "Keep Duchess+Captain")
    assert hand(s, 0) == cards("Duchess", "Captain")


def test_d8_one_counter_per_action():
    s = new("Duchess+Captain", "Duchess+Countess", "Duchess+Ambassador", players=3)
    play(s, "Foreign Aid")
    play(s, "Counter as Duchess")  # P1 counters; P2 will not be asked to counter
    assert stage(s) == Stage.COUNTER_CHALLENGE and s.current_player() == 0
    play(s, "Pass")
    assert s.current_player() == 2
    assert legal_strings(s) == ["Pass", "Challenge"]
    play(s, "Pass")
    assert coins(s) == [2, 2, 2]
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_d9_target_eliminated_by_challenge_steal_takes_nothing():
    s = new("Captain", "Duchess", "Assassin", players=3, influence=1)
    play(s, "Steal from P1")
    play(s, "Challenge")
    deal(s, "Draw Countess")
    play(s, "Reveal Duchess")
    assert coins(s) == [2, 0, 2] and treasury(s) == 50
    assert s.current_player() == 2 and stage(s) == Stage.ACTION


def test_d9_target_eliminated_by_challenge_assassin_stays_paid():
    s = new("Assassin", "Duchess", "Captain", players=3, influence=1, start_coins=3)
    play(s, "Assassinate P1")
    play(s, "Challenge")
    deal(s, "Draw Countess")
    play(s, "Reveal Duchess")
    assert coins(s) == [0, 0, 3] and treasury(s) == 51
    assert s.current_player() == 2 and stage(s) == Stage.ACTION


def test_d9_actor_eliminated_action_ends():
    s = new("Duchess", "Captain", "Assassin", players=3, influence=1)
    play(s, "Steal from P1")
    play(s, "Challenge")
    play(s, "Reveal Duchess")
    assert coins(s) == [0, 2, 2] and treasury(s) == 50
    assert not s.is_terminal()
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_d10_three_player_utilities():
    s = new("Duchess", "Captain", "Countess", players=3, influence=1, start_coins=7)
    play(s, "Coup on P1")
    play(s, "Reveal Captain")
    assert s.current_player() == 2
    assert "Coup on P1" not in legal_strings(s)
    play(s, "Coup on P0")
    play(s, "Reveal Duchess")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.returns() == pytest.approx([-0.5, -0.5, 1.0])
    assert sum(s.returns()) == pytest.approx(0.0)


def test_d11_turn_cap_is_a_draw():
    s = new("Duchess+Captain", "Assassin+Countess", players=2, max_turns=2)
    play(s, "Income")
    assert not s.is_terminal()
    play(s, "Income")
    assert s.is_terminal()
    assert s.returns() == [0.0, 0.0]
    assert winner(s) == -1


def test_d11_win_in_last_turn_is_a_win():
    s = new("Duchess", "Captain", players=2, influence=1, start_coins=7, max_turns=1)
    play(s, "Coup on P1")
    play(s, "Reveal Captain")
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


def test_d11_draft_is_not_a_turn():
    s = load(players=2, max_turns=1).new_initial_state()
    deal_hands(s, "Duchess", "Captain")
    play(s, "Pick Duchess")
    play(s, "Pick Captain")
    assert not s.is_terminal() and s.current_player() == 0
    play(s, "Income")
    assert s.is_terminal() and s.returns() == [0.0, 0.0]


def test_d12_challenge_window_closes_before_counters():
    s = new("Captain+Duchess", "Captain+Countess", "Duchess+Ambassador", players=3)
    play(s, "Steal from P1")
    assert legal_strings(s) == ["Pass", "Challenge"]  # no counter yet
    play(s, "Pass")
    play(s, "Pass")
    assert s.current_player() == 1
    assert legal_strings(s) == ["Pass", "Counter as Captain", "Counter as Ambassador"]
    play(s, "Counter as Captain")
    # Now only the counter can be challenged: P0, then P2.
    assert stage(s) == Stage.COUNTER_CHALLENGE and s.current_player() == 0
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [2, 2, 2]
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_d13_influence_one_deal_deals_one_card():
    s = load(players=3, influence=1).new_initial_state()
    outcomes = s.chance_outcomes()
    assert legal_strings(s) == [
        "Deal Duchess",
        "Deal Assassin",
        "Deal Countess",
        "Deal Captain",
        "Deal Ambassador",
    ]
    assert [p for _, p in outcomes] == pytest.approx([0.2] * 5)
    deal_hands(s, "Duchess", "Duchess", "Captain")
    assert stage(s) == Stage.ACTION and s.current_player() == 0
    assert hand(s, 1) == cards("Duchess")
    assert sum(court(s).values()) == 12 and court(s)["Duchess"] == 1


def test_d13_influence_one_draft_has_no_pick():
    s = load(players=2, influence=1).new_initial_state()
    assert coins(s) == [1, 2]
    assert deal(s, "Countess") == pytest.approx(1 / 5)
    assert deal(s, "Ambassador") == pytest.approx(1 / 4)
    assert stage(s) == Stage.ACTION and s.current_player() == 0
    assert hand(s, 0) == cards("Countess") and hand(s, 1) == cards("Ambassador")
    assert court(s) == cards("Duchess", "Assassin", "Captain")
    assert out_of_game(s) == cards(
        *[n for n in ("Duchess", "Assassin", "Countess", "Captain", "Ambassador") for _ in range(2)]
    )
    assert s.current_player() != CHANCE
