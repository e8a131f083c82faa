"""Public trees: the game walked once per public history, each node holding its hypotheses.

:func:`build_public_tree` expands a root set of hypotheses depth first. A
public node groups the children that show everybody the same token; within
it, children equal in state and private-state ids are merged. Hypotheses are
numbered so that every parent comes before its children (a forward pass in
index order sees reach before it is used; a backward pass in reverse order
sees values before they are used). At a decision node the acting player's
information states are the node's *slots*: one per distinct private-state
id, all of whose hypotheses must have the same legal actions.

A depth limit (``max_turns`` more turn starts) turns the nodes where that
many turns have begun into *leaves*, whose states are kept for a value
function.

The build is one compiled pass (belief search builds a tree per decision).
It hashes each distinct state of a node once, interleaves independent hash
chains, and groups by hash tables rather than sorting; the ids and hashes
are those of :mod:`~complots_solver.solvers.knowledge.hypotheses`.
``_build_public_tree_reference`` is the original numpy construction, kept so
that tests can check the two trees are equal array for array. One choice
differs: with CANONICAL ids, children merge when equal in state and ids,
where the reference merges equal 64-bit row hashes (the same unless two
different rows collide).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import advise_huge_pages
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import S_CUR, S_STAGE, S_TURN, STATE_SIZE
from complots_solver.solvers.knowledge.hypotheses import (
    CHANCE,
    KNOW_EXPOSED,
    KNOW_SIZE,
    TERMINAL,
    Hypotheses,
    Memory,
    canonical_ids,
    expand,
    hashes,
    max_moves,
    mix,
    state_hashes,
    step_buffers,
)

_GOLDEN_MUL = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier
LEAF = -5  # hyp_player of a depth-limit leaf
NO_SLOT = -1


@dataclass(eq=False)
class PublicTree:
    """Flat arrays of a public tree (see the module note); hypotheses indexed in creation order."""

    players: int
    node_player: np.ndarray  # int8[N]: acting seat, CHANCE, TERMINAL or LEAF
    node_hyp_start: np.ndarray  # int64[N + 1]
    node_parent: np.ndarray  # int32[N], -1 for the root
    node_token: np.ndarray  # int64[N], public token leading here (-1 at the root)
    hyp_player: np.ndarray  # int8[H]
    hyp_slot: np.ndarray  # int32[H], actor's slot at decision nodes, else NO_SLOT
    hyp_x: np.ndarray  # int64[H, players]
    hyp_edge_start: np.ndarray  # int64[H + 1]
    edge_child: np.ndarray  # int32[E]
    edge_prob: np.ndarray  # float64[E]: chance probability (1 at decisions)
    edge_move: np.ndarray  # int32[E]: action id or chance outcome
    hyp_value: np.ndarray  # float64[H]: seat-0 utility at terminals (0 elsewhere)
    prior: np.ndarray  # float64[R]: weights of the root hypotheses (the first R)
    slot_player: np.ndarray  # int8[S]
    slot_node: np.ndarray  # int32[S]
    slot_x: np.ndarray  # int64[S]
    slot_action_start: np.ndarray  # int64[S + 1]
    slot_actions: np.ndarray  # int32[slot_action_start[-1]]
    leaf_hyps: np.ndarray  # int64[L]: hypotheses at depth-limit leaves
    leaf_states: np.ndarray  # int32[L, STATE_SIZE]
    leaf_knows: np.ndarray  # int32[L, players, KNOW_SIZE]
    child_index: dict[tuple[int, int], int] = field(default_factory=dict)  # (node, token) -> node

    @property
    def num_nodes(self) -> int:
        """Number of public nodes."""
        return int(self.node_player.shape[0])

    @property
    def num_hyps(self) -> int:
        """Number of hypotheses over all nodes."""
        return int(self.hyp_player.shape[0])

    @property
    def num_slots(self) -> int:
        """Number of information-state slots (both players)."""
        return int(self.slot_player.shape[0])

    def slot_of(self, node: int, x: int) -> int:
        """The slot of private-state id ``x`` at decision node ``node`` (KeyError if none)."""
        return self._slot_index[(node, x)]

    def __post_init__(self) -> None:
        """Index slots by (node, private-state id)."""
        self._slot_index = {
            (int(n), int(x)): i
            for i, (n, x) in enumerate(zip(self.slot_node, self.slot_x, strict=False))
        }


class _Growing:
    """An append-only list of numpy chunks of one dtype."""

    def __init__(self, dtype: type, width: tuple[int, ...] = ()) -> None:
        self.chunks: list[np.ndarray] = []
        self.dtype = dtype
        self.width = width
        self.size = 0

    def add(self, values: np.ndarray) -> None:
        self.chunks.append(np.asarray(values, dtype=self.dtype))
        self.size += len(values)

    def array(self) -> np.ndarray:
        if not self.chunks:
            return np.empty((0, *self.width), dtype=self.dtype)
        return np.concatenate(self.chunks)


def _group(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct public tokens in order of first appearance, and each row's group."""
    uniq, first, inverse = np.unique(tokens, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], rank[inverse]


