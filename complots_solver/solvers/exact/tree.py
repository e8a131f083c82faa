"""Flat-array representation of a 2-player zero-sum extensive-form game tree.

Layout (``N`` nodes, ``E`` edges, ``I`` information sets, ``S`` action slots):

* Nodes are numbered so that every child has a larger id than its parent
  (topological order; the root is node 0).  Front ends that walk the game
  depth-first produce DFS pre-order, which is what :func:`compile_openspiel_tree`
  emits.  Solvers rely only on the topological property: a forward sweep over
  ids pushes reach probabilities top-down and a reverse sweep computes values
  bottom-up, two linear passes without recursion.
* Children are stored as CSR: the edges of node ``n`` are
  ``child_offsets[n]:child_offsets[n + 1]`` and ``children[e]`` is the child of
  edge ``e``.  Edge ranges are allocated in node order.
* For a decision node, the ``k``-th edge corresponds to the ``k``-th action slot
  of its information set, i.e. slot ``action_offsets[infoset[n]] + k``, whose
  OpenSpiel action id is ``legal_actions[slot]``.
* For a chance node, ``chance_prob[e]`` is the probability of edge ``e``
  (``chance_prob`` is 0 on decision edges).
* ``utility[n]`` is the terminal payoff of player 0 (player 1 gets the
  negation); it is 0 on non-terminal nodes.

Strategies are float64 arrays of length ``S`` aligned with the action slots.
"""

from __future__ import annotations

import array
from collections.abc import Hashable, Sequence
from dataclasses import InitVar, dataclass, field
from enum import IntEnum

import numpy as np

NUM_PLAYERS = 2
NO_PLAYER = -1
NO_INFOSET = -1
NO_PARENT = -1
UNSET_CHILD = -1
ROOT = 0
PROBABILITY_TOLERANCE = 1e-9
ZERO_SUM_TOLERANCE = 1e-9
MAX_INDEX = np.iinfo(np.int32).max


class NodeKind(IntEnum):
    """Kind of a tree node (usable inside numba ``njit`` code)."""

    TERMINAL = 0
    CHANCE = 1
    DECISION = 2


NODE_DTYPES: dict[str, type] = {
    "kind": np.int8,
    "player": np.int8,
    "infoset": np.int32,
    "child_offsets": np.int64,
    "children": np.int32,
    "chance_prob": np.float64,
    "utility": np.float64,
    "infoset_player": np.int8,
    "action_offsets": np.int64,
    "legal_actions": np.int32,
}


