"""Compile a 2-player Complots game straight from the numba rules core into a :class:`Tree`.

:func:`compile_complots_tree` walks the whole game tree inside numba with an
explicit stack (one state row per depth, no per-node Python) in two passes:
the first counts internal and terminal nodes so that the second can fill
exactly-sized arrays. Nodes are numbered like
:func:`~complots_solver.solvers.exact.tree.compile_openspiel_tree`: non-terminal
nodes in DFS pre-order, then (with ``terminals_last``) the terminals in DFS
pre-order, so both compilers give identical arrays for the same game.

Information sets come from a token trie shared by both players: a player's
trie id after a move is ``trie[(previous id, observation token)]``, the pair
packed into one int64, so two nodes share an id exactly when the player has
seen the same token sequence, which is the player's perfect-recall
information state. Trie ids are mapped to dense infoset ids in order of first
visit, and every node of an infoset is checked to have the infoset's legal
actions. The trie is an open-addressing hash table in a numpy array rather
than a numba typed ``Dict``: it walks ladder-4 about 1.7 times faster and
takes 24-36 bytes per entry.

Infoset keys (OpenSpiel's ``information_state_string``) are not built during
the walk: :class:`~complots_solver.solvers.exact.infoset_keys.InfosetKeys`
remembers one representative node per infoset and rebuilds a key on demand by
replaying the action history of that node through the registered pyspiel game.

The walk runs in a worker thread (it releases the GIL) while the calling
thread waits in steps of 0.1 s, so Ctrl-C is seen at once: the waiting thread
raises the walk's stop flag, the walk returns within a few milliseconds, and
:class:`BuildInterrupted` is raised. Without that, a KeyboardInterrupt waited
for the compiled walk to return, minutes on a large game.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import PlayerId, Stage
from complots_solver.rules.layout import (
    S_CUR,
    S_STAGE,
    STATE_SIZE,
    TOKEN_SPACE,
)
from complots_solver.solvers.exact.infoset_keys import InfosetKeys
from complots_solver.solvers.exact.infoset_keys import _path_to as _path_to  # selfplay/exact.py
from complots_solver.solvers.exact.infoset_keys import move_width as _move_width
from complots_solver.solvers.exact.tree import (
    NO_INFOSET,
    NO_PLAYER,
    NODE_DTYPES,
    NUM_PLAYERS,
    NodeKind,
    Tree,
)

# Observation tokens are < TOKEN_SPACE (layout.py; Complots 2 stages use the
# upper kinds), so (trie id, token) packs into one int64.
NO_TOKEN = -1
INITIAL_CAPACITY = 1024  # a power of two (hash-table rows)
GROWTH_FACTOR = 2
# Trie hash table: rows of (key, value); EMPTY_KEY marks a free row. Fibonacci
# hashing; the table doubles when more than MAX_LOAD_NUM / MAX_LOAD_DEN full.
HT_KEY = 0
HT_VALUE = 1
HT_FIELDS = 2
EMPTY_KEY = -1
HASH_MULTIPLIER = -0x61C8864680B583EB  # 0x9E3779B97F4A7C15 as a signed int64
HASH_SHIFT = 32
MAX_LOAD_NUM = 2
MAX_LOAD_DEN = 3
CHANCE_PLAYER = int(PlayerId.CHANCE)

# Indices into the statistics array returned by the walk.
ST_INTERNAL = 0
ST_TERMINAL = 1
ST_DECISION = 2
ST_CHANCE = 3
ST_EDGES = 4
ST_INFOSETS_P0 = 5  # NUM_PLAYERS entries
ST_SLOTS = ST_INFOSETS_P0 + NUM_PLAYERS
ST_MAX_DEPTH = ST_SLOTS + 1
ST_TRIE = ST_MAX_DEPTH + 1
NUM_STATS = ST_TRIE + 1

_TERMINAL = np.int8(NodeKind.TERMINAL)
_CHANCE = np.int8(NodeKind.CHANCE)
_DECISION = np.int8(NodeKind.DECISION)
_NO_PLAYER = np.int8(NO_PLAYER)
_STAGE_TERMINAL = int(Stage.TERMINAL)

# Status codes of the walk (numba cannot raise with formatted messages).
DONE = 0
NEED_ROOM = 1  # a growable table is full: grow it and resume
ERR_TOO_DEEP = 2
ERR_INFOSET_ACTIONS = 3
STOPPED = 4  # the stop flag was raised (Ctrl-C)
# The walk looks at its stop flag once per this many loop steps (a power of
# two): a few milliseconds apart, and no measurable cost.
STOP_CHECK_STEPS = 1 << 16
WAIT_SECONDS = 0.1  # the waiting thread wakes this often; signals interrupt it anyway
_ERRORS = {
    ERR_TOO_DEEP: "game deeper than config.max_game_length()",
    ERR_INFOSET_ACTIONS: "two nodes of one information set have different legal actions",
}

# Registers of the resumable walk (its scalar state between calls).
R_DEPTH = 0
R_ENTERING = 1  # 1 if the node at R_DEPTH has not been expanded yet
R_NEXT_INTERNAL = 2
R_NEXT_TERMINAL = 3
R_NEXT_EDGE = 4
R_INFOSETS = 5
R_SLOTS = 6
R_TRIE = 7
NUM_REGS = 8


@dataclass(frozen=True)
class TreeCounts:
    """Sizes of a game tree, as counted by :func:`count_tree`."""

    nodes: int
    decision: int
    chance: int
    terminal: int
    edges: int
    infosets: tuple[int, ...]  # per player; empty if infosets were not counted
    slots: int  # sum of legal actions over infosets; 0 if not counted
    max_depth: int  # moves on the longest path from the root
    trie_nodes: int  # token-trie entries (memory planning); 0 if not counted

    @property
    def num_infosets(self) -> int:
        """Total number of information sets."""
        return sum(self.infosets)

    def estimated_bytes(self) -> int:
        """Bytes the compiled :class:`Tree` arrays will take."""
        itemsize = {attr: np.dtype(dtype).itemsize for attr, dtype in NODE_DTYPES.items()}
        per_node = sum(itemsize[a] for a in ("kind", "player", "infoset", "utility"))
        per_edge = itemsize["children"] + itemsize["chance_prob"]
        per_infoset = itemsize["infoset_player"] + itemsize["action_offsets"]
        offsets_end = itemsize["child_offsets"] + itemsize["action_offsets"]  # CSR sentinels
        return (
            self.nodes * (per_node + itemsize["child_offsets"])
            + self.edges * per_edge
            + self.num_infosets * per_infoset
            + self.slots * itemsize["legal_actions"]
            + offsets_end
        )


# ---- the token trie: an open-addressing hash table int64 -> int64 -------------------
@njit(cache=True)
def _slot(table: np.ndarray, key: int) -> int:
    """Row of ``key`` in ``table``, or of the empty row where it would go (linear probing)."""
    mask = table.shape[0] - 1
    h = key * HASH_MULTIPLIER  # wraps modulo 2**64
    i = (h ^ (h >> HASH_SHIFT)) & mask
    while True:
        k = table[i, HT_KEY]
        if k == key or k == EMPTY_KEY:
            return i
        i = (i + 1) & mask


@njit(cache=True)
def _rehashed(table: np.ndarray) -> np.ndarray:
    """A copy of ``table`` with GROWTH_FACTOR times the rows."""
    out = np.full((table.shape[0] * GROWTH_FACTOR, HT_FIELDS), EMPTY_KEY, dtype=np.int64)
    for i in range(table.shape[0]):
        key = table[i, HT_KEY]
        if key != EMPTY_KEY:
            j = _slot(out, key)
            out[j, HT_KEY] = key
            out[j, HT_VALUE] = table[i, HT_VALUE]
    return out


# ---- the numba walk ----------------------------------------------------------------
# The walk is resumable: all of its state lives in arrays, and the inner loop
# returns NEED_ROOM before a growable table could overflow, so that the driver
# grows the tables and resumes. Keeping reallocation out of the hot loop makes
# it about twice as fast (no array variable is reassigned inside it).
@njit(cache=True)
def _grown(arr: np.ndarray, needed: int, fill: int) -> np.ndarray:
    """``arr`` itself if it holds ``needed`` items, else a larger copy padded with ``fill``."""
    size = arr.shape[0]
    if needed <= size:
        return arr
    out = np.full(max(size * GROWTH_FACTOR, needed), fill, dtype=arr.dtype)
    out[:size] = arr
    return out


@njit(cache=True)
def _walk_steps(
    cfg: np.ndarray,
    track_infosets: bool,
    store: bool,
    terminals_last: bool,
    regs: np.ndarray,
    stats: np.ndarray,
    states: np.ndarray,
    moves: np.ndarray,
    probs: np.ndarray,
    num_moves: np.ndarray,
    next_move: np.ndarray,
    first_edge: np.ndarray,
    trie_id: np.ndarray,
    last_token: np.ndarray,
    last_child: np.ndarray,
    trie: np.ndarray,
    trie_infoset: np.ndarray,
    info_player: np.ndarray,
    info_offsets: np.ndarray,
    info_actions: np.ndarray,
    info_rep: np.ndarray,
    kind: np.ndarray,
    player: np.ndarray,
    infoset: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    utility: np.ndarray,
    stop: np.ndarray,
) -> int:
    """Continue the depth-first walk from ``regs``; return DONE, NEED_ROOM, STOPPED or an error.

    ``stop[0] != 0`` asks the walk to return STOPPED (looked at every
    STOP_CHECK_STEPS steps).
    """
    depth_cap = states.shape[0]
    width = moves.shape[1]
    returns = np.zeros(NUM_PLAYERS, dtype=np.float64)
    d = regs[R_DEPTH]
    entering = regs[R_ENTERING] != 0
    next_internal = regs[R_NEXT_INTERNAL]
    next_terminal = regs[R_NEXT_TERMINAL]
    next_edge = regs[R_NEXT_EDGE]
    num_infosets = regs[R_INFOSETS]
    num_slots = regs[R_SLOTS]
    num_trie = regs[R_TRIE]
    status = DONE
    steps = 0
    while True:
        steps += 1
        if steps & (STOP_CHECK_STEPS - 1) == 0 and stop[0] != 0:
            status = STOPPED
            break
        if track_infosets and (
            (num_trie + NUM_PLAYERS) * MAX_LOAD_DEN > trie.shape[0] * MAX_LOAD_NUM
            or num_trie + NUM_PLAYERS > trie_infoset.shape[0]
            or num_infosets + 1 > info_player.shape[0]
            or num_infosets + 1 > info_rep.shape[0]
            or num_infosets + 2 > info_offsets.shape[0]
            or num_slots + width > info_actions.shape[0]
        ):
            status = NEED_ROOM
            break
        if entering:
            entering = False
            s = states[d]
            if s[S_STAGE] == _STAGE_TERMINAL:
                if terminals_last:
                    node = next_terminal
                    next_terminal += 1
                else:
                    node = next_internal
                    next_internal += 1
                stats[ST_TERMINAL] += 1
                if store:
                    core.returns_into(s, cfg, returns)
                    kind[node] = _TERMINAL
                    player[node] = _NO_PLAYER
                    infoset[node] = NO_INFOSET
                    utility[node] = returns[0]
                    if not terminals_last:
                        child_offsets[node] = next_edge
                    children[first_edge[d - 1] + next_move[d - 1] - 1] = node
                d -= 1  # the root is never terminal in Complots
                continue
            if d + 1 >= depth_cap:
                status = ERR_TOO_DEEP
                break
            if d > stats[ST_MAX_DEPTH]:
                stats[ST_MAX_DEPTH] = d
            node = next_internal
            next_internal += 1
            stats[ST_INTERNAL] += 1
            cur = s[S_CUR]
            if cur == CHANCE_PLAYER:
                k = core.chance_outcomes_into(s, cfg, moves[d], probs[d])
                stats[ST_CHANCE] += 1
            else:
                k = core.legal_actions_into(s, cfg, moves[d])
                stats[ST_DECISION] += 1
            num_moves[d] = k
            next_move[d] = 0
            first_edge[d] = next_edge
            next_edge += k
            info = NO_INFOSET
            if track_infosets and cur != CHANCE_PLAYER:
                tid = trie_id[d, cur]
                info = trie_infoset[tid]
                if info == NO_INFOSET:
                    info = num_infosets
                    num_infosets += 1
                    trie_infoset[tid] = info
                    info_player[info] = cur
                    info_rep[info] = node
                    for i in range(k):
                        info_actions[num_slots + i] = moves[d, i]
                    num_slots += k
                    info_offsets[num_infosets] = num_slots
                    stats[ST_INFOSETS_P0 + cur] += 1
                else:
                    start = info_offsets[info]
                    same = info_offsets[info + 1] - start == k
                    for i in range(k):
                        same = same and info_actions[start + i] == moves[d, i]
                    if not same:
                        status = ERR_INFOSET_ACTIONS
                        break
            if store:
                child_offsets[node] = first_edge[d]
                if cur == CHANCE_PLAYER:
                    kind[node] = _CHANCE
                    player[node] = _NO_PLAYER
                    infoset[node] = NO_INFOSET
                    for i in range(k):
                        chance_prob[first_edge[d] + i] = probs[d, i]
                else:
                    kind[node] = _DECISION
                    player[node] = cur
                    infoset[node] = info
                    for i in range(k):
                        chance_prob[first_edge[d] + i] = 0.0
                utility[node] = 0.0
                if d > 0:
                    children[first_edge[d - 1] + next_move[d - 1] - 1] = node
            for p in range(NUM_PLAYERS):
                last_token[d, p] = NO_TOKEN
        # Descend into the next child of the node at depth d, or go back up.
        i = next_move[d]
        if i < num_moves[d]:
            next_move[d] = i + 1
            a = moves[d, i]
            parent_state = states[d]
            child_state = states[d + 1]
            child_state[:] = parent_state
            if track_infosets:
                for p in range(NUM_PLAYERS):
                    tok = core.observation_token(parent_state, a, p)
                    if tok == last_token[d, p]:
                        trie_id[d + 1, p] = last_child[d, p]
                        continue
                    key = trie_id[d, p] * TOKEN_SPACE + tok
                    j = _slot(trie, key)
                    if trie[j, HT_KEY] == EMPTY_KEY:
                        child = num_trie
                        num_trie += 1
                        trie[j, HT_KEY] = key
                        trie[j, HT_VALUE] = child
                    else:
                        child = trie[j, HT_VALUE]
                    last_token[d, p] = tok
                    last_child[d, p] = child
                    trie_id[d + 1, p] = child
            core.apply_action(child_state, cfg, a)
            d += 1
            entering = True
        else:
            if d == 0:
                break
            d -= 1
    regs[R_DEPTH] = d
    regs[R_ENTERING] = 1 if entering else 0
    regs[R_NEXT_INTERNAL] = next_internal
    regs[R_NEXT_TERMINAL] = next_terminal
    regs[R_NEXT_EDGE] = next_edge
    regs[R_INFOSETS] = num_infosets
    regs[R_SLOTS] = num_slots
    regs[R_TRIE] = num_trie
    return status


# nogil: the walk runs in a worker thread while the caller's thread stays free for
# Ctrl-C and a progress display (the walk touches arrays only)
@njit(cache=True, nogil=True)
def _walk(
    cfg: np.ndarray,
    max_depth: int,
    width: int,
    track_infosets: bool,
    store: bool,
    terminals_last: bool,
    num_internal: int,
    kind: np.ndarray,
    player: np.ndarray,
    infoset: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    utility: np.ndarray,
    stop: np.ndarray,
):
    """Depth-first walk of the whole game; fill the node arrays if ``store``.

    The walk ends early with status STOPPED once ``stop[0]`` is set.

    Returns ``(stats, status, infoset_player, action_offsets, legal_actions,
    representative)``; the infoset arrays are over-allocated, their used
    lengths are given by ``stats``.
    """
    stats = np.zeros(NUM_STATS, dtype=np.int64)
    regs = np.zeros(NUM_REGS, dtype=np.int64)
    depth_cap = max_depth + 1
    states = np.empty((depth_cap, STATE_SIZE), dtype=np.int32)
    moves = np.empty((depth_cap, width), dtype=np.int32)
    probs = np.empty((depth_cap, width), dtype=np.float64)
    num_moves = np.zeros(depth_cap, dtype=np.int64)
    next_move = np.zeros(depth_cap, dtype=np.int64)
    first_edge = np.zeros(depth_cap, dtype=np.int64)
    trie_id = np.zeros((depth_cap, NUM_PLAYERS), dtype=np.int64)
    # One-entry lookup cache per (depth, player): siblings often share a token.
    last_token = np.full((depth_cap, NUM_PLAYERS), NO_TOKEN, dtype=np.int64)
    last_child = np.zeros((depth_cap, NUM_PLAYERS), dtype=np.int64)
    capacity = INITIAL_CAPACITY if track_infosets else 0
    trie = np.full((capacity, HT_FIELDS), EMPTY_KEY, dtype=np.int64)
    trie_infoset = np.full(capacity, NO_INFOSET, dtype=np.int32)
    info_player = np.zeros(capacity, dtype=np.int8)
    info_offsets = np.zeros(capacity, dtype=np.int64)
    info_actions = np.zeros(capacity, dtype=np.int32)
    info_rep = np.zeros(capacity, dtype=np.int64)
    for p in range(NUM_PLAYERS):
        trie_id[0, p] = p  # trie ids 0..NUM_PLAYERS-1 are the players' roots
    regs[R_TRIE] = NUM_PLAYERS
    regs[R_NEXT_TERMINAL] = num_internal
    regs[R_ENTERING] = 1
    core.reset_state(states[0], cfg)
    while True:
        status = _walk_steps(
            cfg,
            track_infosets,
            store,
            terminals_last,
            regs,
            stats,
            states,
            moves,
            probs,
            num_moves,
            next_move,
            first_edge,
            trie_id,
            last_token,
            last_child,
            trie,
            trie_infoset,
            info_player,
            info_offsets,
            info_actions,
            info_rep,
            kind,
            player,
            infoset,
            child_offsets,
            children,
            chance_prob,
            utility,
            stop,
        )
        if status != NEED_ROOM:
            break
        num_trie = regs[R_TRIE]
        num_infosets = regs[R_INFOSETS]
        if (num_trie + NUM_PLAYERS) * MAX_LOAD_DEN > trie.shape[0] * MAX_LOAD_NUM:
            trie = _rehashed(trie)
        trie_infoset = _grown(trie_infoset, num_trie + NUM_PLAYERS, NO_INFOSET)
        info_player = _grown(info_player, num_infosets + 1, 0)
        info_rep = _grown(info_rep, num_infosets + 1, 0)
        info_offsets = _grown(info_offsets, num_infosets + 2, 0)
        info_actions = _grown(info_actions, regs[R_SLOTS] + width, 0)
    next_edge = regs[R_NEXT_EDGE]
    if store and status == DONE:
        for n in range(regs[R_NEXT_INTERNAL], kind.shape[0] + 1):
            child_offsets[n] = next_edge
    stats[ST_EDGES] = next_edge
    stats[ST_SLOTS] = regs[R_SLOTS]
    stats[ST_TRIE] = regs[R_TRIE] if track_infosets else 0
    return stats, status, info_player, info_offsets, info_actions, info_rep


# ---- Python API ------------------------------------------------------------------
class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tree walk; nothing of the tree is kept."""

    def __init__(self) -> None:
        super().__init__(
            "the exact tree build was stopped before any solving; run the command again to restart"
        )


