"""The original numpy construction of a public tree, kept as the compiled build's reference.

:func:`_build_public_tree_reference` builds the tree that
:func:`~complots_solver.solvers.belief.public_tree_build.build_public_tree`
must match array for array (tests compare the two); it is slower, and clear.
"""

from __future__ import annotations

import numpy as np

from complots_solver.rules import core
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import S_CUR, S_STAGE, S_TURN
from complots_solver.solvers.belief.public_tree_arrays import LEAF, PublicTree
from complots_solver.solvers.knowledge.hypotheses import (
    CHANCE,
    TERMINAL,
    Hypotheses,
    Memory,
    canonical_ids,
    expand,
    hashes,
    max_moves,
    state_hashes,
    step_buffers,
)


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
