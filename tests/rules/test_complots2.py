"""Complots 2 (docs/rules.md section 7): the booklet's examples 1-5, each power and each window.

Expected values are worked out by hand from the booklet text and docs/rules.md section 7
(the inferred powers), not read off the code. Games use the deal variant so
that hands can be chosen; `start_coins` gives everyone the same coins.
"""

from __future__ import annotations

import pytest

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage, TokenKind
from complots_solver.rules.layout import S_BURIED
from complots_solver.rules.text import split_token
from tests.helpers import (
    cards,
    coins,
    deal,
    deal_hands,
    face_up,
    hand,
    legal_strings,
    load,
    play,
    stage,
    treasury,
)

CATECHUMENE = "bourreau+espion+justicier+sorciere+ursuline"
EXPERT = "maitre-chanteur+espion+pape+croque-mort+illusionniste"
FINANCES = "maitre-chanteur+espion+pape+sorciere+duchess"


def new(*hands: str, characters: str = CATECHUMENE, **params: object):
    """A deal-variant game with the given character set and hands dealt to seats 0, 1, ..."""
    params.setdefault("variant", "deal")
    params.setdefault("players", len(hands))
    state = load(characters=characters, **params).new_initial_state()
    deal_hands(state, *hands)
    return state


def buried(state, p: int) -> int:
    """Cards p lost face down (Sorcière claims)."""
    return int(state.s[S_BURIED + p * 5 : S_BURIED + p * 5 + 5].sum())


