"""The belief core on the exact ladder: memory comparisons and exploitability curves."""

from __future__ import annotations

import time
from collections.abc import Iterator

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.exact_eval import to_tree_strategy
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.belief.vector_cfr import VectorCFR, exploitability
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory


def memory_rows(names: list[str], iterations: int = 300) -> Iterator[dict]:
    """For each rung and memory: sizes, and exploitability on the public tree and exact."""
    for name in names:
        config, _ = resolve_game(name)
        cfg = config.to_array()
        ctree = compile_complots_tree(config)
        for memory in Memory:
            start = time.perf_counter()
            tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=memory)
            built = time.perf_counter() - start
            VectorCFR(tree).run(1)  # compile the kernels outside the timing
            solver = VectorCFR(tree)
            start = time.perf_counter()
            solver.run(iterations)
            solved = time.perf_counter() - start
            avg = solver.average_strategy()
            exact = tree_exploitability(ctree, to_tree_strategy(tree, avg, ctree))
            yield {
                "game": name,
                "memory": memory.name,
                "history_nodes": ctree.num_nodes,
                "infosets": ctree.num_infosets,
                "hypotheses": tree.num_hyps,
                "slots": tree.num_slots,
                "iterations": iterations,
                "build_s": round(built, 2),
                "solve_s": round(solved, 2),
                "own_exploitability": exploitability(tree, avg),
                "exact_exploitability": exact,
            }


def curve_rows(
    name: str,
    target: float,
    memory: Memory = Memory.CANONICAL,
    step: int = 25,
    max_iterations: int = 2000,
    exact: bool = False,
) -> Iterator[dict]:
    """Exploitability against solve time on the whole-game public tree, until ``target``."""
    config, _ = resolve_game(name)
    cfg = config.to_array()
    start = time.perf_counter()
    tree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=memory)
    yield {
        "game": name,
        "memory": memory.name,
        "build_s": round(time.perf_counter() - start, 1),
        "hypotheses": tree.num_hyps,
        "slots": tree.num_slots,
    }
    VectorCFR(tree).run(1)  # compile the kernels outside the timing
    solver = VectorCFR(tree)
    solved = 0.0
    value = 1.0
    while solver.iteration < max_iterations and value > target:
        start = time.perf_counter()
        solver.run(step)
        solved += time.perf_counter() - start
        value = exploitability(tree, solver.average_strategy())
        yield {"iteration": solver.iteration, "solve_s": round(solved, 2), "exploitability": value}
    if exact:
        ctree = compile_complots_tree(config)
        mapped = to_tree_strategy(tree, solver.average_strategy(), ctree)
        yield {
            "iteration": solver.iteration,
            "exact_exploitability": tree_exploitability(ctree, mapped),
        }