@dataclass(eq=False)
class Tree:
    """A 2-player zero-sum extensive-form game as flat numpy arrays."""

    kind: np.ndarray  # int8[N], NodeKind
    player: np.ndarray  # int8[N], acting player or NO_PLAYER
    infoset: np.ndarray  # int32[N], infoset id or NO_INFOSET
    child_offsets: np.ndarray  # int64[N + 1], CSR offsets into `children`
    children: np.ndarray  # int32[E], child node ids
    chance_prob: np.ndarray  # float64[E], probability of chance edges
    utility: np.ndarray  # float64[N], player-0 payoff at terminals
    infoset_player: np.ndarray  # int8[I]
    action_offsets: np.ndarray  # int64[I + 1], CSR offsets into slots
    legal_actions: np.ndarray  # int32[S], OpenSpiel action id per slot
    infoset_keys: Sequence[str] = field(default_factory=list)  # may be lazy (any Sequence)
    name: str = ""
    check: InitVar[bool] = True  # False skips validate() on huge trees

    def __post_init__(self, check: bool = True) -> None:
        """Coerce array dtypes and (if ``check``) verify structural invariants."""
        for attr, dtype in NODE_DTYPES.items():
            setattr(self, attr, np.ascontiguousarray(getattr(self, attr), dtype=dtype))
        if not isinstance(self.infoset_keys, Sequence):
            self.infoset_keys = list(self.infoset_keys)
        if check:
            self.validate()

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return int(self.kind.shape[0])

    @property
    def num_edges(self) -> int:
        """Number of edges (= number of non-root nodes)."""
        return int(self.children.shape[0])

    @property
    def num_infosets(self) -> int:
        """Number of information sets."""
        return int(self.infoset_player.shape[0])

    @property
    def num_slots(self) -> int:
        """Total number of (infoset, action) slots; the length of a strategy."""
        return int(self.legal_actions.shape[0])

    @property
    def num_actions(self) -> np.ndarray:
        """Number of legal actions per infoset."""
        return np.diff(self.action_offsets)

    @property
    def slot_infoset(self) -> np.ndarray:
        """Infoset id of every action slot."""
        return np.repeat(np.arange(self.num_infosets, dtype=np.int32), self.num_actions)

    def count(self, kind: NodeKind) -> int:
        """Number of nodes of the given kind."""
        return int(np.count_nonzero(self.kind == kind))

    def nbytes(self) -> int:
        """Bytes used by the numpy arrays (excluding infoset key strings)."""
        return int(sum(getattr(self, attr).nbytes for attr in NODE_DTYPES))

    def summary(self) -> str:
        """One-line human-readable size summary."""
        per_player = np.bincount(self.infoset_player, minlength=NUM_PLAYERS)
        bytes_per_node = self.nbytes() / max(self.num_nodes, 1)
        return (
            f"{self.name or 'tree'}: {self.num_nodes:,} nodes "
            f"({self.count(NodeKind.DECISION):,} decision, "
            f"{self.count(NodeKind.CHANCE):,} chance, "
            f"{self.count(NodeKind.TERMINAL):,} terminal), "
            f"{self.num_infosets:,} infosets "
            f"({per_player[0]:,} / {per_player[1]:,}), "
            f"{self.num_slots:,} action slots, "
            f"{bytes_per_node:.1f} bytes/node"
        )

    @property
    def num_internal(self) -> int:
        """Number of non-terminal nodes."""
        return self.num_nodes - self.count(NodeKind.TERMINAL)

    @property
    def terminals_last(self) -> bool:
        """True if all terminal nodes have larger ids than all non-terminal nodes."""
        return bool((self.kind[self.num_internal :] == NodeKind.TERMINAL).all())

    def uniform_strategy(self) -> np.ndarray:
        """The uniform random strategy as a slot-aligned array."""
        return 1.0 / np.repeat(self.num_actions, self.num_actions).astype(np.float64)

    def validate(self) -> None:
        """Raise ValueError if the arrays do not describe a well-formed tree."""
        n, e, i, s = self.num_nodes, self.num_edges, self.num_infosets, self.num_slots
        if n == 0:
            raise ValueError("tree must have at least one node")
        if max(n, e, s) > MAX_INDEX:
            raise ValueError(f"tree too large: at most {MAX_INDEX} nodes/slots")
        for attr in ("player", "infoset", "utility"):
            _check_len(attr, getattr(self, attr), n)
        _check_len("child_offsets", self.child_offsets, n + 1)
        _check_len("chance_prob", self.chance_prob, e)
        _check_len("action_offsets", self.action_offsets, i + 1)
        if len(self.infoset_keys) != i:
            raise ValueError(f"infoset_keys has {len(self.infoset_keys)} keys, need {i}")
        if not np.isin(self.kind, [int(k) for k in NodeKind]).all():
            raise ValueError(f"kind must be one of {[k.name for k in NodeKind]}")
        offsets, degree = self.child_offsets, np.diff(self.child_offsets)
        if offsets[0] != 0 or offsets[-1] != e or (degree < 0).any():
            raise ValueError("child_offsets must be non-decreasing from 0 to len(children)")
        if self.action_offsets[0] != 0 or self.action_offsets[-1] != s:
            raise ValueError("action_offsets must run from 0 to len(legal_actions)")
        if (self.num_actions <= 0).any():
            raise ValueError("every infoset needs at least one legal action")
        if not np.isin(self.infoset_player, np.arange(NUM_PLAYERS)).all():
            raise ValueError(f"infoset_player must be in {list(range(NUM_PLAYERS))}")
        terminal = self.kind == NodeKind.TERMINAL
        chance = self.kind == NodeKind.CHANCE
        decision = self.kind == NodeKind.DECISION
        if (degree[terminal] != 0).any() or (degree[~terminal] == 0).any():
            raise ValueError("terminal nodes must have no children, others at least one")
        if (self.utility[~terminal] != 0).any() or not np.isfinite(self.utility).all():
            raise ValueError("utility must be finite and 0 on non-terminal nodes")
        if (self.player[~decision] != NO_PLAYER).any():
            raise ValueError(f"player must be {NO_PLAYER} on chance and terminal nodes")
        if (self.infoset[~decision] != NO_INFOSET).any():
            raise ValueError(f"infoset must be {NO_INFOSET} on chance and terminal nodes")
        infosets = self.infoset[decision]
        if ((infosets < 0) | (infosets >= i)).any():
            raise ValueError("decision nodes must reference a valid infoset")
        if (self.infoset_player[infosets] != self.player[decision]).any():
            raise ValueError("decision node player must equal its infoset's player")
        if (self.num_actions[infosets] != degree[decision]).any():
            raise ValueError("decision nodes need one child per legal action of their infoset")
        # Every non-root node has exactly one parent with a smaller id.
        parent = np.repeat(np.arange(n, dtype=np.int64), degree)
        if ((self.children <= parent) | (self.children >= n)).any():
            raise ValueError("children must have larger ids than their parent (topological order)")
        in_degree = np.bincount(self.children, minlength=n)
        if in_degree[ROOT] != 0 or (in_degree[ROOT + 1 :] != 1).any():
            raise ValueError("every non-root node must be the child of exactly one node")
        edge_chance = np.repeat(chance, degree)
        probs = self.chance_prob
        if (probs[edge_chance] <= 0).any() or (probs[~edge_chance] != 0).any():
            raise ValueError("chance_prob must be > 0 on chance edges and 0 elsewhere")
        sums = np.add.reduceat(probs, offsets[:-1][chance]) if chance.any() else probs[:0]
        if (np.abs(sums - 1.0) > PROBABILITY_TOLERANCE).any():
            raise ValueError("chance probabilities of each chance node must sum to 1")


