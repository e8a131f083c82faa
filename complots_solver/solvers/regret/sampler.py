"""Sampled regret matching+ on a real game of 2 to 6 players: a regret network learnt from rollouts.

The ladder measured this method exactly (``lab.selfplay.targets.SampledRegretNet``,
docs/lab/2026-full-game-journal.md section 19); here it runs on rows of real games, so it
needs no game tree. Each iteration, for each seat in turn as the *traverser*:

- ``games`` games from the deal, stepped side by side; the traverser plays the current
  strategy mixed with ``explore`` uniform, every other seat the current strategy;
- at each traverser decision every legal action is valued by ``rollouts`` games played on
  from the true state by the current strategy in every seat, ``challenge_rollouts`` at a
  decision to challenge a claim (each rollout keeps its own public record, as the playing
  bot does); an action's value is the traverser's return averaged over its rollouts, and
  its regret that value minus the strategy's mix of the values;
- each decision of the other seats enters the **average network**'s reservoir with its
  features, legal actions, the current strategy there and weight ``t`` (the linear average
  of regret matching+; those seats play on-policy, so their decisions arrive at the rate play
  reaches them).

At 3 or more players this is the same scheme (external sampling at the traverser, outcome
sampling elsewhere, as in multi-player MCCFR): regret matching then carries no equilibrium
guarantee, so its strategies are measured like league self-play's, by a trained responder.

The current strategy is regret matching on the **regret network**'s outputs (uniform where
none is positive; uniform everywhere at the first iteration). After the iteration the
network is fitted by ``steps`` Adam steps to its own prediction clipped at 0, moved by 1/t
towards the sampled regrets (regret matching+ on the mean regret; with ``power`` p the
network holds the clipped sum over t**p instead, the same strategy with exact fits, but the
fitting error then weighs the same at every t), and the average network
by ``average_steps`` steps to its reservoir. The average network is the strategy that
plays: a table network with the same features and actions as league self-play's, so every
command that plays or bounds a table network plays and bounds it.

An **opponent** (``RegretSampler.opponent``, a table network, and ``opponent_share``; not a
setting: an experiment sets them between iterations, ``lab.regret.exploiter``) takes every other
seat's decisions in that share of each traverser's games, the branches' play-outs included, so
the traverser's regrets there are against it; its decisions never enter the average's
reservoir, which keeps the current strategy's. At a share of 0 nothing changes.

With ``jobs`` above 1 the iteration's games are split into that many streams, each seeded by
``(seed, iteration, stream)`` and played by a :class:`Traversal` on a ``WorkerPool`` (forked
processes or Ray actors); their decisions are concatenated in stream order, so the run depends
on the seed and ``jobs``, never on which worker played what. Fitting stays in this process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, S_CUR, S_STAGE
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.knowledge.table_features import (
    MAX_MEMORY,
    TableMemory,
    absolute_action,
    config_features,
)
from complots_solver.solvers.nets.average import AveragePolicy, without_reservoir
from complots_solver.solvers.nets.tablenet import (
    TableNet,
    frozen_arrays,
    frozen_nets,
    optimiser_arrays,
    regret_loss,
    restore_optimiser,
)
from complots_solver.solvers.nets.valuenet import Adam
from complots_solver.solvers.rows.batch import (
    NO_MOVE,
    TERMINAL,
    owners_returns,
    returns_of,
    sample_moves,
)
from complots_solver.solvers.rows.table import (
    absolute_probabilities,
    no_rings,
    step_table_rows,
    table_rows_features,
)

_FIELDS = ("states", "knows", "drafts", "records", "seens", "rings")
# play-outs step only their unfinished rows once fewer than 1 in this many are unfinished
COMPACT_BELOW = 2
OPPONENT_PREFIX = "opponent_"  # the opponent's weights in the state (frozen_arrays)
# the decisions to challenge a claim: an action's, a counter's, a co-claim's (challenge_rollouts)
CHALLENGE_STAGES = np.array(
    [Stage.CHALLENGE, Stage.COUNTER_CHALLENGE, Stage.CLAIM_CHALLENGE], dtype=np.int64
)
# what a setting was in runs and state files saved before it existed (resume, warm start):
# power was 1 (the mean regret) until it became a setting, and its default was 1 until 2026-12-07
BEFORE_SETTING: dict[str, Any] = {"power": 1.0}
LOG_COLUMNS = (
    "iteration",
    "games",
    "samples",
    "decisions",
    "regret_loss",
    "average_loss",
    "mean_abs_regret",
    "seconds",  # the iteration's own (appended: a log from before it reads NaN there)
)


@dataclass(frozen=True)
class RegretSettings:
    """What one run of sampled regret matching+ does (see the module note)."""

    games: int = 500  # per seat and iteration
    rollouts: int = 1  # per legal action at each traverser decision
    explore: float = 0.1
    steps: int = 100
    minibatch: int = 1024
    lr: float = 1e-3
    width: int = 256
    average: int = 2_000_000  # reservoir rows
    average_steps: int = 200
    jobs: int = 1  # game streams an iteration is split into, each with its own seed
    # the regret network holds the clipped running regret sum over t**power: 0 is the sum
    # itself, as CFR+ keeps it, which grows while the fitting error does not (lower on
    # ladder-3-inquisitor: docs/regret.md); 1, the default until 2026-12-07, is the mean regret, which
    # shrinks like 1/sqrt(t) near an equilibrium; regret matching ignores the scale
    power: float = 0.0
    # the seat's last ``memory`` observations, in order, as inputs after the features (0: none;
    # knowledge.table_features, issue 50): what the features' summary of the record loses
    memory: int = 0
    # the card-count odds as inputs after the features (knowledge.table_features, issue 50):
    # the chance that a claim is true if every card whose place the seat does not know were
    # equally likely anywhere, which the features hold only in pieces
    odds: bool = False
    # rollouts per legal action at the traverser's challenge decisions (0: ``rollouts``): a
    # yes/no decision with two branches, where the measured exploit lives (issue 50)
    challenge_rollouts: int = 0
    # common random numbers: the play-outs of one decision's actions (the k-th rollout of
    # each) draw the same uniform for each seat's k-th move and the k-th chance event
    # (``Coupling``), so the noise the actions' values share cancels in their regrets (each
    # value stays an unbiased sample)
    common_random: bool = False
    # the regret network's Adam step at iteration t is lr * t**-lr_decay: the held regrets move
    # by about 1/t an iteration late in a run, while a constant Adam step moves the weights by
    # about lr a step whatever the gradient, a jitter that does not shrink (0: constant)
    lr_decay: float = 0.0

    def validate(self) -> None:
        """Raise ValueError naming the first setting out of range."""
        for name in ("games", "rollouts", "steps", "minibatch", "width", "average", "jobs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: at least 1, got {getattr(self, name)}")
        if self.jobs > self.games:
            raise ValueError(f"jobs: at most games ({self.games}), got {self.jobs}")
        if self.average_steps < 0:
            raise ValueError(f"average_steps: at least 0, got {self.average_steps}")
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"explore: a share in [0, 1), got {self.explore}")
        if not self.lr > 0.0:
            raise ValueError(f"lr: positive, got {self.lr}")
        if not 0.0 <= self.power <= 1.0:
            raise ValueError(f"power: in [0, 1], got {self.power}")
        if not 0.0 <= self.lr_decay <= 1.0:
            raise ValueError(f"lr_decay: in [0, 1], got {self.lr_decay}")
        if self.challenge_rollouts < 0:
            raise ValueError(f"challenge_rollouts: at least 0, got {self.challenge_rollouts}")
        if not 0 <= self.memory <= MAX_MEMORY:
            raise ValueError(f"memory: in [0, {MAX_MEMORY}], got {self.memory}")

    def record(self) -> dict[str, Any]:
        """The settings as plain values (config.json)."""
        return asdict(self)


@dataclass
class Table:
    """Games in progress side by side: rules states, certain knowledge, draft clans, each
    row's own public record and its seats' last observations (``knowledge.table_features``)."""

    states: np.ndarray
    knows: np.ndarray
    drafts: np.ndarray
    records: np.ndarray
    seens: np.ndarray
    rings: np.ndarray

    @classmethod
    def initial(cls, cfg: np.ndarray, n: int, memory: int = 0) -> Table:
        """``n`` games at the initial state (before the deal)."""
        m = TableMemory(cfg)
        state = core.initial_state(cfg)

        def rep(a: np.ndarray) -> np.ndarray:
            return np.repeat(a[None], n, axis=0)

        return cls(
            rep(state), rep(m.know), rep(m.draft), rep(m.record), rep(m.seen),
            no_rings(n, cfg, memory),
        )  # fmt: skip

    def take(self, idx: np.ndarray) -> Table:
        """A copy of rows ``idx`` (repeats allowed)."""
        return Table(
            self.states[idx].copy(),
            self.knows[idx].copy(),
            self.drafts[idx].copy(),
            self.records[idx].copy(),
            self.seens[idx].copy(),
            self.rings[idx].copy(),
        )

    def put(self, into: Table, rows: np.ndarray, which: np.ndarray | None = None) -> None:
        """Write this table's rows ``which`` (None: all) into rows ``rows[which]`` of ``into``
        (nothing when ``into`` is this table)."""
        if into is self:
            return
        for f in _FIELDS:
            mine = getattr(self, f)
            if which is None:
                getattr(into, f)[rows] = mine
            else:
                getattr(into, f)[rows[which]] = mine[which]

    def step(self, moves: np.ndarray, cfg: np.ndarray) -> None:
        """One move per row (NO_MOVE: unchanged), records kept."""
        step_table_rows(
            self.states, np.ascontiguousarray(moves, dtype=np.int32), cfg, self.records,
            self.seens, self.knows, self.drafts, self.rings,
        )  # fmt: skip


@njit(cache=True)
def _absolute_moves(states, rels, cfg, extended, out):
    """Each row's seat-relative action ``rels[i]`` as an action id of the seat to move."""
    n = cfg[C_PLAYERS]
    for i in range(states.shape[0]):
        out[i] = absolute_action(rels[i], states[i, S_CUR], n, extended)


