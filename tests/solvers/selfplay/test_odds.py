"""The card-count odds as network inputs (issue 50): the arithmetic against enumeration, the block
against the card-counting bot's own tracker, the width that says a network reads them, and the
playing bot and the responder reading them (the sampler's rows: test_memory.py, with the memory)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from complots_solver.play.cards import CardTracker, holding_probabilities
from complots_solver.rules import core
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import (
    C_EXTENDED,
    S_ACTOR,
    S_BURIED,
    S_CLAIM,
    S_CLAIMANT,
    S_CLAIMED,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_CUR,
    S_HIDDEN,
    S_REVEALED,
    S_STAGE,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.table_features import (
    MAX_MEMORY,
    NUM_CLANS,
    O_CLAIM,
    O_CLAIM_SIZE,
    O_HOLD,
    O_UNSEEN,
    TableMemory,
    _holds,
    config_features,
    inputs_of,
    memory_of,
    odds_size,
)
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.player import TablePlayer
from complots_solver.solvers.selfplay.responder import train_responder
from complots_solver.solvers.selfplay.train import SelfPlaySettings

TERMINAL = -4
CHANCE = -1
PRESETS = [
    "draft-ambassador",
    "draft-inquisitor",
    "draft-c2-catechumene",
    "draft-c2-expert",
    "complots-inquisitor-3",
    "complots-ambassador-6",
    "complots2-catechumene-3",
    "ladder-3-inquisitor",  # the 1-influence draft: no pick, both own piles out of the game
]


def _enumerated(unseen: list[int], h: int, c: int) -> float:
    """P(an h-subset of the unseen cards, every subset equally likely, holds clan c), by listing."""
    cards = [k for k, u in enumerate(unseen) for _ in range(u)]
    subsets = list(itertools.combinations(range(len(cards)), h))
    return sum(any(cards[i] == c for i in sub) for sub in subsets) / len(subsets)


@pytest.mark.parametrize(
    "unseen",
    [[1, 2, 0, 3, 1], [3, 3, 3, 3, 3], [0, 0, 1, 0, 0], [2, 0, 2, 1, 1], [1, 1, 1, 1, 1]],
)
@pytest.mark.parametrize("h", [1, 2, 3])
def test_the_holding_chance_is_the_count_of_hands_that_hold_the_clan(unseen, h):
    total = sum(unseen)
    if h > total:
        return
    for c in range(NUM_CLANS):
        assert _holds(total, unseen[c], h) == pytest.approx(_enumerated(unseen, h, c), abs=1e-12)


def _options(s: np.ndarray, cfg: np.ndarray) -> tuple[list[int], list[float]]:
    if int(s[S_CUR]) == CHANCE:
        outs = np.empty(256, dtype=np.int32)
        probs = np.empty(256)
        k = core.chance_outcomes_into(s, cfg, outs, probs)
        return outs[:k].tolist(), (probs[:k] / probs[:k].sum()).tolist()
    moves = np.empty(512, dtype=np.int32)
    k = core.legal_actions_into(s, cfg, moves)
    return moves[:k].tolist(), [1.0 / k] * k


@pytest.mark.parametrize("preset", PRESETS)
def test_the_odds_are_the_card_counting_bots_from_its_own_tracker(preset):
    """Random games: at every decision the block equals what play.cards' tracker (which replays
    the seat's observation tokens, written separately) makes of the same seat's information:
    the unseen copies, each other seat's holding chances, and each claim's chance and whether
    it is impossible. The tracker counts a card its owner lost face down (Complots 2's Sorciere)
    as unseen; its owner knows where it is, so the block does not."""
    config = resolve_game(preset)[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    n = config.players
    base = config_features(cfg)
    width = config_features(cfg, 0, True)
    rng = np.random.default_rng(7)
    feats = np.empty(width, dtype=np.float32)
    legal = np.empty(config.num_distinct_actions(), dtype=np.float32)
    moves = np.empty(512, dtype=np.int32)
    tok = np.empty(n + 1, dtype=np.int64)
    checked = claims = 0
    for _ in range(12):
        s = core.initial_state(cfg)
        mem = TableMemory(cfg)
        trackers = [CardTracker(config, q) for q in range(n)]
        while int(s[S_CUR]) != TERMINAL:
            if int(s[S_CUR]) >= 0:
                me = int(s[S_CUR])
                mem.row(s, me, 0, feats, legal, moves)
                odds = feats[base:]
                view = trackers[me].view()
                unseen = view.unseen.copy()
                if cfg[C_EXTENDED]:
                    unseen -= s[S_BURIED + me * NUM_CLANS : S_BURIED + (me + 1) * NUM_CLANS]
                np.testing.assert_allclose(
                    odds[O_UNSEEN : O_UNSEEN + NUM_CLANS] * config.copies, unseen, atol=1e-6
                )
                hold = {}
                for r in range(n):
                    q = (me + r) % n
                    got = odds[O_HOLD + r * NUM_CLANS : O_HOLD + (r + 1) * NUM_CLANS]
                    if q == me:
                        want = (view.hand > 0).astype(float)
                    else:
                        want = holding_probabilities(unseen.tolist(), int(view.face_down[q]))
                    np.testing.assert_allclose(got, want, atol=1e-6)
                    hold[q] = want
                pairs = ((S_ACTOR, S_CLAIM), (S_COUNTERER, S_COUNTER_CLAN), (S_CLAIMANT, S_CLAIMED))
                for j, (who, clan) in enumerate(pairs):
                    claimant, c = int(s[who]), int(s[clan])
                    slot = odds[O_CLAIM + j * O_CLAIM_SIZE : O_CLAIM + (j + 1) * O_CLAIM_SIZE]
                    if claimant < 0 or not 0 <= c < NUM_CLANS:
                        assert slot.tolist() == [0.0, 0.0]
                        continue
                    claims += 1
                    assert slot[0] == pytest.approx(hold[claimant][c], abs=1e-6)
                    assert slot[1] == float(claimant != me and unseen[c] == 0)
                checked += 1
            options, probs = _options(s, cfg)
            a = int(options[rng.choice(len(options), p=probs)])
            core.observation_tokens_into(s, cfg, a, tok)
            for q in range(n):
                trackers[q].extend([int(tok[q])])
            before = s.copy()
            core.apply_action(s, cfg, a)
            mem.observe(before, a, s)
    assert checked > 50 and claims > 10


def test_a_claim_of_a_clan_whose_copies_are_all_accounted_for_is_impossible():
    """At a challenge, the challenger holding two of the claimed clan with the third face up:
    the claim's chance is 0 and its flag 1; with one held and none face up, a chance and no
    flag."""
    config = resolve_game("draft-ambassador")[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    rng = np.random.default_rng(0)
    base = config_features(cfg)
    feats = np.empty(config_features(cfg, 0, True), dtype=np.float32)
    legal = np.empty(config.num_distinct_actions(), dtype=np.float32)
    moves = np.empty(512, dtype=np.int32)
    for _ in range(200):
        s = core.initial_state(cfg)
        mem = TableMemory(cfg)
        while int(s[S_CUR]) != TERMINAL and not (int(s[S_STAGE]) == Stage.CHALLENGE):
            options, probs = _options(s, cfg)
            a = int(options[rng.choice(len(options), p=probs)])
            before = s.copy()
            core.apply_action(s, cfg, a)
            mem.observe(before, a, s)
        if int(s[S_CUR]) != TERMINAL:
            break
    me, claimant, c = int(s[S_CUR]), int(s[S_ACTOR]), int(s[S_CLAIM])
    mine = S_HIDDEN + me * NUM_CLANS
    s[mine : mine + NUM_CLANS] = 0
    s[mine + c] = 2
    s[S_REVEALED + me * NUM_CLANS + c] = 1
    mem.know[me, :] = 0
    mem.row(s, me, 0, feats, legal, moves)
    assert feats[base + O_CLAIM : base + O_CLAIM + O_CLAIM_SIZE].tolist() == [0.0, 1.0]
    assert feats[base + O_UNSEEN + c] == 0.0
    r = (claimant - me) % 2
    assert feats[base + O_HOLD + r * NUM_CLANS + c] == 0.0
    s[mine + c] = 1
    s[S_REVEALED + me * NUM_CLANS + c] = 0
    mem.row(s, me, 0, feats, legal, moves)
    assert feats[base + O_CLAIM] > 0.0 and feats[base + O_CLAIM + 1] == 0.0


def test_the_width_says_which_inputs_a_network_reads():
    for preset in ("draft-ambassador", "complots-inquisitor-6", "complots2-expert"):
        cfg = resolve_game(preset)[0].to_array()
        for m in (0, 1, 8, MAX_MEMORY):
            assert inputs_of(config_features(cfg, m), cfg) == (m, False)
            assert inputs_of(config_features(cfg, m, True), cfg) == (m, True)
            assert memory_of(config_features(cfg, m, True), cfg) == m
        with pytest.raises(ValueError, match="card-count odds"):
            inputs_of(config_features(cfg, 0, True) + 1, cfg)
        n = int(cfg[0])
        assert config_features(cfg, 0, True) - config_features(cfg) == odds_size(n)


def test_a_network_without_the_odds_reads_exactly_what_it_read_before():
    """The block is written only into a row wide enough for it: the features of a narrower
    network are the first part of an odds network's, unchanged."""
    config = resolve_game("draft-inquisitor")[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    rng = np.random.default_rng(3)
    s = core.initial_state(cfg)
    mem = TableMemory(cfg)
    moves = np.empty(512, dtype=np.int32)
    legal = np.empty(config.num_distinct_actions(), dtype=np.float32)
    plain = np.empty(config_features(cfg), dtype=np.float32)
    wide = np.empty(config_features(cfg, 0, True), dtype=np.float32)
    seen = 0
    while int(s[S_CUR]) != TERMINAL:
        if int(s[S_CUR]) >= 0:
            me = int(s[S_CUR])
            mem.row(s, me, 0, plain, legal, moves)
            mem.row(s, me, 0, wide, legal, moves)
            np.testing.assert_array_equal(plain, wide[: len(plain)])
            assert wide[len(plain) :].any()
            seen += 1
        options, probs = _options(s, cfg)
        a = int(options[rng.choice(len(options), p=probs)])
        before = s.copy()
        core.apply_action(s, cfg, a)
        mem.observe(before, a, s)
    assert seen > 5


def test_the_playing_bot_feeds_an_odds_network_its_odds():
    """TablePlayer's answer is the network's policy on the features with the block filled in:
    zeroing the block changes the answer somewhere along a game."""
    config = resolve_game("draft-inquisitor")[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    net = TableNet.create(config_features(cfg, 0, True), config.num_distinct_actions(), (32,), 5)
    rng = np.random.default_rng(9)
    s = core.initial_state(cfg)
    mem = TableMemory(cfg)
    history: list[int] = []
    moves = np.empty(512, dtype=np.int32)
    base = config_features(cfg)
    differs = 0
    while int(s[S_CUR]) != TERMINAL and len(history) < 80:
        if int(s[S_CUR]) >= 0:
            player = TablePlayer(cfg, net)
            player.observe(history)
            got = player.probabilities()
            x = np.empty((1, net.num_features), dtype=np.float32)
            lg = np.empty((1, config.num_distinct_actions()), dtype=np.float32)
            mem.row(s, int(s[S_CUR]), 0, x[0], lg[0], moves)
            probs, _ = net.policy_value(x, lg)
            blank = x.copy()
            blank[0, base:] = 0.0
            other, _ = net.policy_value(blank, lg)
            assert sum(got.values()) == pytest.approx(1.0)
            assert sorted(got.values()) == pytest.approx(sorted(p for p in probs[0] if p > 0))
            differs += not np.allclose(probs, other)
        options, probs_ = _options(s, cfg)
        a = int(options[rng.choice(len(options), p=probs_)])
        history.append(a)
        before = s.copy()
        core.apply_action(s, cfg, a)
        mem.observe(before, a, s)
    assert differs > 0


def test_the_responder_of_an_odds_network_reads_the_odds_and_starts_from_its_copy():
    config = resolve_game("draft-ambassador")[0]
    cfg = config.to_array()
    net = TableNet.create(config_features(cfg, 0, True), config.num_distinct_actions(), (16, 16), 0)
    responder, iterations, _, _ = train_responder(config, net, iterations=0, seed=0)
    assert iterations == 0
    assert responder.num_features == config_features(cfg, 0, True)
    for a, b in zip(responder.net.weights, net.net.weights, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_settings_take_odds_as_a_true_or_false_word():
    assert SelfPlaySettings.from_options({"odds": "true"}).odds is True
    assert SelfPlaySettings.from_options({"odds": "False"}).odds is False
    with pytest.raises(ValueError):
        SelfPlaySettings.from_options({"odds": "maybe"})
