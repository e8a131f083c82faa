"""A trained best responder: Monte Carlo control against the fixed strategy, with a stated budget.

The responder is a table from an information key of its seat to, per
action, the sum and count of the returns that followed it. Training plays
rounds of ``round_games`` games against the strategy (the table is fixed
within a round and updated after it, in game order, so the result does not
depend on the number of workers): at each decision, with probability
``epsilon`` a uniformly random legal action, otherwise the greedy action.

Greedy: among the legal actions tried at least ``min_visits`` times at the
key, the one of highest mean return; with none, the strategy's own move at
the seat's state (what the strategy would play here: an unexplored key
costs nothing). Evaluation plays the greedy responder (no exploration) on
fresh games.

Keys (:data:`KEYS`):

``perfect``
    the hash chain of every token the seat saw: its perfect-recall
    information state. Exact on the ladder; never repeats in the full game.
``abstract``
    public position and own cards only: stage, announced action and claim,
    the counter's clan, whether the seat is the actor or the target, its
    face-down cards, the other's number of face-down cards, both seats'
    face-up cards, both coin counts (capped at 12) and the turn (in fives,
    capped at 4). For the full game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import (
    S_ACT,
    S_ACTOR,
    S_CLAIM,
    S_COINS,
    S_COUNTER_CLAN,
    S_HIDDEN,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TURN,
)
from complots_solver.solvers.bounds.games import Seed, play_many
from complots_solver.solvers.bounds.strategy import BoundStrategy
from complots_solver.solvers.knowledge.belief_features import hand_index
from complots_solver.solvers.knowledge.hypotheses import mix
from complots_solver.solvers.rows.batch import Rows, legal_mask, sample_moves

KEYS = ("perfect", "abstract")
DEFAULT_EPSILON = 0.2
DEFAULT_MIN_VISITS = 3
DEFAULT_ROUND_GAMES = 64
COIN_CAP = 12


@njit(cache=True)
def abstract_keys(states, seat, out):
    """The ``abstract`` key of ``seat`` in every row (see the module note)."""
    opp = 1 - seat
    for i in range(states.shape[0]):
        s = states[i]
        h = np.int64(0xAB57_0000 + seat)
        h = mix(h, s[S_STAGE])
        h = mix(h, s[S_ACT] + 2)
        h = mix(h, s[S_CLAIM] + 2)
        h = mix(h, s[S_COUNTER_CLAN] + 2)
        h = mix(h, s[S_SHOWN] + 2)
        h = mix(h, (1 if s[S_ACTOR] == seat else 0) + 2 * (1 if s[S_TARGET] == seat else 0))
        h = mix(h, hand_index(s, seat) + 2)
        alive = 0
        for c in range(NUM_CLANS):
            alive += s[S_HIDDEN + opp * NUM_CLANS + c]
            h = mix(h, s[S_REVEALED + seat * NUM_CLANS + c])
            h = mix(h, s[S_REVEALED + opp * NUM_CLANS + c])
        h = mix(h, alive)
        h = mix(h, min(s[S_COINS + seat], COIN_CAP))
        h = mix(h, min(s[S_COINS + opp], COIN_CAP))
        h = mix(h, min(s[S_TURN] // 5, 4))
        out[i] = h


class TableResponder:
    """The responder's table (module note); ``learn`` adds exploration and records visits."""

    wants_strategy = True

    def __init__(
        self,
        cfg: np.ndarray,
        num_actions: int,
        key: str,
        table: dict[int, np.ndarray],
        learn: bool = False,
        epsilon: float = DEFAULT_EPSILON,
        min_visits: int = DEFAULT_MIN_VISITS,
    ) -> None:
        if key not in KEYS:
            raise ValueError(f"key: one of {', '.join(KEYS)}, not {key!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon: between 0 and 1, got {epsilon}")
        if min_visits < 1:
            raise ValueError(f"min_visits: at least 1, got {min_visits}")
        self.cfg = cfg
        self.num_actions = num_actions
        self.key = key
        self.table = table
        self.learn = learn
        self.epsilon = epsilon
        self.min_visits = min_visits
        self.visits: list[list[tuple[int, int]]] = []
        self.returns = np.empty(0)
        self.greedy_moves = 0
        self.fallback_moves = 0

    def start(self, seeds: Sequence[Seed], seat: int) -> None:
        """One exploration generator per game."""
        self.seat = seat
        self.rngs = [np.random.default_rng([*s, 0x7EA]) for s in seeds]
        self.visits = [[] for _ in seeds]

    def observe(self, rows: Rows, moves: np.ndarray) -> None:
        """Nothing: the keys read the rows' own-token chain or public fields and own cards."""

    def keys(self, rows: Rows) -> np.ndarray:
        """The information key of the seat in each row."""
        if self.key == "perfect":
            return rows.owns.copy()
        out = np.empty(len(rows), dtype=np.int64)
        abstract_keys(rows.states, self.seat, out)
        return out

    def greedy(self, key: int, legal: np.ndarray) -> int | None:
        """The best well-tried legal action at ``key``, or None."""
        entry = self.table.get(key)
        if entry is None:
            return None
        counts = entry[1, legal]
        tried = counts >= self.min_visits
        if not tried.any():
            return None
        means = np.where(tried, entry[0, legal] / np.maximum(counts, 1), -np.inf)
        return int(legal[int(np.argmax(means))])

    def act(self, rows: Rows, probs: np.ndarray | None, uniforms: np.ndarray) -> np.ndarray:
        """Greedy where the table knows, the strategy elsewhere, exploring while learning."""
        if probs is None:
            raise ValueError("probs: the trained responder needs the strategy's probabilities")
        keys = self.keys(rows)
        mask = np.empty((len(rows), self.num_actions))
        legal_mask(rows.states, self.cfg, mask)
        fallback = np.empty(len(rows), dtype=np.int32)
        sample_moves(rows.states, self.cfg, probs, uniforms, fallback)
        out = np.empty(len(rows), dtype=np.int32)
        for i, g in enumerate(rows.game.tolist()):
            legal = np.flatnonzero(mask[i])
            key = int(keys[i])
            rng = self.rngs[g]
            if self.learn and rng.random() < self.epsilon:
                a = int(legal[rng.integers(len(legal))])
            else:
                best = self.greedy(key, legal)
                if best is None:
                    a = int(fallback[i])
                    self.fallback_moves += 1
                else:
                    a = best
                    self.greedy_moves += 1
            if self.learn:
                self.visits[g].append((key, a))
            out[i] = a
        return out

    def finish(self, game: np.ndarray, returns: np.ndarray) -> None:
        """Keep the returns for :meth:`payload`."""
        self.returns = returns

    def payload(self) -> dict[str, object]:
        """Visits with their games' returns (learning), and how often the table decided."""
        return {
            "visits": [
                (key, a, float(r))
                for v, r in zip(self.visits, self.returns.tolist(), strict=True)
                for key, a in v
            ]
            if self.learn
            else [],
            "greedy_moves": self.greedy_moves,
            "fallback_moves": self.fallback_moves,
        }


