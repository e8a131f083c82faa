"""The distilled policy network as an exact strategy of a small game, for exact exploitability.

On a ladder rung the whole game fits in one public tree. The network's
strategy there is exactly what :class:`.netplay.NetPlayer` plays: at each
decision it reads the public position, its own cards and certain knowledge,
and the hand marginals of the public belief under its own strategy (the
tracker's floored likelihoods). Features at a depth depend only on the
strategy above it, so evaluating level after level until nothing changes
gives that strategy on every slot; the project's exact best response then
measures it. The tree uses PERFECT memory: CANONICAL slots may merge
information states whose certain-knowledge features differ (on
ladder-1-inquisitor they do), and the network would then not play one
strategy per slot. This is how the depth-limited training loop is checked against
known answers before its full-game numbers are trusted.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.exact_eval import to_tree_strategy
from complots_solver.solvers.belief.netplay import MOVE_FLOOR
from complots_solver.solvers.belief.policy_net import (
    NUM_DECISION_FEATURES,
    PolicyNet,
    replay_tree,
    slots_features,
)
from complots_solver.solvers.belief.public_tree import PublicTree, build_public_tree
from complots_solver.solvers.belief.vector_cfr import reaches
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.belief_features import turn_scale
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory


def net_tree_strategy(
    cfg: np.ndarray,
    tree: PublicTree,
    policy: PolicyNet,
    num_actions: int,
    floor: float = MOVE_FLOOR,
    max_passes: int = 500,
    root: Hypotheses | None = None,
) -> np.ndarray:
    """The network's strategy on every slot of a whole-game public tree (see the module note)."""
    if root is None and tree.leaf_hyps.size:
        raise ValueError("tree: a whole-game public tree is needed (it has depth-limit leaves)")
    strategy, _ = net_strategy_and_features(cfg, tree, policy, num_actions, root, floor, max_passes)
    return strategy


def net_strategy_and_features(
    cfg: np.ndarray,
    tree: PublicTree,
    policy: PolicyNet,
    num_actions: int,
    root: Hypotheses | None = None,
    floor: float = MOVE_FLOOR,
    max_passes: int = 500,
) -> tuple[np.ndarray, np.ndarray]:
    """The network's own-belief strategy on a public tree grown from ``root``, and each slot's features.

    ``root`` defaults to the initial state; a subgame's root belief is its prior.
    """
    if root is None:
        root = Hypotheses.initial(cfg)
    view = _SlotView(cfg, tree, root, num_actions)
    counts = np.diff(tree.slot_action_start)
    strategy = np.repeat(1.0 / counts, counts)
    for _ in range(max_passes):
        feats = view.features((1.0 - floor) * strategy + floor)
        new = view.strategy(policy.probabilities(feats, view.legal))
        if np.max(np.abs(new - strategy), initial=0.0) < 1e-12:
            return new, feats
        strategy = new
    raise RuntimeError("the network's strategy did not settle; is the tree acyclic?")


def net_exploitability(config: GameConfig, policy: PolicyNet) -> dict:
    """Exact exploitability (NashConv/2) and seat-0 value of the policy network on a small game."""
    cfg = config.to_array()
    num_actions = config.num_distinct_actions()
    tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=Memory.PERFECT)
    strategy = net_tree_strategy(cfg, tree, policy, num_actions)
    ctree = compile_complots_tree(config)
    mapped = to_tree_strategy(tree, strategy, ctree)
    return {
        "exploitability": float(tree_exploitability(ctree, mapped)),
        "value": float(game_value(ctree, mapped)),
        "slots": int(tree.num_slots),
    }