def _check_len(name: str, values: np.ndarray, expected: int) -> None:
    """Raise ValueError if ``values`` is not a 1-D array of ``expected`` items."""
    if values.ndim != 1 or values.shape[0] != expected:
        raise ValueError(f"{name} must have shape ({expected},), got {values.shape}")


class TreeBuilder:
    """Growable builder for :class:`Tree`; add nodes parent-first (DFS or BFS).

    Each ``add_*`` call allocates the new node's edge range immediately, so
    edges stay in node order, and links the node into ``parent``'s ``slot``-th
    edge.  Infosets are registered by key with :meth:`infoset`.
    """

    def __init__(self) -> None:
        """Create an empty builder."""
        self._kind = array.array("b")
        self._player = array.array("b")
        self._infoset = array.array("i")
        self._offsets = array.array("q", [0])
        self._children = array.array("i")
        self._chance_prob = array.array("d")
        self._utility = array.array("d")
        self._infoset_player = array.array("b")
        self._action_offsets = array.array("q", [0])
        self._legal_actions = array.array("i")
        self._infoset_ids: dict[Hashable, int] = {}
        self._infoset_keys: list[str] = []

    @property
    def num_nodes(self) -> int:
        """Number of nodes added so far."""
        return len(self._kind)

    def infoset(self, key: Hashable, player: int, legal_actions: Sequence[int]) -> int:
        """Return the id of infoset ``key``, registering it on first use."""
        existing = self._infoset_ids.get(key)
        if existing is not None:
            if self._infoset_player[existing] != player:
                raise ValueError(
                    f"infoset {key!r} seen for players {self._infoset_player[existing]} and {player}"
                )
            start, stop = self._action_offsets[existing], self._action_offsets[existing + 1]
            if list(self._legal_actions[start:stop]) != list(legal_actions):
                raise ValueError(f"infoset {key!r} seen with different legal actions")
            return existing
        if player not in range(NUM_PLAYERS):
            raise ValueError(f"player must be in {list(range(NUM_PLAYERS))}, got {player}")
        if len(legal_actions) == 0:
            raise ValueError(f"infoset {key!r} must have at least one legal action")
        new_id = len(self._infoset_player)
        self._infoset_ids[key] = new_id
        self._infoset_keys.append(str(key))
        self._infoset_player.append(player)
        self._legal_actions.extend(legal_actions)
        self._action_offsets.append(len(self._legal_actions))
        return new_id

    def add_terminal(self, utility0: float, parent: int = NO_PARENT, slot: int = 0) -> int:
        """Add a terminal node paying ``utility0`` to player 0 (and its negation to player 1)."""
        return self._add(NodeKind.TERMINAL, NO_PLAYER, NO_INFOSET, utility0, (), parent, slot)

    def add_chance(self, probs: Sequence[float], parent: int = NO_PARENT, slot: int = 0) -> int:
        """Add a chance node whose ``k``-th child has probability ``probs[k]``."""
        return self._add(NodeKind.CHANCE, NO_PLAYER, NO_INFOSET, 0.0, probs, parent, slot)

    def add_decision(self, infoset: int, parent: int = NO_PARENT, slot: int = 0) -> int:
        """Add a decision node in ``infoset``; its children follow the infoset's slots."""
        if not 0 <= infoset < len(self._infoset_player):
            raise ValueError(f"infoset must be a registered infoset id, got {infoset}")
        num_children = self._action_offsets[infoset + 1] - self._action_offsets[infoset]
        player = self._infoset_player[infoset]
        return self._add(
            NodeKind.DECISION, player, infoset, 0.0, [0.0] * num_children, parent, slot
        )

    def _add(
        self,
        kind: NodeKind,
        player: int,
        infoset: int,
        utility0: float,
        edge_probs: Sequence[float],
        parent: int,
        slot: int,
    ) -> int:
        """Append one node, allocate its edges and link it to its parent."""
        node = self.num_nodes
        if parent == NO_PARENT:
            if node != ROOT:
                raise ValueError("only the first node (the root) may have no parent")
        else:
            if not 0 <= parent < node:
                raise ValueError(f"parent must be an existing node id, got {parent}")
            start, stop = self._offsets[parent], self._offsets[parent + 1]
            if not 0 <= slot < stop - start:
                raise ValueError(f"slot must be in [0, {stop - start}), got {slot}")
            if self._children[start + slot] != UNSET_CHILD:
                raise ValueError(f"edge {slot} of node {parent} already has a child")
            self._children[start + slot] = node
        self._kind.append(kind)
        self._player.append(player)
        self._infoset.append(infoset)
        self._utility.append(utility0)
        self._chance_prob.extend(edge_probs)
        self._children.extend([UNSET_CHILD] * len(edge_probs))
        self._offsets.append(len(self._children))
        return node

    def build(self, name: str = "") -> Tree:
        """Freeze the builder into a validated :class:`Tree`."""
        if (np.frombuffer(self._children, dtype=np.int32) == UNSET_CHILD).any():
            raise ValueError("some edges have no child node")

        def as_np(values: array.array, attr: str) -> np.ndarray:
            return np.array(values, dtype=NODE_DTYPES[attr])

        return Tree(
            kind=as_np(self._kind, "kind"),
            player=as_np(self._player, "player"),
            infoset=as_np(self._infoset, "infoset"),
            child_offsets=as_np(self._offsets, "child_offsets"),
            children=as_np(self._children, "children"),
            chance_prob=as_np(self._chance_prob, "chance_prob"),
            utility=as_np(self._utility, "utility"),
            infoset_player=as_np(self._infoset_player, "infoset_player"),
            action_offsets=as_np(self._action_offsets, "action_offsets"),
            legal_actions=as_np(self._legal_actions, "legal_actions"),
            infoset_keys=self._infoset_keys,
            name=name,
        )


