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

The tree is split by what each part does, and this module offers every public
name of the parts: the arrays and their markers
(:mod:`~complots_solver.solvers.belief.public_tree_arrays`), the compiled build
(:mod:`~complots_solver.solvers.belief.public_tree_build`) and the hashing and
grouping it runs (:mod:`~complots_solver.solvers.belief.public_tree_hashing`),
the reference construction
(:mod:`~complots_solver.solvers.belief.public_tree_reference`) and the build
timing of ``scripts/bench_belief_build.py``
(:mod:`~complots_solver.solvers.belief.public_tree_bench`).
"""

from __future__ import annotations

from complots_solver.solvers.belief.public_tree_arrays import LEAF, NO_SLOT, PublicTree
from complots_solver.solvers.belief.public_tree_bench import random_beliefs, time_builds
from complots_solver.solvers.belief.public_tree_build import build_public_tree

__all__ = [
    "LEAF",
    "NO_SLOT",
    "PublicTree",
    "build_public_tree",
    "random_beliefs",
    "time_builds",
]