def build_public_tree(
    cfg: np.ndarray,
    root: Hypotheses,
    memory: Memory = Memory.PERFECT,
    max_turns: int | None = None,
    max_hyps: int = 50_000_000,
) -> PublicTree:
    """Expand ``root`` (hypotheses at one public node) into a public tree.

    ``max_turns``: leaves where that many more turns have begun (None: the
    whole game). ``max_hyps`` guards memory: a ValueError once exceeded.
    """
    cfg = np.ascontiguousarray(cfg, dtype=np.int32)
    players = int(cfg[0])
    width = max_moves(players, True)
    if len(root) == 0:
        raise ValueError("root must hold at least one hypothesis")
    cur = root.states[:, S_CUR]
    if np.any(cur != cur[0]):
        raise ValueError("root hypotheses must share the player to move (one public node)")
    root_turn = int(root.states[0, S_TURN])
    limit = -1 if max_turns is None else root_turn + int(max_turns)
    (
        status,
        node_player,
        node_hyp_start,
        node_parent,
        node_token,
        hyp_slot,
        hyp_x,
        hyp_edge_start,
        edge_child,
        edge_prob,
        edge_move,
        hyp_value,
        slot_player,
        slot_node,
        slot_x,
        slot_action_start,
        slot_actions,
        leaf_hyps,
        leaf_states,
        leaf_knows,
    ) = _build(
        cfg,
        np.ascontiguousarray(root.states, dtype=np.int32),
        np.ascontiguousarray(root.xs, dtype=np.int64),
        np.ascontiguousarray(root.knows, dtype=np.int32),
        int(memory),
        width,
        max_turns is not None,
        limit,
        int(max_hyps),
    )
    if status == _TOO_MANY:
        raise ValueError(
            f"max_hyps: the public tree exceeds {max_hyps:,} hypotheses; "
            "use a depth limit or a larger bound"
        )
    if status == _MIXED_ACTIONS:
        raise AssertionError("hypotheses of one information state differ in legal actions")
    # nodes are numbered in creation order, which is the order the children were indexed
    child_index = dict(
        zip(
            zip(node_parent[1:].tolist(), node_token[1:].tolist(), strict=True),
            range(1, len(node_player)),
            strict=True,
        )
    )
    return PublicTree(
        players=players,
        node_player=node_player,
        node_hyp_start=node_hyp_start,
        node_parent=node_parent,
        node_token=node_token,
        hyp_player=np.repeat(node_player, np.diff(node_hyp_start)),
        hyp_slot=hyp_slot,
        hyp_x=hyp_x,
        hyp_edge_start=hyp_edge_start,
        edge_child=edge_child,
        edge_prob=edge_prob,
        edge_move=edge_move,
        hyp_value=hyp_value,
        prior=root.weights.astype(np.float64).copy(),
        slot_player=slot_player,
        slot_node=slot_node,
        slot_x=slot_x,
        slot_action_start=slot_action_start,
        slot_actions=slot_actions,
        leaf_hyps=leaf_hyps,
        leaf_states=leaf_states,
        leaf_knows=leaf_knows,
        child_index=child_index,
    )


_OK = 0
_TOO_MANY = 1
_MIXED_ACTIONS = 2
_ACTION = int(Stage.ACTION)
_SEED_STATE = np.int64(0x51ED270B27A3F0A1)  # state_hashes' seed
_SEED_ROW = np.int64(0x2545F4914F6CDD1D)  # row_hash's seed
# weights of the bucket hash; 32-bit so that their products vectorise
_CHEAP = np.random.default_rng(0x5EED).integers(1, 2**31, STATE_SIZE).astype(np.int32)


@njit(cache=True)
def _grow(a, used, need):
    """``a`` if it has ``need`` rows, else a larger copy of its first ``used`` rows."""
    if a.shape[0] >= need:
        return a
    # fourfold: fewer copies, and the untouched rest of a buffer costs no memory
    out = _empty((max(need, 4 * a.shape[0]),) + a.shape[1:], a.dtype)
    out[:used] = a[:used]
    return out


@njit(cache=True)
def _empty(shape, dtype):
    """``np.empty`` advised onto huge pages where large.

    A fresh array's first touch then faults once per 2 MiB, not per 4 KiB:
    on a large tree those faults cost more than the build itself.
    """
    out = np.empty(shape, dtype)
    advise_huge_pages(out)
    return out


@njit(cache=True)
def _trimmed(a, n):
    """A copy of the first ``n`` rows of ``a``."""
    out = _empty((n,) + a.shape[1:], a.dtype)
    out[:] = a[:n]
    return out


@njit(cache=True)
def _table_size(n):
    """The smallest power of two at least 2n (a hash table at most half full)."""
    size = 2
    while size < 2 * n:
        size <<= 1
    return size


@njit(cache=True)
def _first_ids(keys, n, table, rank, firsts):
    """Distinct values of ``keys[:n]`` numbered in order of first appearance; their count.

    ``rank[i]`` is row i's number, ``firsts[j]`` the first row of number j;
    ``table`` (at least 4n + 4 entries) is scratch for an open-addressing hash.
    """
    size = _table_size(n)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for i in range(n):
        key = keys[i]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = i
                rank[i] = count
                count += 1
                break
            if keys[firsts[j]] == key:
                rank[i] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _shift(size):
    """Right shift taking a 64-bit product to an index of a ``size`` table (a power of two)."""
    bits = 0
    while (1 << bits) < size:
        bits += 1
    return np.uint64(64 - bits)


@njit(cache=True)
def _dedup(rows, m, rh, state_class, xs, exact, table, rank, firsts):
    """Number ``rows[:m]`` by distinct row hash ``rh`` in order of first appearance; the count.

    With ``exact``, rows also need the same state class and ids to share a number.
    """
    size = _table_size(m)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for t in range(m):
        row = rows[t]
        key = rh[row]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = t
                rank[t] = count
                count += 1
                break
            f = rows[firsts[j]]
            if rh[f] == key and (not exact or _same_ids(state_class, xs, f, row)):
                rank[t] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _same_ids(state_class, xs, a, b):
    """Whether rows ``a`` and ``b`` have equal states (one class) and private-state ids."""
    if state_class[a] != state_class[b]:
        return False
    for p in range(xs.shape[1]):
        if xs[a, p] != xs[b, p]:
            return False
    return True


