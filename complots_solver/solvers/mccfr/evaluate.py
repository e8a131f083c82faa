"""Evaluating keyed strategies where no compiled tree fits: sampled games and best-response bounds.

:func:`play_games` plays games in numba where every seat follows a
:class:`~complots_solver.solvers.mccfr.policy_table.PolicyTable` (at most two distinct
tables, each with its own key scheme): mean returns per seat with standard
errors, and the share of games ending at the turn cap.

:func:`best_response_bound` gives a lower bound on the exploitability of a
2-player strategy ``sigma``: for each seat ``p`` a responder is trained by
outcome-sampling MCCFR with the other seat frozen to ``sigma``
(:meth:`MCCFRSolver.freeze`); its average strategy, or the greedy (argmax)
version of it, whichever wins more on a separate set of selection games,
then plays fresh sampled games against ``sigma``. Any fixed responder's
expected return is at most the best-response value, so ``(v_0 + v_1) / 2``
estimates a lower bound on ``exploitability = (BR_0 + BR_1) / 2`` (zero-sum:
the profile's own values cancel); the 95% interval is the normal one on the
sum of the two independent game means.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import PlayerId, Stage
from complots_solver.rules.layout import (
    C_PLAYERS,
    MAX_CHANCE_OUTCOMES,
    S_CUR,
    S_STAGE,
    S_WINNER,
    STATE_SIZE,
)
from complots_solver.rules.stats import Z95, combined_bound  # noqa: F401  (Z95 re-exported)
from complots_solver.solvers.mccfr.infokeys import KEY_BOTH, init_keys, key_of, step_keys
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import NO_ROW, RI_START, lookup, sample

SELECTION_SHARE = 4  # games // this per candidate responder to pick one (separate games)
RESPONDER_EPSILON = 0.2  # OS exploration of the responder (0.6 gave far weaker responders)
SELECTION_SEED = 1000  # offset of the selection games' seeds from the evaluation games'
BR_CHUNK_SECONDS = 2.0
_CHANCE = int(PlayerId.CHANCE)
_TERMINAL_STAGE = int(Stage.TERMINAL)


@njit(cache=True, nogil=True)
def policy_probs(
    s: np.ndarray,
    cfg: np.ndarray,
    kind: int,
    slots: np.ndarray,
    row_info: np.ndarray,
    probs: np.ndarray,
    hashes: np.ndarray,
    memory: np.ndarray,
    k: int,
    sig: np.ndarray,
) -> tuple[np.int64, int]:
    """The table's strategy at ``s`` for the player to move, into ``sig[:k]``: (key, row).

    ``k`` is the number of legal actions (in core order); a state the table
    lacks (row NO_ROW) plays uniformly.
    """
    key = key_of(s, cfg, kind, hashes, memory)
    r = lookup(slots, key, k)
    if r != NO_ROW:
        for j in range(k):
            sig[j] = probs[row_info[r, RI_START] + j]
    else:
        for j in range(k):
            sig[j] = 1.0 / k
    return key, r


@njit(cache=True, nogil=True)
def _play_games(
    cfg,
    width,
    games,
    rng,
    seat_table,
    kind_a,
    a_slots,
    a_row_info,
    a_probs,
    kind_b,
    b_slots,
    b_row_info,
    b_probs,
    sums,
    sumsq,
    decisions,
    misses,
):
    """Play ``games`` games, seat p following table A if seat_table[p] == 0 else table B."""
    n = cfg[C_PLAYERS]
    walk = kind_a if kind_a == kind_b else KEY_BOTH
    s = np.empty(STATE_SIZE, dtype=np.int32)
    hashes = np.zeros(n, dtype=np.uint64)
    memory = np.zeros(n, dtype=np.int64)
    new_hashes = np.zeros(n, dtype=np.uint64)
    new_memory = np.zeros(n, dtype=np.int64)
    acts = np.empty(width, dtype=np.int32)
    sig = np.empty(width)
    capped = 0
    outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    probs = np.empty(MAX_CHANCE_OUTCOMES)
    ret = np.zeros(n)
    for _ in range(games):
        core.reset_state(s, cfg)
        init_keys(cfg, hashes, memory)
        while s[S_STAGE] != _TERMINAL_STAGE:
            if s[S_CUR] == _CHANCE:
                a = core.sample_chance(s, cfg, rng, outcomes, probs)
            else:
                cur = s[S_CUR]
                k = core.legal_actions_into(s, cfg, acts)
                decisions[cur] += 1
                if seat_table[cur] == 0:
                    _, r = policy_probs(
                        s, cfg, kind_a, a_slots, a_row_info, a_probs,
                        hashes, memory, k, sig,
                    )  # fmt: skip
                else:
                    _, r = policy_probs(
                        s, cfg, kind_b, b_slots, b_row_info, b_probs,
                        hashes, memory, k, sig,
                    )  # fmt: skip
                if r == NO_ROW:
                    misses[cur] += 1
                a = acts[sample(sig, k, rng)]
            step_keys(s, cfg, a, walk, hashes, memory, new_hashes, new_memory)
            core.apply_action(s, cfg, a)
            hashes[:] = new_hashes
            memory[:] = new_memory
        core.returns_into(s, cfg, ret)
        if s[S_WINNER] < 0:
            capped += 1
        for p in range(n):
            sums[p] += ret[p]
            sumsq[p] += ret[p] * ret[p]
    return capped


@dataclass(frozen=True)
class PlayStats:
    """Outcome of sampled games: mean return per seat with standard errors, turn-cap share."""

    games: int
    mean: tuple[float, ...]
    stderr: tuple[float, ...]
    capped_share: float
    miss_share: tuple[float, ...]  # per seat: decisions its table lacked (played uniformly)


def play_games(
    config: GameConfig, seat_policies: list[PolicyTable], games: int, seed: int
) -> PlayStats:
    """Play ``games`` sampled games with seat p following ``seat_policies[p]``."""
    if len(seat_policies) != config.players:
        raise ValueError(f"need one policy per seat ({config.players})")
    distinct: list[PolicyTable] = []
    for policy in seat_policies:
        if not any(policy is d for d in distinct):
            distinct.append(policy)
    if len(distinct) > 2:
        raise ValueError("at most two distinct policy tables per game")
    a, b = distinct[0], distinct[-1]
    seat_table = np.array([0 if p is a else 1 for p in seat_policies], dtype=np.int64)
    n = config.players
    sums, sumsq = np.zeros(n), np.zeros(n)
    decisions = np.zeros(n, dtype=np.int64)
    misses = np.zeros(n, dtype=np.int64)
    capped = _play_games(
        config.to_array(), config.num_distinct_actions(), games, np.random.default_rng(seed),
        seat_table,
        a.key_kind, a.slots, a.row_info, a.probs,
        b.key_kind, b.slots, b.row_info, b.probs,
        sums, sumsq, decisions, misses,
    )  # fmt: skip
    mean = sums / games
    var = np.maximum(sumsq / games - mean**2, 0.0) * games / max(games - 1, 1)
    return PlayStats(
        games,
        tuple(float(x) for x in mean),
        tuple(float(math.sqrt(v / games)) for v in var),
        capped / games,
        tuple(float(m) / max(int(d), 1) for m, d in zip(misses, decisions, strict=True)),
    )


@dataclass(frozen=True)
class BestResponseBound:
    """A sampled best-response lower bound on a 2-player strategy's exploitability."""

    lower_bound: float  # (v_0 + v_1) / 2, each v_p a trained responder's mean return
    ci95: tuple[float, float]
    responder_values: tuple[float, float]
    responder_stderr: tuple[float, float]
    games_per_seat: int
    train_seconds_per_seat: float
    train_iterations: tuple[int, int]
    responder_key: str
    responder_epsilon: float
    responder_infostates: tuple[int, int]
    miss_share: tuple[float, float]  # the strategy's decisions it had no row for, in these games
    responder_choice: tuple[str, str]  # "average" or "greedy" (picked on separate games)
    method: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return asdict(self)


