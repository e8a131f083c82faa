"""The public tree's flat arrays (:class:`PublicTree`) and the markers stored in them.

See :mod:`~complots_solver.solvers.belief.public_tree` for what the arrays mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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