@njit(cache=True)
def _state_chains(states, rows, count, seed, start, out):
    """The hash chain from ``seed`` over columns ``start:`` of each row in ``rows[:count]`` (into ``out[row]``).

    From column 0 with the seed of ``state_hashes`` it is that hash, with
    ``row_hash``'s it is that hash before the ids. Eight rows at a time: one
    chain is a serial dependency, interleaved ones overlap in the CPU (same
    results).
    """
    width = states.shape[1]
    t = 0
    while t + 8 <= count:
        r0 = rows[t]
        r1 = rows[t + 1]
        r2 = rows[t + 2]
        r3 = rows[t + 3]
        r4 = rows[t + 4]
        r5 = rows[t + 5]
        r6 = rows[t + 6]
        r7 = rows[t + 7]
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = seed
        for i in range(start, width):
            a0 = mix(a0, states[r0, i])
            a1 = mix(a1, states[r1, i])
            a2 = mix(a2, states[r2, i])
            a3 = mix(a3, states[r3, i])
            a4 = mix(a4, states[r4, i])
            a5 = mix(a5, states[r5, i])
            a6 = mix(a6, states[r6, i])
            a7 = mix(a7, states[r7, i])
        out[r0] = a0
        out[r1] = a1
        out[r2] = a2
        out[r3] = a3
        out[r4] = a4
        out[r5] = a5
        out[r6] = a6
        out[r7] = a7
        t += 8
    while t < count:
        r = rows[t]
        a = seed
        for i in range(start, width):
            a = mix(a, states[r, i])
        out[r] = a
        t += 1