def with_terminals_last(tree: Tree) -> Tree:
    """Renumber nodes so terminals follow all non-terminal nodes (relative orders kept).

    The result stays topologically ordered and shares edge order with ``tree``;
    solvers then sweep only ids ``< num_internal`` and keep terminal values fixed.
    """
    if tree.terminals_last:
        return tree
    terminal = tree.kind == NodeKind.TERMINAL
    order = np.concatenate([np.flatnonzero(~terminal), np.flatnonzero(terminal)])
    new_id = np.empty(tree.num_nodes, dtype=np.int64)
    new_id[order] = np.arange(tree.num_nodes)
    degree = np.diff(tree.child_offsets)[order]
    return Tree(
        kind=tree.kind[order],
        player=tree.player[order],
        infoset=tree.infoset[order],
        child_offsets=np.concatenate([[0], np.cumsum(degree)]),
        children=new_id[tree.children],
        chance_prob=tree.chance_prob,
        utility=tree.utility[order],
        infoset_player=tree.infoset_player,
        action_offsets=tree.action_offsets,
        legal_actions=tree.legal_actions,
        infoset_keys=tree.infoset_keys,
        name=tree.name,
    )


def check_two_player_zero_sum(game: object) -> None:
    """Raise ValueError unless ``game`` is a sequential 2-player zero-sum pyspiel game."""
    import pyspiel

    game_type = game.get_type()
    if game.num_players() != NUM_PLAYERS:
        raise ValueError(f"game.num_players() must be {NUM_PLAYERS}, got {game.num_players()}")
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"game utility must be ZERO_SUM, got {game_type.utility.name}")
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"game dynamics must be SEQUENTIAL, got {game_type.dynamics.name}")
    allowed_chance = (
        pyspiel.GameType.ChanceMode.DETERMINISTIC,
        pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    )
    if game_type.chance_mode not in allowed_chance:
        names = [mode.name for mode in allowed_chance]
        raise ValueError(
            f"game chance_mode must be one of {names}, got {game_type.chance_mode.name}"
        )
    if not game_type.provides_information_state_string:
        raise ValueError("game must provide information_state_string")


