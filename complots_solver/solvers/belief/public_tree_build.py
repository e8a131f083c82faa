"""The compiled public-tree build: :func:`build_public_tree` and the pass it runs.

:func:`_build` expands the root depth first in one compiled pass, growing
buffers as needed and writing nodes, hypotheses, slots, edges and leaves;
:func:`_assemble` trims them into the arrays of a
:class:`~complots_solver.solvers.belief.public_tree_arrays.PublicTree`. The
hashing and grouping it relies on are in
:mod:`~complots_solver.solvers.belief.public_tree_hashing`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from complots_solver.rules import core
from complots_solver.rules.compiled import advise_huge_pages
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import S_CUR, S_STAGE, S_TURN
from complots_solver.solvers.belief.public_tree_arrays import LEAF, NO_SLOT, PublicTree
from complots_solver.solvers.belief.public_tree_hashing import (
    _SEED_ROW,
    _SEED_STATE,
    _canonicalise,
    _child_chains,
    _counting_sort,
    _dedup,
    _finish_row_hashes,
    _first_ids,
)
from complots_solver.solvers.knowledge.hypotheses import (
    CHANCE,
    TERMINAL,
    Hypotheses,
    Memory,
    expand,
    max_moves,
)


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
