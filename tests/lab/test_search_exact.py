"""The search player's strategy written out on a whole-game public tree equals what it plays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from complots_solver.lab.belief.search_exact import search_exploitability, search_strategy
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.agent import SearchAgent
from complots_solver.solvers.belief.locate import locate_hyp
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.knowledge.belief_features import NUM_FEATURES, NUM_OUTPUTS
from complots_solver.solvers.knowledge.hypotheses import CHANCE, TERMINAL
from complots_solver.solvers.nets.valuenet import ValueNet

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_one_turn_search_is_the_whole_game_solve() -> None:
    """With a one-turn cap the first subgame is the whole game: CFR+ to a tiny exploitability."""
    config, _ = resolve_game("ladder-1-ambassador(max_turns=1)")
    out = search_exploitability(config, None, SearchSettings(iterations=200))
    assert out["exploitability"] < 1e-3
    assert out["subgames"] == 1 and out["missed"] == 0


@pytest.mark.parametrize(("safe", "average"), [(False, False), (True, False), (True, True)])
def test_written_strategy_matches_the_search_agent_along_random_games(
    safe: bool, average: bool
) -> None:
    """Move for move, the search agent plays the strategy written on the whole-game tree
    (``average``: promises averaged over the earlier solve's iterations, in both)."""
    config, _ = resolve_game("ladder-1-inquisitor")
    cfg = config.to_array()
    net = ValueNet.create([NUM_FEATURES, 32, NUM_OUTPUTS], seed=2)  # values that move with beliefs
    for w in net.weights:
        w *= 3.0
    settings = SearchSettings(iterations=20, prune=0.0, safe=safe, average_promise=average)
    tree, strategy, counts = search_strategy(config, net, settings)
    assert counts["missed"] == 0 and counts["subgames"] > 1
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(15):
        agents = [SearchAgent(cfg, seat, net, settings) for seat in range(2)]
        history: list[int] = []
        h = 0
        while int(tree.hyp_player[h]) != TERMINAL:
            e0, e1 = int(tree.hyp_edge_start[h]), int(tree.hyp_edge_start[h + 1])
            actor = int(tree.hyp_player[h])
            if actor != CHANCE:
                assert locate_hyp(tree, history) == h
                slot = int(tree.hyp_slot[h])
                a0, a1 = int(tree.slot_action_start[slot]), int(tree.slot_action_start[slot + 1])
                mine = agents[actor].action_probabilities(history)
                for a, p in zip(tree.slot_actions[a0:a1], strategy[a0:a1], strict=True):
                    assert mine[int(a)] == pytest.approx(p, abs=1e-9 if not safe else 1e-7)
                compared += 1
            k = int(rng.integers(e1 - e0))
            history.append(int(tree.edge_move[e0 + k]))
            h = int(tree.edge_child[e0 + k])
    assert compared > 40


def test_safe_resolving_keeps_the_whole_game_solution_and_unsafe_does_not() -> None:
    """Re-solving every turn of an exact solution: with the gadget it stays exact, without it drifts."""
    config, _ = resolve_game("ladder-1-ambassador")
    settings = SearchSettings(iterations=200, depth=0)  # the first subgame is the whole game
    unsafe = search_exploitability(config, None, settings)
    safe = search_exploitability(config, None, replace(settings, safe=True))
    assert safe["subgames"] == unsafe["subgames"] > 1  # the later turns were re-solved
    assert safe["exploitability"] <= 1e-3
    assert unsafe["exploitability"] >= 5e-3


def test_the_gadget_holds_the_opponent_to_its_promised_values() -> None:
    """An opponent promised more than the subgame gives it stops following; promised less, it follows."""
    from complots_solver.solvers.belief.search import Subgame
    from complots_solver.solvers.knowledge.hypotheses import Hypotheses

    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    for promise, follows in ((10.0, False), (-10.0, True)):
        sub = Subgame(cfg, root, None, SearchSettings(iterations=50, depth=0))
        ids = np.unique(sub.tree.hyp_x[: len(sub.tree.prior), 1])
        sub.set_gadget(1, np.full(len(ids), promise))
        sub.solve()
        follow = sub.solver.gadget.follow
        assert np.all(follow > 0.99) if follows else np.all(follow < 0.01)


def test_written_promises_need_a_written_continuation() -> None:
    """Best-response promises keep an exact first solve; against an unwritten continuation they mislead."""
    config, _ = resolve_game("ladder-1-ambassador")
    settings = SearchSettings(iterations=200, safe=True)
    kw = {"exact_from": 1, "promise": "written"}
    whole_first = search_exploitability(config, None, settings, first_depth=0, **kw)
    # a one-turn first subgame leaves turn 1 unwritten (uniform) when its promises are read
    one_turn_first = search_exploitability(config, None, settings, **kw)
    assert whole_first["exploitability"] <= 1e-3
    assert one_turn_first["exploitability"] > 0.1


def test_exact_leaves_average_each_hand_over_its_private_states() -> None:
    """Exact leaf values per hand are each hand's counterfactual-reach-weighted mean of the
    values per hypothesis, so private states of one hand share one value."""
    from complots_solver.lab.belief.search_exact import ExactLeaves
    from complots_solver.solvers.belief.vector_cfr import normalize, reaches
    from complots_solver.solvers.knowledge.belief_features import hand_index
    from complots_solver.solvers.knowledge.hypotheses import Hypotheses

    config, _ = resolve_game("ladder-2-ambassador")
    cfg = config.to_array()
    settings = SearchSettings(iterations=8)
    kinds = [
        ExactLeaves(cfg, Hypotheses.initial(cfg), settings, 30, per_hand)
        for per_hand in (False, True)
    ]
    t = kinds[0].tree
    rng = np.random.default_rng(0)  # a random strategy: private states of one hand weigh apart
    strategy = normalize(rng.random(len(kinds[0].solver.strategy)), t.slot_action_start)
    reach, own = reaches(t, strategy)
    split = 0
    for player in range(2):
        each, by_hand = (k.leaf_values(reach, own, strategy, player) for k in kinds)
        assert np.abs(each).max() > 0.0
        for g in range(kinds[0].num_leaf_nodes):
            idx = np.flatnonzero(kinds[0].leaf_group == g)
            hands = np.array([hand_index(t.leaf_states[i], player) for i in idx])
            w = reach[t.leaf_hyps[idx], player]
            for hand in np.unique(hands):
                m = hands == hand
                if w[m].sum() <= 0.0:
                    continue
                want = (w[m] * each[idx[m]]).sum() / w[m].sum()
                np.testing.assert_allclose(by_hand[idx[m]], want, atol=1e-12)
                split += int(np.ptp(each[idx[m]]) > 1e-9)
    assert split > 0  # some hand's private states were valued apart before the mean


@pytest.mark.parametrize(("rule", "power"), [("cfr+", 1), ("pcfr+", 2), ("dcfr", 2)])
def test_sampled_iterations_mix_into_the_cfr_average(rule: str, power: int) -> None:
    """Iteration t is drawn with probability proportional to its weight in the average (t for
    CFR+, t^2 for the predictive and discounted rules), and the iterations' strategies so
    weighted, mixed on the compiled tree, are the average wherever it reaches (one turn:
    later, the public tree merges private states an exchange makes the real game tell apart,
    and its average per slot is no longer the real game's mixture of iterates)."""
    from complots_solver.lab.exact.mixture import mix_strategies, own_reach
    from complots_solver.solvers.belief.exact_eval import to_tree_strategy
    from complots_solver.solvers.belief.search import Subgame
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree
    from complots_solver.solvers.knowledge.hypotheses import Hypotheses

    config, _ = resolve_game("ladder-1-ambassador(max_turns=1)")
    cfg = config.to_array()
    settings = SearchSettings(iterations=6, depth=0, cfr=rule)
    root = Hypotheses.initial(cfg)
    rng = np.random.default_rng(0)
    four = replace(settings, iterations=4)
    draws = [Subgame(cfg, root, None, four).solve_sampled(rng) for _ in range(400)]
    freq = np.bincount(draws, minlength=5)[1:] / len(draws)
    weights = np.arange(1, 5) ** power
    np.testing.assert_allclose(freq, weights / weights.sum(), atol=0.05)
    tree = compile_complots_tree(config)
    full = Subgame(cfg, root, None, settings)
    average = to_tree_strategy(full.tree, full.solve(), tree)
    kept = []
    for stop in range(1, 7):
        sub = Subgame(cfg, root, None, settings)
        assert sub.solve_sampled(_Fixed(stop)) == stop
        kept.append(to_tree_strategy(sub.tree, sub.strategy, tree))
    mixed = mix_strategies(tree, kept, [k**power for k in range(1, 7)])
    reached = own_reach(tree, average)[tree.slot_infoset] > 1e-9
    assert reached.sum() > 100
    np.testing.assert_allclose(mixed[reached], average[reached], atol=1e-9)
    assert np.abs(kept[0] - average)[reached].max() > 0.05  # an iteration alone is not it


class _Fixed:
    """A generator whose draw is fixed (solve_sampled's ``rng.choice``)."""

    def __init__(self, stop: int) -> None:
        self.stop = stop

    def choice(self, n: int, p: np.ndarray) -> int:
        """The fixed iteration, 0-based."""
        return self.stop - 1


def test_the_iterate_mixture_is_the_player_who_draws_an_iteration() -> None:
    """IterateMixture's strategy is the written players of every drawn first-subgame iteration
    (each from its own pass, its continuations solved to the end and played through), mixed
    with the iteration as weight: the one-run check equals the sampled player's expectation."""
    from complots_solver.lab.belief.search_exact import IterateMixture
    from complots_solver.lab.exact.mixture import mix_strategies
    from complots_solver.solvers.belief.exact_eval import to_tree_strategy
    from complots_solver.solvers.belief.public_tree import build_public_tree
    from complots_solver.solvers.exact.complots_tree import compile_complots_tree
    from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory

    config, _ = resolve_game("ladder-1-ambassador")
    cfg = config.to_array()
    settings = SearchSettings(iterations=3)  # the solves to the end take as many
    root = Hypotheses.initial(cfg)
    whole = build_public_tree(cfg, root, Memory.CANONICAL)
    tree = compile_complots_tree(config)
    first = IterateMixture(cfg, root, settings, 3, False, whole, tree)
    first.solve()
    got = first.mixture()
    seat = tree.infoset_player[tree.slot_infoset]
    want = np.empty(tree.num_slots)
    for p in range(2):
        parts = []
        for stop in range(1, 4):
            w, s, _ = search_strategy(
                config,
                None,
                settings,
                exact_from=1,
                exact_leaves=3,
                per_hand=False,
                sample=_Fixed(stop),
                cf_roots=True,
                perspective=p,
                keep_exact=True,
            )
            parts.append(to_tree_strategy(w, s, tree))
        want[seat == p] = mix_strategies(tree, parts, [1.0, 2.0, 3.0])[seat == p]
    np.testing.assert_allclose(got, want, atol=1e-9)
    assert np.abs(parts[0] - parts[2]).max() > 0.05  # the draws differ
