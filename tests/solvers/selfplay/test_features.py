"""The table network's inputs: seat-relative actions, the public record, and play/train agreement."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.enums import Clan, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_EXCHANGE,
    A_PASS,
    A_TARGETED,
    A_TAX,
    C_EXTENDED,
    S_CUR,
    S_HIDDEN,
    S_STAGE,
    T_STEAL,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.table_features import (
    DRAFT_DEALT,
    DRAFT_PICKED,
    DRAFT_SIZE,
    GLOBAL_SIZE,
    P_COINS,
    P_RECORD,
    R_BLUFFS,
    R_CHALLENGES,
    R_CLAIM_ALL,
    R_CLAIM_RECENT,
    R_TRUTHS,
    SEAT_SIZE,
    TableMemory,
    absolute_action,
    config_features,
    decision_row,
    num_features,
    relative_action,
)
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.player import TablePlayer

NUM_CLANS = 5


def _legal(s, cfg):
    out = np.empty(512, dtype=np.int32)
    return out[: core.legal_actions_into(s, cfg, out)].tolist()


def _chance(s, cfg, rng):
    outs = np.empty(256, dtype=np.int32)
    probs = np.empty(256)
    k = core.chance_outcomes_into(s, cfg, outs, probs)
    return int(outs[rng.choice(k, p=probs[:k] / probs[:k].sum())])


class _Game:
    """A game driven move by move with the record kept alongside."""

    def __init__(self, preset: str, seed: int = 0) -> None:
        config, _ = resolve_game(preset)
        self.config = config
        self.cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
        self.s = core.initial_state(self.cfg)
        self.mem = TableMemory(self.cfg)
        self.rng = np.random.default_rng(seed)
        self.history: list[int] = []

    def apply(self, a: int) -> None:
        before = self.s.copy()
        core.apply_action(self.s, self.cfg, a)
        self.mem.observe(before, a, self.s)
        self.history.append(a)

    def settle(self) -> None:
        """Chance moves until a seat is to move."""
        while int(self.s[S_CUR]) == -1:
            self.apply(_chance(self.s, self.cfg, self.rng))


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("extended", [False, True])
def test_relative_actions_rotate_targets_and_round_trip(players, extended):
    """A targeted action on the seat k places after the actor has one id whoever acts."""
    from complots_solver.rules.layout import num_distinct_actions

    n_actions = num_distinct_actions(players, extended)
    for me in range(players):
        seen = set()
        for a in range(n_actions):
            r = int(relative_action(a, me, players, extended))
            assert 0 <= r < n_actions
            assert int(absolute_action(r, me, players, extended)) == a
            seen.add(r)
        assert len(seen) == n_actions  # a permutation
        for k in range(players):
            steal = A_TARGETED + T_STEAL * players + (me + k) % players
            assert int(relative_action(steal, me, players, extended)) == (
                A_TARGETED + T_STEAL * players + k
            )
    assert int(relative_action(A_TAX, 2, players, extended)) == A_TAX


def test_record_counts_a_challenged_claim_and_forgets_it():
    """Tax claims the Collector; a challenge proves it true or false, and the recent claim goes."""
    g = _Game("complots-ambassador-3", seed=3)
    g.settle()
    actor = int(g.s[S_CUR])
    held = int(g.s[S_HIDDEN + actor * NUM_CLANS + Clan.COLLECTOR])
    g.apply(A_TAX)
    rec = g.mem.record
    assert rec[actor, R_CLAIM_RECENT + Clan.COLLECTOR] == 1
    assert rec[actor, R_CLAIM_ALL + Clan.COLLECTOR] == 1
    assert int(g.s[S_STAGE]) == Stage.CHALLENGE
    challenger = int(g.s[S_CUR])
    g.apply(A_CHALLENGE)
    assert rec[challenger, R_CHALLENGES] == 1
    assert rec[actor, R_TRUTHS] == (1 if held else 0)
    assert rec[actor, R_BLUFFS] == (0 if held else 1)
    assert rec[actor, R_CLAIM_RECENT + Clan.COLLECTOR] == 0
    assert rec[actor, R_CLAIM_ALL + Clan.COLLECTOR] == 1


def test_exchange_refreshes_the_recent_record():
    """After an Ambassador exchange the seat's recent claims no longer describe its hand."""
    g = _Game("complots-ambassador-3", seed=5)
    g.settle()
    actor = int(g.s[S_CUR])
    g.apply(A_EXCHANGE)
    assert g.mem.record[actor, R_CLAIM_RECENT + Clan.NEGOTIATOR] == 1
    while int(g.s[S_STAGE]) == Stage.CHALLENGE:
        g.apply(A_PASS)
    g.settle()
    assert int(g.s[S_STAGE]) == Stage.EXCHANGE_KEEP
    g.apply(_legal(g.s, g.cfg)[0])
    assert g.mem.record[actor, R_CLAIM_RECENT + Clan.NEGOTIATOR] == 0
    assert g.mem.record[actor, R_CLAIM_ALL + Clan.NEGOTIATOR] == 1