def distill_check(
    name: str,
    iterations: int = 200,
    epochs: int = 200,
    width: int = 256,
    weighting: str = "own",
    min_weight: float = 1e-4,
    dagger_rounds: int = 0,
    seed: int = 0,
) -> Iterator[dict]:
    """Distil the exact CFR+ solution of a small game into a policy network; exact exploitability.

    Yields the tabular solution's exploitability, then the network's reading
    the solution's beliefs ("open") and its own ("closed"), after the first
    fit and after each DAgger round (the network's own-belief features
    labelled with the solution, added to the training set).
    """
    from complots_solver.rules.presets import resolve_game
    from complots_solver.solvers.belief.policy_net import PolicyTrainer
    from complots_solver.solvers.belief.vector_cfr import VectorCFR

    if weighting not in ("own", "joint"):
        raise ValueError(f"weighting must be 'own' or 'joint', got {weighting!r}")
    config, _ = resolve_game(name)
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    num_actions = config.num_distinct_actions()
    tree = build_public_tree(cfg, root, memory=Memory.PERFECT)
    ctree = compile_complots_tree(config)

    def exact(strategy: np.ndarray) -> float:
        return float(tree_exploitability(ctree, to_tree_strategy(tree, strategy, ctree)))

    solver = VectorCFR(tree)
    solver.run(iterations)
    target_strategy = solver.average_strategy()
    yield {
        "stage": "tabular CFR+",
        "iterations": iterations,
        "exploitability": exact(target_strategy),
    }
    view = _SlotView(cfg, tree, root, num_actions)
    legal = view.legal
    target = np.zeros((tree.num_slots, num_actions), dtype=np.float32)
    target[view.slot_of, tree.slot_actions] = target_strategy
    floored = (1.0 - MOVE_FLOOR) * target_strategy + MOVE_FLOOR
    reach, own = reaches(tree, floored)
    joint = reach[:, tree.players]
    hyps = np.flatnonzero(tree.hyp_slot >= 0)
    weight = np.zeros(tree.num_slots)
    if weighting == "own":
        np.maximum.at(weight, tree.hyp_slot[hyps], own[hyps, tree.hyp_player[hyps]])
    else:
        np.add.at(weight, tree.hyp_slot[hyps], joint[hyps] / joint[: len(tree.prior)].sum())
    chosen = np.flatnonzero(weight > min_weight)
    w = np.maximum(weight[chosen], 1e-3).astype(np.float32)
    feats = view.features(floored)
    policy = PolicyNet.create(num_actions, (width, width), seed=seed)
    trainer = PolicyTrainer(policy)
    rng = np.random.default_rng([seed, 7])
    data = [feats[chosen], target[chosen], legal[chosen], w]

    def fit(passes: int) -> None:
        for _ in range(passes):
            order = rng.permutation(len(data[0]))
            for i in range(0, len(order), 512):
                j = order[i : i + 512]
                trainer.step(data[0][j], data[1][j], data[2][j], data[3][j])

    for rnd in range(dagger_rounds + 1):
        fit(epochs if rnd == 0 else max(1, epochs // 2))
        probs = policy.probabilities(feats, legal)
        closed, own_feats = net_strategy_and_features(cfg, tree, policy, num_actions, root=root)
        yield {
            "stage": "fit" if rnd == 0 else f"DAgger round {rnd}",
            "rows": len(data[0]),
            "open": exact(view.strategy(probs)),
            "closed": exact(closed),
        }
        data = [
            np.concatenate([data[0], own_feats[chosen]]),
            np.concatenate([data[1], target[chosen]]),
            np.concatenate([data[2], legal[chosen]]),
            np.concatenate([data[3], w]),
        ]


class _SlotView:
    """A public tree's replayed states, each slot's legal mask, and features under any strategy."""

    def __init__(self, cfg: np.ndarray, tree: PublicTree, root: Hypotheses, num_actions: int):
        self.tree = tree
        self.turn_scale = turn_scale(cfg)
        self.states, self.knows, self.first_hyp = replay_tree(tree, root.states, root.knows, cfg)
        self.slot_of = np.repeat(np.arange(tree.num_slots), np.diff(tree.slot_action_start))
        self.legal = np.zeros((tree.num_slots, num_actions), dtype=np.float32)
        self.legal[self.slot_of, tree.slot_actions] = 1.0
        self.all_slots = np.arange(tree.num_slots, dtype=np.int64)

    def features(self, likelihoods: np.ndarray) -> np.ndarray:
        """Every slot's features, beliefs from the reach of ``likelihoods`` (per slot action)."""
        t = self.tree
        reach, _ = reaches(t, likelihoods)
        joint = np.ascontiguousarray(reach[:, t.players])
        feats = np.empty((t.num_slots, NUM_DECISION_FEATURES), dtype=np.float32)
        slots_features(
            self.states, self.knows, joint, t.node_hyp_start, t.slot_node, self.first_hyp,
            self.all_slots, feats, self.turn_scale,
        )  # fmt: skip
        return feats

    def strategy(self, probs: np.ndarray) -> np.ndarray:
        """Per-slot-action probabilities from rows over all action ids."""
        return probs[self.slot_of, self.tree.slot_actions].astype(np.float64)