# ---- the booklet's examples ------------------------------------------------------------
def test_booklet_example_1_challenged_justicier_still_takes_3_gives_2():
    # P0 claims the Justicier against P1; P1 challenges and loses; the power applies:
    # take 3 from P1, keep 1, give 2 to the poorest; the Justicier is replaced.
    s = new("Justicier+Ursuline", "Bourreau+Espion", "Espion+Ursuline", start_coins=3)
    play(s, "Justice on P1")
    play(s, "Challenge")
    assert hand(s, 0) == cards("Ursuline")  # the Justicier was shown and shuffled in
    deal(s, "Draw Bourreau")
    play(s, "Reveal Bourreau")  # P1 lost the challenge
    assert face_up(s, 1) == cards("Bourreau")
    play(s, "Pass")  # P1 may still counter; does not
    # P1 3 -> 0; P0 keeps 1 (4); the poorest other than the target is P2 (3): +2.
    assert coins(s) == [4, 0, 5]
    assert hand(s, 0) == cards("Ursuline", "Bourreau")
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_booklet_example_2_countered_bourreau_still_pays_the_target():
    s = new("Bourreau+Ursuline", "Sorcière+Espion", "Espion+Ursuline", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")  # nobody challenges
    assert legal_strings(s) == ["Pass", "Counter as Sorcière"]
    play(s, "Counter as Sorcière")
    play(s, "Pass")  # P0 "se couche"
    play(s, "Pass")  # P2 does not challenge either
    # The action fails but the 3 coins are spent and given to P1.
    assert coins(s) == [0, 6, 3]
    assert hand(s, 1) == cards("Sorcière", "Espion") and face_up(s, 1) == cards()
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_booklet_example_3_true_counter_by_espion_beats_the_justicier():
    s = new("Justicier+Ursuline", "Espion+Bourreau", "Ursuline+Ursuline", start_coins=3)
    play(s, "Justice on P1")
    play(s, "Pass")
    play(s, "Pass")
    assert legal_strings(s) == ["Pass", "Counter as Justicier", "Counter as Espion"]
    play(s, "Counter as Espion")
    play(s, "Challenge")  # P0 challenges the counter
    deal(s, "Draw Sorcière")  # P1 showed the Espion and draws a replacement
    play(s, "Reveal Ursuline")  # P0 lost the challenge
    assert coins(s) == [3, 3, 3]  # the action failed
    assert hand(s, 1) == cards("Sorcière", "Bourreau")
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_booklet_example_4_target_loses_two_lives_to_challenge_and_caught_counter():
    s = new("Bourreau+Ursuline", "Espion+Justicier", "Ursuline+Ursuline", start_coins=3)
    play(s, "Execute P1")
    play(s, "Challenge")  # P1 doubts the Bourreau
    deal(s, "Draw Espion")
    play(s, "Reveal Espion")  # P1 loses a first life
    play(s, "Counter as Sorcière")  # then counters anyway
    play(s, "Challenge")  # P0 challenges
    play(s, "Reveal Justicier")  # no Sorcière: the second life
    assert hand(s, 1) == cards() and face_up(s, 1) == cards("Espion", "Justicier")
    # D-9: the target is gone, the Bourreau pays nothing; P1's coins go to the treasury.
    assert coins(s) == [3, 0, 3]
    assert treasury(s) == 54 - 6
    assert stage(s) == Stage.ACTION and s.current_player() == 2


def test_booklet_example_5_caught_counter_then_the_bourreau_applies():
    s = new("Bourreau+Ursuline", "Espion+Justicier", "Ursuline+Ursuline", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")  # nobody doubts the Bourreau
    play(s, "Counter as Sorcière")
    play(s, "Challenge")
    play(s, "Reveal Espion")  # P1 admits having no Sorcière: a first life
    # Not countered: the Bourreau pays P1 3 and P1 loses the second life.
    assert coins(s) == [0, 6, 3]
    assert stage(s) == Stage.EFFECT_LOSS and s.current_player() == 1
    assert legal_strings(s) == ["Reveal Justicier"]  # one card left: no Sorcière claim
    play(s, "Reveal Justicier")
    assert coins(s) == [0, 0, 3] and treasury(s) == 54 - 3
    assert s.current_player() == 2


# ---- Bourreau -------------------------------------------------------------------------
def test_bourreau_needs_3_coins_and_a_caught_bluff_pays_nothing():
    s = new("Ursuline+Espion", "Justicier+Espion", start_coins=2)
    assert not any(a.startswith("Execute") for a in legal_strings(s))
    s = new("Ursuline+Espion", "Justicier+Espion", start_coins=3)
    play(s, "Execute P1")
    play(s, "Challenge")
    play(s, "Reveal Ursuline")
    assert coins(s) == [3, 3] and hand(s, 1) == cards("Justicier", "Espion")


# ---- Maître-Chanteur --------------------------------------------------------------------
def test_maitre_chanteur_target_pays_3():
    s = new("Maître-Chanteur+Pape", "Espion+Illusionniste", characters=EXPERT, start_coins=3)
    play(s, "Blackmail P1")
    play(s, "Pass")  # no challenge
    assert legal_strings(s) == ["Pass", "Counter as Croque-Mort"]
    play(s, "Pass")  # no counter
    assert stage(s) == Stage.BLACKMAIL_CHOICE and legal_strings(s) == ["Pay", "Refuse"]
    play(s, "Pay")
    assert coins(s) == [6, 0] and hand(s, 1) == cards("Espion", "Illusionniste")


def test_maitre_chanteur_refused_actor_pays_and_target_loses_influence():
    s = new("Maître-Chanteur+Pape", "Espion+Illusionniste", characters=EXPERT, start_coins=3)
    play(s, "Blackmail P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Refuse")
    assert coins(s) == [0, 6]
    play(s, "Reveal Espion")
    assert face_up(s, 1) == cards("Espion") and s.current_player() == 1


def test_maitre_chanteur_target_unable_to_pay_refuses():
    s = new("Maître-Chanteur+Pape", "Espion+Illusionniste", characters=EXPERT, start_coins=3)
    play(s, "Income")  # P0 4
    play(s, "Tithe")  # P1 takes 1 from P0: P0 3, P1 4
    play(s, "Pass")  # P0 does not challenge
    play(s, "Pass")  # P0 does not counter
    assert coins(s) == [3, 4]
    play(s, "Blackmail P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Pay")
    assert coins(s) == [6, 1]
    play(s, "Income")  # P1 2
    play(s, "Blackmail P1")
    play(s, "Pass")
    play(s, "Pass")
    # P1 cannot pay 3: the refusal applies directly.
    assert stage(s) == Stage.EFFECT_LOSS and coins(s) == [3, 5]


def test_maitre_chanteur_countered_actor_pays_3():
    s = new("Maître-Chanteur+Pape", "Croque-Mort+Espion", characters=EXPERT, start_coins=3)
    play(s, "Blackmail P1")
    play(s, "Pass")
    play(s, "Counter as Croque-Mort")
    play(s, "Pass")
    assert coins(s) == [0, 6] and s.current_player() == 1


# ---- Justicier ----------------------------------------------------------------------------
def test_justicier_targets_only_the_richest_and_ties_for_poorest_are_chosen():
    s = new("Justicier+Espion", "Ursuline+Espion", "Ursuline+Espion", "Espion+Espion", copies=6)
    play(s, "Income")  # P0 3
    play(s, "Income")  # P1 3
    play(s, "Income")  # P2 3
    play(s, "Income")  # P3 3
    play(s, "Income")  # P0 4
    play(s, "Income")  # P1 4
    assert coins(s) == [4, 4, 3, 3]
    play(s, "Foreign Aid")  # P2 -> 5 if nobody counters
    for _ in range(3):
        play(s, "Pass")
    play(s, "Income")  # P3 4
    assert coins(s) == [4, 4, 5, 4]
    assert [a for a in legal_strings(s) if a.startswith("Justice")] == ["Justice on P2"]
    play(s, "Justice on P2")
    for _ in range(3):
        play(s, "Pass")  # no challenge
    play(s, "Pass")  # no counter
    # P2 5 -> 2, P0 keeps 1 (5); poorest others: P1 and P3 tie at 4 (P0 counts 4+1=5).
    assert stage(s) == Stage.JUSTICE_GIVE
    assert legal_strings(s) == ["Give to P1", "Give to P3"]
    play(s, "Give to P3")
    assert coins(s) == [5, 4, 2, 6]


def test_justicier_actor_may_be_the_poorest():
    s = new("Justicier+Espion", "Ursuline+Espion", start_coins=1)
    play(s, "Income")  # P0 2
    play(s, "Foreign Aid")  # P1 3
    play(s, "Pass")
    play(s, "Justice on P1")
    play(s, "Pass")
    play(s, "Pass")
    # take 3 from P1; P0 keeps 1 and is the only other player: the 2 go to P0 too.
    assert coins(s) == [5, 0]


def test_justicier_takes_all_the_target_has_below_3():
    s = new("Justicier+Espion", "Ursuline+Espion", "Ursuline+Espion", start_coins=2)
    play(s, "Justice on P1")
    for _ in range(3):
        play(s, "Pass")
    # take 2: keep 1 (P0 3), give 1 to the poorest other than P1: P2 (2)
    assert coins(s) == [3, 0, 3] and s.current_player() == 1


# ---- Pape ------------------------------------------------------------------------------
def test_pape_takes_one_from_each_opponent_and_each_may_counter():
    s = new(
        "Pape+Espion",
        "Pape+Espion",
        "Espion+Illusionniste",
        "Croque-Mort+Espion",
        characters=EXPERT,
        copies=6,
    )
    play(s, "Tithe")
    for _ in range(3):
        play(s, "Pass")  # no challenge
    # P1's window: only the Voleur in play (the Pape) counters it, not the Espion
    assert s.current_player() == 1 and legal_strings(s) == ["Pass", "Counter as Pape"]
    play(s, "Counter as Pape")
    for _ in range(3):
        play(s, "Pass")  # P0, P2, P3 do not challenge: P1 keeps their coin
    assert s.current_player() == 2
    play(s, "Pass")  # P2 pays
    assert coins(s) == [3, 2, 1, 2]
    play(s, "Counter as Pape")  # P3 bluffs
    play(s, "Challenge")  # P0 challenges
    play(s, "Reveal Espion")
    assert coins(s) == [4, 2, 1, 1] and face_up(s, 3) == cards("Espion")
    assert stage(s) == Stage.ACTION and s.current_player() == 1


# ---- Espion ----------------------------------------------------------------------------
def test_espion_draws_swaps_and_pays_1_for_each_extra_draw():
    s = new("Espion+Pape", "Illusionniste+Pape", characters=EXPERT, start_coins=2)
    play(s, "Spy")
    play(s, "Pass")
    deal(s, "Draw Croque-Mort")
    assert hand(s, 0) == cards("Espion", "Pape", "Croque-Mort")
    play(s, "Keep Croque-Mort+Espion")  # the Pape goes back
    assert stage(s) == Stage.SPY_AGAIN and legal_strings(s) == ["Pass", "Draw again"]
    play(s, "Draw again")
    assert coins(s)[0] == 1
    deal(s, "Draw Illusionniste")
    play(s, "Keep Illusionniste+Espion")
    play(s, "Draw again")
    deal(s, "Draw Maître-Chanteur")
    play(s, "Keep Maître-Chanteur+Espion")
    # no coin left: the turn ends
    assert coins(s) == [0, 2] and stage(s) == Stage.ACTION and s.current_player() == 1


# ---- Ursuline --------------------------------------------------------------------------
def test_ursuline_takes_3_gives_1_to_the_target_and_cannot_be_countered():
    s = new("Ursuline+Espion", "Sorcière+Justicier", "Espion+Espion")
    play(s, "Donate to P2")
    play(s, "Pass")
    play(s, "Pass")
    assert coins(s) == [4, 2, 3] and treasury(s) == 54 - 6 - 3
    assert stage(s) == Stage.ACTION and s.current_player() == 1


# ---- Illusionniste ---------------------------------------------------------------------
def test_illusionniste_co_claims_share_and_a_caught_one_does_not():
    s = new(
        "Illusionniste+Pape",
        "Espion+Pape",
        "Illusionniste+Espion",
        "Croque-Mort+Espion",
        characters=EXPERT,
    )
    play(s, "Illusion")
    for _ in range(3):
        play(s, "Pass")
    assert coins(s)[0] == 6
    assert stage(s) == Stage.ILLUSION_CLAIM and s.current_player() == 1
    play(s, "Claim")  # P1 bluffs
    play(s, "Challenge")  # P2 challenges first
    play(s, "Reveal Pape")
    assert s.current_player() == 2
    play(s, "Claim")  # P2 holds it
    play(s, "Pass")  # P3
    play(s, "Pass")  # P0
    play(s, "Pass")  # P1
    assert coins(s) == [5, 2, 3, 2]
    play(s, "Claim")  # P3 bluffs, unchallenged
    for _ in range(3):
        play(s, "Pass")
    assert coins(s) == [4, 2, 3, 3] and s.current_player() == 1


def test_illusionniste_actor_keeps_at_least_one():
    s = new(*(["Espion+Pape"] * 6), characters=EXPERT, players=6, start_coins=2, copies=6)
    play(s, "Illusion")
    for _ in range(5):
        play(s, "Pass")
    for _ in range(3):  # three co-claims stand: the actor is down to 1 of the 4
        play(s, "Claim")
        for _ in range(5):
            play(s, "Pass")
    assert coins(s) == [3, 3, 3, 3, 2, 2]
    assert stage(s) == Stage.ACTION and s.current_player() == 1


# ---- Sorcière --------------------------------------------------------------------------
def test_sorciere_claim_unchallenged_loses_the_card_face_down_and_takes_5():
    s = new("Bourreau+Ursuline", "Sorcière+Espion", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")  # no counter
    assert legal_strings(s) == [
        "Reveal Sorcière",
        "Reveal Espion",
        "Lose Sorcière face down as Sorcière",
    ]
    play(s, "Lose Sorcière face down as Sorcière")
    assert stage(s) == Stage.CLAIM_CHALLENGE and s.current_player() == 0
    play(s, "Pass")
    assert coins(s) == [0, 11] and hand(s, 1) == cards("Espion")
    assert face_up(s, 1) == cards() and buried(s, 1) == 1
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_sorciere_claim_challenged_true_challenger_loses():
    s = new("Bourreau+Ursuline", "Sorcière+Espion", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Lose Sorcière face down as Sorcière")
    play(s, "Challenge")
    assert face_up(s, 1) == cards("Sorcière") and buried(s, 1) == 0
    assert coins(s) == [0, 11]
    play(s, "Reveal Bourreau")  # P0 lost the challenge
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_sorciere_bluff_caught_costs_a_further_influence_and_no_coins():
    s = new("Bourreau+Ursuline", "Justicier+Espion", "Ursuline+Ursuline", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Pass")
    # a bluffer chooses which card is lost face down
    assert "Lose Espion face down as Sorcière" in legal_strings(s)
    play(s, "Lose Espion face down as Sorcière")
    play(s, "Pass")  # P2 passes
    play(s, "Challenge")  # P0 challenges
    assert face_up(s, 1) == cards("Espion")
    assert legal_strings(s) == ["Reveal Justicier"]  # no second Sorcière claim
    play(s, "Reveal Justicier")
    assert hand(s, 1) == cards() and coins(s) == [0, 0, 3]
    assert s.current_player() == 2


def test_sorciere_claim_is_hidden_from_other_players():
    s = new("Bourreau+Ursuline", "Justicier+Espion", start_coins=3)
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")
    config = s.get_game().config
    cfg = config.to_array()
    witch = [a for a in s.legal_actions() if "face down" in s.action_to_string(1, a)]
    assert len(witch) == 2
    seen_by_p0 = {int(core.observation_token(s.s, a, 0)) for a in witch}
    seen_by_p1 = {int(core.observation_token(s.s, a, 1)) for a in witch}
    assert len(seen_by_p0) == 1 and len(seen_by_p1) == 2
    assert split_token(seen_by_p0.pop())[0] == TokenKind.HIDDEN
    del cfg


# ---- Croque-Mort -------------------------------------------------------------------------
def test_croque_mort_claimants_share_the_coins_of_the_eliminated():
    s = new(
        "Pape",
        "Espion",
        "Croque-Mort",
        "Illusionniste",
        characters=EXPERT,
        influence=1,
        start_coins=3,
    )
    play(s, "Blackmail P1")  # P0 bluffs the Maître-Chanteur
    play(s, "Challenge")  # P1 challenges
    play(s, "Reveal Pape")  # P0 is eliminated with 3 coins
    assert stage(s) == Stage.UNDERTAKER_CLAIM and s.current_player() == 1
    play(s, "Claim")  # P1 bluffs
    play(s, "Pass")  # P2
    play(s, "Pass")  # P3
    play(s, "Claim")  # P2 holds it
    play(s, "Pass")  # P3
    play(s, "Pass")  # P1
    play(s, "Pass")  # P3 does not claim
    # two claims stood: 3 coins -> 1 each, the remainder to the treasury
    assert coins(s) == [0, 4, 4, 3] and treasury(s) == 54 - 12 + 1
    assert stage(s) == Stage.ACTION and s.current_player() == 1


def test_croque_mort_false_claim_caught():
    s = new(
        "Pape",
        "Espion",
        "Croque-Mort",
        "Illusionniste",
        "Espion",
        characters=EXPERT,
        influence=1,
        start_coins=2,
    )
    play(s, "Spy")
    play(s, "Challenge")  # P1 challenges P0's Espion claim: P0 holds the Pape
    play(s, "Reveal Pape")
    play(s, "Claim")  # P1 bluffs the Croque-Mort
    play(s, "Challenge")  # P2 challenges
    play(s, "Reveal Espion")  # P1 is eliminated too (no nested window)
    assert coins(s)[1] == 0
    play(s, "Pass")  # P2
    play(s, "Pass")  # P3
    play(s, "Pass")  # P4
    assert coins(s) == [0, 0, 2, 2, 2] and treasury(s) == 54 - 6
    assert stage(s) == Stage.ACTION and s.current_player() == 2


# ---- validation ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bourreau+espion+justicier+sorciere+dragon", "unknown character 'dragon'"),
        ("bourreau+assassin+justicier+sorciere+ursuline", "both of the assassin clan"),
        ("bourreau+espion+justicier+sorciere", "missing clan collector"),
    ],
)
def test_characters_validation_names_the_parameter(text: str, message: str):
    with pytest.raises(ValueError, match="characters") as err:
        GameConfig.from_params({"characters": text})
    assert message in str(err.value)
    assert "collector: duchess|ursuline|illusionniste" in str(err.value)


def test_characters_accept_accents_case_commas_and_any_order():
    a = GameConfig.from_params({"characters": "URSULINE+Sorcière+Justicier+Espion+Bourreau"})
    b = GameConfig.from_params({"characters": "bourreau,espion,justicier,sorciere,ursuline"})
    assert a == b and a.characters_param() == "ursuline+bourreau+sorciere+justicier+espion"
    assert a.clan_name(2) == "Sorcière"


def test_complots1_characters_mean_the_lineup_and_conflicts_fail():
    c1 = GameConfig.from_params({"characters": "duchess+assassin+countess+captain+inquisitor"})
    assert c1 == GameConfig.from_params({"lineup": "inquisitor"})
    assert not c1.extended and "characters" not in c1.params()
    with pytest.raises(ValueError, match="characters"):
        GameConfig.from_params(
            {"lineup": "inquisitor", "characters": "duchess+assassin+countess+captain+ambassador"}
        )
    c2 = GameConfig.from_params({"characters": EXPERT, "players": 3})
    assert GameConfig.from_params(c2.params()) == c2


def test_complots2_game_string_round_trip():
    import pyspiel

    c = GameConfig.from_params({"players": 3, "characters": FINANCES})
    g = pyspiel.load_game(c.game_string())
    assert g.config == c and g.num_distinct_actions() == c.num_distinct_actions()


# ---- more challenge windows ----------------------------------------------------------
def test_maitre_chanteur_bluff_caught_pays_nothing():
    s = new("Pape+Espion", "Espion+Illusionniste", characters=EXPERT, start_coins=3)
    play(s, "Blackmail P1")
    play(s, "Challenge")
    play(s, "Reveal Pape")
    assert coins(s) == [3, 3] and hand(s, 1) == cards("Espion", "Illusionniste")
    assert s.current_player() == 1 and stage(s) == Stage.ACTION


def test_pape_bluff_caught_takes_nothing():
    s = new("Espion+Espion", "Pape+Illusionniste", "Espion+Croque-Mort", characters=EXPERT)
    play(s, "Tithe")
    play(s, "Challenge")  # P1 challenges first (D-5)
    play(s, "Reveal Espion")
    assert coins(s) == [2, 2, 2] and s.current_player() == 1


def test_ursuline_true_claim_challenged_still_gives():
    s = new("Ursuline+Espion", "Justicier+Espion", start_coins=2)
    play(s, "Donate to P1")
    play(s, "Challenge")
    deal(s, "Draw Sorcière")
    play(s, "Reveal Justicier")
    assert coins(s) == [4, 3] and hand(s, 0) == cards("Sorcière", "Espion")


def test_croque_mort_true_claim_challenged_challenger_loses_and_claimant_inherits():
    s = load(
        characters=EXPERT, variant="deal", players=4, influence=2, start_coins=3
    ).new_initial_state()
    deal_hands(s, "Pape+Pape", "Croque-Mort+Espion", "Espion+Illusionniste", "Illusionniste+Espion")
    play(s, "Blackmail P1")  # P0 bluffs
    play(s, "Challenge")  # P1
    play(s, "Reveal Pape")
    play(s, "Income")  # P1 4
    play(s, "Blackmail P0")  # P2 bluffs against P0
    play(s, "Challenge")  # P3 challenges first after P2
    play(s, "Reveal Illusionniste")  # P2 keeps its Espion
    play(s, "Income")  # P3 4
    play(s, "Blackmail P2")  # P0 (3 coins) bluffs again
    play(s, "Challenge")  # P1
    play(s, "Reveal Pape")  # P0 eliminated with 3 coins: the Croque-Mort window
    assert stage(s) == Stage.UNDERTAKER_CLAIM and s.current_player() == 1
    play(s, "Claim")  # P1 holds the Croque-Mort
    play(s, "Challenge")  # P2 challenges
    deal(s, "Draw Maître-Chanteur")  # P1 shows it and draws a replacement
    play(s, "Reveal Espion")  # P2 loses its last card: eliminated, no new window
    play(s, "Pass")  # P3 does not claim
    # P1 inherits P0's 3 coins; P2's 3 go to the treasury.
    assert coins(s) == [0, 7, 0, 4]
    assert hand(s, 1) == cards("Espion", "Maître-Chanteur")
    assert stage(s) == Stage.ACTION and s.current_player() == 1
