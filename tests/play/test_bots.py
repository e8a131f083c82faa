"""Bots: legal distributions, honesty, bluffing, card counting, seeding, OpenSpiel use."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from complots_solver.play.bots import (
    BlufferBot,
    CounterBot,
    HonestBot,
    SpielBot,
    make_bot,
    parse_bot_spec,
)
from complots_solver.play.tournament import run_tournament
from complots_solver.rules.enums import NUM_CLANS, Clan, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_EXCHANGE,
    A_PASS,
    A_TARGETED,
    A_TAX,
    S_ACTOR,
    S_CLAIM,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_HIDDEN,
    S_STAGE,
    T_ASSASSINATE,
    T_EXAMINE,
    T_STEAL,
)
from complots_solver.rules.presets import resolve_game
from tests.helpers import COMPLOTS2_SETS, deal, load, play, random_spiel_game

HEURISTICS = ("random", "honest", "bluffer", "counter", "skeptic", "brazen", "trusting")


def decision_states(game: pyspiel.Game, games: int, seed: int) -> list[pyspiel.State]:
    """Every decision state of some random games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        out += [
            s
            for s in random_spiel_game(game, rng)
            if not s.is_terminal() and not s.is_chance_node()
        ]
    return out


def claimed_clan(config, action: int) -> int:
    """Clan an action claims (an announcement or a counter), -1 for none."""
    if A_COUNTER <= action < A_COUNTER + NUM_CLANS:
        return action - A_COUNTER
    if action in (A_TAX,):
        return Clan.COLLECTOR
    if action == A_EXCHANGE:
        return Clan.NEGOTIATOR
    if action >= A_TARGETED:
        block = (action - A_TARGETED) // config.players
        return {T_ASSASSINATE: Clan.ASSASSIN, T_STEAL: Clan.THIEF, T_EXAMINE: Clan.NEGOTIATOR}.get(
            block, -1
        )
    return -1


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"lineup": "inquisitor"},
        {"players": 3, "lineup": "inquisitor"},
        {"influence": 1},
        *({"players": 3, "characters": chars} for chars in COMPLOTS2_SETS.values()),
    ],
)
def test_every_bot_gives_a_distribution_over_legal_actions(params):
    """Probabilities are positive, sum to 1 and cover only legal actions; step picks one."""
    game = load(**params)
    bots = [make_bot(spec, game.config, np.random.default_rng(0)) for spec in HEURISTICS]
    for state in decision_states(game, 15, 1):
        legal = set(state.legal_actions())
        for bot in bots:
            probs = bot.action_probabilities(state)
            assert set(probs) <= legal and probs
            assert sum(probs.values()) == pytest.approx(1.0)
            assert min(probs.values()) > 0
            assert bot.step(state) in probs


@pytest.mark.parametrize("lineup", ["ambassador", "inquisitor"])
def test_honest_bot_never_claims_what_it_does_not_hold(lineup):
    """Over many random states, no action with positive probability claims an unheld card,
    and a challenge by the honest bot is always against a bluff."""
    game = load(lineup=lineup)
    config = game.config
    bot = HonestBot(config, np.random.default_rng(0), "honest")
    claims = challenges = 0
    for state in decision_states(game, 120, 2):
        p = state.current_player()
        hand = state.s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS]
        for action, prob in bot.action_probabilities(state).items():
            clan = claimed_clan(config, action)
            stage = int(state.s[S_STAGE])
            if clan >= 0 and stage in (Stage.ACTION, Stage.COUNTER):
                claims += 1
                assert hand[clan] > 0, (
                    f"honest claims {state.action_to_string(p, action)} holding {hand}"
                )
            if action == A_CHALLENGE:
                challenges += 1
                on_action = stage == Stage.CHALLENGE
                claimant = int(state.s[S_ACTOR] if on_action else state.s[S_COUNTERER])
                clan = int(state.s[S_CLAIM] if on_action else state.s[S_COUNTER_CLAN])
                assert prob == 1.0
                assert state.s[S_HIDDEN + claimant * NUM_CLANS + clan] == 0
    assert claims > 100
    assert challenges > 0  # impossible claims do come up in random play


def test_bluffer_claims_without_cards_and_rarely_challenges():
    """The bluffer's Tax/Assassinate/Steal ignore its hand; it challenges at most 5%."""
    game = load()
    bot = BlufferBot(game.config, np.random.default_rng(0), "bluffer")
    bluffs = 0
    for state in decision_states(game, 60, 3):
        probs = bot.action_probabilities(state)
        p = state.current_player()
        hand = state.s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS]
        if A_CHALLENGE in probs:
            assert probs[A_CHALLENGE] <= BlufferBot.CHALLENGE_RATE + 1e-12
        if A_TAX in probs and hand[Clan.COLLECTOR] == 0:
            bluffs += 1
    assert bluffs > 20


def _ladder1_p1_claims_tax():
    """Ladder rung 1: P0 holds a Duchess (the other two are out), P1 announces Tax."""
    state = load(influence=1, max_turns=2).new_initial_state()
    deal(state, "Duchess")
    deal(state, "Captain")
    play(state, "Income")
    play(state, "Tax")
    return state


