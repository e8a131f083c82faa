"""The strategy being measured, asked about many hidden states at once.

A best responder needs more than ``action_probabilities`` at the real
state: the belief over the strategy player's private state weighs every
hypothesis by what the strategy would have done there, and rollouts play
the strategy from sampled worlds. :class:`BoundStrategy` is that interface,
over :class:`~..rows.batch.Rows`:

- ``matrix(rows, live=True)``: the strategy's probabilities (over all action
  ids) for the player to move in each row, where every row sits at the
  current public node of its real game (``rows.game``). This is the
  strategy itself, exactly.
- ``matrix(rows, live=False)``: the same for rollout rows that have left
  the real game. A strategy whose moves depend on the public history beyond
  the row (the policy network reads the public belief) may answer with an
  approximation here (:meth:`NetStrategy.matrix` says which): rollouts only
  value the responder's moves, so they change how strong the responder is,
  never the validity of the bound.
- ``start(games)`` and ``advance(game, states, moves)``: the public
  context of each real game, moved along with it.

Adapters: :class:`TabularStrategy` (a slot-aligned strategy on a
compiled exact tree, for the ladder, where the exact best response is
known), :class:`NetStrategy` (the belief solver's distilled policy network,
with the exact public belief of ``netplay.NetPlayer``) and
:class:`~..rows.table.TableStrategy` (a league self-play table network, the
2-player draft's shipped strategies).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.layout import (
    C_EXTENDED,
    NUM_MULTISETS,
    S_CUR,
    num_distinct_actions,
)
from complots_solver.solvers.belief.netplay import NetPlayer, belief_marginals
from complots_solver.solvers.belief.policy_net import (
    NUM_DECISION_FEATURES,
    PolicyNet,
    decision_features,
)
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.tree import NodeKind, Tree
from complots_solver.solvers.knowledge.belief_features import turn_scale
from complots_solver.solvers.knowledge.hypotheses import Memory, mix
from complots_solver.solvers.rows.batch import PUB_SEED, Rows

TERMINAL_KIND = int(NodeKind.TERMINAL)
DECISION_KIND = int(NodeKind.DECISION)


class BoundStrategy(Protocol):
    """A fixed 2-player strategy answering for many rows at once (see the module note)."""

    memory: Memory
    num_actions: int

    def start(self, games: int) -> None:
        """Begin ``games`` real games at the initial state."""
        ...

    def advance(self, game: np.ndarray, states: np.ndarray, moves: np.ndarray) -> None:
        """Real game ``game[i]`` moved ``moves[i]`` from ``states[i]`` (chance moves included)."""
        ...

    def freeze(self, game: int) -> None:
        """Rollouts from now on start at the current public node of real game ``game``."""
        ...

    def matrix(self, rows: Rows, live: bool) -> np.ndarray:
        """Probabilities over all action ids for the player to move in each row."""
        ...

    def exact_value(self) -> float | None:
        """Seat 0's exact value when both seats play the strategy, if known."""
        ...


@njit(cache=True)
def info_keys(pubs, xs, states, out):
    """Key of the information state of the player to move: public chain and private id."""
    for i in range(states.shape[0]):
        p = states[i, S_CUR]
        out[i] = mix(mix(pubs[i], xs[i, p]), p + 3)