def running_target(before: np.ndarray, regret: np.ndarray, it: float, power: float) -> np.ndarray:
    """Iteration ``it``'s target: the held value ``before`` (the clipped sum of the earlier
    regrets over (it-1)**power) rescaled, plus this iteration's regrets, over it**power."""
    if power == 1.0:  # kept apart: the runs made before the setting, bit for bit
        return before * (it - 1.0) / it + regret / it
    return before * ((it - 1.0) / it) ** power + regret / it**power


def regret_lr(settings: RegretSettings, it: float) -> float:
    """The regret network's Adam step at iteration ``it`` (1, 2, ...): lr * it**-lr_decay
    (exactly lr when lr_decay is 0, so the runs made before the setting stay bit for bit)."""
    return settings.lr * it**-settings.lr_decay


def matched(out: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Regret matching per row: positive outputs on legal actions normalised, else uniform."""
    positive = np.maximum(out, 0.0) * (legal > 0)
    total = positive.sum(axis=1, keepdims=True)
    uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)


def rollout_groups(which: np.ndarray, action: np.ndarray, per: np.ndarray) -> np.ndarray:
    """Each branch's group for ``common_random``: its decision ``which`` and its rank among
    the copies of its action there (the branches come decision by decision, action by action,
    ``per[which]`` copies each), so the k-th play-out of every action of a decision share one."""
    if len(which) == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.r_[0, np.flatnonzero((np.diff(which) != 0) | (np.diff(action) != 0)) + 1]
    rank = np.arange(len(which)) - np.repeat(start, np.diff(np.r_[start, len(which)]))
    return which.astype(np.int64) * int(per.max()) + rank


@njit(cache=True)
def _event_uniforms(cur, groups, counts, salt, players, out):
    """Each unfinished row's uniform for its next event: a hash of (salt, group, who moves,
    how many times they moved before), so the rows of one group draw alike event by event."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    for i in range(cur.shape[0]):
        out[i] = 0.0
        if cur[i] == TERMINAL:
            continue
        kind = cur[i] if cur[i] >= 0 else players  # a seat, or chance
        x = np.uint64(salt) + np.uint64(groups[i]) * golden
        x = (x ^ (x >> np.uint64(31))) * np.uint64(0xBF58476D1CE4E5B9)
        x += np.uint64(kind) * np.uint64(0x94D049BB133111EB) + np.uint64(counts[i, kind]) * golden
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
        out[i] = float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        counts[i, kind] += 1