def best_response_bound(
    config: GameConfig,
    policy: PolicyTable,
    train_seconds: float,
    games: int,
    seed: int = 0,
    responder_key: str = "markov",
    responder_epsilon: float = RESPONDER_EPSILON,
    train_iterations: int | None = None,
) -> BestResponseBound:
    """Train a responder per seat against the frozen ``policy``, then measure it on fresh games.

    With ``train_iterations`` each responder trains exactly that many
    iterations (``train_seconds`` is then ignored), so that bounds of several
    strategies are comparable whatever the machine's load.
    """
    if config.players != 2:
        raise ValueError("the best-response bound needs players=2")
    if train_iterations is not None and train_iterations < 1:
        raise ValueError(f"train_iterations must be at least 1, got {train_iterations}")
    values, errors, iters, states, misses, choices = [], [], [], [], [], []
    seconds: list[float] = []
    selection_games = max(games // SELECTION_SHARE, 1)
    for seat in range(config.players):
        other = 1 - seat
        solver = MCCFRSolver(
            config, algorithm="os", key=responder_key, epsilon=responder_epsilon, seed=seed + seat
        )
        solver.freeze(policy, [other])
        start = time.perf_counter()
        if train_iterations is not None:
            solver.run(train_iterations)
        chunk = 1
        while train_iterations is None and time.perf_counter() - start < train_seconds:
            t0 = time.perf_counter()
            solver.run(chunk)
            if time.perf_counter() - t0 < BR_CHUNK_SECONDS / 2:
                chunk *= 2
        seconds.append(time.perf_counter() - start)
        average = solver.policy_table()
        candidates = {"average": average, "greedy": average.greedy()}
        scores = {}
        for c, (name, responder) in enumerate(candidates.items()):
            seats = [policy, policy]
            seats[seat] = responder
            trial = play_games(config, seats, selection_games, seed + SELECTION_SEED + 2 * seat + c)
            scores[name] = trial.mean[seat]
        chosen = max(scores, key=lambda name: scores[name])
        seats = [policy, policy]
        seats[seat] = candidates[chosen]
        result = play_games(config, seats, games, seed + config.players + seat)
        choices.append(chosen)
        values.append(result.mean[seat])
        errors.append(result.stderr[seat])
        iters.append(solver.iteration)
        states.append(solver.num_infostates)
        misses.append(result.miss_share[other])
    bound, low, high = combined_bound(values, errors)
    return BestResponseBound(
        lower_bound=bound,
        ci95=(low, high),
        responder_values=(values[0], values[1]),
        responder_stderr=(errors[0], errors[1]),
        games_per_seat=games,
        train_seconds_per_seat=sum(seconds) / len(seconds),
        train_iterations=(iters[0], iters[1]),
        responder_key=responder_key,
        responder_epsilon=responder_epsilon,
        responder_infostates=(states[0], states[1]),
        miss_share=(misses[0], misses[1]),
        responder_choice=(choices[0], choices[1]),
        method=(
            "per seat: outcome-sampling MCCFR responder (key "
            f"{responder_key}, epsilon {responder_epsilon:g}) trained "
            + (
                f"{train_iterations:,} iterations"
                if train_iterations is not None
                else f"{train_seconds:g} s"
            )
            + " against the frozen strategy; its "
            f"average or greedy (argmax) strategy, whichever did better in {selection_games} "
            f"games each, then played {games} fresh sampled games; "
            "bound = mean of the two responder values, 95% normal interval"
        ),
    )