def _interruptible_walk(*args: object) -> tuple:
    """:func:`_walk` in a worker thread; on Ctrl-C stop it and raise :class:`BuildInterrupted`.

    The calling thread waits in short steps, where Python handles signals, so
    a KeyboardInterrupt arrives at once instead of when the compiled walk returns.
    """
    stop = np.zeros(1, dtype=np.int8)
    outcome: list = []
    # an Event, not Thread.join: an interrupted join can mark a running thread as
    # finished (Python 3.11), and the walk must be seen to stop before its arrays go
    finished = threading.Event()

    def work() -> None:
        try:
            outcome.append(_walk(*args, stop))
        except BaseException as exc:  # re-raised in the calling thread
            outcome.append(exc)
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="complots-tree-walk", daemon=True)
    worker.start()
    try:
        while not finished.wait(WAIT_SECONDS):
            pass
    except KeyboardInterrupt:
        stop[0] = 1
        finished.wait()
        worker.join()
        raise BuildInterrupted() from None
    worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _check_config(config: GameConfig) -> None:
    """Raise ValueError unless ``config`` is a 2-player game."""
    if config.players != NUM_PLAYERS:
        raise ValueError(f"players must be {NUM_PLAYERS} to compile a tree, got {config.players}")


def _empty(attr: str) -> np.ndarray:
    """A zero-length array of the Tree dtype of ``attr``."""
    return np.empty(0, dtype=NODE_DTYPES[attr])


