"""State accessors (rules/view.py) on games driven by the rules core to known positions.

Every expected value is worked out by hand from docs/rules.md (as in
test_scenarios.py), never read back through an accessor. Clans by index:
0 Duchess, 1 Assassin, 2 Countess, 3 Captain, 4 Ambassador / Inquisitor.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from complots_solver.rules import view
from complots_solver.rules.enums import ActionKind, Clan, Context, Stage
from tests.helpers import CHANCE, deal, deal_hands, load, play, random_spiel_game


def new(*hands: str, **params: object):
    """A deal-variant game with the given hands dealt to seats 0, 1, ... in order."""
    params.setdefault("variant", "deal")
    state = load(**params).new_initial_state()
    deal_hands(state, *hands)
    return state


def test_after_the_deal_coins_hands_court_and_whose_turn():
    s = new("Captain+Duchess", "Assassin+Countess", "Duchess+Ambassador", players=3)
    a = s.s
    assert view.stage(a) == Stage.ACTION
    assert view.current_player(a) == 0 and view.actor(a) == 0
    assert view.turn(a) == 0 and view.winner(a) == -1
    assert view.announced(a) == -1
    assert [view.coins(a, p) for p in range(3)] == [2, 2, 2]
    assert view.all_coins(a, 3).tolist() == [2, 2, 2]
    assert view.treasury(a) == 48
    assert view.hand(a, 0).tolist() == [1, 0, 0, 1, 0]
    assert view.hand(a, 1).tolist() == [0, 1, 1, 0, 0]
    assert view.hand(a, 2).tolist() == [1, 0, 0, 0, 1]
    assert view.hidden(a, 2, Clan.NEGOTIATOR) == 1 and view.hidden(a, 2, Clan.THIEF) == 0
    assert [view.hand_size(a, p) for p in range(3)] == [2, 2, 2]
    assert all(view.alive(a, p) for p in range(3))
    # 3 copies of each of 5 characters, 6 dealt
    assert view.court(a).tolist() == [1, 2, 2, 2, 2]
    assert [view.court_count(a, c) for c in range(5)] == [1, 2, 2, 2, 2]
    assert view.out_of_game(a).tolist() == [0, 0, 0, 0, 0]
    assert view.face_up(a, 1).tolist() == [0, 0, 0, 0, 0]


def test_a_challenged_true_steal_then_a_reveal():
    """The rulebook's example 1: P0 steals from P1 as the Captain, P1 challenges and loses."""
    s = new("Captain+Duchess", "Assassin+Countess", "Duchess+Ambassador", players=3)
    play(s, "Steal from P1")
    a = s.s
    assert view.stage(a) == Stage.CHALLENGE
    assert view.announced(a) == ActionKind.STEAL
    assert view.target(a) == 1 and view.claim(a) == Clan.THIEF
    assert view.current_player(a) == 1 and view.challenger(a) == -1
    play(s, "Challenge")
    a = s.s
    assert view.challenger(a) == 1
    assert view.claim_true(a) == 1
    assert view.challenge_context(a) == Context.ACTION
    # the shown Captain went back to the Court; P0 draws a replacement
    assert s.current_player() == CHANCE
    assert view.hand(a, 0).tolist() == [1, 0, 0, 0, 0]
    assert view.court_count(a, Clan.THIEF) == 3
    deal(s, "Draw Ambassador")
    play(s, "Reveal Assassin")
    a = s.s
    assert view.face_up(a, 1).tolist() == [0, 1, 0, 0, 0]
    assert view.revealed(a, 1, Clan.ASSASSIN) == 1
    assert view.hand_size(a, 1) == 1 and view.alive(a, 1)
    play(s, "Pass")  # P1 does not counter
    a = s.s
    assert view.all_coins(a, 3).tolist() == [4, 0, 2] and view.treasury(a) == 48
    assert view.turn(a) == 1 and view.actor(a) == 1 and view.stage(a) == Stage.ACTION


def test_a_counter_and_its_challenge():
    s = new("Duchess+Captain", "Assassin+Countess", "Captain+Ambassador", players=3)
    play(s, "Foreign Aid")
    play(s, "Pass")
    play(s, "Counter as Duchess")  # P2 has no Duchess
    a = s.s
    assert view.counterer(a) == 2 and view.counter_clan(a) == Clan.COLLECTOR
    play(s, "Pass")
    play(s, "Challenge")
    a = s.s
    assert view.stage(a) == Stage.CHALLENGE_LOSS
    assert view.claim_true(a) == 0 and view.challenger(a) == 1
    assert view.challenge_context(a) == Context.COUNTER
    play(s, "Reveal Captain")
    a = s.s
    assert view.all_coins(a, 3).tolist() == [4, 2, 2]
    assert view.hand(a, 2).tolist() == [0, 0, 0, 0, 1]
    assert view.face_up(a, 2).tolist() == [0, 0, 0, 1, 0]


def test_an_exchange_draws_and_keeps():
    s = new("Ambassador+Duchess", "Captain+Countess", players=2)
    play(s, "Exchange")
    play(s, "Pass")
    assert view.drawer(s.s) == 0
    deal(s, "Draw Assassin+Captain")
    assert view.stage(s.s) == Stage.EXCHANGE_KEEP and view.keep_count(s.s) == 2
    play(s, "Keep Assassin+Captain")
    assert view.hand(s.s, 0).tolist() == [0, 1, 0, 1, 0]