@njit(cache=True)
def _state_classes(states, k, cheap, table, state_class, firsts):
    """Number ``states[:k]`` by distinct state in order of first appearance (exactly); the count.

    Rows are bucketed by a cheap linear hash that vectorises, then compared.
    """
    width = states.shape[1]
    for r in range(k):
        acc = np.int64(0)
        for i in range(width):
            acc += np.int64(states[r, i]) * _CHEAP[i]
        cheap[r] = acc
    size = _table_size(k)
    shift = _shift(size)
    mask = size - 1
    for j in range(size):
        table[j] = -1
    count = 0
    for r in range(k):
        key = cheap[r]
        slot = np.int64((np.uint64(key) * _GOLDEN_MUL) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = count
                firsts[count] = r
                state_class[r] = count
                count += 1
                break
            f = firsts[j]
            if cheap[f] == key and _same_state(states, f, r):
                state_class[r] = j
                break
            slot = (slot + 1) & mask
    return count


@njit(cache=True)
def _same_state(states, a, b):
    """Whether rows ``a`` and ``b`` hold equal states (no early exit: the loop vectorises)."""
    diff = 0
    for i in range(states.shape[1]):
        diff |= states[a, i] ^ states[b, i]
    return diff == 0


@njit(cache=True)
def _child_chains(states, k, seed, cheap, table, state_class, firsts, chain, group, groups):
    """State chains of ``states[:k]`` (see :func:`_state_chains`), computed once per distinct state.

    The states of one public node agree on their first (public) columns: the
    chain over those is computed once per node, each state's continues it.
    """
    count = _state_classes(states, k, cheap, table, state_class, firsts)
    rep_group = np.empty(count, np.int64)
    for j in range(count):
        rep_group[j] = group[firsts[j]]
    start = np.empty(groups + 1, np.int64)
    order = np.empty(count, np.int64)
    _counting_sort(rep_group, count, groups, start, order)
    reps = np.empty(count, np.int64)
    for t in range(count):
        reps[t] = firsts[order[t]]
    width = states.shape[1]
    for g in range(groups):
        a = start[g]
        b = start[g + 1]
        if a == b:
            continue
        first = reps[a]
        common = width
        for t in range(a + 1, b):
            row = reps[t]
            i = 0
            while i < common and states[row, i] == states[first, i]:
                i += 1
            common = i
        h = seed
        for i in range(common):
            h = mix(h, states[first, i])
        _state_chains(states, reps[a:b], b - a, h, common, chain)
    for r in range(k):
        chain[r] = chain[firsts[state_class[r]]]


@njit(cache=True)
def _finish_row_hashes(chain, xs, k, players, rh):
    """Each row's state chain continued with its ids (``row_hash`` if the chain is its own)."""
    for r in range(k):
        h = chain[r]
        for p in range(players):
            h = mix(h, xs[r, p])
        rh[r] = h


@njit(cache=True)
def _edge_offsets(parent, k, n, counts, offs):
    """Children per parent (``counts``) and where each parent's begin (``offs``)."""
    for i in range(n):
        counts[i] = 0
    for j in range(k):
        counts[parent[j]] += 1
    offs[0] = 0
    for i in range(n):
        offs[i + 1] = offs[i] + counts[i]


@njit(cache=True)
def _assign_slots(
    keys,
    n,
    rank,
    firsts,
    m,
    offs,
    moves,
    player,
    node,
    n_slots,
    n_actions,
    s_player,
    s_node,
    s_x,
    s_count,
    s_actions,
):
    """Record a decision node's ``m`` slots; the actions written, or -1 if a slot's hypotheses differ in them."""
    w = n_actions
    for j in range(m):
        f = firsts[j]
        s_player[n_slots + j] = player
        s_node[n_slots + j] = node
        s_x[n_slots + j] = keys[f]
        count = offs[f + 1] - offs[f]
        s_count[n_slots + j] = count
        for e in range(count):
            s_actions[w + e] = moves[offs[f] + e]
        w += count
    for i in range(n):
        f = firsts[rank[i]]
        count = offs[f + 1] - offs[f]
        if offs[i + 1] - offs[i] != count:
            return -1
        for e in range(count):
            if moves[offs[i] + e] != moves[offs[f] + e]:
                return -1
    return w - n_actions


@njit(cache=True)
def _counting_sort(group, k, groups, start, order):
    """``order``: rows ``0..k-1`` by group, in row order within one; ``start``: where each group begins."""
    for g in range(groups + 1):
        start[g] = 0
    for j in range(k):
        start[group[j] + 1] += 1
    for g in range(groups):
        start[g + 1] += start[g]
    pos = start[:groups].copy()
    for j in range(k):
        g = group[j]
        order[pos[g]] = j
        pos[g] += 1


@njit(cache=True)
def _canonicalise(rows, chain, xs, knows, players):
    """Replace the ids of ``rows`` (one public node's children) by their CANONICAL ids.

    The ids of :func:`canonical_ids` on these rows (``chain``: their state
    hashes), without copying the rows out. Keys are mixed in row order, four
    rows at a time (independent chains overlap in the CPU), and rows of equal
    raw id are grouped by hashing rather than sorting.
    """
    m = rows.shape[0]
    by_row = np.empty((players, m), np.int64)
    t = 0
    while t + 4 <= m:
        r0 = rows[t]
        r1 = rows[t + 1]
        r2 = rows[t + 2]
        r3 = rows[t + 3]
        for p in range(players):
            k0 = chain[r0]
            k1 = chain[r1]
            k2 = chain[r2]
            k3 = chain[r3]
            for c in range(NUM_CLANS):
                k0 = mix(k0, knows[r0, p, KNOW_EXPOSED + c])
                k1 = mix(k1, knows[r1, p, KNOW_EXPOSED + c])
                k2 = mix(k2, knows[r2, p, KNOW_EXPOSED + c])
                k3 = mix(k3, knows[r3, p, KNOW_EXPOSED + c])
            for q in range(players):
                if q != p:
                    for c in range(KNOW_SIZE):
                        k0 = mix(k0, knows[r0, q, c])
                        k1 = mix(k1, knows[r1, q, c])
                        k2 = mix(k2, knows[r2, q, c])
                        k3 = mix(k3, knows[r3, q, c])
            by_row[p, t] = k0
            by_row[p, t + 1] = k1
            by_row[p, t + 2] = k2
            by_row[p, t + 3] = k3
        t += 4
    while t < m:
        r = rows[t]
        for p in range(players):
            key = chain[r]
            for c in range(NUM_CLANS):
                key = mix(key, knows[r, p, KNOW_EXPOSED + c])
            for q in range(players):
                if q != p:
                    for c in range(KNOW_SIZE):
                        key = mix(key, knows[r, q, c])
            by_row[p, t] = key
        t += 1
    raw = np.empty(m, np.int64)
    rank = np.empty(m, np.int64)
    firsts = np.empty(m, np.int64)
    table = np.empty(4 * m + 4, np.int64)
    start = np.empty(m + 1, np.int64)
    order = np.empty(m, np.int64)
    keys = np.empty(m, np.int64)
    for p in range(players):
        for t in range(m):
            raw[t] = xs[rows[t], p]
        runs = _first_ids(raw, m, table, rank, firsts)
        _counting_sort(rank, m, runs, start, order)
        for t in range(m):
            keys[t] = by_row[p, order[t]]
        for g in range(runs):
            i = start[g]
            j = start[g + 1]
            _sort_small(keys, i, j)
            h = np.int64(p + 7)
            for t in range(i, j):
                if t == i or keys[t] != keys[t - 1]:
                    h = mix(h, keys[t])
            for t in range(i, j):
                xs[rows[order[t]], p] = h


@njit(cache=True)
def _sort_small(a, i, j):
    """Sort ``a[i:j]`` in place: insertion sort for the usual few values."""
    if j - i > 32:
        a[i:j].sort()
        return
    for t in range(i + 1, j):
        v = a[t]
        u = t - 1
        while u >= i and a[u] > v:
            a[u + 1] = a[u]
            u -= 1
        a[u + 1] = v


@njit(cache=True)
def _add_hyps(rows, rank, firsts, u, base, xs, child, hyp_x, hyp_slot, hyp_value, hyp_edges):
    """Number a new node's ``u`` distinct rows from ``base``; map every row to its hypothesis."""
    for j in range(u):
        row = rows[firsts[j]]
        for p in range(xs.shape[1]):
            hyp_x[base + j, p] = xs[row, p]
        hyp_slot[base + j] = NO_SLOT
        hyp_value[base + j] = 0.0
        hyp_edges[base + j] = 0
    for t in range(rows.shape[0]):
        child[rows[t]] = base + rank[t]


@njit(cache=True)
def _copy_rows(rows, firsts, u, states, knows, out_states, out_knows, at):
    """Copy the states and knowledge of a new node's ``u`` distinct rows to ``at`` on."""
    for j in range(u):
        row = rows[firsts[j]]
        for i in range(states.shape[1]):
            out_states[at + j, i] = states[row, i]
        for p in range(knows.shape[1]):
            for c in range(knows.shape[2]):
                out_knows[at + j, p, c] = knows[row, p, c]


@njit(cache=True)
def _copy_edges(k, at, child, prob, move, e_child, e_prob, e_move):
    """Append one node's ``k`` edges at ``at``."""
    for j in range(k):
        e_child[at + j] = child[j]
        e_prob[at + j] = prob[j]
        e_move[at + j] = move[j]


@njit(cache=True)
def _build(cfg, root_states, root_xs, root_knows, memory, width, has_limit, limit, max_hyps):
    """The arrays of :func:`build_public_tree`'s tree, after a status (_OK or an error).

    Depth first like the reference: nodes are numbered (and their
    hypotheses) when created, the last created pending node is expanded
    next. Terminals and leaves are finished when created; only expandable
    nodes keep their states and knowledge, on a stack, until expanded.
    """
    players = int(cfg[0])
    canonical = memory == 2
    raw = 0 if canonical else memory
    seed = _SEED_STATE if canonical else _SEED_ROW
    r = root_states.shape[0]
    size = root_states.shape[1]
    know_size = root_knows.shape[2]
    status = _OK
    # by hypothesis id; capacities are generous: pages never touched hold no memory
    cap = max(16 * r, 1 << 16)
    hyp_x = _empty((cap, players), np.int64)
    hyp_slot = np.empty(cap, np.int32)
    hyp_value = np.empty(cap, np.float64)
    hyp_edges = np.empty(cap, np.int64)
    # by node id; edge_off: where a node's edges start in the expansion-order edge lists
    node_player = np.empty(1024, np.int8)
    node_start = np.zeros(1025, np.int64)
    node_parent = np.empty(1024, np.int32)
    node_token = np.empty(1024, np.int64)
    node_edge_off = np.empty(1024, np.int64)
    node_pend = np.empty(1024, np.int64)
    # pending nodes, and their hypotheses' states and knowledge
    stack = np.empty(1024, np.int64)
    pend_states = _empty((max(4 * r, 1 << 14), size), np.int32)
    pend_knows = _empty((max(4 * r, 1 << 14), players, know_size), np.int32)
    e_child = np.empty(cap, np.int32)
    e_prob = np.empty(cap, np.float64)
    e_move = np.empty(cap, np.int32)
    s_player = np.empty(1024, np.int8)
    s_node = np.empty(1024, np.int32)
    s_x = np.empty(1024, np.int64)
    s_count = np.empty(1024, np.int64)
    s_actions = np.empty(4096, np.int32)
    l_hyp = np.empty(cap, np.int64)
    l_states = _empty((cap, size), np.int32)
    l_knows = _empty((cap, players, know_size), np.int32)
    # the children of the node being expanded (first: the root), and per-row scratch
    cap_c = max(8 * r, 1 << 14)
    c_states = _empty((cap_c, size), np.int32)
    c_xs = _empty((cap_c, players), np.int64)
    c_knows = _empty((cap_c, players, know_size), np.int32)
    c_parent = np.empty(cap_c, np.int32)
    c_move = np.empty(cap_c, np.int32)
    c_token = np.empty(cap_c, np.int64)
    c_prob = np.empty(cap_c, np.float64)
    c_chain = np.empty(cap_c, np.int64)
    c_rh = np.empty(cap_c, np.int64)
    c_group = np.empty(cap_c, np.int64)
    c_order = np.empty(cap_c, np.int64)
    c_child = np.empty(cap_c, np.int64)
    keys = np.empty(cap_c, np.int64)
    rank = np.empty(cap_c, np.int64)
    firsts = np.empty(cap_c, np.int64)
    table = np.empty(4 * cap_c + 4, np.int64)
    c_class = np.empty(cap_c, np.int64)
    offs = np.empty(0, np.int64)
    group_start = np.empty(2, np.int64)

    c_states[:r] = root_states
    c_xs[:r] = root_xs
    c_knows[:r] = root_knows
    for i in range(r):
        c_order[i] = i
        rank[i] = i
        firsts[i] = i
    group_start[0] = 0
    group_start[1] = r
    groups = 1
    node = -1  # the root's parent
    k = r
    n_nodes = 0
    n_hyps = 0
    top = 0
    sp = 0
    n_edges = 0
    n_slots = 0
    n_actions = 0
    n_leaves = 0
    while True:
        # create the children of ``node``: one node per group of rows
        for g in range(groups):
            a = group_start[g]
            m = group_start[g + 1] - a
            rows = c_order[a : a + m]
            if node < 0:
                u = m  # the root's hypotheses are kept as given
            else:
                u = _dedup(rows, m, c_rh, c_class, c_xs, canonical, table, rank, firsts)
            if n_hyps + u > max_hyps:
                status = _TOO_MANY
                break
            hyp_x = _grow(hyp_x, n_hyps, n_hyps + u)
            hyp_slot = _grow(hyp_slot, n_hyps, n_hyps + u)
            hyp_value = _grow(hyp_value, n_hyps, n_hyps + u)
            hyp_edges = _grow(hyp_edges, n_hyps, n_hyps + u)
            node_player = _grow(node_player, n_nodes, n_nodes + 1)
            node_start = _grow(node_start, n_nodes + 1, n_nodes + 2)
            node_parent = _grow(node_parent, n_nodes, n_nodes + 1)
            node_token = _grow(node_token, n_nodes, n_nodes + 1)
            node_edge_off = _grow(node_edge_off, n_nodes, n_nodes + 1)
            node_pend = _grow(node_pend, n_nodes, n_nodes + 1)
            _add_hyps(
                rows,
                rank,
                firsts,
                u,
                n_hyps,
                c_xs,
                c_child,
                hyp_x,
                hyp_slot,
                hyp_value,
                hyp_edges,
            )
            child = n_nodes
            node_start[child + 1] = n_hyps + u
            node_parent[child] = node
            node_token[child] = c_token[rows[0]] if node >= 0 else -1
            node_edge_off[child] = -1
            first = rows[firsts[0]]
            player = c_states[first, S_CUR]
            if player == TERMINAL:
                node_player[child] = TERMINAL
                for j in range(u):
                    hyp_value[n_hyps + j] = core.return_of(c_states[rows[firsts[j]]], cfg, 0)
            elif (
                has_limit
                and c_states[first, S_STAGE] == _ACTION
                and c_states[first, S_TURN] >= limit
            ):
                node_player[child] = LEAF
                l_hyp = _grow(l_hyp, n_leaves, n_leaves + u)
                l_states = _grow(l_states, n_leaves, n_leaves + u)
                l_knows = _grow(l_knows, n_leaves, n_leaves + u)
                for j in range(u):
                    l_hyp[n_leaves + j] = n_hyps + j
                _copy_rows(rows, firsts, u, c_states, c_knows, l_states, l_knows, n_leaves)
                n_leaves += u
            else:
                node_player[child] = player
                pend_states = _grow(pend_states, top, top + u)
                pend_knows = _grow(pend_knows, top, top + u)
                stack = _grow(stack, sp, sp + 1)
                _copy_rows(rows, firsts, u, c_states, c_knows, pend_states, pend_knows, top)
                node_pend[child] = top
                top += u
                stack[sp] = child
                sp += 1
            n_nodes += 1
            n_hyps += u
        if status != _OK:
            break
        if node >= 0:
            e_child = _grow(e_child, n_edges, n_edges + k)
            e_prob = _grow(e_prob, n_edges, n_edges + k)
            e_move = _grow(e_move, n_edges, n_edges + k)
            node_edge_off[node] = n_edges
            _copy_edges(k, n_edges, c_child, c_prob, c_move, e_child, e_prob, e_move)
            n_edges += k
        if sp == 0:
            break
        # expand the last created pending node
        sp -= 1
        node = stack[sp]
        h0 = node_start[node]
        n = node_start[node + 1] - h0
        p0 = node_pend[node]
        player = node_player[node]
        k = 0
        i = 0
        while i < n:
            b = min(n - i, (c_states.shape[0] - k) // width)
            if b == 0:
                need = c_states.shape[0] + width
                c_states = _grow(c_states, k, need)
                c_xs = _grow(c_xs, k, need)
                c_knows = _grow(c_knows, k, need)
                c_parent = _grow(c_parent, k, need)
                c_move = _grow(c_move, k, need)
                c_token = _grow(c_token, k, need)
                c_prob = _grow(c_prob, k, need)
                continue
            got = expand(
                pend_states[p0 + i : p0 + i + b],
                hyp_x[h0 + i : h0 + i + b],
                pend_knows[p0 + i : p0 + i + b],
                cfg,
                raw,
                width,
                c_states[k:],
                c_xs[k:],
                c_knows[k:],
                c_parent[k:],
                c_move[k:],
                c_token[k:],
                c_prob[k:],
            )
            for j in range(k, k + got):
                c_parent[j] += i
            k += got
            i += b
        top = p0  # the node's pending rows are read: its children reuse them
        most = max(n, k)
        keys = _grow(keys, 0, most)
        rank = _grow(rank, 0, most)
        firsts = _grow(firsts, 0, most)
        table = _grow(table, 0, 4 * most + 4)
        offs = _grow(offs, 0, n + 1)
        c_chain = _grow(c_chain, 0, k)
        c_class = _grow(c_class, 0, k)
        c_rh = _grow(c_rh, 0, k)
        c_group = _grow(c_group, 0, k)
        c_order = _grow(c_order, 0, k)
        c_child = _grow(c_child, 0, k)
        _edge_offsets(c_parent, k, n, hyp_edges[h0 : h0 + n], offs)
        if player != CHANCE:
            for i in range(n):
                keys[i] = hyp_x[h0 + i, player]
            m = _first_ids(keys, n, table, rank, firsts)
            s_player = _grow(s_player, n_slots, n_slots + m)
            s_node = _grow(s_node, n_slots, n_slots + m)
            s_x = _grow(s_x, n_slots, n_slots + m)
            s_count = _grow(s_count, n_slots, n_slots + m)
            s_actions = _grow(s_actions, n_actions, n_actions + k)
            written = _assign_slots(
                keys,
                n,
                rank,
                firsts,
                m,
                offs,
                c_move,
                player,
                node,
                n_slots,
                n_actions,
                s_player,
                s_node,
                s_x,
                s_count,
                s_actions,
            )
            if written < 0:
                status = _MIXED_ACTIONS
                break
            for i in range(n):
                hyp_slot[h0 + i] = n_slots + rank[i]
            n_slots += m
            n_actions += written
        # children grouped by public token in order of first appearance, rows in order
        groups = _first_ids(c_token, k, table, c_group, firsts)
        group_start = _grow(group_start, 0, groups + 1)
        _counting_sort(c_group, k, groups, group_start, c_order)
        _child_chains(c_states, k, seed, c_rh, table, c_class, firsts, c_chain, c_group, groups)
        if canonical:
            for g in range(groups):
                rows = c_order[group_start[g] : group_start[g + 1]]
                _canonicalise(rows, c_chain, c_xs, c_knows, players)
        _finish_row_hashes(c_chain, c_xs, k, players, c_rh)
    if status != _OK:
        n_nodes = n_hyps = n_edges = n_slots = n_actions = n_leaves = 0
    return _assemble(
        status,
        n_nodes,
        n_hyps,
        n_edges,
        n_slots,
        n_actions,
        n_leaves,
        node_player,
        node_start,
        node_parent,
        node_token,
        node_edge_off,
        hyp_slot,
        hyp_x,
        hyp_edges,
        e_child,
        e_prob,
        e_move,
        hyp_value,
        s_player,
        s_node,
        s_x,
        s_count,
        s_actions,
        l_hyp,
        l_states,
        l_knows,
    )


@njit(cache=True)
def _assemble(
    status,
    n_nodes,
    n_hyps,
    n_edges,
    n_slots,
    n_actions,
    n_leaves,
    node_player,
    node_start,
    node_parent,
    node_token,
    node_edge_off,
    hyp_slot,
    hyp_x,
    hyp_edges,
    e_child,
    e_prob,
    e_move,
    hyp_value,
    s_player,
    s_node,
    s_x,
    s_count,
    s_actions,
    l_hyp,
    l_states,
    l_knows,
):
    """Trimmed output arrays, edges moved from expansion order to hypothesis order.

    The leaves' states and knowledge, the largest, are returned as views: the
    rest of their buffers was never touched, so holds no memory.
    """
    edge_start = np.zeros(n_hyps + 1, np.int64)
    for h in range(n_hyps):
        edge_start[h + 1] = edge_start[h] + hyp_edges[h]
    edge_child = np.empty(n_edges, np.int32)
    edge_prob = np.empty(n_edges, np.float64)
    edge_move = np.empty(n_edges, np.int32)
    for node in range(n_nodes):
        off = node_edge_off[node]
        if off < 0:
            continue
        a = edge_start[node_start[node]]
        b = edge_start[node_start[node + 1]]
        for e in range(b - a):
            edge_child[a + e] = e_child[off + e]
            edge_prob[a + e] = e_prob[off + e]
            edge_move[a + e] = e_move[off + e]
    action_start = np.zeros(n_slots + 1, np.int64)
    for s in range(n_slots):
        action_start[s + 1] = action_start[s] + s_count[s]
    return (
        status,
        node_player[:n_nodes].copy(),
        node_start[: n_nodes + 1].copy(),
        node_parent[:n_nodes].copy(),
        node_token[:n_nodes].copy(),
        hyp_slot[:n_hyps].copy(),
        _trimmed(hyp_x, n_hyps),
        edge_start,
        edge_child,
        edge_prob,
        edge_move,
        hyp_value[:n_hyps].copy(),
        s_player[:n_slots].copy(),
        s_node[:n_slots].copy(),
        s_x[:n_slots].copy(),
        action_start,
        s_actions[:n_actions].copy(),
        l_hyp[:n_leaves].copy(),
        l_states[:n_leaves],
        l_knows[:n_leaves],
    )


def _build_public_tree_reference(
    cfg: np.ndarray,
    root: Hypotheses,
    memory: Memory = Memory.PERFECT,
    max_turns: int | None = None,
    max_hyps: int = 50_000_000,
) -> PublicTree:
    """The pure-Python construction that :func:`build_public_tree` must match array for array."""
    cfg = np.ascontiguousarray(cfg, dtype=np.int32)
    players = int(cfg[0])
    width = max_moves(players, True)
    if len(root) == 0:
        raise ValueError("root must hold at least one hypothesis")
    cur = root.states[:, S_CUR]
    if np.any(cur != cur[0]):
        raise ValueError("root hypotheses must share the player to move (one public node)")
    root_turn = int(root.states[0, S_TURN])
    limit = None if max_turns is None else root_turn + int(max_turns)

    node_player = _Growing(np.int8)
    node_hyp_start = [0]
    node_parent = _Growing(np.int32)
    node_token = _Growing(np.int64)
    hyp_player = np.empty(0, np.int8)
    hyp_parts = {
        "player": _Growing(np.int8),
        "slot": _Growing(np.int32),
        "x": _Growing(np.int64, (players,)),
        "value": _Growing(np.float64),
    }
    edge_start_counts = _Growing(np.int64)
    edge_child = _Growing(np.int32)
    edge_prob = _Growing(np.float64)
    edge_move = _Growing(np.int32)
    slot_player = _Growing(np.int8)
    slot_node = _Growing(np.int32)
    slot_x = _Growing(np.int64)
    slot_counts = _Growing(np.int64)
    slot_actions = _Growing(np.int32)
    leaf_hyps = _Growing(np.int64)
    leaf_states: list[np.ndarray] = []
    leaf_knows: list[np.ndarray] = []
    child_index: dict[tuple[int, int], int] = {}
    del hyp_player

    # node records are created in id order; hypotheses of a node get ids at creation
    num_hyps = 0
    num_slots = 0
    # per created node (by id): (states, xs, knows) awaiting expansion
    pending: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
    # node-major storage of per-hypothesis fields, filled when a node is processed;
    # since nodes are processed in an order different from creation, keep per-node parts
    per_node: dict[int, dict[str, np.ndarray]] = {}

    def create(parent: int, token: int, states, xs, knows) -> int:
        nonlocal num_hyps
        node = len(node_hyp_start) - 1
        node_hyp_start.append(node_hyp_start[-1] + len(states))
        num_hyps += len(states)
        if num_hyps > max_hyps:
            raise ValueError(
                f"max_hyps: the public tree exceeds {max_hyps:,} hypotheses; "
                "use a depth limit or a larger bound"
            )
        node_parent.add([parent])
        node_token.add([token])
        node_player.add([0])  # set when processed
        pending.append((node, states, xs, knows))
        return node

    create(-1, -1, root.states.copy(), root.xs.copy(), root.knows.copy())
    processed_player: dict[int, int] = {}
    while pending:
        node, states, xs, knows = pending.pop()
        start = node_hyp_start[node]
        n = len(states)
        player = int(states[0, S_CUR])
        parts: dict[str, np.ndarray] = {
            "x": xs,
            "slot": np.full(n, -1, np.int32),
            "value": np.zeros(n, np.float64),
            "edge_count": np.zeros(n, np.int64),
            "edges": np.empty(0, np.int32),
            "probs": np.empty(0, np.float64),
            "moves": np.empty(0, np.int32),
        }
        if player == TERMINAL:
            parts["value"] = np.array([core_return0(s, cfg) for s in states], dtype=np.float64)
            processed_player[node] = TERMINAL
        elif (
            limit is not None
            and int(states[0, S_STAGE]) == Stage.ACTION
            and int(states[0, S_TURN]) >= limit
        ):
            processed_player[node] = LEAF
            leaf_hyps.add(np.arange(start, start + n, dtype=np.int64))
            leaf_states.append(states)
            leaf_knows.append(knows)
        else:
            processed_player[node] = player
            buf = step_buffers(n, players, width)
            raw_memory = Memory.PERFECT if memory == Memory.CANONICAL else memory
            k = expand(states, xs, knows, cfg, int(raw_memory), width, **buf)
            c_states = buf["out_states"][:k]
            c_xs = buf["out_xs"][:k]
            c_knows = buf["out_knows"][:k]
            parent = buf["out_parent"][:k]
            moves = buf["out_move"][:k]
            tokens = buf["out_token"][:k]
            probs = buf["out_prob"][:k]
            parts["edge_count"] = np.bincount(parent, minlength=n).astype(np.int64)
            if player != CHANCE:
                actor_x = xs[:, player]
                ux, first, slot_of_h = np.unique(actor_x, return_index=True, return_inverse=True)
                order = np.argsort(first, kind="stable")
                rank = np.empty_like(order)
                rank[order] = np.arange(len(order))
                slot_local = rank[slot_of_h]
                parts["slot"] = (num_slots + slot_local).astype(np.int32)
                offsets = np.concatenate([[0], np.cumsum(parts["edge_count"])])
                firsts = first[order]
                counts = parts["edge_count"]
                slot_player.add(np.full(len(order), player))
                slot_node.add(np.full(len(order), node))
                slot_x.add(ux[order])
                slot_counts.add(counts[firsts])
                slot_actions.add(
                    np.concatenate([moves[offsets[h] : offsets[h + 1]] for h in firsts])
                )
                # every hypothesis of an information state has its legal actions
                sig = (
                    np.add.reduceat(
                        (moves.astype(np.int64) + 1) * (np.arange(k) - offsets[parent] + 7919),
                        offsets[:-1],
                    )
                    if k
                    else np.zeros(n, np.int64)
                )
                ref = first[slot_of_h]
                if np.any(counts != counts[ref]) or np.any(sig != sig[ref]):
                    raise AssertionError(
                        "hypotheses of one information state differ in legal actions"
                    )
                num_slots += len(ux)
            group_tokens, group = _group(tokens)
            child_of_row = np.empty(k, np.int64)
            for g, tok in enumerate(group_tokens):
                rows = np.flatnonzero(group == g)
                if memory == Memory.CANONICAL:
                    canon = np.empty((len(rows), players), dtype=np.int64)
                    canonical_ids(
                        state_hashes(c_states[rows]), c_knows[rows], c_xs[rows], players, canon
                    )
                    c_xs[rows] = canon
                hs = hashes(c_states[rows], c_xs[rows], players)
                uh, ufirst, uinv = np.unique(hs, return_index=True, return_inverse=True)
                order = np.argsort(ufirst, kind="stable")
                rank = np.empty_like(order)
                rank[order] = np.arange(len(order))
                keep = rows[ufirst[order]]
                child = create(node, int(tok), c_states[keep], c_xs[keep], c_knows[keep])
                child_index[(node, int(tok))] = child
                child_of_row[rows] = node_hyp_start[child] + rank[uinv]
            parts["edges"] = child_of_row.astype(np.int32)
            parts["probs"] = probs.copy()
            parts["moves"] = moves.copy()
        per_node[node] = parts

    num_nodes = len(node_hyp_start) - 1
    players_arr = np.array([processed_player[i] for i in range(num_nodes)], dtype=np.int8)
    hyp_player_arr = np.repeat(players_arr, np.diff(node_hyp_start))
    x = np.concatenate([per_node[i]["x"] for i in range(num_nodes)])
    slot = np.concatenate([per_node[i]["slot"] for i in range(num_nodes)])
    value = np.concatenate([per_node[i]["value"] for i in range(num_nodes)])
    counts = np.concatenate([per_node[i]["edge_count"] for i in range(num_nodes)])
    edges = np.concatenate([per_node[i]["edges"] for i in range(num_nodes)])
    probs = np.concatenate([per_node[i]["probs"] for i in range(num_nodes)])
    moves = np.concatenate([per_node[i]["moves"] for i in range(num_nodes)])
    del edge_start_counts, edge_child, edge_prob, edge_move, hyp_parts
    # slots were numbered in processing order, which is the order they were added
    s_counts = slot_counts.array()
    leaves = leaf_hyps.array()
    if leaf_states:
        l_states = np.concatenate(leaf_states)
        l_knows = np.concatenate(leaf_knows)
        order = np.argsort(leaves, kind="stable")
        leaves, l_states, l_knows = leaves[order], l_states[order], l_knows[order]
    else:
        l_states = np.empty((0, root.states.shape[1]), np.int32)
        l_knows = np.empty((0, players, root.knows.shape[2]), np.int32)
    return PublicTree(
        players=players,
        node_player=players_arr,
        node_hyp_start=np.asarray(node_hyp_start, dtype=np.int64),
        node_parent=node_parent.array(),
        node_token=node_token.array(),
        hyp_player=hyp_player_arr,
        hyp_slot=slot,
        hyp_x=x,
        hyp_edge_start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        edge_child=edges,
        edge_prob=probs,
        edge_move=moves,
        hyp_value=value,
        prior=root.weights.astype(np.float64).copy(),
        slot_player=slot_player.array(),
        slot_node=slot_node.array(),
        slot_x=slot_x.array(),
        slot_action_start=np.concatenate([[0], np.cumsum(s_counts)]).astype(np.int64),
        slot_actions=slot_actions.array(),
        leaf_hyps=leaves,
        leaf_states=l_states,
        leaf_knows=l_knows,
        child_index=child_index,
    )


def core_return0(state: np.ndarray, cfg: np.ndarray) -> float:
    """Seat 0's terminal utility."""
    return float(core.return_of(state, cfg, 0))


def random_beliefs(cfg: np.ndarray, count: int, seed: int = 0) -> list[Hypotheses]:
    """``count`` subgame roots like self-play's: the initial state, then the exact belief at each turn start of random games (uniform play)."""
    from complots_solver.solvers.belief.tracker import BeliefTracker

    cfg = np.ascontiguousarray(cfg, dtype=np.int32)
    rng = np.random.default_rng(seed)
    moves = np.empty(max_moves(int(cfg[0]), True), dtype=np.int32)
    probs = np.empty(len(moves), dtype=np.float64)
    roots: list[Hypotheses] = []
    while len(roots) < count:
        state = core.initial_state(cfg)
        tracker = BeliefTracker(cfg)
        roots.append(Hypotheses.initial(cfg))
        while int(state[S_CUR]) != TERMINAL and len(roots) < count:
            if int(state[S_CUR]) == CHANCE:
                m = core.chance_outcomes_into(state, cfg, moves, probs)
                a = int(rng.choice(moves[:m], p=probs[:m] / probs[:m].sum()))
            else:
                m = core.legal_actions_into(state, cfg, moves)
                a = int(rng.choice(moves[:m]))
            tracker.observe_move(state, a)
            core.apply_action(state, cfg, a)
            if int(state[S_STAGE]) == Stage.ACTION and int(state[S_CUR]) >= 0:
                h = tracker.hyps
                roots.append(
                    Hypotheses(h.states.copy(), h.xs.copy(), h.knows.copy(), h.weights.copy())
                )
    return roots


def time_builds(
    cfg: np.ndarray,
    roots: list[Hypotheses],
    memory: Memory = Memory.CANONICAL,
    max_turns: int | None = 1,
    repeats: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """Seconds to build each root's tree: (compiled, reference), alternated, best of ``repeats``."""
    import time

    build_public_tree(cfg, roots[0], memory, max_turns)  # load the compiled code
    fast = np.full(len(roots), np.inf)
    reference = np.full(len(roots), np.inf)
    for _ in range(repeats):
        for i, root in enumerate(roots):
            for f, out in ((build_public_tree, fast), (_build_public_tree_reference, reference)):
                t0 = time.perf_counter()
                f(cfg, root, memory, max_turns)
                out[i] = min(out[i], time.perf_counter() - t0)
    return fast, reference
