"""The seat's memory of its last observations (issue 50): what it holds, where it is read, and
that every path that plays or trains a table network reads the same memory."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.enums import TokenKind
from complots_solver.rules.layout import (
    A_INCOME,
    A_TARGETED,
    C_EXTENDED,
    HIDDEN_VALUE,
    S_CUR,
    STAGE_SLOTS,
    VALUE_SLOTS,
    WHO_SLOTS,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.table_features import (
    MAX_MEMORY,
    NO_TOKEN,
    T_KIND,
    T_PRESENT,
    T_STAGE,
    T_WHO,
    TableMemory,
    config_features,
    memory_of,
    relative_action,
    token_size,
    token_values,
)
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings, Table
from complots_solver.solvers.rows.table import TableStrategy
from complots_solver.solvers.selfplay.exact import table_tree_strategy
from complots_solver.solvers.selfplay.player import TablePlayer
from complots_solver.solvers.selfplay.responder import train_responder
from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer

TERMINAL = -4
CHANCE = -1


def _options(s, cfg):
    if int(s[S_CUR]) == CHANCE:
        outs = np.empty(256, dtype=np.int32)
        probs = np.empty(256)
        k = core.chance_outcomes_into(s, cfg, outs, probs)
        return [int(outs[i]) for i in range(k) if probs[i] > 0]
    moves = np.empty(512, dtype=np.int32)
    return moves[: core.legal_actions_into(s, cfg, moves)].tolist()


def _fields(tok):
    value = tok % VALUE_SLOTS
    rest = tok // VALUE_SLOTS
    who = rest % WHO_SLOTS
    rest //= WHO_SLOTS
    return rest // STAGE_SLOTS, rest % STAGE_SLOTS, who, value


def _random_history(preset, seed, limit=300):
    config = resolve_game(preset)[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    rng = np.random.default_rng(seed)
    s = core.initial_state(cfg)
    history = []
    while int(s[S_CUR]) != TERMINAL and len(history) < limit:
        opts = _options(s, cfg)
        a = opts[int(rng.integers(len(opts)))]
        history.append(a)
        core.apply_action(s, cfg, a)
    return config, cfg, history


@pytest.mark.parametrize("preset", ["draft-inquisitor", "complots-inquisitor", "complots2-expert"])
def test_each_seat_remembers_its_own_view_of_the_last_moves_relative_to_its_chair(preset):
    """The ring holds, per seat, the rules core's observation token of each of the last moves,
    the mover's chair counted from the seat and a decision's action made seat-relative; a move
    the seat does not see (another seat's draw) keeps its value hidden."""
    config, cfg, history = _random_history(preset, seed=5)
    n = config.players
    ext = bool(cfg[C_EXTENDED])
    mem = TableMemory(cfg)
    s = core.initial_state(cfg)
    seen: list[list[int]] = [[] for _ in range(n)]
    hidden = 0
    for a in history:
        for v in range(n):
            kind, stage, who, value = _fields(int(core.observation_token(s, a, v)))
            if value != HIDDEN_VALUE and int(s[S_CUR]) >= 0:
                value = int(relative_action(value, v, n, ext))
            else:
                hidden += value == HIDDEN_VALUE
            rel = (who - v) % n
            seen[v].append(((kind * STAGE_SLOTS + stage) * WHO_SLOTS + rel) * VALUE_SLOTS + value)
        before = s.copy()
        core.apply_action(s, cfg, a)
        mem.observe(before, a, s)
        for v in range(n):
            want = ([NO_TOKEN] * MAX_MEMORY + seen[v])[-MAX_MEMORY:]
            assert mem.ring[v].tolist() == want
    assert hidden > 0  # the game had moves some seat could not see
    slots = token_values(n, ext)
    for v in range(n):
        for tok in mem.ring[v]:
            value = int(tok) % VALUE_SLOTS
            assert value == HIDDEN_VALUE or value < slots - 1  # each value has its own slot


def test_memory_features_encode_the_newest_move_last():
    """Seat 1 takes Income in the 2-player deal game: in seat 0's memory the newest block says a
    public move by the seat one chair on, Income; in seat 1's, its own chair."""
    config = resolve_game("complots-ambassador-3")[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    mem = TableMemory(cfg)
    s = core.initial_state(cfg)
    while int(s[S_CUR]) == CHANCE:
        a = _options(s, cfg)[0]
        before = s.copy()
        core.apply_action(s, cfg, a)
        mem.observe(before, a, s)
    actor = int(s[S_CUR])
    assert A_INCOME in _options(s, cfg)
    before = s.copy()
    core.apply_action(s, cfg, A_INCOME)
    mem.observe(before, A_INCOME, s)
    memory = 2
    width = config_features(cfg, memory)
    moves = np.empty(512, dtype=np.int32)
    legal = np.empty(config.num_distinct_actions(), dtype=np.float32)
    for viewer in range(3):
        x = np.empty(width, dtype=np.float32)
        mem.row(s, viewer, memory, x, legal, moves)
        size = token_size(3, False)
        assert width == config_features(cfg) + 2 * size
        newest = x[width - size :]
        assert newest[T_PRESENT] == 1 and newest.sum() == 5  # present, kind, stage, who, value
        assert newest[T_KIND + TokenKind.PUBLIC] == 1
        assert newest[T_WHO + (actor - viewer) % 3] == 1
        assert newest[T_WHO + 3 + A_INCOME] == 1
        assert newest[T_STAGE:T_WHO].sum() == 1
        older = x[width - 2 * size : width - size]
        assert older[T_PRESENT] == 1  # the last card dealt
        np.testing.assert_array_equal(x[: config_features(cfg)], _without_memory(mem, s, viewer))


def _without_memory(mem, s, viewer):
    x = np.empty(config_features(mem.cfg), dtype=np.float32)
    legal = np.empty(512, dtype=np.float32)
    moves = np.empty(512, dtype=np.int32)
    n = resolve_game("complots-ambassador-3")[0].num_distinct_actions()
    mem.row(s, viewer, 0, x, legal[:n], moves)
    return x


def test_a_targeted_move_is_remembered_seat_relative():
    """Whoever acts, 'this action on the seat on my left' is one value in the mover's memory."""
    from complots_solver.rules.core import c2_base

    config = resolve_game("complots-ambassador")[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    n = config.players
    base = c2_base(n)
    remembered: dict[int, set[int]] = {}
    movers: set[int] = set()
    for seed in range(30):
        rng = np.random.default_rng(seed)
        mem = TableMemory(cfg)
        s = core.initial_state(cfg)
        while int(s[S_CUR]) != TERMINAL:
            opts = _options(s, cfg)
            me = int(s[S_CUR])
            left = [
                a for a in opts if A_TARGETED <= a < base and (a - A_TARGETED) % n == (me + 1) % n
            ]
            a = left[0] if left and rng.random() < 0.5 else opts[int(rng.integers(len(opts)))]
            before = s.copy()
            core.apply_action(s, cfg, a)
            mem.observe(before, a, s)
            if me >= 0 and A_TARGETED <= a < base and (a - A_TARGETED) % n == (me + 1) % n:
                block = (a - A_TARGETED) // n
                remembered.setdefault(block, set()).add(int(mem.ring[me, -1] % VALUE_SLOTS))
                movers.add(me)
    assert len(movers) == n and remembered
    for values in remembered.values():
        assert len(values) == 1


def test_memory_of_reads_the_width_and_refuses_a_foreign_one():
    cfg = resolve_game("draft-ambassador")[0].to_array()
    for m in (0, 1, 8, MAX_MEMORY):
        assert memory_of(config_features(cfg, m), cfg) == m
    with pytest.raises(ValueError, match="this game's seats read"):
        memory_of(config_features(cfg, 2) + 1, cfg)
    with pytest.raises(ValueError, match="this game's seats read"):
        memory_of(config_features(cfg, MAX_MEMORY + 1), cfg)
    with pytest.raises(ValueError, match="memory"):
        SelfPlaySettings(memory=MAX_MEMORY + 1).validate()
    with pytest.raises(ValueError, match="memory"):
        RegretSettings(memory=-1).validate()


@pytest.mark.parametrize("game", ["ladder-1-inquisitor", "ladder-2-ambassador"])
def test_the_exact_tree_strategy_of_a_memory_network_is_what_the_bot_plays(game):
    """With 8 remembered moves, at 150 information sets the exact path's strategy equals the
    playing bot's answer after the history (both keep the memory, each its own way)."""
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree

    config = resolve_game(game)[0]
    tree = compile_complots_tree(config)
    cfg = config.to_array()
    net = TableNet.create(config_features(cfg, 8), config.num_distinct_actions(), (32,), seed=2)
    strategy = table_tree_strategy(config, net, tree)
    keys = tree.keys
    rng = np.random.default_rng(1)
    infosets = tree.action_offsets.shape[0] - 1
    for i in rng.choice(infosets, size=150, replace=False).tolist():
        player = TablePlayer(cfg, net)
        player.observe(keys.history(i))
        got = player.probabilities()
        a0, a1 = int(tree.action_offsets[i]), int(tree.action_offsets[i + 1])
        want = dict(zip(tree.legal_actions[a0:a1].tolist(), strategy[a0:a1].tolist(), strict=True))
        assert got == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize(
    ("preset", "inputs"),
    [("draft-inquisitor", {"memory": 8}), ("draft-ambassador", {"odds": True})],
)
def test_the_regret_samplers_rows_remember_as_the_playing_bot_does(preset, inputs):
    """Rows stepped by the sampler carry the same ring as a TableMemory replaying their moves,
    and their features, with memory or with the card-count odds, are the bot's (the extra
    inputs filled in, the networks wider by them)."""
    config = resolve_game(preset)[0]
    settings = RegretSettings(games=6, steps=2, average_steps=2, width=16, **inputs)
    memory = settings.memory
    run = RegretSampler(config, settings, seed=3)
    assert run.net.num_features == config_features(run.cfg, memory, settings.odds)
    assert run.average.net.num_features == run.net.num_features
    base = config_features(run.cfg)
    traversal = run.traversal()
    rng = np.random.default_rng(4)
    t = Table.initial(run.cfg, 6, memory)
    mems = [TableMemory(run.cfg) for _ in range(6)]
    moves = np.empty(512, dtype=np.int32)
    checked = 0
    for _ in range(60):
        cur = t.states[:, S_CUR]
        if not (cur != TERMINAL).any():
            break
        deciding = np.flatnonzero(cur >= 0)
        feats, legal, rel = traversal._decide(t, deciding)
        for j, i in enumerate(deciding.tolist()):
            x = np.empty(run.net.num_features, dtype=np.float32)
            lg = np.empty(run.num_actions, dtype=np.float32)
            mems[i].row(t.states[i], int(cur[i]), memory, x, lg, moves)
            np.testing.assert_array_equal(feats[j], x)
            assert x[base:].any()
            checked += 1
        before = t.states.copy()
        traversal._move(t, traversal._absolute(t.states[deciding], rel), deciding, rng)
        for i in range(6):
            if not np.array_equal(before[i], t.states[i]):
                # the move a row took: the one whose result is the row's new state
                a = _taken(before[i], t.states[i], run.cfg)
                mems[i].observe(before[i], a, t.states[i])
                if memory:
                    np.testing.assert_array_equal(mems[i].ring, t.rings[i])
    assert checked > 50


def test_both_families_pack_the_memory_in_the_average_reservoir():
    """With memory the average network's reservoir keeps the features as float32 and the
    remembered moves as bits (an eighth of their bytes); without memory nothing is packed."""
    config = resolve_game("draft-inquisitor")[0]
    cfg = config.to_array()
    base, full = config_features(cfg), config_features(cfg, 8)
    regret = RegretSampler(config, RegretSettings(games=2, width=8, memory=8, average=64))
    assert regret.average.dense == base and regret.average.xbits.shape == (
        64,
        -(-(full - base) // 8),
    )
    plain = RegretSampler(config, RegretSettings(games=2, width=8, average=64))
    assert plain.average.dense == base and plain.average.xbits.shape == (64, 0)
    table = resolve_game("complots-inquisitor-3")[0]
    settings = SelfPlaySettings(games=4, parallel=4, width=8, bot_share=0.0, average=64, memory=4)
    trainer = SelfPlayTrainer(table, settings, seed=1)
    assert trainer.average.dense == config_features(table.to_array())


def _taken(before, after, cfg):
    for a in _options(before, cfg):
        s = before.copy()
        core.apply_action(s, cfg, a)
        if np.array_equal(s, after):
            return a
    raise AssertionError("no move leads there")


def test_lbr_refuses_a_memory_network_and_the_responder_copies_it():
    """LBR's worlds would each need their own memory: refused with a message naming the method
    that measures it; the trained responder starts from a copy, memory included."""
    config = resolve_game("draft-ambassador")[0]
    cfg = config.to_array()
    net = TableNet.create(config_features(cfg, 4), config.num_distinct_actions(), (16,), seed=0)
    with pytest.raises(ValueError, match="--method responder"):
        TableStrategy(cfg, net, config.num_distinct_actions())
    settings = SelfPlaySettings(
        self_share=0.0, bot_share=0.0, snapshots=0, width=16, jobs=1, games=8, parallel=8,
        minibatch=64, memory=4,
    )  # fmt: skip
    responder, iterations, games, _ = train_responder(
        config, net, iterations=1, seed=0, settings=settings
    )
    assert iterations == 1 and games == 8
    assert responder.num_features == config_features(cfg, 4)
