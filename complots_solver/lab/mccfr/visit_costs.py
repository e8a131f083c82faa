"""Where an MCCFR visit's time goes: the rules core, then each part a visit adds (``scripts/visit_costs.py``).

``walk`` plays random games of GAME (default ladder-2-ambassador) with a
compiled loop that adds, level by level, what an MCCFR visit does on top of a
rules step; each level's nanoseconds per step is the best of ``--rounds``
interleaved rounds (the benchmark VM's speed changes from second to second):

0. the rules core: legal actions, a uniform draw, ``apply_action`` in place;
1. + the perfect-recall keys of every seat (``infokeys.step_keys``);
2. + a look-up (and insertion) of the mover's key in a hash index
   (``mccfr.table.probe`` over a 4M-slot ``slots`` array);
3. + regret matching over a pool row and a draw from it;
4. + a copy of the state before each step (what an ES traverser's node does).

``pages`` times random reads and writes over an array allocated by numba
without and with ``advise_huge_pages`` (4 KiB against 2 MiB pages).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import advise_huge_pages, borrow, keep_alive
from complots_solver.rules.enums import PlayerId, Stage
from complots_solver.rules.layout import C_PLAYERS, MAX_CHANCE_OUTCOMES, S_CUR, S_STAGE, STATE_SIZE
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.mccfr.infokeys import KEY_PERFECT, init_keys, key_of, step_keys
from complots_solver.solvers.mccfr.table import (
    NO_ROW,
    SL_KEY,
    SL_ROW,
    SL_START,
    empty_slots,
    probe,
    regret_matching,
    sample,
)

LEVELS = ("rules core", "+ perfect keys", "+ hash look-up", "+ regret matching", "+ state copy")
INDEX_SLOTS = 1 << 22
ROW_WIDTH = 8  # pool entries reserved per inserted key
GAMES_PER_CALL = 20000
_CHANCE = int(PlayerId.CHANCE)
_TERMINAL = int(Stage.TERMINAL)


@njit(cache=True)
def _walk(cfg, games, rng, level, slots, regret):
    """Play ``games`` random games doing the work of ``level``; return the steps taken."""
    n = cfg[C_PLAYERS]
    states_own = np.empty((2, STATE_SIZE), dtype=np.int32)
    hashes_own = np.zeros((2, n), dtype=np.uint64)
    memory_own = np.zeros((2, n), dtype=np.int64)
    acts_own = np.empty(64, dtype=np.int32)
    sigma_own = np.empty(64)
    outcomes_own = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    probs_own = np.empty(MAX_CHANCE_OUTCOMES)
    states = borrow(states_own)
    hashes = borrow(hashes_own)
    memory = borrow(memory_own)
    acts = borrow(acts_own)
    sigma = borrow(sigma_own)
    outcomes = borrow(outcomes_own)
    probs = borrow(probs_own)
    rows = 0
    steps = 0
    for _ in range(games):
        cur_row = 0
        hash_row = 0
        core.reset_state(states[0], cfg)
        init_keys(cfg, hashes[0], memory[0])
        while states[cur_row, S_STAGE] != _TERMINAL:
            s = states[cur_row]
            steps += 1
            if s[S_CUR] == _CHANCE:
                a = core.sample_chance(s, cfg, rng, outcomes, probs)
            else:
                k = core.legal_actions_into(s, cfg, acts)
                if level >= 2:
                    key = key_of(s, cfg, KEY_PERFECT, hashes[hash_row], memory[hash_row])
                    i = probe(slots, key)
                    if slots[i, SL_ROW] == NO_ROW and (rows + 1) * ROW_WIDTH <= regret.shape[0]:
                        slots[i, SL_KEY] = key
                        slots[i, SL_ROW] = rows
                        slots[i, SL_START] = rows * ROW_WIDTH
                        rows += 1
                    if level >= 3:
                        regret_matching(regret, slots[i, SL_START], k, sigma)
                        j = sample(sigma, k, rng)
                    else:
                        j = int(rng.random() * k)
                else:
                    j = int(rng.random() * k)
                a = acts[j]
            if level >= 1:
                step_keys(
                    s, cfg, a, KEY_PERFECT, hashes[hash_row], memory[hash_row],
                    hashes[1 - hash_row], memory[1 - hash_row],
                )  # fmt: skip
                hash_row = 1 - hash_row
            if level >= 4:
                core.copy_state(states[1 - cur_row], s)
                cur_row = 1 - cur_row
            core.apply_action(states[cur_row], cfg, a)
    keep_alive(states_own, hashes_own, memory_own, acts_own, sigma_own, outcomes_own, probs_own)
    return steps


def walk(game: str = "ladder-2-ambassador", seconds: float = 1.0, rounds: int = 4) -> None:
    """Print the best nanoseconds per step of each level."""
    config, _ = resolve_game(game)
    cfg = config.to_array()
    best = [float("inf")] * len(LEVELS)
    for _ in range(rounds):
        for level in range(len(LEVELS)):
            slots = empty_slots(INDEX_SLOTS)
            regret = np.random.default_rng(0).standard_normal(INDEX_SLOTS * ROW_WIDTH // 2)
            rng = np.random.default_rng(1)
            _walk(cfg, 100, rng, level, slots, regret)  # compiles, warms the caches
            steps = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                steps += _walk(cfg, GAMES_PER_CALL, rng, level, slots, regret)
            best[level] = min(best[level], (time.perf_counter() - start) / steps * 1e9)
    print(f"{game}: best of {rounds} rounds of {seconds:g} s per level (ns per step)")
    for level, name in enumerate(LEVELS):
        added = best[level] - best[level - 1] if level else best[level]
        print(f"{level} {name:20s} {best[level]:7.1f} ns  ({added:+.1f})")


@njit(cache=True)
def _numba_array(n, huge):
    """An int64 array allocated by numba, with or without asking for huge pages."""
    a = np.empty(n, dtype=np.int64)
    if huge:
        advise_huge_pages(a)
    a[:] = 1
    return a


@njit(cache=True)
def _random_access(a, n, seed):
    """``n`` dependent-free random read-modify-writes over ``a`` (a power-of-two length)."""
    mask = a.shape[0] - 1
    x = np.uint64(seed)
    acc = 0
    for _ in range(n):
        x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        j = np.int64(x >> np.uint64(20)) & mask
        acc += a[j]
        a[j] = acc
    return acc


def pages(megabytes: int, rounds: int = 2, accesses: int = 5_000_000) -> None:
    """Print nanoseconds per random access on 4 KiB and on huge pages."""
    n = 1 << (megabytes * (1 << 20) // 8).bit_length() - 1
    for _ in range(rounds):
        for huge in (False, True):
            a = _numba_array(n, huge)
            _random_access(a, 1000, 1)
            start = time.perf_counter()
            _random_access(a, accesses, 2)
            per = (time.perf_counter() - start) / accesses * 1e9
            label = "huge pages" if huge else "4 KiB pages"
            print(f"{n * 8 >> 20} MiB, {label:12s}: {per:.1f} ns per random access")
            del a