class TabularStrategy:
    """A slot-aligned strategy on a compiled exact tree, looked up by information state.

    Every decision node of the tree is walked once with the rules core to
    compute its information-state key (public token chain and the actor's
    PERFECT id); two infosets with one key, or one infoset with two, raise.
    """

    memory = Memory.PERFECT

    def __init__(self, cfg: np.ndarray, tree: Tree, strategy: np.ndarray) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        self.tree = tree
        self.strategy = np.ascontiguousarray(strategy, dtype=np.float64)
        if self.strategy.shape != (tree.num_slots,):
            raise ValueError(f"strategy: shape ({tree.num_slots},) expected, got {strategy.shape}")
        self.num_actions = num_distinct_actions(int(self.cfg[0]), bool(self.cfg[C_EXTENDED]))
        dense = np.zeros((tree.num_infosets, self.num_actions))
        lens = np.diff(tree.action_offsets)
        rows = np.repeat(np.arange(tree.num_infosets), lens)
        dense[rows, tree.legal_actions] = np.maximum(self.strategy, 0.0)
        totals = dense.sum(axis=1, keepdims=True)
        uniform = np.zeros_like(dense)
        uniform[rows, tree.legal_actions] = 1.0
        uniform /= np.maximum(uniform.sum(axis=1, keepdims=True), 1.0)
        self.dense = np.where(totals > 0, dense / np.where(totals > 0, totals, 1.0), uniform)
        keys, infos = _tree_keys(self.cfg, tree)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.infos = infos[order]

    def start(self, games: int) -> None:
        """Nothing to follow: the strategy reads only the information state."""

    def advance(self, game: np.ndarray, states: np.ndarray, moves: np.ndarray) -> None:
        """Nothing to follow."""

    def freeze(self, game: int) -> None:
        """Rollouts are exact."""

    def infosets(self, rows: Rows) -> np.ndarray:
        """Infoset of the player to move in each row; ValueError if one is not in the tree."""
        keys = np.empty(len(rows), dtype=np.int64)
        info_keys(rows.pubs, rows.xs, rows.states, keys)
        pos = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        if not (self.keys[pos] == keys).all():
            raise ValueError("rows: a decision that is not in the strategy's tree")
        return self.infos[pos]

    def matrix(self, rows: Rows, live: bool) -> np.ndarray:
        """The strategy's rows (exact in rollouts too)."""
        return self.dense[self.infosets(rows)]

    def exact_value(self) -> float | None:
        """Seat 0's value of the strategy against itself, on the tree."""
        return game_value(self.tree, self.strategy)


