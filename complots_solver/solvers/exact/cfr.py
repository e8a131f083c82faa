"""Counterfactual regret minimisation on a compiled :class:`Tree` (numba kernels).

Every iteration runs inside ``@njit`` code as two linear passes over the node
arrays per traversal: a forward sweep pushing reach probabilities to children
and a reverse sweep computing values bottom-up while accumulating regrets and
the average strategy.  The update rules replicate OpenSpiel's Python solvers:

* ``"cfr"``: ``cfr.CFRSolver`` (regret matching, alternating updates by default,
  uniform averaging weighted by the player's own reach).
* ``"cfr+"``: ``cfr.CFRPlusSolver`` (regret matching+, i.e. cumulative regrets
  clipped at 0 after each player's traversal, alternating updates, linear
  averaging with weight ``t`` from the first iteration -- OpenSpiel's Python
  solver applies no averaging delay).
* ``"lcfr"``: ``discounted_cfr.LCFRSolver``, i.e. DCFR with alpha=beta=gamma=1.
* ``"dcfr"``: ``discounted_cfr.DCFRSolver``: after player ``p``'s traversal at
  iteration ``t``, ``p``'s cumulative regrets (including this iteration's) are
  multiplied by ``t**alpha / (t**alpha + 1)`` if >= 0 and by
  ``t**beta / (t**beta + 1)`` otherwise; average contributions are weighted by
  ``t**gamma``.

With alternating updates, player 0 is updated first and player 1's traversal
uses player 0's freshly updated current strategy, as in OpenSpiel.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from complots_solver.solvers.exact.tree import (
    NO_PLAYER,
    NUM_PLAYERS,
    NodeKind,
    Tree,
    with_terminals_last,
)

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
DCFR_DEFAULTS = {"alpha": 1.5, "beta": 0.0, "gamma": 2.0}
LCFR_PARAMS = {"alpha": 1.0, "beta": 1.0, "gamma": 1.0}
ALL_PLAYERS = -1
STATE_VERSION = 1


class Averaging(IntEnum):
    """Weight of iteration ``t``'s contribution to the average strategy."""

    UNIFORM = 0  # weight 1
    LINEAR = 1  # weight t
    POWER = 2  # weight t**gamma


