"""Exact evaluation of a public-tree strategy on the compiled perfect-recall game tree.

A strategy found on a public tree (possibly with SUMMARY private states,
which merge information states) is a strategy of the real game: each real
information state plays the slot it maps to. This module writes it out over
the compiled tree's information sets, so the project's exact best response
measures its true exploitability.
"""

from __future__ import annotations

import numpy as np

from complots_solver.solvers.belief.locate import locate_hyp
from complots_solver.solvers.belief.public_tree import PublicTree


def tree_index(ptree: PublicTree, tree: object) -> np.ndarray:
    """For each action of the compiled tree, the public tree's strategy index it plays."""
    out = np.empty(int(tree.action_offsets[-1]), dtype=np.int64)
    keys = tree.keys
    for info in range(tree.num_infosets):
        player = int(tree.infoset_player[info])
        history = keys.history(info)
        slot = int(ptree.hyp_slot[locate_hyp(ptree, history)])
        if int(ptree.slot_player[slot]) != player:
            raise AssertionError("the located hypothesis is not the infoset player's decision")
        a0, a1 = int(tree.action_offsets[info]), int(tree.action_offsets[info + 1])
        s0, s1 = int(ptree.slot_action_start[slot]), int(ptree.slot_action_start[slot + 1])
        where = {int(a): s0 + k for k, a in enumerate(ptree.slot_actions[s0:s1].tolist())}
        for i in range(a0, a1):
            out[i] = where[int(tree.legal_actions[i])]
    return out


def to_tree_strategy(ptree: PublicTree, strategy: np.ndarray, tree: object) -> np.ndarray:
    """The compiled tree's strategy array (one probability per infoset action) playing ``strategy``."""
    return np.asarray(strategy, dtype=np.float64)[tree_index(ptree, tree)]