def _tree_keys(cfg: np.ndarray, tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """(key, infoset) of every infoset of ``tree``, checked one-to-one (see TabularStrategy)."""
    keys = np.zeros(tree.num_infosets, dtype=np.int64)
    status = _walk_keys(
        tree.kind.astype(np.int64),
        tree.infoset.astype(np.int64),
        tree.child_offsets.astype(np.int64),
        tree.children.astype(np.int64),
        tree.action_offsets.astype(np.int64),
        tree.legal_actions.astype(np.int32),
        cfg,
        keys,
    )
    if status == 1:
        raise ValueError("tree: one information set has two keys")
    if status == 2:
        raise ValueError("tree: too deep for the key walk")
    if len(np.unique(keys)) != tree.num_infosets:
        raise ValueError("tree: two information sets share one key")
    return keys, np.arange(tree.num_infosets, dtype=np.int64)


STACK = 1 << 16


@njit(cache=True)
def _walk_keys(kind, infoset, child_offsets, children, action_offsets, legal_actions, cfg, keys):
    """Depth-first walk of the tree with the rules core; the key of every infoset (0: fine)."""
    players = cfg[0]
    state0 = core.initial_state(cfg)
    width = state0.shape[0]
    st = np.empty((STACK, width), dtype=np.int32)
    xs = np.zeros((STACK, players), dtype=np.int64)
    pubs = np.empty(STACK, dtype=np.int64)
    nodes = np.empty(STACK, dtype=np.int64)
    done = np.zeros(keys.shape[0], dtype=np.bool_)
    outcomes = np.empty(64, dtype=np.int32)
    probs = np.empty(64, dtype=np.float64)
    moves = np.empty(256, dtype=np.int32)
    st[0] = state0
    pubs[0] = PUB_SEED
    nodes[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        node = nodes[sp]
        k = kind[node]
        if k == TERMINAL_KIND:
            continue
        s = st[sp].copy()
        x = xs[sp].copy()
        pub = pubs[sp]
        if k == DECISION_KIND:
            info = infoset[node]
            p = s[S_CUR]
            key = mix(mix(pub, x[p]), p + 3)
            if done[info] and keys[info] != key:
                return 1
            done[info] = True
            keys[info] = key
            m = action_offsets[info + 1] - action_offsets[info]
            for j in range(m):
                moves[j] = legal_actions[action_offsets[info] + j]
        else:
            m = core.chance_outcomes_into(s, cfg, outcomes, probs)
            for j in range(m):
                moves[j] = outcomes[j]
        if sp + m > STACK:
            return 2
        for j in range(m):
            a = moves[j]
            child = st[sp + j]
            for i in range(width):
                child[i] = s[i]
            tok_pub = core.observation_token(s, a, core.PUBLIC_VIEWER)
            for q in range(players):
                tok = core.observation_token(s, a, q)
                xs[sp + j, q] = mix(x[q], tok) if tok != tok_pub else x[q]
            core.apply_action(child, cfg, a)
            pubs[sp + j] = mix(pub, tok_pub)
            nodes[sp + j] = children[child_offsets[node] + j]
        sp += m
    return 0


@njit(cache=True)
def _frozen_features(states, knows, margs, cfg, feats, legal):
    """Decision features of each row with the frozen marginals of the row's actor and the other."""
    moves = np.empty(legal.shape[1] + 32, dtype=np.int32)
    scale = turn_scale(cfg)
    for i in range(states.shape[0]):
        me = states[i, S_CUR]
        decision_features(states[i], margs[me], margs[1 - me], knows[i], feats[i], scale)
        for a in range(legal.shape[1]):
            legal[i, a] = 0.0
        k = core.legal_actions_into(states[i], cfg, moves)
        for j in range(k):
            legal[i, moves[j]] = 1.0


class NetStrategy:
    """The distilled policy network as ``solved`` plays it (``netplay.NetPlayer``).

    Live: each real game keeps a :class:`NetPlayer` whose tracker is the
    exact public belief under the network; a row's probabilities are the
    network's at the row's state, its actor's knowledge and that belief,
    as ``NetPlayer.action_probabilities`` computes them. Rollouts: the
    public belief is frozen at the node where the rollout started (each
    player's hand marginal there); following it along every rollout would
    cost a full belief update per step.
    """

    memory = Memory.SUMMARY
    rollout_note = " with the public belief frozen"

    def __init__(self, cfg: np.ndarray, policy: PolicyNet, num_actions: int) -> None:
        self.cfg = np.ascontiguousarray(cfg, dtype=np.int32)
        if int(self.cfg[0]) != 2:
            raise ValueError("cfg: the network strategy plays 2-player games")
        self.policy = policy
        self.num_actions = num_actions
        self.players: list[NetPlayer] = []
        self.histories: list[list[int]] = []
        self.frozen = np.full((2, NUM_MULTISETS), 1.0 / NUM_MULTISETS)

    def start(self, games: int) -> None:
        """One public belief per real game."""
        self.players = [NetPlayer(self.cfg, 0, self.policy, self.num_actions) for _ in range(games)]
        self.histories = [[] for _ in range(games)]

    def advance(self, game: np.ndarray, states: np.ndarray, moves: np.ndarray) -> None:
        """Each listed game's belief follows its move."""
        for g, a in zip(game.tolist(), moves.tolist(), strict=True):
            self.histories[g].append(int(a))
            self.players[g].observe(self.histories[g])

    def _marginals(self, game: int) -> tuple[np.ndarray, np.ndarray]:
        return belief_marginals(self.players[game].tracker)

    def freeze(self, game: int) -> None:
        """Each player's hand marginal at game ``game``'s current (decision) node."""
        tracker = self.players[game].tracker
        me = int(tracker.hyps.states[0, S_CUR])
        if me < 0:
            raise ValueError("game: rollouts start at a decision node")
        first, second = self._marginals(game)
        self.frozen[me] = first
        self.frozen[1 - me] = second

    def matrix(self, rows: Rows, live: bool) -> np.ndarray:
        """The network's probabilities (exact when live; frozen public belief otherwise)."""
        n = len(rows)
        out = np.zeros((n, self.num_actions))
        if n == 0:
            return out
        if live:
            for g in np.unique(rows.game).tolist():
                idx = np.flatnonzero(rows.game == g)
                player = self.players[g]
                out[idx] = player.model.probabilities(
                    rows.states[idx], rows.knows[idx], self._marginals(g), self.cfg
                )
            return out
        feats = np.empty((n, NUM_DECISION_FEATURES), dtype=np.float32)
        legal = np.empty((n, self.num_actions), dtype=np.float32)
        _frozen_features(rows.states, rows.knows, self.frozen, self.cfg, feats, legal)
        return self.policy.probabilities(feats, legal)

    def exact_value(self) -> float | None:
        """Not known for the full game."""
        return None