class Coupling:
    """Common random numbers for play-outs (``common_random``): rows of one group draw the same
    uniform for the k-th move of each seat and the k-th chance event, wherever in the game it
    comes, so play-outs that part by a step stay paired move for move."""

    def __init__(self, groups: np.ndarray, players: int, rng: np.random.Generator) -> None:
        """``groups``: each row's group; the salt is drawn from ``rng``."""
        self.groups = np.ascontiguousarray(groups, dtype=np.int64)
        self.players = int(players)
        self.counts = np.zeros((len(groups), players + 1), dtype=np.int64)
        self.salt = int(rng.integers(0, 2**62))

    def keep(self, rows: np.ndarray) -> None:
        """Keep only rows ``rows`` (in that order), with their counts."""
        self.groups, self.counts = self.groups[rows], self.counts[rows]

    def draw(self, cur: np.ndarray) -> np.ndarray:
        """The uniforms of every row whose mover is ``cur`` (terminal rows: 0, not counted)."""
        out = np.empty(len(cur))
        _event_uniforms(
            np.ascontiguousarray(cur, dtype=np.int64), self.groups, self.counts, self.salt,
            self.players, out,
        )  # fmt: skip
        return out


class Traversal:
    """One stream of an iteration's games under a fixed regret network (picklable: it is sent to
    worker processes or Ray actors)."""

    def __init__(
        self,
        config: GameConfig,
        settings: RegretSettings,
        net: TableNet,
        first: bool,
        opponent: TableNet | None = None,
        opponent_share: float = 0.0,
    ) -> None:
        """``first``: the first iteration, whose strategy is uniform (the network is untrained);
        ``opponent``: the network playing every other seat in ``opponent_share`` of each
        traverser's games (the module note)."""
        if not 0.0 <= opponent_share <= 1.0:
            raise ValueError(f"opponent_share: a share in [0, 1], got {opponent_share}")
        if opponent_share > 0.0 and opponent is None:
            raise ValueError("opponent_share: above 0 needs an opponent network")
        self.config = config
        self.settings = settings
        self.net = net
        self.first = first
        self.opponent = opponent
        self.opponent_share = opponent_share
        self.cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
        self.extended = bool(self.cfg[C_EXTENDED])
        self.num_actions = config.num_distinct_actions()

    # -- the current strategy ------------------------------------------------------------
    def _decide(
        self, t: Table, idx: np.ndarray, against: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Features, seat-relative legal mask and current strategy of rows ``idx``' seats to move
        (``against``: where true, the opponent network's policy instead)."""
        n = len(idx)
        feats = np.empty((n, self.net.num_features), dtype=np.float32)
        legal = np.empty((n, self.num_actions), dtype=np.float32)
        table_rows_features(
            t.states[idx], t.knows[idx], t.drafts[idx], t.records, t.seens,
            np.ascontiguousarray(idx, dtype=np.int64), self.cfg, self.extended, feats, legal,
            t.rings[idx], self.settings.memory,
        )  # fmt: skip
        if self.first:
            rel = legal / np.maximum(legal.sum(axis=1, keepdims=True, dtype=np.float64), 1.0)
        else:
            rel = matched(self.net.outputs(feats)[:, :-1].astype(np.float64), legal)
        if against is not None and self.opponent is not None and against.any():
            probs, _ = self.opponent.policy_value(feats[against], legal[against])
            rel[against] = probs
        return feats, legal, rel

    def _absolute(self, states: np.ndarray, rel: np.ndarray) -> np.ndarray:
        out = np.zeros((len(states), self.num_actions))
        absolute_probabilities(states, rel, self.cfg, self.extended, out)
        return out

    def _move(
        self,
        t: Table,
        probs: np.ndarray,
        deciding: np.ndarray,
        rng: np.random.Generator,
        coupling: Coupling | None = None,
    ) -> None:
        """One move in every unfinished row: ``probs`` for the ``deciding`` rows, chance elsewhere
        (``coupling``: the rows' uniforms drawn by it, else each row its own)."""
        active = np.flatnonzero(t.states[:, S_CUR] != TERMINAL)
        # the active rows' probabilities only: a table of finished rows is mostly finished
        full = np.zeros((len(active), self.num_actions))
        full[np.searchsorted(active, deciding)] = probs
        chosen = np.empty(len(active), dtype=np.int32)
        if coupling is None:
            uniforms = rng.random(len(active))
        else:
            uniforms = coupling.draw(t.states[:, S_CUR])[active]
        sample_moves(t.states[active], self.cfg, full, uniforms, chosen)
        moves = np.full(len(t.states), NO_MOVE, dtype=np.int32)
        moves[active] = chosen
        t.step(moves, self.cfg)

    def play_to_end(
        self,
        t: Table,
        rng: np.random.Generator,
        opposed: np.ndarray | None = None,
        traverser: np.ndarray | None = None,
        groups: np.ndarray | None = None,
    ) -> None:
        """Play every row to its end by the current strategy in every seat (``opposed`` rows:
        the opponent network in every seat but the row's ``traverser``; ``groups``: rows of
        one group draw alike, ``common_random``)."""
        coupling = None if groups is None else Coupling(groups, self.config.players, rng)
        live, home = t, np.arange(len(t.states))  # the rows still played, and where they belong
        while True:
            cur = live.states[:, S_CUR]
            unfinished = np.flatnonzero(cur != TERMINAL)
            if len(unfinished) * COMPACT_BELOW < len(cur):
                # a few long games outlast the rest: step only those (the same rows in the same
                # order, so the same draws; finished rows go back to ``t`` as they are)
                live.put(t, home, np.flatnonzero(cur == TERMINAL))
                live, home = live.take(unfinished), home[unfinished]
                if opposed is not None and traverser is not None:
                    opposed, traverser = opposed[unfinished], traverser[unfinished]
                if coupling is not None:
                    coupling.keep(unfinished)
                cur = live.states[:, S_CUR]
            if len(unfinished) == 0:
                break
            deciding = np.flatnonzero(cur >= 0)
            against = None
            if opposed is not None and traverser is not None:
                against = opposed[deciding] & (cur[deciding] != traverser[deciding])
            _, _, rel = self._decide(live, deciding, against)
            self._move(live, self._absolute(live.states[deciding], rel), deciding, rng, coupling)
        live.put(t, home)

    def play_out(self, t: Table, seat: int, rng: np.random.Generator) -> np.ndarray:
        """Play every row to its end by the current strategy in every seat; ``seat``'s returns."""
        self.play_to_end(t, rng)
        out = np.empty(len(t.states))
        returns_of(t.states, self.cfg, seat, out)
        return out

    def run(self, games: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """``games`` games with each seat as traverser, side by side: the
        traversers' decisions (features, legal, regrets) and the other seats' decisions
        (features, legal, strategy) for the average.

        The branches (a traverser decision's row with one legal action played) are kept as
        they arise and all played out together at the end: the strategy does not change
        within an iteration, so this is the same as playing each out at once, in far fewer
        batched steps."""
        s = self.settings
        players = self.config.players
        t = Table.initial(self.cfg, players * games, s.memory)
        traverser = np.repeat(np.arange(players), games)
        # the first round(share * games) games of each traverser's block meet the opponent
        opposed = np.arange(players * games) % games < round(self.opponent_share * games)
        mine: list[tuple[np.ndarray, ...]] = []
        width, actions = self.net.num_features, self.num_actions
        # the average's decisions, starting empty: the opponent may have made every one
        theirs: list[tuple[np.ndarray, ...]] = [
            (np.empty((0, width), np.float32), np.empty((0, actions), np.float32),
             np.empty((0, actions), np.float32))
        ]  # fmt: skip
        branches: list[Table] = []
        branch_rows: list[np.ndarray] = []
        done = 0
        while True:
            cur = t.states[:, S_CUR]
            if not (cur != TERMINAL).any():
                break
            deciding = np.flatnonzero(cur >= 0)
            own = cur[deciding] == traverser[deciding]
            against = opposed[deciding] & ~own
            feats, legal, rel = self._decide(t, deciding, against)
            if own.any():
                rows = deciding[own]
                which, action = np.nonzero(legal[own] > 0)
                per = np.full(len(rows), s.rollouts, dtype=np.int64)
                if s.challenge_rollouts:
                    challenging = np.isin(t.states[rows, S_STAGE], CHALLENGE_STAGES)
                    per[challenging] = s.challenge_rollouts
                reps = per[which]
                which = np.repeat(which, reps)
                action = np.repeat(action, reps).astype(np.int32)
                branch = t.take(rows[which])
                moves = np.empty(len(which), dtype=np.int32)
                _absolute_moves(branch.states, action, self.cfg, self.extended, moves)
                branch.step(moves, self.cfg)
                branches.append(branch)
                branch_rows.append(rows[which])
                seat = traverser[rows]
                mine.append(
                    (feats[own], legal[own], rel[own], seat, which + done, action, per)
                )  # fmt: skip
                done += len(rows)
            strategy = ~own & ~against  # the current strategy's decisions: the average's
            if strategy.any():
                theirs.append((feats[strategy], legal[strategy], rel[strategy].astype(np.float32)))
            play = rel.copy()
            mixed = (1.0 - s.explore) * rel + s.explore * legal / legal.sum(axis=1, keepdims=True)
            play[own] = mixed[own]
            self._move(t, self._absolute(t.states[deciding], play), deciding, rng)
        x, legal, rel, seat, which, action, per = (
            np.concatenate([m[k] for m in mine]) for k in range(7)
        )
        end = Table(*(np.concatenate([getattr(b, f) for b in branches]) for f in _FIELDS))
        origin = np.concatenate(branch_rows)
        groups = rollout_groups(which, action, per) if s.common_random else None
        self.play_to_end(end, rng, opposed[origin], traverser[origin], groups)
        got = np.empty(len(which))  # each branch valued by its own traverser's return (D-10)
        owners_returns(end.states, self.cfg, seat[which].astype(np.int64), got)
        values = np.zeros(legal.shape)
        np.add.at(values, (which, action), got / per[which])
        regret = (values - (rel * values).sum(axis=1, keepdims=True)) * (legal > 0)
        ax, alegal, aprobs = (np.concatenate([m[k] for m in theirs]) for k in range(3))
        return x, legal, regret, ax, alegal, aprobs


def traverse_job(job: tuple) -> tuple[np.ndarray, ...]:
    """One stream of an iteration: ``(traversal, games, seed)`` -> its decisions (see
    :meth:`Traversal.run`)."""
    traversal, games, seed = job
    return traversal.run(games, np.random.default_rng(seed))


class RegretSampler:
    """The regret network, the average network and their optimisers, one iteration at a time."""

    def __init__(
        self,
        config: GameConfig,
        settings: RegretSettings,
        seed: int = 0,
        pool: WorkerPool | None = None,
        before_iteration: Callable[[RegretSampler], None] | None = None,
    ) -> None:
        """A fresh run (``config``: a game of any table size; ``pool``: where the ``jobs``
        streams are played, which changes only the wall time; ``before_iteration``: called
        with the sampler before each iteration, where an experiment may set the opponent)."""
        settings.validate()
        self.config = config
        self.settings = settings
        self.seed = int(seed)
        self.pool = pool
        self.cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
        self.num_actions = config.num_distinct_actions()
        feats = config_features(self.cfg, settings.memory, settings.odds)
        hidden = (settings.width, settings.width)
        self.net = TableNet.create(feats, self.num_actions, hidden, seed=seed)
        self.opt = Adam(self.net.net, lr=settings.lr)
        self.average = AveragePolicy(
            TableNet.create(feats, self.num_actions, hidden, seed=seed + 1),
            settings.average, settings.average_steps, settings.minibatch, weighted=True,
            binary_from=config_features(self.cfg, 0, settings.odds) if settings.memory else None,
        )  # fmt: skip
        self.iteration = 0
        self.games = 0
        self.samples = 0
        self.last: dict[str, float] = {}
        self.stepping = False
        self.opponent: TableNet | None = None  # the module note; saved with the state
        self.opponent_share = 0.0
        self.before_iteration = before_iteration

    # -- one iteration -----------------------------------------------------------------
    def traversal(self) -> Traversal:
        """The current strategy's games, as one stream would play them."""
        return Traversal(
            self.config, self.settings, self.net, self.iteration == 0, self.opponent,
            self.opponent_share,
        )  # fmt: skip

    def play_out(self, t: Table, seat: int, rng: np.random.Generator) -> np.ndarray:
        """Play every row to its end by the current strategy in every seat; ``seat``'s returns."""
        return self.traversal().play_out(t, seat, rng)

    def _traverse(self, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """The iteration's decisions: one stream drawn from ``rng`` in this process, or ``jobs``
        streams with seeds of their own on the pool, concatenated in stream order."""
        s = self.settings
        traversal = self.traversal()
        if s.jobs == 1:
            return traversal.run(s.games, rng)
        jobs = [
            (
                traversal,
                s.games // s.jobs + (j < s.games % s.jobs),
                [self.seed, self.iteration, 31, j],
            )
            for j in range(s.jobs)
        ]
        done = (self.pool or WorkerPool(1)).map(traverse_job, jobs)
        return tuple(np.concatenate([d[k] for d in done]) for k in range(6))

    def step(self, iterations: int | None = None) -> int:
        """Run ``iterations`` more iterations (None: one)."""
        n = 1 if iterations is None else iterations
        for _ in range(n):
            self.stepping = True
            self._iterate()
            self.stepping = False
        return n

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        self.step(iterations)

    def _iterate(self) -> None:
        start = time.perf_counter()
        if self.before_iteration is not None:
            self.before_iteration(self)
        s = self.settings
        rng = np.random.default_rng([self.seed, self.iteration])
        x, legal, regret, ax, alegal, aprobs = self._traverse(rng)
        decisions = len(x) + len(ax)
        self.average.add(ax, alegal, aprobs, rng, weight=float(self.iteration + 1))
        self.iteration += 1
        it = float(self.iteration)
        target = self.regret_targets(x, legal, regret)
        self.opt.lr = regret_lr(s, it)
        rng = np.random.default_rng([self.seed, self.iteration, 2])
        losses = self.fit_regrets(x, legal, target, rng)
        avg_loss = self.average.train(rng)
        self.games += self.config.players * s.games
        self.samples += len(x)
        self.last = {
            "iteration": it,
            "games": float(self.games),
            "samples": float(self.samples),
            "decisions": float(decisions),
            "regret_loss": float(np.mean(losses)),
            "average_loss": avg_loss,
            "mean_abs_regret": float(np.abs(regret).sum() / max(1.0, (legal > 0).sum())),
            "seconds": time.perf_counter() - start,
        }

    def regret_targets(self, x: np.ndarray, legal: np.ndarray, regret: np.ndarray) -> np.ndarray:
        """What the regret network is fitted to at this iteration's decisions: the held clipped
        sum (its own output before the fit) moved by this iteration's sampled regrets
        (:func:`running_target`; an experiment may fit otherwise)."""
        before = np.zeros(legal.shape)  # the running sum: nothing before the first iteration
        if self.iteration > 1:
            before = np.maximum(self.net.outputs(x)[:, :-1].astype(np.float64), 0.0) * (legal > 0)
        return running_target(before, regret, float(self.iteration), self.settings.power)

    def fit_regrets(
        self, x: np.ndarray, legal: np.ndarray, target: np.ndarray, rng: np.random.Generator
    ) -> list[float]:
        """Fit the regret network by ``steps`` Adam steps on minibatches of the iteration's
        decisions against their targets; each step's loss (an experiment may fit otherwise)."""
        s = self.settings
        losses = []
        for _ in range(s.steps):
            idx = rng.integers(0, len(x), size=s.minibatch)
            acts, pre, out = self.opt.outputs(x[idx])
            loss, grad = regret_loss(out, legal[idx], target[idx])
            self.opt.update(acts, pre, grad.astype(np.float32))
            losses.append(loss)
        return losses

    # -- the run driver's protocol ---------------------------------------------------------
    def policy(self) -> TableNet:
        """The average network: the strategy that plays."""
        return self.average.net

    def current(self) -> TableNet:
        """The regret network (its regret matching is the current strategy)."""
        return self.net

    def evaluate(self) -> dict[str, float]:
        """The last iteration's figures (see LOG_COLUMNS)."""
        return dict(self.last)

    def measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The log row and progress figures after a step."""
        figures = self.evaluate()
        return tuple(figures.get(c, float("nan")) for c in LOG_COLUMNS), figures

    def get_state(self) -> dict[str, np.ndarray]:
        """Both networks, their optimisers, the reservoir and the counters (and the opponent
        with its share, when one is set)."""
        state = {
            "counters": np.array([self.iteration, self.games, self.samples], dtype=np.int64),
            **optimiser_arrays(self.net, self.opt, "regret_"),
            **self.average.get_state("avg_"),
        }
        if self.opponent is not None:
            state["opponent_share"] = np.array(self.opponent_share)
            state.update(frozen_arrays(OPPONENT_PREFIX, [self.opponent]))
        return state

    def kit_state(self) -> dict[str, np.ndarray]:
        """What a warm start needs: :meth:`get_state` with the reservoir left empty (a few MB,
        where the reservoir makes a full-game checkpoint about 2 GB)."""
        return without_reservoir(self.get_state())

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` (or :meth:`kit_state`) returned."""
        if "counters" not in state:
            raise ValueError("--resume: the checkpoint is not a sampled regret run's")
        self.iteration, self.games, self.samples = (int(v) for v in state["counters"])
        restore_optimiser(self.net, self.opt, state, "regret_")
        self.average.set_state(state, "avg_")
        self.opponent, self.opponent_share = None, 0.0
        if "opponent_share" in state:
            self.opponent = frozen_nets(self.net, state, OPPONENT_PREFIX, 1)[0]
            self.opponent_share = float(state["opponent_share"])
