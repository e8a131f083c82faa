"""Exact belief tracking, checked against brute-force enumeration of every history."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from complots_solver.rules import core
from complots_solver.rules.layout import S_CUR
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.tracker import BeliefTracker, public_token
from complots_solver.solvers.knowledge.hypotheses import Memory

CHANCE, TERMINAL = -1, -4


def _weight(pub: tuple[int, ...], private: tuple[int, ...], action: int) -> float:
    """A fixed pseudo-random positive weight of an action at an information state."""
    digest = hashlib.blake2b(repr((pub, private, action)).encode(), digest_size=8).digest()
    return 0.05 + int.from_bytes(digest, "little") / 2**64


def _legal(state: np.ndarray, cfg: np.ndarray) -> list[int]:
    out = np.empty(128, dtype=np.int32)
    return out[: core.legal_actions_into(state, cfg, out)].tolist()


def _prob(pub, private, action, legal) -> float:
    total = sum(_weight(pub, private, a) for a in legal)
    return _weight(pub, private, action) / total


def _enumerate(cfg: np.ndarray, target: tuple[int, ...]) -> dict[bytes, float]:
    """Posterior over final states of every history whose public tokens equal ``target``."""
    players = int(cfg[0])
    out: dict[bytes, float] = {}
    outs = np.empty(64, dtype=np.int32)
    probs = np.empty(64)

    def walk(state, pub, privs, reach):
        if len(pub) == len(target):
            key = state.tobytes()
            out[key] = out.get(key, 0.0) + reach
            return
        cur = int(state[S_CUR])
        if cur == TERMINAL:
            return
        if cur == CHANCE:
            k = core.chance_outcomes_into(state, cfg, outs, probs)
            moves = [(int(outs[i]), float(probs[i])) for i in range(k)]
        else:
            legal = _legal(state, cfg)
            moves = [(a, _prob(pub, privs[cur], a, legal)) for a in legal]
        for a, p in moves:
            tok = int(core.observation_token(state, a, core.PUBLIC_VIEWER))
            if tok != target[len(pub)]:
                continue
            new_privs = list(privs)
            for q in range(players):
                tq = int(core.observation_token(state, a, q))
                if tq != tok:
                    new_privs[q] = privs[q] + (tq,)
            child = state.copy()
            core.apply_action(child, cfg, a)
            walk(child, pub + (tok,), tuple(new_privs), reach * p)

    walk(core.initial_state(cfg), (), tuple(() for _ in range(players)), 1.0)
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


def _sample_public_history(cfg: np.ndarray, seed: int, length: int) -> list[int]:
    rng = np.random.default_rng(seed)
    state = core.initial_state(cfg)
    outs = np.empty(64, dtype=np.int32)
    probs = np.empty(64)
    tokens = []
    while int(state[S_CUR]) != TERMINAL and len(tokens) < length:
        if int(state[S_CUR]) == CHANCE:
            k = core.chance_outcomes_into(state, cfg, outs, probs)
            a = int(outs[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        else:
            legal = _legal(state, cfg)
            a = int(legal[rng.integers(len(legal))])
        tokens.append(public_token(state, a))
        core.apply_action(state, cfg, a)
    return tokens


class _PerfectRecallPolicy:
    """The test strategy seen through the tracker: its weights from the public and private tokens."""

    def __init__(self, cfg: np.ndarray) -> None:
        self.cfg = cfg
        self.pub: tuple[int, ...] = ()
        self.private_of: dict[int, tuple[int, ...]] = {0: ()}

    def __call__(self, states, xs, actor, moves, knows):
        out = np.empty(len(moves))
        for i, (s, x, a) in enumerate(zip(states, xs, moves, strict=False)):
            out[i] = _prob(self.pub, self.private_of[int(x[actor])], int(a), _legal(s, self.cfg))
        return out


def _track_private_sequences(tracker: BeliefTracker, policy: _PerfectRecallPolicy, before) -> None:
    """Map every PERFECT id now present to its private token sequence (ids are hash chains)."""
    from complots_solver.solvers.knowledge.hypotheses import mix

    for x_old, seq in list(policy.private_of.items()):
        for tok in before:
            policy.private_of.setdefault(int(mix(x_old, tok)), seq + (tok,))


THREE_PLAYERS = "complots(players=3,lineup=inquisitor,influence=1,max_turns=2)"


@pytest.mark.parametrize(
    "game,seed",
    [("ladder-1-inquisitor", s) for s in range(4)] + [(THREE_PLAYERS, s) for s in range(3)],
)
def test_perfect_memory_posterior_matches_enumeration(game: str, seed: int) -> None:
    """Under a history-dependent strategy, the tracker's posterior over states is the exact one.

    Also at a 3-player table, where each player's private tokens and the
    strategy's dependence on them come from three seats.
    """
    config, _ = resolve_game(game)
    cfg = config.to_array()
    players = config.players
    # brute force grows with every seat's private branching: shorter histories at 3 players
    tokens = _sample_public_history(cfg, seed, 12 if players == 2 else 8)
    tracker = BeliefTracker(cfg, Memory.PERFECT)
    policy = _PerfectRecallPolicy(cfg)
    for i, tok in enumerate(tokens):
        # private tokens a player may see at this step, to name the new ids
        candidates = set()
        for s in tracker.hyps.states:
            if int(s[S_CUR]) == CHANCE:
                outs = np.empty(64, np.int32)
                k = core.chance_outcomes_into(s, cfg, outs, np.empty(64))
                moves = outs[:k].tolist()
            else:
                moves = _legal(s, cfg)
            for a in moves:
                for q in range(players):
                    candidates.add(int(core.observation_token(s, a, q)))
        tracker.observe(tok, policy)
        _track_private_sequences(tracker, policy, candidates)
        policy.pub = policy.pub + (tok,)
        expected = _enumerate(cfg, tuple(tokens[: i + 1]))
        got: dict[bytes, float] = {}
        for s, w in zip(tracker.hyps.states, tracker.hyps.weights, strict=False):
            got[s.tobytes()] = got.get(s.tobytes(), 0.0) + float(w)
        assert set(got) == set(expected)
        for key, p in expected.items():
            assert got[key] == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("memory", [Memory.CANONICAL, Memory.SUMMARY])
def test_merged_memories_keep_the_exact_posterior_over_states(memory: Memory) -> None:
    """Merging information states never changes the posterior over hidden states (uniform play)."""
    config, _ = resolve_game("ladder-2-ambassador")
    cfg = config.to_array()
    for seed in range(3):
        tokens = _sample_public_history(cfg, seed, 30)
        merged = BeliefTracker(cfg, memory)
        perfect = BeliefTracker(cfg, Memory.PERFECT)
        for tok in tokens:
            merged.observe(tok)
            perfect.observe(tok)
        assert len(merged) <= len(perfect)

        def by_state(tr):
            out: dict[bytes, float] = {}
            for s, w in zip(tr.hyps.states, tr.hyps.weights, strict=False):
                out[s.tobytes()] = out.get(s.tobytes(), 0.0) + float(w)
            return out

        a, b = by_state(merged), by_state(perfect)
        assert set(a) == set(b)
        for key in a:
            assert a[key] == pytest.approx(b[key], abs=1e-12)


def test_impossible_token_is_refused() -> None:
    """A public token no hypothesis can produce is a ValueError naming the token."""
    config, _ = resolve_game("ladder-1-ambassador")
    tracker = BeliefTracker(config.to_array())
    with pytest.raises(ValueError, match="token"):
        tracker.observe(123456789)
