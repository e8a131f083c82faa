"""Many tables at once: games whose seats are table networks or bots, with learner trajectories.

The runner keeps ``parallel`` games going. Each step it advances every game
through chance moves and bot moves to its next network decision, then
evaluates all the waiting network decisions in one batch per network, samples
the actions and applies them. The seats marked as learners record, at each
of their decisions with more than one legal action, the features, the legal
mask, the action, its log-probability and the network's value; when the game
ends the seat's trajectory gets its return and generalised advantage
estimates (rewards only at the end, no discount).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pyspiel

import complots_solver.openspiel.game  # noqa: F401  (registers the game)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.layout import C_EXTENDED, S_CUR, S_TURN
from complots_solver.solvers.knowledge.table_features import (
    TableMemory,
    absolute_action,
    memory_of,
)
from complots_solver.solvers.nets.tablenet import TableNet

MAX_MOVES = 512


class SeatBot(Protocol):
    """What the runner needs of a bot (the play layer's bots are such)."""

    def restart(self) -> None:
        """Forget the previous game."""

    def step(self, state: pyspiel.State) -> int:
        """An action for the seat to move."""
        ...


@dataclass
class Seat:
    """Who plays a chair: a network (learning or frozen) or a bot."""

    net: TableNet | None = None
    bot: SeatBot | None = None
    learner: bool = False
    label: str = "net"


@dataclass
class GameResult:
    """How one game ended, and who sat where."""

    labels: tuple[str, ...]
    learners: tuple[int, ...]
    winner: int
    turns: int
    returns: tuple[float, ...]


@dataclass
class _Table:
    state: pyspiel.State
    memory: TableMemory
    seats: list[Seat]
    traj: dict[int, list[tuple]] = field(default_factory=dict)


def _gae(values: np.ndarray, final: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and value targets of one seat's decisions, the return ``final`` at the end."""
    t = len(values)
    adv = np.zeros(t, dtype=np.float32)
    nxt = final
    run = 0.0
    for i in range(t - 1, -1, -1):
        delta = nxt - values[i]
        run = delta + lam * run
        adv[i] = run
        nxt = values[i]
    return adv, adv + values


class TableRunner:
    """Plays batches of games of one configuration (see the module note)."""

    def __init__(self, config: GameConfig, parallel: int = 64, lam: float = 0.95) -> None:
        self.config = config
        self.game = pyspiel.load_game(config.game_string())
        self.cfg = np.ascontiguousarray(self.game.cfg, dtype=np.int32)
        self.players = config.players
        self.extended = bool(self.cfg[C_EXTENDED])
        self.actions = config.num_distinct_actions()
        self.parallel = parallel
        self.lam = lam
        self._moves = np.empty(MAX_MOVES, dtype=np.int32)

    def _new(self, seats: list[Seat]) -> _Table:
        for seat in seats:
            if seat.bot is not None:
                seat.bot.restart()
        return _Table(self.game.new_initial_state(), TableMemory(self.cfg), seats)

    def _apply(self, t: _Table, action: int) -> None:
        before = t.state.s.copy()
        t.state.apply_action(action)
        t.memory.observe(before, action, t.state.s)

    def _advance(self, t: _Table, rng: np.random.Generator) -> None:
        """Chance and bot moves until a network decision or the end."""
        st = t.state
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                cdf = np.cumsum([p for _, p in outcomes])
                k = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
                self._apply(t, outcomes[min(k, len(outcomes) - 1)][0])
                continue
            seat = t.seats[int(st.s[S_CUR])]
            if seat.bot is None:
                return
            self._apply(t, seat.bot.step(st))

    def play(
        self,
        games: int,
        seating: Callable[[np.random.Generator], list[Seat]],
        rng: np.random.Generator,
        greedy: bool = False,
    ) -> tuple[dict[str, np.ndarray], list[GameResult]]:
        """Play ``games`` games seated by ``seating``; the learners' examples and every result."""
        n_feat = None
        rows: list[tuple] = []
        results: list[GameResult] = []
        started = 0
        live: list[_Table] = []
        while started < games and len(live) < self.parallel:
            live.append(self._new(seating(rng)))
            started += 1
        while live:
            for t in live:
                self._advance(t, rng)
            still: list[_Table] = []
            for t in live:
                if t.state.is_terminal():
                    rows.extend(self._finish(t, results))
                    if started < games:
                        nt = self._new(seating(rng))
                        started += 1
                        self._advance(nt, rng)
                        if nt.state.is_terminal():  # pragma: no cover  (no game ends at once)
                            rows.extend(self._finish(nt, results))
                            continue
                        still.append(nt)
                else:
                    still.append(t)
            live = still
            if not live:
                break
            groups: dict[int, list[_Table]] = {}
            for t in live:
                net = t.seats[int(t.state.s[S_CUR])].net
                groups.setdefault(id(net), []).append(t)
            for group in groups.values():
                net = group[0].seats[int(group[0].state.s[S_CUR])].net
                assert net is not None
                n_feat = net.num_features
                x = np.empty((len(group), n_feat), dtype=np.float32)
                legal = np.empty((len(group), self.actions), dtype=np.float32)
                counts = np.empty(len(group), dtype=np.int64)
                remembered = memory_of(n_feat, self.cfg)
                for i, t in enumerate(group):
                    me = int(t.state.s[S_CUR])
                    counts[i] = t.memory.row(t.state.s, me, remembered, x[i], legal[i], self._moves)
                probs, values = net.policy_value(x, legal)
                if greedy:
                    picks = probs.argmax(axis=1)
                else:
                    cdf = np.cumsum(probs, axis=1)
                    u = rng.random(len(group))[:, None] * cdf[:, -1:]
                    picks = np.minimum((cdf <= u).sum(axis=1), self.actions - 1)
                    bad = legal[np.arange(len(group)), picks] <= 0
                    if bad.any():  # rounding at the top of the cdf: take the likeliest
                        picks[bad] = probs[bad].argmax(axis=1)
                for i, t in enumerate(group):
                    me = int(t.state.s[S_CUR])
                    r = int(picks[i])
                    if t.seats[me].learner and counts[i] > 1:
                        t.traj.setdefault(me, []).append(
                            (x[i], legal[i], r, float(np.log(probs[i, r])), float(values[i]))
                        )
                    a = int(absolute_action(r, me, self.players, self.extended))
                    self._apply(t, a)
        return self._stack(rows, n_feat), results

    def _finish(self, t: _Table, results: list[GameResult]) -> list[tuple]:
        st = t.state
        returns = st.returns()
        learners = tuple(i for i, s in enumerate(t.seats) if s.learner)
        results.append(
            GameResult(
                tuple(s.label for s in t.seats),
                learners,
                int(st.winner()),
                int(st.s[S_TURN]),
                tuple(float(r) for r in returns),
            )
        )
        out = []
        for seat, traj in t.traj.items():
            values = np.array([row[4] for row in traj], dtype=np.float32)
            adv, target = _gae(values, float(returns[seat]), self.lam)
            # the seat's own log-reach before each decision (its earlier moves' log-probabilities)
            before = np.cumsum([0.0] + [row[3] for row in traj[:-1]])
            for i, row in enumerate(traj):
                out.append((row[0], row[1], row[2], row[3], adv[i], target[i], before[i]))
        return out

    def _stack(self, rows: Sequence[tuple], n_feat: int | None) -> dict[str, np.ndarray]:
        if not rows:
            return {
                "x": np.zeros((0, n_feat or 0), dtype=np.float32),
                "legal": np.zeros((0, self.actions), dtype=np.float32),
                "action": np.zeros(0, dtype=np.int64),
                "logp": np.zeros(0, dtype=np.float32),
                "advantage": np.zeros(0, dtype=np.float32),
                "target": np.zeros(0, dtype=np.float32),
                "reach_logp": np.zeros(0, dtype=np.float32),
            }
        return {
            "x": np.stack([r[0] for r in rows]),
            "legal": np.stack([r[1] for r in rows]),
            "action": np.array([r[2] for r in rows], dtype=np.int64),
            "logp": np.array([r[3] for r in rows], dtype=np.float32),
            "advantage": np.array([r[4] for r in rows], dtype=np.float32),
            "target": np.array([r[5] for r in rows], dtype=np.float32),
            "reach_logp": np.array([r[6] for r in rows], dtype=np.float32),
        }
