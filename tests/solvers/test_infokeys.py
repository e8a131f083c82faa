"""The markov key's memory: claims, and the Court cards a player knows (scheme version 2)."""

from __future__ import annotations

import numpy as np
import pyspiel

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Clan
from complots_solver.solvers.mccfr.infokeys import (
    CLAIM_BITS,
    KEY_MARKOV,
    KNOWN_SHIFT,
    init_keys,
    key_after_history,
    step_keys,
)
from tests.helpers import deal_hands, load, play

PARAMS = {"players": 2, "variant": "deal"}


def _replay(history: list[int]) -> np.ndarray:
    """Per-seat markov memory words after ``history`` (replayed through step_keys)."""
    cfg = GameConfig.from_params(PARAMS).to_array()
    s = core.initial_state(cfg)
    hashes = np.zeros(2, dtype=np.uint64)
    memory = np.zeros(2, dtype=np.int64)
    new_hashes, new_memory = hashes.copy(), memory.copy()
    init_keys(cfg, hashes, memory)
    for a in history:
        step_keys(s, cfg, a, KEY_MARKOV, hashes, memory, new_hashes, new_memory)
        core.apply_action(s, cfg, a)
        memory[:] = new_memory
    return memory


def _known(word: int) -> dict[Clan, int]:
    """Known-Court counts by clan from a memory word."""
    return {
        c: (int(word) >> (KNOWN_SHIFT + 2 * c)) & 3
        for c in Clan
        if (int(word) >> (KNOWN_SHIFT + 2 * c)) & 3
    }


def _exchange(draw: str, keep: str) -> pyspiel.State:
    """Seat 0 (Ambassador+Duchess) exchanges, drawing ``draw`` and keeping ``keep``; seat 1 takes Income."""
    s = load(**PARAMS).new_initial_state()
    deal_hands(s, "Ambassador+Duchess", "Captain+Countess")
    play(s, "Exchange")
    play(s, "Pass")
    deal_hands(s, f"Draw {draw}")
    play(s, f"Keep {keep}")
    play(s, "Income")
    return s


def test_exchange_remembers_returned_cards_for_the_actor_only() -> None:
    s = _exchange("Assassin+Captain", "Assassin+Captain")
    memory = _replay(s.history())
    assert _known(memory[0]) == {Clan.COLLECTOR: 1, Clan.NEGOTIATOR: 1}  # Duchess, Ambassador
    assert _known(memory[1]) == {}
    assert memory[0] & CLAIM_BITS == 0  # new cards: the claim memory starts again
    assert memory[1] & CLAIM_BITS == 0  # Income claims nothing


def test_returned_cards_change_the_actors_key_but_not_the_opponents() -> None:
    cfg = GameConfig.from_params(PARAMS).to_array()
    a = _exchange("Assassin+Captain", "Duchess+Ambassador")
    b = _exchange("Countess+Countess", "Duchess+Ambassador")
    # Seat 0 to move in both, with the same hand and the same public history.
    key_a, seat_a = key_after_history(cfg, KEY_MARKOV, np.array(a.history()))
    key_b, seat_b = key_after_history(cfg, KEY_MARKOV, np.array(b.history()))
    assert seat_a == seat_b == 0
    assert key_a != key_b
    # Seat 1 to move after the same Income by seat 0: it cannot tell the two apart.
    play(a, "Income")
    play(b, "Income")
    key_a, seat_a = key_after_history(cfg, KEY_MARKOV, np.array(a.history()))
    key_b, seat_b = key_after_history(cfg, KEY_MARKOV, np.array(b.history()))
    assert seat_a == seat_b == 1
    assert key_a == key_b


def test_a_true_claims_card_is_known_to_the_challenger_and_forgotten_by_the_drawer() -> None:
    s = load(**PARAMS).new_initial_state()
    deal_hands(s, "Duchess+Assassin", "Captain+Countess")
    play(s, "Tax")
    play(s, "Challenge")
    deal_hands(s, "Draw Ambassador")  # the shown Duchess went in; seat 0 draws a replacement
    memory = _replay(s.history())
    assert _known(memory[1]) == {Clan.COLLECTOR: 1}
    assert _known(memory[0]) == {}
    assert memory[0] & CLAIM_BITS == 0  # seat 0 got a new card: its claims are forgotten


class _ClaimWatcher:
    """Replays a game's moves through step_keys and checks the claim bits of C2 claims."""

    def __init__(self, cfg: np.ndarray, seen: dict[str, int]) -> None:
        from complots_solver.rules.layout import X_WITCH, c2_base

        n = int(cfg[0])
        self.cfg, self.seen = cfg, seen
        self.hashes = np.zeros(n, dtype=np.uint64)
        self.memory = np.zeros(n, dtype=np.int64)
        init_keys(cfg, self.hashes, self.memory)
        self.witch = c2_base(n) + X_WITCH

    def __call__(self, before: np.ndarray, a: int, after: np.ndarray) -> None:
        """Check the memory after one move."""
        from complots_solver.rules.enums import Stage
        from complots_solver.rules.layout import A_PASS, S_CUR, S_STAGE

        new_h, new_m = self.hashes.copy(), self.memory.copy()
        step_keys(before, self.cfg, a, KEY_MARKOV, self.hashes, self.memory, new_h, new_m)
        st, cur = before[S_STAGE], before[S_CUR]
        if st == Stage.ILLUSION_CLAIM and a != A_PASS:
            assert new_m[cur] & (1 << Clan.COLLECTOR)
            self.seen["illusion"] += 1
        elif st == Stage.UNDERTAKER_CLAIM and a != A_PASS:
            assert new_m[cur] & (1 << Clan.UNTOUCHABLE)
            self.seen["undertaker"] += 1
        elif self.witch <= a < self.witch + len(Clan) and cur >= 0:
            assert new_m[cur] & (1 << Clan.UNTOUCHABLE)
            self.seen["witch"] += 1
        self.memory[:] = new_m


def test_complots2_claims_enter_the_claim_memory() -> None:
    """Illusionniste co-claims, Croque-Mort claims and Sorciere claims set the claimant's bit."""
    from tests.helpers import COMPLOTS2_SETS, random_core_game

    seen = {"illusion": 0, "undertaker": 0, "witch": 0}
    for name, players in (("expert", 4), ("catechumene", 3)):
        params = {"players": players, "characters": COMPLOTS2_SETS[name]}
        cfg = GameConfig.from_params(params).to_array()
        for seed in range(60):
            random_core_game(cfg, seed, _ClaimWatcher(cfg, seen))
    assert all(v > 0 for v in seen.values()), seen  # every window was exercised