def test_examine_shows_a_card():
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
    play(s, "Show Countess")
    assert view.stage(s.s) == Stage.EXAMINE_DECIDE
    assert view.shown(s.s) == Clan.UNTOUCHABLE and view.target(s.s) == 1


def test_the_draft_deals_picks_and_puts_cards_out():
    s = load(players=2).new_initial_state()
    assert view.all_coins(s.s, 2).tolist() == [1, 2] and view.treasury(s.s) == 51
    assert view.deal_next(s.s) == 0
    deal(s, "Captain")
    assert view.deal_next(s.s) == 1
    deal(s, "Duchess")
    play(s, "Pick Captain")
    play(s, "Pick Assassin")
    a = s.s
    assert view.stage(a) == Stage.ACTION
    assert view.hand(a, 0).tolist() == [0, 0, 0, 2, 0]
    assert view.hand(a, 1).tolist() == [1, 1, 0, 0, 0]
    assert view.court(a).tolist() == [0, 1, 1, 0, 1]
    assert view.out_of_game(a).tolist() == [2, 1, 2, 1, 2]
    assert view.out_count(a, Clan.COLLECTOR) == 2


def test_complots2_claim_windows():
    s = new(
        "Bourreau+Ursuline",
        "Sorcière+Espion",
        characters="bourreau+espion+justicier+sorciere+ursuline",
        players=2,
        start_coins=3,
    )
    play(s, "Execute P1")
    play(s, "Pass")
    play(s, "Pass")
    play(s, "Lose Sorcière face down as Sorcière")
    assert view.stage(s.s) == Stage.CLAIM_CHALLENGE
    assert view.claimant(s.s) == 1 and view.claimed(s.s) == Clan.UNTOUCHABLE
    expert = "maitre-chanteur+espion+pape+croque-mort+illusionniste"
    s = new("Pape", "Espion", "Croque-Mort", "Illusionniste", characters=expert,
            players=4, influence=1, start_coins=3)  # fmt: skip
    play(s, "Blackmail P1")
    play(s, "Challenge")
    play(s, "Reveal Pape")  # P0 is out with 3 coins
    assert view.stage(s.s) == Stage.UNDERTAKER_CLAIM
    assert view.dead(s.s) == 0 and not view.alive(s.s, 0) and view.hand_size(s.s, 0) == 0


def test_a_won_game_names_its_winner():
    s = new("Duchess", "Captain", players=2, influence=1, start_coins=7)
    play(s, "Coup on P1")
    assert view.stage(s.s) == Stage.EFFECT_LOSS and view.winner(s.s) == -1
    play(s, "Reveal Captain")
    assert s.is_terminal()
    assert view.winner(s.s) == 0 and not view.alive(s.s, 1)


def test_swap_with_court_keeps_every_count():
    s = new("Captain+Duchess", "Assassin+Countess", players=2)
    a = np.array(s.s)
    view.swap_with_court(a, 1, Clan.THIEF, Clan.ASSASSIN)
    assert view.hand(a, 1).tolist() == [0, 0, 1, 1, 0]
    # 3 copies each, 4 dealt: the Court held [2, 2, 2, 2, 3]
    assert view.court(a).tolist() == [2, 3, 2, 1, 3]
    assert np.count_nonzero(a != s.s) == 4  # nothing else moved


@njit(cache=False)
def _compiled_fields(s: np.ndarray, p: int) -> np.ndarray:
    """The accessors as compiled code sees them."""
    out = np.empty(12, dtype=np.int64)
    out[0] = view.stage(s)
    out[1] = view.current_player(s)
    out[2] = view.turn(s)
    out[3] = view.actor(s)
    out[4] = view.announced(s)
    out[5] = view.coins(s, p)
    out[6] = view.hand_size(s, p)
    out[7] = view.hidden(s, p, 1)
    out[8] = view.revealed(s, p, 2)
    out[9] = view.court_count(s, 3)
    out[10] = view.treasury(s)
    out[11] = view.hand(s, p).sum() + view.face_up(s, p).sum() + 1 if view.alive(s, p) else 0
    return out


@pytest.mark.parametrize("params", [{"players": 2}, {"players": 4, "variant": "deal"}])
def test_compiled_callers_read_the_same_fields(params: dict[str, object]):
    game = load(**params)
    rng = np.random.default_rng(3)
    for state in random_spiel_game(game, rng)[::3]:
        a = state.s
        for p in range(game.num_players()):
            got = _compiled_fields(a, p).tolist()
            alive = view.alive(a, p)
            up = int(view.face_up(a, p).sum())
            want = [
                view.stage(a), view.current_player(a), view.turn(a), view.actor(a),
                view.announced(a), view.coins(a, p), view.hand_size(a, p), view.hidden(a, p, 1),
                view.revealed(a, p, 2), view.court_count(a, 3), view.treasury(a),
                view.hand_size(a, p) + up + 1 if alive else 0,
            ]  # fmt: skip
            assert got == want