@njit(cache=True)
def _traverse_alternating(
    num_internal: int,
    player: np.ndarray,
    slot_base: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    sigma: np.ndarray,
    regret: np.ndarray,
    cumulative: np.ndarray,
    own: np.ndarray,
    opp: np.ndarray,
    value: np.ndarray,
    traverser: int,
    avg_weight: float,
) -> None:
    """One CFR traversal updating ``traverser``'s regrets and average strategy.

    Nodes ``< num_internal`` are the non-terminal ones; ``value`` holds player-0
    values and must contain the terminal utilities at ids ``>= num_internal``.
    """
    own[0] = 1.0
    opp[0] = 1.0  # opponent x chance reach = traverser's counterfactual reach
    for n in range(num_internal):
        actor = player[n]
        o = own[n]
        q = opp[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                c = children[e]
                own[c] = o
                opp[c] = q * chance_prob[e]
        elif actor == traverser:
            base = slot_base[n]
            for e in range(e0, e1):
                c = children[e]
                own[c] = o * sigma[base + e]
                opp[c] = q
        else:
            base = slot_base[n]
            for e in range(e0, e1):
                c = children[e]
                own[c] = o
                opp[c] = q * sigma[base + e]
    sign = 1.0 if traverser == 0 else -1.0
    for n in range(num_internal - 1, -1, -1):
        actor = player[n]
        q = opp[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        base = slot_base[n]
        if actor == traverser:
            o = own[n] * avg_weight
            if o != 0.0:
                for e in range(e0, e1):
                    cumulative[base + e] += o * sigma[base + e]
        if q == 0.0:
            # Zero counterfactual reach: this value is only ever multiplied by 0.
            value[n] = 0.0
            continue
        v = 0.0
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                v += chance_prob[e] * value[children[e]]
        else:
            for e in range(e0, e1):
                v += sigma[base + e] * value[children[e]]
            if actor == traverser:
                sq = sign * q
                for e in range(e0, e1):
                    regret[base + e] += sq * (value[children[e]] - v)
        value[n] = v


@njit(cache=True)
def _traverse_simultaneous(
    num_internal: int,
    player: np.ndarray,
    slot_base: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    sigma: np.ndarray,
    regret: np.ndarray,
    cumulative: np.ndarray,
    reach0: np.ndarray,
    reach1: np.ndarray,
    reach_chance: np.ndarray,
    value: np.ndarray,
    avg_weight: float,
) -> None:
    """One CFR traversal updating both players' regrets with the same strategy."""
    reach0[0] = 1.0
    reach1[0] = 1.0
    reach_chance[0] = 1.0
    for n in range(num_internal):
        actor = player[n]
        r0 = reach0[n]
        r1 = reach1[n]
        rc = reach_chance[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                c = children[e]
                reach0[c] = r0
                reach1[c] = r1
                reach_chance[c] = rc * chance_prob[e]
        else:
            base = slot_base[n]
            for e in range(e0, e1):
                c = children[e]
                s = sigma[base + e]
                reach0[c] = r0 * s if actor == 0 else r0
                reach1[c] = r1 if actor == 0 else r1 * s
                reach_chance[c] = rc
    for n in range(num_internal - 1, -1, -1):
        actor = player[n]
        e0 = child_offsets[n]
        e1 = child_offsets[n + 1]
        v = 0.0
        if actor == NO_PLAYER:
            for e in range(e0, e1):
                v += chance_prob[e] * value[children[e]]
            value[n] = v
            continue
        r0 = reach0[n]
        r1 = reach1[n]
        if r0 == 0.0 and r1 == 0.0:
            value[n] = 0.0
            continue
        base = slot_base[n]
        for e in range(e0, e1):
            v += sigma[base + e] * value[children[e]]
        value[n] = v
        if actor == 0:
            o = r0 * avg_weight
            sq = r1 * reach_chance[n]
        else:
            o = r1 * avg_weight
            sq = -(r0 * reach_chance[n])
        for e in range(e0, e1):
            regret[base + e] += sq * (value[children[e]] - v)
            cumulative[base + e] += o * sigma[base + e]


@njit(cache=True)
def _update_regrets_and_policy(
    infoset_player: np.ndarray,
    action_offsets: np.ndarray,
    regret: np.ndarray,
    sigma: np.ndarray,
    who: int,
    rm_plus: bool,
    discount: bool,
    positive_factor: float,
    negative_factor: float,
) -> None:
    """Apply RM+ clipping / DCFR discounting, then regret matching, for ``who``'s infosets."""
    for i in range(infoset_player.shape[0]):
        if who != ALL_PLAYERS and infoset_player[i] != who:
            continue
        a0 = action_offsets[i]
        a1 = action_offsets[i + 1]
        total = 0.0
        for a in range(a0, a1):
            r = regret[a]
            if rm_plus and r < 0.0:
                r = 0.0
            if discount:
                r *= positive_factor if r >= 0.0 else negative_factor
            regret[a] = r
            if r > 0.0:
                total += r
        if total > 0.0:
            for a in range(a0, a1):
                r = regret[a]
                sigma[a] = r / total if r > 0.0 else 0.0
        else:
            uniform = 1.0 / (a1 - a0)
            for a in range(a0, a1):
                sigma[a] = uniform


@njit(cache=True)
def _run(
    num_internal: int,
    player: np.ndarray,
    slot_base: np.ndarray,
    child_offsets: np.ndarray,
    children: np.ndarray,
    chance_prob: np.ndarray,
    infoset_player: np.ndarray,
    action_offsets: np.ndarray,
    sigma: np.ndarray,
    regret: np.ndarray,
    cumulative: np.ndarray,
    buf0: np.ndarray,
    buf1: np.ndarray,
    buf2: np.ndarray,
    value: np.ndarray,
    first_iteration: int,
    num_iterations: int,
    alternating: bool,
    rm_plus: bool,
    averaging: int,
    discount: bool,
    alpha: float,
    beta: float,
    gamma: float,
) -> None:
    """Run ``num_iterations`` iterations starting at iteration ``first_iteration``."""
    for it in range(num_iterations):
        t = float(first_iteration + it)
        if averaging == Averaging.UNIFORM:
            avg_weight = 1.0
        elif averaging == Averaging.LINEAR:
            avg_weight = t
        else:
            avg_weight = t**gamma
        positive_factor = 1.0
        negative_factor = 1.0
        if discount:
            t_alpha = t**alpha
            t_beta = t**beta
            positive_factor = t_alpha / (t_alpha + 1.0)
            negative_factor = t_beta / (t_beta + 1.0)
        if alternating:
            for p in range(NUM_PLAYERS):
                _traverse_alternating(
                    num_internal, player, slot_base, child_offsets, children, chance_prob,
                    sigma, regret, cumulative, buf0, buf1, value, p, avg_weight,
                )  # fmt: skip
                _update_regrets_and_policy(
                    infoset_player, action_offsets, regret, sigma, p,
                    rm_plus, discount, positive_factor, negative_factor,
                )  # fmt: skip
        else:
            _traverse_simultaneous(
                num_internal, player, slot_base, child_offsets, children, chance_prob,
                sigma, regret, cumulative, buf0, buf1, buf2, value, avg_weight,
            )  # fmt: skip
            _update_regrets_and_policy(
                infoset_player, action_offsets, regret, sigma, ALL_PLAYERS,
                rm_plus, discount, positive_factor, negative_factor,
            )  # fmt: skip


@njit(cache=True)
def normalize_per_infoset(weights: np.ndarray, action_offsets: np.ndarray) -> np.ndarray:
    """Normalise slot weights per infoset; infosets with zero total become uniform."""
    out = np.empty_like(weights)
    for i in range(action_offsets.shape[0] - 1):
        a0 = action_offsets[i]
        a1 = action_offsets[i + 1]
        total = 0.0
        for a in range(a0, a1):
            total += weights[a]
        if total > 0.0:
            for a in range(a0, a1):
                out[a] = weights[a] / total
        else:
            for a in range(a0, a1):
                out[a] = 1.0 / (a1 - a0)
    return out


def slot_base(tree: Tree) -> np.ndarray:
    """Per node, ``action_offsets[infoset] - child_offsets[node]`` (0 for non-decision nodes).

    Adding an edge index ``e`` of a decision node gives the action slot of ``e``.
    """
    base = np.zeros(tree.num_nodes, dtype=np.int64)
    decision = tree.kind == NodeKind.DECISION
    base[decision] = tree.action_offsets[tree.infoset[decision]] - tree.child_offsets[:-1][decision]
    return base


class TreeSolver:
    """CFR-family solver (CFR, CFR+, Linear CFR, Discounted CFR) on a compiled :class:`Tree`."""

    def __init__(
        self,
        tree: Tree,
        algorithm: str = "cfr",
        alternating: bool = True,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
    ) -> None:
        """Set up solver state; ``alpha``/``beta``/``gamma`` apply to ``"dcfr"`` only."""
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
        if not isinstance(alternating, (bool, np.bool_)):
            raise ValueError(f"alternating must be True or False, got {alternating!r}")
        given = {"alpha": alpha, "beta": beta, "gamma": gamma}
        if algorithm != "dcfr":
            extra = [name for name, value in given.items() if value is not None]
            if extra:
                raise ValueError(f"{', '.join(extra)} only allowed for algorithm='dcfr'")
        params = {
            name: DCFR_DEFAULTS[name] if value is None else float(value)
            for name, value in given.items()
        }
        if algorithm == "lcfr":
            params = dict(LCFR_PARAMS)
        for name, value in params.items():
            if not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value}")
        self.tree = tree
        self.algorithm = algorithm
        self.alternating = bool(alternating)
        self.alpha, self.beta, self.gamma = params["alpha"], params["beta"], params["gamma"]
        self._rm_plus = algorithm == "cfr+"
        self._discount = algorithm in ("lcfr", "dcfr")
        self._averaging = {
            "cfr": Averaging.UNIFORM,
            "cfr+": Averaging.LINEAR,
            "lcfr": Averaging.POWER,
            "dcfr": Averaging.POWER,
        }[algorithm]
        # Sweeps run over non-terminal ids only; renumber (a copy) if needed.
        self._layout = with_terminals_last(tree)
        self._slot_base = slot_base(self._layout)
        num_nodes = tree.num_nodes
        self._buffers = [np.zeros(num_nodes) for _ in range(3)]
        self._value = self._layout.utility.copy()  # terminal entries never change
        self.iteration = 0
        self._regret = np.zeros(tree.num_slots)
        self._cumulative = np.zeros(tree.num_slots)
        self._sigma = tree.uniform_strategy()

    @property
    def node_visits_per_iteration(self) -> int:
        """Nodes touched per iteration: one traversal per player if alternating, else one."""
        return self.tree.num_nodes * (NUM_PLAYERS if self.alternating else 1)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        if (
            isinstance(iterations, bool)
            or not isinstance(iterations, (int, np.integer))
            or iterations < 0
        ):
            raise ValueError(f"iterations must be a non-negative int, got {iterations!r}")
        if iterations == 0:
            return
        tree = self._layout
        b0, b1, b2 = self._buffers
        _run(
            tree.num_internal, tree.player, self._slot_base, tree.child_offsets, tree.children,
            tree.chance_prob, tree.infoset_player, tree.action_offsets,
            self._sigma, self._regret, self._cumulative, b0, b1, b2, self._value,
            self.iteration + 1, int(iterations), self.alternating, self._rm_plus,
            int(self._averaging), self._discount, self.alpha, self.beta, self.gamma,
        )  # fmt: skip
        self.iteration += int(iterations)

    def current_strategy(self) -> np.ndarray:
        """Copy of the current (regret-matching) strategy, slot-aligned."""
        return self._sigma.copy()

    def average_strategy(self) -> np.ndarray:
        """The average strategy (uniform at infosets never reached), slot-aligned."""
        return normalize_per_infoset(self._cumulative, self.tree.action_offsets)

    def cumulative_regret(self) -> np.ndarray:
        """Copy of the cumulative regrets, slot-aligned."""
        return self._regret.copy()

    def _config(self) -> np.ndarray:
        """Numeric fingerprint of the solver configuration and tree shape."""
        tree = self.tree
        return np.array(
            [
                STATE_VERSION,
                ALGORITHMS.index(self.algorithm),
                self.alternating,
                self.alpha,
                self.beta,
                self.gamma,
                tree.num_nodes,
                tree.num_infosets,
                tree.num_slots,
            ],
            dtype=np.float64,
        )

    def get_state(self) -> dict[str, np.ndarray]:
        """Snapshot of the full solver state as numpy arrays (copies)."""
        return {
            "config": self._config(),
            "iteration": np.array(self.iteration, dtype=np.int64),
            "regret": self._regret.copy(),
            "cumulative_policy": self._cumulative.copy(),
            "current_policy": self._sigma.copy(),
        }

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore a snapshot from :meth:`get_state`; resuming is bit-for-bit exact."""
        expected = {"config", "iteration", "regret", "cumulative_policy", "current_policy"}
        if set(state) != expected:
            raise ValueError(f"state must have keys {sorted(expected)}, got {sorted(state)}")
        config = np.asarray(state["config"], dtype=np.float64)
        if config.shape != self._config().shape or not np.array_equal(config, self._config()):
            raise ValueError(
                "state config (algorithm, parameters or tree shape) does not match this solver"
            )
        iteration = int(state["iteration"])
        if iteration < 0:
            raise ValueError(f"state iteration must be >= 0, got {iteration}")
        arrays = {}
        for key in ("regret", "cumulative_policy", "current_policy"):
            values = np.asarray(state[key], dtype=np.float64)
            if values.shape != (self.tree.num_slots,):
                raise ValueError(
                    f"state {key} must have shape ({self.tree.num_slots},), got {values.shape}"
                )
            arrays[key] = values.copy()
        self.iteration = iteration
        self._regret = arrays["regret"]
        self._cumulative = arrays["cumulative_policy"]
        self._sigma = arrays["current_policy"]
