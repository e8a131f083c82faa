"""A table network as an exact strategy of a small 2-player game, for exact exploitability.

A table network reads only what the seat to move knows (the public record,
its own cards, knowledge and draft, what it was shown), so on a perfect-recall
tree it plays one distribution per information set. Each information set's
features are computed by replaying the moves to its representative node with
the same :class:`~..knowledge.table_features.TableMemory` updates the playing bot makes (in
numba, in chunks), the network is evaluated on the chunk, and the project's
exact best response measures the resulting strategy. This is how the
league self-play method is held to the ladder's known answers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import C_EXTENDED, C_PLAYERS, MAX_CHANCE_OUTCOMES, S_CUR
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.complots_tree import _path_to, compile_complots_tree
from complots_solver.solvers.knowledge.hypotheses import KNOW_SIZE
from complots_solver.solvers.knowledge.table_features import (
    MAX_MEMORY,
    NO_TOKEN,
    RECORD_SIZE,
    decision_row_memory,
    memory_of,
    observe_move,
    push_tokens,
    relative_action,
)
from complots_solver.solvers.nets.tablenet import TableNet

CHUNK = 65536  # information sets whose features are held at once
NO_VIEWERS = np.zeros(0, dtype=np.int64)
NO_SUFFIX = np.zeros((0, 0), dtype=np.int64)


@njit(cache=True)
def _chunk_rows(
    cfg, child_offsets, children, representative, start, stop, width, max_depth, feats, legal, me,
    viewers, suffix, memory=0,
):  # fmt: skip
    """Features (with the seat's last ``memory`` observations, as the playing bot keeps them),
    legal masks and the seat to move of information sets ``start:stop``; with a ``suffix`` of
    k > 0 columns, also the last k observation tokens of ``viewers[i]`` (-1 before the first)."""
    n = cfg[C_PLAYERS]
    extended = cfg[C_EXTENDED] != 0
    ranks = np.empty(max_depth + 1, dtype=np.int64)
    moves = np.empty(width, dtype=np.int32)
    probs = np.empty(width, dtype=np.float64)
    k = suffix.shape[1]
    tokens = np.empty(max_depth + 1, dtype=np.int64)
    for i in range(start, stop):
        depth = _path_to(child_offsets, children, representative[i], ranks)
        s = core.initial_state(cfg)
        record = np.zeros((n, RECORD_SIZE), dtype=np.float32)
        seen = np.zeros((n, n, NUM_CLANS), dtype=np.float32)
        know = np.zeros((n, KNOW_SIZE), dtype=np.int32)
        draft = np.full((n, 2), -1, dtype=np.int32)
        ring = np.full((n, MAX_MEMORY if memory > 0 else 0), NO_TOKEN, dtype=np.int64)
        for d in range(depth):
            if s[S_CUR] == -1:
                core.chance_outcomes_into(s, cfg, moves, probs)
            else:
                core.legal_actions_into(s, cfg, moves)
            a = moves[ranks[d]]
            if k:
                tokens[d] = core.observation_token(s, a, viewers[i])
            before = s.copy()
            push_tokens(before, a, cfg, ring)  # nothing to keep when the ring is empty
            core.apply_action(s, cfg, a)
            observe_move(before, a, s, cfg, record, seen, know, draft)
        for j in range(k):
            suffix[i - start, j] = tokens[depth - k + j] if depth - k + j >= 0 else -1
        p = s[S_CUR]
        me[i - start] = p
        decision_row_memory(
            s, cfg, p, record, seen, know, draft, ring, memory, feats[i - start],
            legal[i - start], moves, extended,
        )  # fmt: skip


@njit(cache=True)
def _fill_strategy(action_offsets, legal_actions, start, stop, me, probs, n, extended, out):
    """Each information set's probabilities, in the compiled tree's action order."""
    for i in range(start, stop):
        p = me[i - start]
        for k in range(action_offsets[i], action_offsets[i + 1]):
            out[k] = probs[i - start, relative_action(legal_actions[k], p, n, extended)]


def table_tree_strategy(config: GameConfig, net: TableNet, tree: object) -> np.ndarray:
    """The network's probabilities on every information set of ``tree`` (compiled, perfect recall)."""
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    try:
        memory = memory_of(net.num_features, cfg)
    except ValueError:
        raise ValueError("net: trained on another game's features") from None
    if net.num_actions != config.num_distinct_actions():
        raise ValueError("net: its actions do not match this game")
    infosets = int(tree.action_offsets.shape[0] - 1)
    keys = tree.keys  # the arrays the representatives index (pre-order, as walked)
    representative = np.ascontiguousarray(keys.representative, dtype=np.int64)
    width = max(config.num_distinct_actions(), MAX_CHANCE_OUTCOMES)
    max_depth = config.max_game_length()
    out = np.empty(int(tree.action_offsets[-1]), dtype=np.float64)
    extended = bool(cfg[C_EXTENDED])
    for start in range(0, infosets, CHUNK):
        stop = min(start + CHUNK, infosets)
        feats = np.empty((stop - start, net.num_features), dtype=np.float32)
        legal = np.empty((stop - start, net.num_actions), dtype=np.float32)
        me = np.empty(stop - start, dtype=np.int32)
        _chunk_rows(
            cfg, keys._child_offsets, keys._children, representative, start, stop, width,
            max_depth, feats, legal, me, NO_VIEWERS, NO_SUFFIX, memory,
        )  # fmt: skip
        if not np.array_equal(me, tree.infoset_player[start:stop]):
            raise AssertionError("a representative node is not its information set's decision")
        probs, _ = net.policy_value(feats, legal)
        _fill_strategy(
            tree.action_offsets, tree.legal_actions, start, stop, me,
            probs.astype(np.float64), int(cfg[C_PLAYERS]), extended, out,
        )  # fmt: skip
    return out


def table_exploitability(config: GameConfig, net: TableNet, tree: object | None = None) -> dict:
    """Exact exploitability (NashConv/2) and seat-0 value of a table network on a small 2-player game."""
    if config.players != 2:
        raise ValueError(f"config: exact exploitability needs 2 players, not {config.players}")
    if tree is None:
        tree = compile_complots_tree(config)
    strategy = table_tree_strategy(config, net, tree)
    return {
        "exploitability": float(tree_exploitability(tree, strategy)),
        "value": float(game_value(tree, strategy)),
        "infosets": int(tree.action_offsets.shape[0] - 1),
    }


@njit(cache=True)
def _own_reach(kind, player, infoset, child_offsets, children, action_offsets, strategy, out):
    """Each information set's reach under its own player's part of ``strategy`` (nodes are
    topologically ordered, parents first)."""
    n = kind.shape[0]
    reach = np.ones((n, 2))
    for node in range(n):
        if kind[node] == 0:  # terminal
            continue
        if kind[node] == 2:
            i = infoset[node]
            p = player[node]
            out[i] = reach[node, p]
            base = action_offsets[i]
            for e in range(child_offsets[node], child_offsets[node + 1]):
                c = children[e]
                reach[c, 0] = reach[node, 0]
                reach[c, 1] = reach[node, 1]
                reach[c, p] *= strategy[base + e - child_offsets[node]]
        else:
            for e in range(child_offsets[node], child_offsets[node + 1]):
                c = children[e]
                reach[c, 0] = reach[node, 0]
                reach[c, 1] = reach[node, 1]


def own_reach(tree: object, strategy: np.ndarray) -> np.ndarray:
    """Per information set, the probability its player's own moves under ``strategy`` lead there."""
    out = np.zeros(int(tree.action_offsets.shape[0] - 1))
    _own_reach(
        tree.kind, tree.player, tree.infoset, tree.child_offsets, tree.children,
        tree.action_offsets, np.ascontiguousarray(strategy, dtype=np.float64), out,
    )  # fmt: skip
    return out


class ReachAverage:
    """The reach-weighted average of behavioural strategies on one tree (Kuhn's theorem): at each
    information set each strategy weighs by how likely it was to bring its player there."""

    def __init__(self, tree: object) -> None:
        self.tree = tree
        self.counts = np.diff(tree.action_offsets)
        self.num = np.zeros(int(tree.action_offsets[-1]))
        self.den = np.zeros(self.counts.shape[0])

    def add(self, strategy: np.ndarray, weight: float = 1.0) -> None:
        """Add one strategy, weighing its information sets by their own reach (times ``weight``:
        ``t`` for the linear average of regret matching+)."""
        reach = weight * own_reach(self.tree, strategy)
        self.num += np.repeat(reach, self.counts) * strategy
        self.den += reach

    def strategy(self, fallback: np.ndarray) -> np.ndarray:
        """The average; ``fallback`` where no strategy added could reach the information set."""
        safe = np.repeat(self.den, self.counts)
        return np.where(safe > 0, self.num / np.where(safe > 0, safe, 1.0), fallback)


def mixture_strategy(tree: object, strategies: list[np.ndarray]) -> np.ndarray:
    """The behavioural strategy of picking one of ``strategies`` uniformly at the start of a game.

    At each information set the members are weighted by how likely each was to bring its player
    there (Kuhn's theorem); where none could, the plain mean is used.
    """
    if not strategies:
        raise ValueError("strategies: at least one")
    average = ReachAverage(tree)
    for s in strategies:
        average.add(s)
    return average.strategy(np.mean(strategies, axis=0))


def average_curve(
    config: GameConfig,
    settings: object,
    iterations: int,
    every: int,
    seed: int = 0,
    log: object = None,
) -> list[dict]:
    """Exact exploitability along a self-play run: the last network, the exact reach-weighted
    average of the snapshots taken every ``every`` iterations, and the average network if the
    settings keep one (``settings``: a SelfPlaySettings without bots; ``log(row)`` per point)."""
    from complots_solver.solvers.selfplay.train import SelfPlayTrainer

    if iterations < 1 or every < 1:
        raise ValueError("iterations and every must be at least 1")
    tree = compile_complots_tree(config)
    trainer = SelfPlayTrainer(config, settings, seed=seed)  # type: ignore[arg-type]
    snapshots = ReachAverage(tree)
    rows = []
    while trainer.iteration < iterations:
        trainer.step(min(every, iterations - trainer.iteration))
        last = table_tree_strategy(config, trainer.net, tree)
        snapshots.add(last)
        average = snapshots.strategy(last)
        row = {
            "iteration": trainer.iteration,
            "last": float(tree_exploitability(tree, last)),
            "snapshot_average": float(tree_exploitability(tree, average)),
            "average_network": float("nan"),
        }
        if trainer.average is not None:
            net = table_tree_strategy(config, trainer.average.net, tree)
            row["average_network"] = float(tree_exploitability(tree, net))
        rows.append(row)
        if log is not None:
            log(row)  # type: ignore[operator]
    return rows