@pytest.mark.parametrize("cls", [HonestBot, CounterBot])
def test_impossible_claim_is_challenged(cls):
    """Every copy of the Duchess is accounted for by P0's hand and the out piles."""
    state = _ladder1_p1_claims_tax()
    assert state.current_player() == 0
    bot = cls(state.config, np.random.default_rng(0), cls.__name__)
    assert bot.action_probabilities(state) == {A_CHALLENGE: 1.0}


def test_counter_bot_passes_a_plausible_claim():
    """With unseen Duchesses about, a Tax claim at the start is not challenged."""
    state = load().new_initial_state()
    deal(state, "Ambassador")
    deal(state, "Captain")
    play(state, "Pick Countess")
    play(state, "Pick Duchess")
    play(state, "Tax")
    bot = CounterBot(state.config, np.random.default_rng(0), "counter")
    assert state.current_player() == 1
    assert bot.action_probabilities(state) != {A_CHALLENGE: 1.0}


def test_counter_bot_beats_random_on_the_draft_game():
    """Both seatings, 150 games each: the lower 95% bound is well above one half."""
    config, _ = resolve_game("draft-ambassador")
    result = run_tournament(config, ["counter", "random"], 150, seed=5)
    row = result.head_to_head().set_index(["bot", "opponent"]).loc[("counter", "random")]
    assert row.games == 300
    assert row.ci_low > 0.8


def test_same_seed_same_moves():
    """Bots draw randomness only from their generator."""
    game = load(lineup="inquisitor")
    states = decision_states(game, 5, 4)
    for spec in HEURISTICS:
        a = [make_bot(spec, game.config, np.random.default_rng(9)).step(s) for s in states]
        b = [make_bot(spec, game.config, np.random.default_rng(9)).step(s) for s in states]
        assert a == b


def test_spiel_bot_plays_through_openspiel():
    """The wrapper works with pyspiel.evaluate_bots and exposes the policy."""
    game = load()
    bots = [
        SpielBot(make_bot("counter", game.config, np.random.default_rng(1)), 0),
        SpielBot(make_bot("random", game.config, np.random.default_rng(2)), 1),
    ]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    state = decision_states(game, 1, 0)[0]
    policy, action = bots[0].step_with_policy(state)
    assert action in dict(policy) and sum(p for _, p in policy) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("counter", ("counter", None, False)),
        ("policy:runs/x", ("policy", "runs/x", False)),
        ("policy:runs/x:greedy", ("policy", "runs/x", True)),
    ],
)
def test_parse_bot_spec(spec, expected):
    """Specs name a bot family, a strategy directory and the greedy flag."""
    assert parse_bot_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", "clever", "policy", "policy:", "policy::greedy"])
def test_bad_bot_spec(spec):
    """Unknown specs are a ValueError naming the allowed ones."""
    with pytest.raises(ValueError, match="bot must be one of"):
        parse_bot_spec(spec)


def test_bot_refuses_non_decision_node():
    """Asking a heuristic bot to move at a chance node is an error."""
    game = load()
    bot = make_bot("honest", game.config, np.random.default_rng(0))
    with pytest.raises(ValueError, match="non-decision"):
        bot.action_probabilities(game.new_initial_state())


def test_exploiter_bots_do_what_they_exploit():
    """skeptic challenges every claim; brazen bluffs and counters without cards, never
    challenges; trusting claims only what it holds and never challenges."""
    game = load()
    config = game.config
    bots = {
        name: make_bot(name, config, np.random.default_rng(0))
        for name in ("skeptic", "brazen", "trusting")
    }
    seen = {"skeptic_windows": 0, "brazen_bluffs": 0, "brazen_counters": 0}
    for state in decision_states(game, 80, 4):
        stage = int(state.s[S_STAGE])
        p = state.current_player()
        hand = state.s[S_HIDDEN + p * NUM_CLANS : S_HIDDEN + (p + 1) * NUM_CLANS]
        legal = state.legal_actions()
        probs = {name: bot.action_probabilities(state) for name, bot in bots.items()}
        if A_CHALLENGE in legal:
            assert probs["skeptic"] == {A_CHALLENGE: 1.0}
            assert probs["brazen"] == {A_PASS: 1.0}
            assert probs["trusting"] == {A_PASS: 1.0}
            seen["skeptic_windows"] += 1
        if stage == Stage.ACTION:
            for action in probs["brazen"]:
                clan = claimed_clan(config, action)
                if clan >= 0 and hand[clan] == 0:
                    seen["brazen_bluffs"] += 1
            for action in probs["trusting"]:
                clan = claimed_clan(config, action)
                assert clan < 0 or hand[clan] > 0
        if stage == Stage.COUNTER and len(legal) > 1:
            assert A_PASS not in probs["brazen"]
            seen["brazen_counters"] += 1
    assert all(v > 5 for v in seen.values()), seen