def test_features_are_seen_from_the_chair():
    """Block 0 is the viewer, block 1 the next seat clockwise; the record lands there."""
    g = _Game("complots-inquisitor", seed=1)
    g.settle()
    actor = int(g.s[S_CUR])
    g.apply(A_TAX)
    me = int(g.s[S_CUR])  # the first responder, the seat after the actor
    assert me == (actor + 1) % 4
    cfg = g.cfg
    x = np.empty(num_features(4), dtype=np.float32)
    legal = np.empty(g.config.num_distinct_actions(), dtype=np.float32)
    moves = np.empty(512, dtype=np.int32)
    m = g.mem
    decision_row(
        g.s, cfg, me, m.record, m.seen, m.know, m.draft, x, legal, moves, bool(cfg[C_EXTENDED])
    )
    actor_block = GLOBAL_SIZE + ((actor - me) % 4) * SEAT_SIZE
    assert actor_block == GLOBAL_SIZE + 3 * SEAT_SIZE  # the actor sits last from its left
    assert x[actor_block + P_RECORD + R_CLAIM_RECENT + Clan.COLLECTOR] > 0
    assert x[GLOBAL_SIZE + P_RECORD + R_CLAIM_RECENT + Clan.COLLECTOR] == 0
    assert x[actor_block + P_COINS] == pytest.approx(g.s[21 + actor] / 12.0)
    assert legal.sum() == len(_legal(g.s, cfg))


@pytest.mark.parametrize(
    "preset",
    ["complots-ambassador-3", "complots-inquisitor", "complots2-catechumene", "draft-inquisitor"],
)
def test_player_replaying_the_history_sees_what_training_saw(preset):
    """The playing bot's replayed record and probabilities equal those computed move by move."""
    g = _Game(preset, seed=7)
    net = TableNet.create(config_features(g.cfg), g.config.num_distinct_actions(), (32,))
    player = TablePlayer(g.cfg, net)
    moves = np.empty(512, dtype=np.int32)
    ext = bool(g.cfg[C_EXTENDED])
    decisions = 0
    while int(g.s[S_CUR]) != -4 and decisions < 120:
        g.settle()
        if int(g.s[S_CUR]) == -4:
            break
        me = int(g.s[S_CUR])
        x = np.empty((1, net.num_features), dtype=np.float32)
        legal = np.empty((1, net.num_actions), dtype=np.float32)
        m = g.mem
        decision_row(g.s, g.cfg, me, m.record, m.seen, m.know, m.draft, x[0], legal[0], moves, ext)
        probs, _ = net.policy_value(x, legal)
        player.observe(g.history)
        got = player.probabilities()
        np.testing.assert_array_equal(player.memory.record, g.mem.record)
        np.testing.assert_array_equal(player.memory.know, g.mem.know)
        np.testing.assert_array_equal(player.memory.draft, g.mem.draft)
        want = {
            int(absolute_action(r, me, g.config.players, ext)): float(probs[0, r])
            for r in np.flatnonzero(legal[0])
        }
        assert got == pytest.approx(want)
        assert sorted(got) == sorted(_legal(g.s, g.cfg))
        acts = sorted(got)
        g.apply(acts[int(g.rng.integers(len(acts)))])
        decisions += 1
    assert decisions > 10


def _row(g, me):
    x = np.empty(config_features(g.cfg), dtype=np.float32)
    legal = np.empty(g.config.num_distinct_actions(), dtype=np.float32)
    moves = np.empty(512, dtype=np.int32)
    m = g.mem
    decision_row(
        g.s, g.cfg, me, m.record, m.seen, m.know, m.draft, x, legal, moves, bool(g.cfg[C_EXTENDED])
    )
    return x, legal


@pytest.mark.parametrize("seed", range(6))
def test_draft_features_hold_the_dealt_and_picked_clans_of_the_viewer_only(seed):
    """In the 2-player draft a seat reads the clan it was dealt and the clan it picked, never the
    other seat's; outside the draft the block is absent."""
    from complots_solver.rules.layout import A_PICK

    assert config_features(_Game("complots-ambassador-3").cfg) == num_features(3)
    g = _Game("draft-ambassador", seed=seed)
    assert config_features(g.cfg) == num_features(2) + DRAFT_SIZE
    dealt = []
    for _ in range(2):  # one card from the Court's pile to each seat
        before = g.s.copy()
        g.apply(_chance(g.s, g.cfg, g.rng))
        gained = np.flatnonzero((g.s - before)[S_HIDDEN : S_HIDDEN + 2 * NUM_CLANS] > 0)[0]
        dealt.append(int(gained % NUM_CLANS))
    picked = []
    for seat in range(2):
        assert int(g.s[S_STAGE]) == Stage.PICK and int(g.s[S_CUR]) == seat
        x, legal = _row(g, seat)
        block = num_features(2)
        assert x[block + DRAFT_DEALT + dealt[seat]] == 1 and x[block:].sum() == 1
        options = [a - A_PICK for a in _legal(g.s, g.cfg)]
        assert len(options) == NUM_CLANS and legal.sum() == NUM_CLANS
        c = options[int(g.rng.integers(len(options)))]
        picked.append(c)
        g.apply(A_PICK + c)
    np.testing.assert_array_equal(g.mem.draft, np.array([dealt, picked]).T)
    g.settle()
    me = int(g.s[S_CUR])
    x, _ = _row(g, me)
    block = num_features(2)
    assert x[block + DRAFT_DEALT + dealt[me]] == 1
    assert x[block + DRAFT_PICKED + picked[me]] == 1
    assert x[block:].sum() == 2
    # the other seat's draft must not reach this seat's features
    g.mem.draft[1 - me] = [(dealt[1 - me] + 1) % NUM_CLANS, (picked[1 - me] + 2) % NUM_CLANS]
    np.testing.assert_array_equal(_row(g, me)[0], x)