def compile_openspiel_tree(game: object, terminals_last: bool = True) -> Tree:
    """Walk a 2-player zero-sum pyspiel game once into a :class:`Tree`.

    Non-terminal nodes are numbered in DFS pre-order; with ``terminals_last``
    the terminals are numbered after them (the layout solvers sweep fastest),
    otherwise all nodes are in DFS pre-order.
    """
    check_two_player_zero_sum(game)
    builder = TreeBuilder()
    # Explicit stack of (state, parent, slot); children pushed in reverse so the
    # first child is visited next, giving DFS pre-order ids.
    stack: list[tuple[object, int, int]] = [(game.new_initial_state(), NO_PARENT, 0)]
    while stack:
        state, parent, slot = stack.pop()
        if state.is_terminal():
            returns = state.returns()
            if abs(returns[0] + returns[1]) > ZERO_SUM_TOLERANCE:
                raise ValueError(f"terminal returns must sum to 0, got {returns}")
            builder.add_terminal(float(returns[0]), parent, slot)
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            node = builder.add_chance([prob for _, prob in outcomes], parent, slot)
            actions = [action for action, _ in outcomes]
        else:
            player = state.current_player()
            actions = state.legal_actions(player)
            info = builder.infoset(state.information_state_string(player), player, actions)
            node = builder.add_decision(info, parent, slot)
        for k in range(len(actions) - 1, -1, -1):
            stack.append((state.child(actions[k]), node, k))
    tree = builder.build(name=str(game))
    return with_terminals_last(tree) if terminals_last else tree
