"""Card counting: hand-computed posteriors, impossible claims, soundness on random games."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from complots_solver.play.cards import CardTracker, card_view, holding_probabilities
from complots_solver.rules.enums import NUM_CLANS, Clan
from complots_solver.rules.layout import S_COURT, S_HIDDEN, S_OUT, S_REVEALED
from tests.helpers import COMPLOTS2_SETS, chance_action, deal, load, play, random_spiel_game


def test_holding_probabilities_hand_computed():
    """1 - C(M - U, h) / C(M, h) with M = 9 unseen cards and a 2-card hand."""
    probs = holding_probabilities([2, 1, 3, 0, 3], 2)
    assert probs == pytest.approx([15 / 36, 8 / 36, 21 / 36, 0.0, 21 / 36])
    assert holding_probabilities([2, 1, 3, 0, 3], 1) == pytest.approx(
        [2 / 9, 1 / 9, 3 / 9, 0, 3 / 9]
    )
    assert holding_probabilities([1, 1, 0, 0, 0], 2) == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="hand_size"):
        holding_probabilities([1, 0, 0, 0, 0], 2)


def test_sudden_death_draft_duchess_claim_is_impossible():
    """Ladder rung 1: piles 1-2 are out (2 of each), P0 holds the third Duchess."""
    state = load(influence=1, max_turns=2).new_initial_state()
    deal(state, "Duchess")
    deal(state, "Captain")
    view = card_view(state, 0)
    assert list(view.known_out) == [2] * NUM_CLANS
    assert list(view.known_court) == [0] * NUM_CLANS  # P1's hidden deal may be any of them
    assert list(view.unseen) == [0, 1, 1, 1, 1]
    assert view.impossible_claims() == frozenset({Clan.COLLECTOR})
    # P1 holds one card out of the 4 unseen ones, one of each remaining clan.
    assert view.holding_probabilities(1) == pytest.approx([0, 0.25, 0.25, 0.25, 0.25])
    # P1's own view: Captain is theirs, so no one else can hold a Captain.
    assert card_view(state, 1).impossible_claims() == frozenset({Clan.THIEF})


def test_draft_pick_makes_own_pile_known():
    """After the picks P0 knows the 4 unpicked cards of their own pile."""
    state = load().new_initial_state()
    deal(state, "Ambassador")
    deal(state, "Captain")
    play(state, "Pick Duchess")
    play(state, "Pick Assassin")
    view = card_view(state, 0)
    assert list(view.hand) == [1, 0, 0, 0, 1]
    assert list(view.known_out) == [0, 1, 1, 1, 1]
    assert list(view.unseen) == [2, 2, 2, 2, 1]  # P1's 2 + Court 3 + P1's pile 4 = 9
    m = 9
    assert view.claim_probability(1, Clan.NEGOTIATOR) == pytest.approx(
        1 - comb(m - 1, 2) / comb(m, 2)
    )
    assert view.claim_probability(1, Clan.COLLECTOR) == pytest.approx(
        1 - comb(m - 2, 2) / comb(m, 2)
    )
    assert view.impossible_claims() == frozenset()


def test_true_challenge_and_own_exchange_fill_the_known_court():
    """A card shown on a true claim and the cards P0 returns are known to be in the Court."""
    state = load().new_initial_state()
    deal(state, "Ambassador")
    deal(state, "Duchess")
    play(state, "Pick Ambassador")
    play(state, "Pick Countess")
    play(state, "Income")  # P0
    play(state, "Tax")  # P1 claims the Duchess
    play(state, "Challenge")  # P0 challenges; P1 shows the Duchess
    assert list(card_view(state, 0).known_court)[Clan.COLLECTOR] == 1
    deal(state, "Captain")  # P1's hidden replacement may be that Duchess
    assert list(card_view(state, 0).known_court)[Clan.COLLECTOR] == 0
    play(state, "Reveal Ambassador")  # P0 lost the challenge
    # P1's Tax resolves; P0's turn: Exchange (true: P0 holds the other Ambassador)
    play(state, "Exchange")
    play(state, "Pass")
    deal(state, "Draw Duchess+Assassin")
    play(state, "Keep Duchess")
    view = card_view(state, 0)
    assert list(view.hand) == [1, 0, 0, 0, 0]
    # P0 put back Assassin and Ambassador; the Court's third card is unknown.
    assert list(view.known_court) == [0, 1, 0, 0, 1]
    assert view.court_size == 3


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"lineup": "inquisitor"},
        {"players": 3, "lineup": "inquisitor"},
        {"players": 4},
        {"influence": 1, "max_turns": 6},
        {"variant": "deal", "lineup": "inquisitor"},
        {"players": 3, "characters": COMPLOTS2_SETS["catechumene"]},
        {"players": 4, "characters": COMPLOTS2_SETS["expert"]},
        {"players": 3, "characters": COMPLOTS2_SETS["finances"]},
    ],
)
def test_tracker_is_exact_and_sound_on_random_games(params):
    """Own hand, face-up, counts and Court size are exact; Court/out bounds never exceed
    the truth; an 'impossible' claim is never held by anyone else."""
    game = load(**params)
    n = game.num_players()
    rng = np.random.default_rng(11)
    impossible_seen = 0
    for _ in range(25):
        states = random_spiel_game(game, rng)
        trackers = [CardTracker(game.config, p) for p in range(n)]
        for state in states:
            s = state.s
            hidden = s[S_HIDDEN : S_HIDDEN + n * NUM_CLANS].reshape(n, NUM_CLANS)
            for p in range(n):
                trackers[p].update(state.view_tokens(p))
                view = trackers[p].view()
                assert (view.hand == hidden[p]).all()
                assert (
                    view.face_up == s[S_REVEALED : S_REVEALED + n * NUM_CLANS].reshape(n, -1)
                ).all()
                assert (view.face_down == hidden.sum(axis=1)).all()
                assert view.court_size == s[S_COURT : S_COURT + NUM_CLANS].sum()
                assert (view.known_court <= s[S_COURT : S_COURT + NUM_CLANS]).all()
                assert (view.known_out <= s[S_OUT : S_OUT + NUM_CLANS]).all()
                assert (view.unseen >= 0).all()
                for clan in view.impossible_claims():
                    impossible_seen += 1
                    assert all(hidden[q, clan] == 0 for q in range(n) if q != p)
    assert impossible_seen > 0  # the check was exercised


def test_bot_tracker_read_move_by_move_matches_a_full_replay():
    """A heuristic bot reads only the moves since its last decision; what it then knows
    equals a tracker replayed from the whole history, at every decision of random games."""
    from complots_solver.play.bots import make_bot

    game = load(players=4, lineup="inquisitor")
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(6):
        bot = make_bot("counter", game.config, np.random.default_rng(0))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                a = chance_action(state, rng)
            else:
                p = state.current_player()
                got = bot.situation(state).cards
                want = card_view(state, p)
                for name in ("hand", "face_up", "face_down", "known_court", "known_out"):
                    assert (getattr(got, name) == getattr(want, name)).all(), name
                assert got.court_size == want.court_size
                assert state.view_tokens(p, 3) == state.view_tokens(p)[3:]
                compared += 1
                legal = state.legal_actions()
                a = legal[rng.integers(len(legal))]
            state.apply_action(a)
    assert compared > 100
