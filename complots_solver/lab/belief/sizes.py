"""How large a turn's search is: the tracker's hypotheses and the one-turn public tree at turn starts."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.rules import view
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.belief.tracker import BeliefTracker, public_token
from complots_solver.solvers.knowledge.hypotheses import Memory


@dataclass(frozen=True)
class TurnSize:
    """One turn start of one game: hypotheses, tree rows (None: over ``max_hyps``), seconds."""

    seed: int
    turn: int
    hypotheses: int
    rows: int | None
    public_nodes: int | None
    seconds: float


def turn_sizes(
    game_string: str,
    seeds: int = 2,
    turns: int = 4,
    first_turn: int = 0,
    max_hyps: int = 20_000_000,
) -> list[TurnSize]:
    """Along uniformly random games, the search size at the first ``turns`` turn starts."""
    game = pyspiel.load_game(game_string)
    cfg = game.config.to_array()
    out = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        tracker = BeliefTracker(cfg, Memory.CANONICAL)
        last, seen = -1, 0
        while not state.is_terminal() and seen < turns:
            turn = view.turn(state.s)
            if not state.is_chance_node() and turn != last and turn >= first_turn:
                last, seen = turn, seen + 1
                start = time.perf_counter()
                try:
                    tree = build_public_tree(
                        cfg, tracker.hyps, Memory.CANONICAL, max_turns=1, max_hyps=max_hyps
                    )
                    rows, nodes = tree.num_hyps, len(tree.node_player)
                except ValueError:  # over max_hyps
                    rows, nodes = None, None
                secs = time.perf_counter() - start
                out.append(TurnSize(seed, turn, len(tracker), rows, nodes, secs))
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                k = rng.choice(len(outcomes), p=[p for _, p in outcomes])
                action = outcomes[k][0]
            else:
                action = int(rng.choice(state.legal_actions()))
            tracker.observe(public_token(state.s, action))
            state.apply_action(action)
    return out