@dataclass
class Training:
    """What training a responder took and made."""

    games: int
    seconds: float
    keys: int
    round_games: int


def train_responder(
    cfg: np.ndarray,
    strategy: BoundStrategy,
    seat: int,
    key: str,
    seed: int,
    games: int | None = None,
    seconds: float | None = None,
    workers: int = 1,
    round_games: int = DEFAULT_ROUND_GAMES,
    epsilon: float = DEFAULT_EPSILON,
    min_visits: int = DEFAULT_MIN_VISITS,
) -> tuple[dict[int, np.ndarray], Training]:
    """Train the table of ``seat`` for ``games`` games or ``seconds`` (whichever is given).

    With ``games`` the result depends only on the seed and the settings; with
    ``seconds`` on how many rounds fit.
    """
    if (games is None) == (seconds is None):
        raise ValueError("budget: give exactly one of games and seconds")
    if games is not None and games < 1:
        raise ValueError(f"games: at least 1, got {games}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds: positive, got {seconds}")
    if round_games < 1:
        raise ValueError(f"round_games: at least 1, got {round_games}")
    TableResponder(cfg, strategy.num_actions, key, {}, True, epsilon, min_visits)  # checks
    table: dict[int, np.ndarray] = {}
    played = 0
    start = time.perf_counter()
    rnd = 0
    while True:
        if games is not None and played >= games:
            break
        if seconds is not None and time.perf_counter() - start >= seconds:
            break
        n = round_games if games is None else min(round_games, games - played)
        seeds = [(seed, seat, 0, rnd, g) for g in range(n)]

        def make(t: dict[int, np.ndarray] = table) -> TableResponder:
            return TableResponder(cfg, strategy.num_actions, key, t, True, epsilon, min_visits)

        per = -(-n // workers)
        _, payloads = play_many(cfg, strategy, seat, make, seeds, workers=workers, batch=per)
        for payload in payloads:
            for k, a, r in payload["visits"]:  # type: ignore[index]
                entry = table.get(k)
                if entry is None:
                    entry = table[k] = np.zeros((2, strategy.num_actions))
                entry[0, a] += r
                entry[1, a] += 1.0
        played += n
        rnd += 1
    return table, Training(played, time.perf_counter() - start, len(table), round_games)