def _run_walk(
    config: GameConfig,
    track_infosets: bool,
    arrays: dict[str, np.ndarray] | None = None,
    terminals_last: bool = True,
    num_internal: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run :func:`_walk`; return (stats, infoset_player, action_offsets, legal_actions, rep)."""
    store = arrays is not None
    node_arrays = arrays or {
        attr: _empty(attr)
        for attr in ("kind", "player", "infoset", "child_offsets", "children")
        + ("chance_prob", "utility")
    }
    stats, error, info_player, info_offsets, info_actions, info_rep = _interruptible_walk(
        config.to_array(),
        config.max_game_length(),
        _move_width(config),
        track_infosets,
        store,
        terminals_last,
        num_internal,
        node_arrays["kind"],
        node_arrays["player"],
        node_arrays["infoset"],
        node_arrays["child_offsets"],
        node_arrays["children"],
        node_arrays["chance_prob"],
        node_arrays["utility"],
    )
    if error == STOPPED:  # only the interrupt handler above raises the flag
        raise BuildInterrupted()
    if error != DONE:
        raise ValueError(f"cannot compile {config.game_string()}: {_ERRORS[int(error)]}")
    num_infosets = int(stats[ST_INFOSETS_P0 : ST_INFOSETS_P0 + NUM_PLAYERS].sum())
    num_slots = int(stats[ST_SLOTS])
    return (
        stats,
        info_player[:num_infosets].copy(),
        info_offsets[: num_infosets + 1].copy(),
        info_actions[:num_slots].copy(),
        info_rep[:num_infosets].astype(NODE_DTYPES["children"]),  # node ids
    )


def _counts(stats: np.ndarray, track_infosets: bool) -> TreeCounts:
    """TreeCounts from the walk statistics."""
    internal, terminal = int(stats[ST_INTERNAL]), int(stats[ST_TERMINAL])
    infosets = stats[ST_INFOSETS_P0 : ST_INFOSETS_P0 + NUM_PLAYERS] if track_infosets else []
    return TreeCounts(
        nodes=internal + terminal,
        decision=int(stats[ST_DECISION]),
        chance=int(stats[ST_CHANCE]),
        terminal=terminal,
        edges=int(stats[ST_EDGES]),
        infosets=tuple(int(x) for x in infosets),
        slots=int(stats[ST_SLOTS]),
        max_depth=int(stats[ST_MAX_DEPTH]) + 1,  # the deepest internal node has only leaves below
        trie_nodes=int(stats[ST_TRIE]),
    )


def count_tree(config: GameConfig, infosets: bool = True) -> TreeCounts:
    """Count nodes (and, if ``infosets``, information sets) without storing the tree."""
    _check_config(config)
    stats, *_ = _run_walk(config, infosets)
    return _counts(stats, infosets)


@dataclass(eq=False)
class ComplotsTree(Tree):
    """A :class:`Tree` compiled from the rules core, with lazily computed infoset keys."""

    @property
    def keys(self) -> InfosetKeys:
        """The lazy infoset keys (same object as ``infoset_keys``)."""
        if not isinstance(self.infoset_keys, InfosetKeys):
            raise TypeError(f"infoset_keys was replaced by a {type(self.infoset_keys).__name__}")
        return self.infoset_keys


def compile_complots_tree(
    config: GameConfig, terminals_last: bool = True, validate: bool = True
) -> ComplotsTree:
    """Compile a 2-player Complots configuration into a :class:`Tree` entirely in numba.

    The arrays equal those of ``compile_openspiel_tree`` on the registered
    game (same node, edge and infoset numbering); ``validate`` runs
    :meth:`Tree.validate` (a few vectorised passes over the arrays). Ctrl-C
    at any point raises :class:`BuildInterrupted` promptly.
    """
    _check_config(config)
    try:
        return _compile(config, terminals_last, validate)
    except BuildInterrupted:
        raise
    except KeyboardInterrupt:  # between or after the walks: the same message
        raise BuildInterrupted() from None


def _compile(config: GameConfig, terminals_last: bool, validate: bool) -> ComplotsTree:
    """The two walks (count, then fill) of :func:`compile_complots_tree`, and the Tree."""
    stats, *_ = _run_walk(config, track_infosets=False)
    counts = _counts(stats, track_infosets=False)
    num_internal = counts.nodes - counts.terminal
    arrays = {
        "kind": np.empty(counts.nodes, dtype=NODE_DTYPES["kind"]),
        "player": np.empty(counts.nodes, dtype=NODE_DTYPES["player"]),
        "infoset": np.empty(counts.nodes, dtype=NODE_DTYPES["infoset"]),
        "child_offsets": np.empty(counts.nodes + 1, dtype=NODE_DTYPES["child_offsets"]),
        "children": np.empty(counts.edges, dtype=NODE_DTYPES["children"]),
        "chance_prob": np.empty(counts.edges, dtype=NODE_DTYPES["chance_prob"]),
        "utility": np.empty(counts.nodes, dtype=NODE_DTYPES["utility"]),
    }
    _, info_player, info_offsets, info_actions, info_rep = _run_walk(
        config, True, arrays, terminals_last, num_internal
    )
    keys = InfosetKeys(config, arrays["child_offsets"], arrays["children"], info_player, info_rep)
    return ComplotsTree(
        **arrays,
        infoset_player=info_player,
        action_offsets=info_offsets,
        legal_actions=info_actions,
        infoset_keys=keys,
        name=config.game_string(),
        check=validate,
    )
