"""The exact strategy of the search player on a ladder rung, and its exploitability.

The search player (:class:`complots_solver.solvers.belief.agent.SearchAgent`) solves one turn at a time
from the public belief under its own earlier solutions. On a rung whose
whole game fits in one CANONICAL public tree ``W``, that strategy can be
written out completely, turn by turn: the first subgame from the initial
state covers the deal, the draft and turn 0; then for every turn-start node
of turn ``k`` of ``W``, its hypotheses weighted by their joint reach under
the strategy written so far (uniform when that reach is zero, as the agent
falls back to the chance odds) are the root of a subgame, whose solution is
copied onto ``W``'s slots of that turn (matched by public path and private
state id). The project's exact best response then measures it on the
compiled history tree, with no policy network and no sampling in between:
the value network and the search alone.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from complots_solver.lab.belief.continuation import Bias, ChoiceSubgame, biased
from complots_solver.lab.exact.mixture import Mixture, mix_strategies
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import Stage
from complots_solver.rules.layout import S_STAGE, S_TURN
from complots_solver.solvers.belief.exact_eval import to_tree_strategy, tree_index
from complots_solver.solvers.belief.policy_net import replay_tree
from complots_solver.solvers.belief.public_tree import LEAF, PublicTree, build_public_tree
from complots_solver.solvers.belief.search import SearchSettings, Subgame, safe_subgame
from complots_solver.solvers.belief.vector_cfr import (
    VectorCFR,
    best_response_hyp_values,
    normalize,
    profile_values,
    reaches,
)
from complots_solver.solvers.exact.best_response import exploitability as tree_exploitability
from complots_solver.solvers.exact.best_response import exploitability_report, game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.knowledge.belief_features import hand_index
from complots_solver.solvers.knowledge.hypotheses import TERMINAL, Hypotheses, Memory
from complots_solver.solvers.nets.valuenet import ValueNet


def _children(tree: PublicTree) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (node, token), child in tree.child_index.items():
        out[node].append((token, child))
    return out


def _copy(
    sub: Subgame,
    whole: PublicTree,
    start: int,
    strategy: np.ndarray,
    only: int | None = None,
    leaves: list[tuple[int, int]] | None = None,
    source: np.ndarray | None = None,
) -> tuple[int, int]:
    """Write the solved subgame's strategy onto ``whole`` from node ``start``: (slots set, missed).

    ``only``: copy that player's slots alone. ``leaves`` collects each depth-limit
    leaf node of the subgame with its node in ``whole``. ``source``: a strategy
    of the subgame's tree to copy instead of its solution.
    """
    t = sub.tree
    source = sub.strategy if source is None else source
    assert source is not None
    kids = _children(t)
    copied = missed = 0
    stack = [(0, start)]
    while stack:
        n, w = stack.pop()
        actor = int(t.node_player[n])
        if actor == LEAF and leaves is not None:
            leaves.append((n, w))
        if actor in (LEAF, TERMINAL):
            continue
        if actor >= 0 and only in (None, actor):
            w0, w1 = int(whole.node_hyp_start[w]), int(whole.node_hyp_start[w + 1])
            by_x = {
                int(whole.hyp_x[h, actor]): int(whole.hyp_slot[h])
                for h in range(w0, w1)
                if whole.hyp_slot[h] >= 0
            }
            done = set()
            for h in range(int(t.node_hyp_start[n]), int(t.node_hyp_start[n + 1])):
                s = int(t.hyp_slot[h])
                if s < 0 or s in done:
                    continue
                done.add(s)
                target = by_x.get(int(t.hyp_x[h, actor]))
                if target is None:
                    missed += 1
                    continue
                a0, a1 = int(t.slot_action_start[s]), int(t.slot_action_start[s + 1])
                b0, b1 = (
                    int(whole.slot_action_start[target]),
                    int(whole.slot_action_start[target + 1]),
                )
                probs = dict(
                    zip(t.slot_actions[a0:a1].tolist(), source[a0:a1].tolist(), strict=True)
                )
                for i in range(b0, b1):
                    strategy[i] = probs[int(whole.slot_actions[i])]
                copied += 1
        for token, child in kids.get(n, []):
            stack.append((child, whole.child_index[(w, token)]))
    return copied, missed


class ExactLeaves(Subgame):
    """A subgame whose leaves are valued exactly (a rung-only check of the search without a network).

    At every CFR pass each leaf node's value is the rest of the game solved
    by CFR+ (``iterations``) from that pass's belief, with its counterfactual
    reach columns so that every hand gets a value; ``per_hand`` averages each
    player's values over its private states of one hand (weighted by its
    counterfactual reach), as the value network's outputs are.
    """

    def __init__(
        self,
        cfg: np.ndarray,
        root: Hypotheses,
        settings: SearchSettings,
        iterations: int,
        per_hand: bool,
    ) -> None:
        super().__init__(cfg, root, None, settings)
        self.per_hand = per_hand
        self.to_end = SearchSettings(iterations=iterations, depth=0, cfr=settings.cfr)
        self.last_solves: dict[int, Subgame] = {}  # leaf group -> its solve in the last pass

    def leaf_root(self, idx: np.ndarray, weights: np.ndarray) -> Hypotheses:
        """The leaf rows ``idx`` (one leaf node's) as the root of a solve, weighted ``weights``."""
        t = self.tree
        return Hypotheses(
            t.leaf_states[idx].copy(),
            t.hyp_x[t.leaf_hyps[idx]].copy(),
            t.leaf_knows[idx].copy(),
            weights,
        )

    def leaf_values(
        self, reach: np.ndarray, own: np.ndarray, strategy: np.ndarray, player: int
    ) -> np.ndarray:
        """Seat-0 values of the leaf hypotheses for ``player``'s pass, solved to the end."""
        t = self.tree
        out = np.zeros(len(t.leaf_hyps))
        self.last_solves = {}
        for g in range(self.num_leaf_nodes):
            idx = np.flatnonzero(self.leaf_group == g)
            cols = reach[t.leaf_hyps[idx]].copy()
            total = cols[:, t.players].sum()
            if cols[:, player].sum() <= 0.0:
                continue  # no hand of this player comes here: these values weigh nothing
            if total <= 0.0:
                # its own play never comes here, yet its regrets ask what it would get: as in
                # whole-game CFR, against the opponent's strategy there, which nothing updates
                total = cols[:, player].sum()
            cols /= total
            root = self.leaf_root(idx, cols[:, t.players].copy())
            sub = Subgame(self.cfg, root, None, self.to_end, np.ascontiguousarray(cols))
            sub.solve()
            self.last_solves[g] = sub
            values = sub.seat_values()[: len(idx), player]
            if self.per_hand:
                hands = np.array([hand_index(st, player) for st in root.states])
                for hand in np.unique(hands):
                    m = hands == hand
                    w = cols[m, player]
                    if w.sum() > 0.0:
                        values[m] = (w * values[m]).sum() / w.sum()
            out[idx] = values
        return out


class IterateMixture(ExactLeaves):
    """The first subgame of the search with exact leaves, played as ReBeL plays: an iteration drawn.

    At every pass of its CFR+ the profile of that pass, continued at each leaf
    by the leaf's solve to the end from that pass's belief (the very
    continuation its leaf values are the values of), is one whole-game
    strategy; the player of the pass draws it with the average's weight (the
    iteration). Each player's such strategies are mixed on the compiled tree
    as they come (:mod:`..exact.mixture`), so :meth:`mixture` is, exactly, the
    player who draws an iteration of the first subgame and plays its
    continuation through (``search_strategy`` with a drawn iteration, its own
    perspective, ``cf_roots`` and ``keep_exact``), with no sampling error.
    """

    def __init__(
        self,
        cfg: np.ndarray,
        root: Hypotheses,
        settings: SearchSettings,
        iterations: int,
        per_hand: bool,
        whole: PublicTree,
        tree: object,
    ) -> None:
        super().__init__(cfg, root, settings, iterations, per_hand)
        self.whole = whole
        self.compiled = tree
        self.index = tree_index(whole, tree)
        self.seat = tree.infoset_player[tree.slot_infoset]
        self.mixed = Mixture(tree)
        leaves: list[tuple[int, int]] = []
        slots = int(whole.slot_action_start[-1])
        _copy(self, whole, 0, np.empty(slots), leaves=leaves, source=self.solver.strategy)
        at = dict(leaves)
        self.leaf_whole = [at[int(n)] for n in self.leaf_node_ids]
        self.uniform = normalize(np.ones(int(whole.slot_action_start[-1])), whole.slot_action_start)

    def leaf_values(
        self, reach: np.ndarray, own: np.ndarray, strategy: np.ndarray, player: int
    ) -> np.ndarray:
        """:meth:`ExactLeaves.leaf_values`, and the pass's whole-game strategy mixed in for ``player``."""
        out = super().leaf_values(reach, own, strategy, player)
        written = self.uniform.copy()
        _copy(self, self.whole, 0, written, source=strategy)
        for g in range(self.num_leaf_nodes):
            sub = self.last_solves.get(g)
            if sub is None:  # no belief there: chance odds alone, as the written search does
                idx = np.flatnonzero(self.leaf_group == g)
                sub = Subgame(
                    self.cfg,
                    self.leaf_root(idx, np.full(len(idx), 1.0 / len(idx))),
                    None,
                    self.to_end,
                )
                sub.solve()
            _copy(sub, self.whole, self.leaf_whole[g], written)
        weight = self.solver.average_weight(self.solver.iteration)
        self.mixed.add(written[self.index], weight, where=self.seat == player)
        return out

    def mixture(self) -> np.ndarray:
        """The compiled tree's strategy of the player who draws an iteration (see the class)."""
        if not self.mixed.den.any():
            raise RuntimeError("solve() first")
        return self.mixed.strategy()


def iterate_mixture_exploitability(
    config: GameConfig, settings: SearchSettings, exact_iterations: int, per_hand: bool = False
) -> dict[str, float]:
    """Exact NashConv/2 of :class:`IterateMixture`'s player (uniform where it never arrives)."""
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    whole = build_public_tree(cfg, root, Memory.CANONICAL)
    tree = compile_complots_tree(config)
    first = IterateMixture(cfg, root, settings, exact_iterations, per_hand, whole, tree)
    first.solve()
    report = exploitability_report(tree, first.mixture())
    return {
        "exploitability": report.exploitability,
        "value": report.game_value,
        "best_response_values": report.best_response_values,
    }


def _promises(
    sub: Subgame,
    whole: PublicTree,
    leaves: list[tuple[int, int]],
    player: int,
    out: dict[tuple[int, int], np.ndarray],
) -> None:
    """Store, for ``player``'s next re-solve at each leaf, the opponent's averaged leaf values.

    ``out[(whole node, player)]`` holds one seat-0 value per row of that node
    (NaN for rows the subgame did not hold or never reached).
    """
    t = sub.tree
    values = sub.solver.leaf_promise(1 - player)
    for n, w in leaves:
        a0, a1 = int(t.node_hyp_start[n]), int(t.node_hyp_start[n + 1])
        pos = np.searchsorted(t.leaf_hyps, np.arange(a0, a1))
        by_x = {tuple(t.hyp_x[h]): values[p] for h, p in zip(range(a0, a1), pos, strict=True)}
        b0, b1 = int(whole.node_hyp_start[w]), int(whole.node_hyp_start[w + 1])
        out[(w, player)] = np.array(
            [by_x.get(tuple(whole.hyp_x[h]), np.nan) for h in range(b0, b1)]
        )


def _turn_starts(whole: PublicTree, states: np.ndarray) -> dict[int, list[int]]:
    """The turn-start nodes of ``whole`` by turn (``states``: every hypothesis's state)."""
    starts: dict[int, list[int]] = defaultdict(list)
    for node in range(whole.num_nodes):
        h0 = int(whole.node_hyp_start[node])
        if int(whole.node_player[node]) >= 0 and int(states[h0, S_STAGE]) == Stage.ACTION:
            starts[int(states[h0, S_TURN])].append(node)
    return starts


def _safe_resolve(
    cfg: np.ndarray,
    whole: PublicTree,
    states: np.ndarray,
    knows: np.ndarray,
    reach: np.ndarray,
    node: int,
    player: int,
    promised: np.ndarray | None,
    net: ValueNet | None,
    settings: SearchSettings,
    strategy: np.ndarray,
    counts: dict[str, int],
    recorded: dict[tuple[int, int], np.ndarray] | None,
    make: Callable[[Hypotheses], Subgame] | None = None,
) -> None:
    """``player``'s safe re-solve at turn-start ``node`` of ``whole``, written onto ``strategy``.

    ``reach``: the whole tree's reach under the strategy written so far; with
    ``recorded``, the re-solve's averaged promises for the next turn are kept there.
    """
    h0, h1 = int(whole.node_hyp_start[node]), int(whole.node_hyp_start[node + 1])
    base = Hypotheses(states[h0:h1], whole.hyp_x[h0:h1], knows[h0:h1], reach[h0:h1, 1 - player])
    joint = reach[h0:h1, whole.players]
    sub = safe_subgame(cfg, base, joint, net, settings, player, promised, make)
    leaves: list[tuple[int, int]] = []
    c, m = _copy(sub, whole, node, strategy, only=player, leaves=leaves)
    if recorded is not None:
        _promises(sub, whole, leaves, player, recorded)
    counts["slots"] += c
    counts["missed"] += m


def search_strategy(
    config: GameConfig,
    net: ValueNet | None,
    settings: SearchSettings | None = None,
    log: Callable[[dict], None] | None = None,
    exact_from: int | None = None,
    first_depth: int | None = None,
    promise: str = "auto",
    exact_leaves: int = 0,
    per_hand: bool = True,
    sample: np.random.Generator | None = None,
    cf_roots: bool = False,
    perspective: int | None = None,
    keep_exact: bool = False,
) -> tuple[PublicTree, np.ndarray, dict[str, int]]:
    """The whole-game CANONICAL public tree and the search player's strategy on it (see the note).

    ``exact_from``: subgames rooted at that turn or later are solved to the end
    of the game, with no value network (where the network's leaves cost).
    ``first_depth``: turns in the first subgame, if not ``settings.depth``.
    ``promise`` (safe only): ``written`` promises the opponent its best-response
    value against the strategy written so far, ``net`` the value network's at
    the written strategy's belief, ``average`` its leaf values in the earlier
    solve averaged over the CFR iterations (:meth:`.VectorCFR.leaf_promise`;
    the written values where the earlier solve reached the end), ``auto`` the
    first when the subgames reach the end of the game, else the network's.
    ``exact_leaves`` > 0: the first subgame's leaves are valued exactly with
    that many CFR+ iterations (:class:`ExactLeaves`, ``per_hand`` as there).
    With ``settings.safe`` each player re-solves alone from turn 1 on
    (:func:`complots_solver.solvers.belief.search.safe_subgame`); when the earlier solve reached the end of
    the game, the opponent is promised its best-response values against the
    strategy written so far.
    ``sample``: every depth-limited subgame is played as one CFR iteration's
    strategy drawn with this generator (:meth:`complots_solver.solvers.belief.search.Subgame.solve_sampled`,
    ReBeL's rule; not with ``settings.safe``); one draw per subgame, so the
    strategy written is one sample of the player (see :func:`search_exploitability`);
    ``perspective``: the drawn iteration's profile of that player's pass
    (:meth:`complots_solver.solvers.belief.search.Subgame.solve_sampled`), so that the strategy written is
    that player's own model of the game, and only its slots are its play.
    ``keep_exact``: turns after ``exact_from`` are not re-solved; the solves
    to the end at ``exact_from`` are played through (no unsafe re-solving).
    ``cf_roots``: the (unsafe) re-solves' roots carry each player's counterfactual reach
    under the strategy written so far beside the joint (``Subgame(columns=...)``),
    as the exact leaves solve from.
    """
    settings = settings or SearchSettings()
    if sample is not None and settings.safe:
        raise ValueError("sample: a drawn iteration is played by the unsafe search only (safe off)")
    to_end = replace(settings, depth=0)
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    whole = build_public_tree(cfg, root, Memory.CANONICAL)
    states, knows, _ = replay_tree(whole, root.states, root.knows, cfg)
    strategy = normalize(np.ones(int(whole.slot_action_start[-1])), whole.slot_action_start)
    first_settings = settings if first_depth is None else replace(settings, depth=first_depth)
    if exact_leaves > 0:
        first: Subgame = ExactLeaves(cfg, root, first_settings, exact_leaves, per_hand)
    else:
        first = Subgame(cfg, root, net, first_settings)
    _solve(first, sample, perspective)
    leaves: list[tuple[int, int]] = []
    copied, missed = _copy(first, whole, 0, strategy, leaves=leaves)
    recorded: dict[tuple[int, int], np.ndarray] = {}
    if promise == "auto" and settings.safe and settings.average_promise and settings.depth:
        promise = "average"
    if promise == "average":
        for player in range(2):
            _promises(first, whole, leaves, player, recorded)
    counts = {"subgames": 1, "slots": copied, "missed": missed, "unreached_roots": 0}
    starts = _turn_starts(whole, states)
    for turn in sorted(k for k in starts if k >= 1):
        if keep_exact and exact_from is not None and turn > exact_from:
            break
        began = time.perf_counter()
        reach, _ = reaches(whole, strategy)
        joint = reach[:, whole.players]
        tree_values = None
        if promise == "auto":
            written = settings.depth == 0 and exact_from is None
        elif promise == "average":  # the earlier solves reached the end: their written values
            written = settings.depth == 0 or (exact_from is not None and turn - 1 >= exact_from)
        else:
            written = promise == "written"
        if settings.safe and written:
            # the earlier solve reached the end of the game: its promise is the written values
            # (the opponent's best-response values against what is written, as the gadget needs)
            tree_values = [best_response_hyp_values(whole, strategy, o)[0] for o in range(2)]
        for node in starts[turn]:
            h0, h1 = int(whole.node_hyp_start[node]), int(whole.node_hyp_start[node + 1])
            exact = exact_from is not None and turn >= exact_from
            here = to_end if exact else settings
            if settings.safe:
                for player in range(2):
                    promised = None if tree_values is None else tree_values[1 - player][h0:h1]
                    if promised is None and (node, player) in recorded:
                        promised = np.nan_to_num(recorded[(node, player)])
                    _safe_resolve(
                        cfg, whole, states, knows, reach, node, player, promised, net, here,
                        strategy, counts, recorded if promise == "average" else None,
                    )  # fmt: skip
                counts["subgames"] += 1
                continue
            weights = joint[h0:h1].copy()
            columns = None
            if weights.sum() <= 0.0:
                weights[:] = 1.0
                counts["unreached_roots"] += 1
            elif cf_roots:
                columns = np.ascontiguousarray(reach[h0:h1] / weights.sum())
            hyps = Hypotheses(
                states[h0:h1].copy(),
                whole.hyp_x[h0:h1].copy(),
                knows[h0:h1].copy(),
                weights / weights.sum(),
            )
            sub = Subgame(cfg, hyps, net, here, columns)
            _solve(sub, sample, perspective)
            c, m = _copy(sub, whole, node, strategy)
            counts["subgames"] += 1
            counts["slots"] += c
            counts["missed"] += m
        if log is not None:
            log({"turn": turn, "roots": len(starts[turn]), "seconds": time.perf_counter() - began})
    return whole, strategy, counts


def _solve(sub: Subgame, sample: np.random.Generator | None, perspective: int | None) -> None:
    if sample is not None and sub.settings.depth > 0:
        sub.solve_sampled(sample, perspective)
    else:  # a subgame to the end: its average is the continuation its values are of
        sub.solve()


def search_exploitability(
    config: GameConfig,
    net: ValueNet | None,
    settings: SearchSettings | None = None,
    log: Callable[[dict], None] | None = None,
    exact_from: int | None = None,
    first_depth: int | None = None,
    promise: str = "auto",
    exact_leaves: int = 0,
    per_hand: bool = True,
    samples: int = 0,
    seed: int = 0,
    cf_roots: bool = False,
    perspectives: bool = False,
    keep_exact: bool = False,
) -> dict[str, float]:
    """Exact NashConv/2 of the search player on the compiled history tree, and seat 0's value.

    ``samples`` > 0: the player draws an iteration per subgame (``sample`` of
    :func:`search_strategy`); that many written samples (generators seeded
    ``[seed, k]``) are mixed on the compiled tree (:func:`..exact.mixture.mix_strategies`,
    the player who draws its iterations as it goes) and the mixture measured,
    beside each sample alone (``sample_exploitability``). ``perspectives``:
    each player's samples are written from its own passes' profiles
    (``perspective`` of :func:`search_strategy`, generators ``[seed, k, p]``).
    ``keep_exact`` as in :func:`search_strategy`.
    """
    if samples < 0:
        raise ValueError(f"samples must be at least 0, got {samples}")
    if perspectives and not samples:
        raise ValueError("perspectives: only with samples > 0 (the drawn players)")
    args = (config, net, settings, log, exact_from, first_depth, promise, exact_leaves, per_hand)
    tree = compile_complots_tree(config)
    if samples == 0:
        whole, strategy, counts = search_strategy(*args, cf_roots=cf_roots, keep_exact=keep_exact)
        mapped = to_tree_strategy(whole, strategy, tree)
        return {
            "exploitability": float(tree_exploitability(tree, mapped)),
            "value": float(game_value(tree, mapped)),
            **counts,
        }
    written = []
    alone = []
    seat_of = tree.infoset_player[tree.slot_infoset]
    index = None  # every written strategy is on the same whole-game tree
    for k in range(samples):
        if perspectives:
            mapped = np.empty(tree.num_slots)
            for p in range(2):
                rng = np.random.default_rng([seed, k, p])
                whole, strategy, counts = search_strategy(
                    *args, sample=rng, cf_roots=cf_roots, perspective=p, keep_exact=keep_exact
                )
                index = tree_index(whole, tree) if index is None else index
                mine = seat_of == p
                mapped[mine] = strategy[index][mine]
        else:
            rng = np.random.default_rng([seed, k])
            whole, strategy, counts = search_strategy(
                *args, sample=rng, cf_roots=cf_roots, keep_exact=keep_exact
            )
            index = tree_index(whole, tree) if index is None else index
            mapped = strategy[index]
        written.append(mapped)
        alone.append(round(float(tree_exploitability(tree, mapped)), 5))
    report = exploitability_report(tree, mix_strategies(tree, written))
    return {
        "exploitability": report.exploitability,
        "value": report.game_value,
        "best_response_values": report.best_response_values,
        "sample_exploitability": alone,
        **counts,
    }


def blueprint_strategy(config: GameConfig, iterations: int, rule: str = "cfr+") -> np.ndarray:
    """Average strategy of ``iterations`` of whole-game CFR on the CANONICAL public tree."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    cfg = config.to_array()
    whole = build_public_tree(cfg, Hypotheses.initial(cfg), Memory.CANONICAL)
    solver = VectorCFR(whole, rule=rule)
    solver.run(iterations)
    return solver.average_strategy()


def continuation_values(
    whole: PublicTree,
    blueprint: np.ndarray,
    player: int,
    biases: tuple[Bias, ...] = tuple(Bias),
    factor: float = 5.0,
    best_response: bool = False,
    own_choice: bool = False,
) -> np.ndarray:
    """Seat-0 value of every hypothesis of ``whole`` per pair of continuations, ``[K0, K1, H]``.

    ``player``'s opponent continues with the blueprint, or the blueprint
    biased towards each of ``biases`` (:func:`.continuation.biased`), or
    (``best_response``) its best response to ``player``'s continuation;
    ``player`` with the blueprint alone, or (``own_choice``) with any of its
    own biased blueprints as well.
    """
    opp = 1 - player
    own = [blueprint] + (
        [biased(whole, blueprint, player, b, factor) for b in biases] if own_choice else []
    )
    table = []
    for mine in own:
        row = [profile_values(whole, biased(whole, mine, opp, b, factor)) for b in biases]
        row.insert(0, profile_values(whole, mine))
        if best_response:
            row.append(best_response_hyp_values(whole, mine, opp)[0])
        table.append(row)
    values = np.array(table)  # [own, opponent's, H]
    return values if player == 0 else values.transpose(1, 0, 2)


def _leaf_rows(sub: Subgame, whole: PublicTree, start: int) -> np.ndarray:
    """The hypothesis of ``whole`` of each leaf hypothesis of ``sub`` rooted at ``start``."""
    t = sub.tree
    leaves: list[tuple[int, int]] = []
    scratch = np.empty(int(whole.slot_action_start[-1]))
    _copy(sub, whole, start, scratch, leaves=leaves, source=sub.solver.strategy)
    out = np.full(len(t.leaf_hyps), -1, dtype=np.int64)
    for n, w in leaves:
        a0, a1 = int(t.node_hyp_start[n]), int(t.node_hyp_start[n + 1])
        b0, b1 = int(whole.node_hyp_start[w]), int(whole.node_hyp_start[w + 1])
        by_x = {tuple(whole.hyp_x[h]): h for h in range(b0, b1)}
        pos = np.searchsorted(t.leaf_hyps, np.arange(a0, a1))
        out[pos] = [by_x[tuple(t.hyp_x[h])] for h in range(a0, a1)]
    return out


def continuation_search_strategy(
    config: GameConfig,
    settings: SearchSettings,
    blueprint: np.ndarray,
    biases: tuple[Bias, ...] = tuple(Bias),
    factor: float = 5.0,
    best_response: bool = False,
    log: Callable[[dict], None] | None = None,
    own_choice: bool = False,
) -> tuple[PublicTree, np.ndarray, dict[str, int]]:
    """The search player with continuation leaves, written out on the whole public tree.

    Each player solves the first subgame alone, then re-solves every later
    turn safely (gadget, promised its opponent's leaf values of the earlier
    solve averaged over the iterations); every subgame's leaves are the
    opponent's choice among its continuations (:func:`continuation_values`,
    the player continuing with ``blueprint``, a strategy of the CANONICAL
    whole-game public tree).
    """
    if settings.depth < 1:
        raise ValueError("settings: continuation leaves need depth-limited subgames (depth >= 1)")
    cfg = config.to_array()
    root = Hypotheses.initial(cfg)
    whole = build_public_tree(cfg, root, Memory.CANONICAL)
    if blueprint.shape != (int(whole.slot_action_start[-1]),):
        raise ValueError("blueprint: one probability per action of the whole public tree needed")
    states, knows, _ = replay_tree(whole, root.states, root.knows, cfg)
    values = [
        continuation_values(whole, blueprint, p, biases, factor, best_response, own_choice)
        for p in range(2)
    ]
    strategy = normalize(np.ones(int(whole.slot_action_start[-1])), whole.slot_action_start)

    def make(player: int, start: int) -> Callable[[Hypotheses], Subgame]:
        def build(hyps: Hypotheses) -> Subgame:
            sub = ChoiceSubgame(cfg, hyps, None, settings)
            rows = _leaf_rows(sub, whole, start)
            sub.set_values(values[player][:, :, rows])
            return sub

        return build

    recorded: dict[tuple[int, int], np.ndarray] = {}
    counts = {"subgames": 0, "slots": 0, "missed": 0}
    for player in range(2):
        first = make(player, 0)(root)
        first.solve()
        leaves: list[tuple[int, int]] = []
        c, m = _copy(first, whole, 0, strategy, only=player, leaves=leaves)
        _promises(first, whole, leaves, player, recorded)
        counts["subgames"] += 1
        counts["slots"] += c
        counts["missed"] += m
    starts = _turn_starts(whole, states)
    for turn in sorted(k for k in starts if k >= 1):
        began = time.perf_counter()
        reach, _ = reaches(whole, strategy)
        for node in starts[turn]:
            h0, h1 = int(whole.node_hyp_start[node]), int(whole.node_hyp_start[node + 1])
            for player in range(2):
                promised = np.nan_to_num(recorded.get((node, player), np.zeros(h1 - h0)))
                _safe_resolve(
                    cfg, whole, states, knows, reach, node, player, promised, None, settings,
                    strategy, counts, recorded, make(player, node),
                )  # fmt: skip
            counts["subgames"] += 1
        if log is not None:
            log({"turn": turn, "roots": len(starts[turn]), "seconds": time.perf_counter() - began})
    return whole, strategy, counts


def continuation_exploitability(
    config: GameConfig,
    settings: SearchSettings,
    blueprint_iterations: int,
    biases: tuple[Bias, ...] = tuple(Bias),
    factor: float = 5.0,
    best_response: bool = False,
    log: Callable[[dict], None] | None = None,
    own_choice: bool = False,
) -> dict[str, object]:
    """Exact NashConv/2 of the continuation-leaf search over a short CFR+ blueprint, and the blueprint's."""
    blueprint = blueprint_strategy(config, blueprint_iterations)
    whole, strategy, counts = continuation_search_strategy(
        config, settings, blueprint, biases, factor, best_response, log, own_choice
    )
    tree = compile_complots_tree(config)
    index = tree_index(whole, tree)
    return {
        "exploitability": float(tree_exploitability(tree, strategy[index])),
        "value": float(game_value(tree, strategy[index])),
        "blueprint_exploitability": float(tree_exploitability(tree, blueprint[index])),
        **counts,
    }
