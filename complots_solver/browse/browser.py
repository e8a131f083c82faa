"""A read-only strategy browser over a solved run directory.

:class:`StrategyBrowser` loads a run (``strategy.npz`` + ``meta.json``, and
``convergence.csv`` if present), recompiles the game's tree, checks that the
strategy fits it, and decodes every information set into a
:class:`Situation` (what the player to move knows). It answers:

* which situations match some fields (:meth:`StrategyBrowser.find`,
  :meth:`StrategyBrowser.situations_where`);
* the action distribution of a situation, its reach probability under the
  solved profile and its expected value for the player to move
  (:meth:`StrategyBrowser.distribution`, :meth:`StrategyBrowser.reach`,
  :meth:`StrategyBrowser.value`, :meth:`StrategyBrowser.action_values`);
* reach-weighted aggregates over groups of situations
  (:meth:`StrategyBrowser.aggregate`), starting-hand values, the game value
  and the share of games reaching the turn cap.

Every number is exact: reach probabilities and values are computed on the
compiled tree under the profile (the strategy file's average strategy), and
an infoset's value is its counterfactual value normalised by its
counterfactual reach, i.e. the expected utility of the player to move given
that the situation arises. Strategy files keyed by hashed information states
(MCCFR) have no tree to browse; they are refused with a clear error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from complots_solver.browse.decode import (
    F_HAND,
    F_OK,
    decode_tokens,
)
from complots_solver.browse.exact import profile_quantities, walk_infosets
from complots_solver.browse.frames import (
    Filter,
    FrameQueries,
    Situation,
    counts_to_strings,
    finish_situations,
    move_label,
    situation_columns,
    situation_from_row,
    slot_claims,
)
from complots_solver.rules.enums import NUM_CLANS, TokenKind
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import action_to_string, split_token, token_to_string
from complots_solver.solvers.common.folders import META_FILE
from complots_solver.solvers.common.rundir import read_csv_log
from complots_solver.solvers.common.strategy_file import (
    StrategyFile,
    load_strategy,
)
from complots_solver.solvers.exact.run import CONVERGENCE_FILE

KEYED_FORMAT = "complots-keyed-strategy"  # MCCFR tables (hashed keys)
EXACT_ORDER_PREFIX = "complots_tree.compile_complots_tree"
EXACT_METHOD = "computed on the compiled game tree under the solved profile"


class StrategyBrowser(FrameQueries):
    """Read-only, exact view of a solved strategy (see the module docstring)."""

    exact = True
    method = EXACT_METHOD

    def __init__(self, run_dir: Path | str) -> None:
        """Load ``run_dir`` and compute everything the queries need."""
        self.run_dir = Path(run_dir)
        _refuse_keyed(self.run_dir)
        self.strategy: StrategyFile = load_strategy(self.run_dir)
        self.meta: dict[str, Any] = self.strategy.meta
        order = str(self.meta.get("infoset_order", ""))
        if not order.startswith(EXACT_ORDER_PREFIX):
            raise ValueError(
                f"{self.run_dir}: strategy keyed by {order or 'unknown infosets'!r}; "
                "only exact (compiled-tree) strategy files can be browsed so far"
            )
        self.config, self.preset = resolve_game(str(self.meta["game"]))
        if self.meta.get("preset"):
            self.preset = self.meta["preset"]
        from complots_solver.solvers.exact.complots_tree import compile_complots_tree

        self.tree = compile_complots_tree(self.config, validate=False)
        self.strategy.check_matches(
            self.tree.action_offsets, self.tree.legal_actions, self.tree.infoset_player
        )
        self.profile = np.asarray(self.strategy.average, dtype=np.float64)
        self.walk = walk_infosets(self.config, self.tree)
        self.quantities = profile_quantities(self.tree, self.profile)
        self.fields = decode_tokens(
            self.config.to_array(), self.tree.infoset_player, self.walk.tokens, self.walk.lengths
        )
        if not self.fields[:, F_OK].all():
            raise ValueError(f"{self.run_dir}: some information states could not be decoded")
        self.situations = self._situation_frame()
        self.actions = self._action_frame()

    # ---- frames ----------------------------------------------------------------
    def _situation_frame(self) -> pd.DataFrame:
        """One row per infoset: decoded fields, reach and value."""
        q = self.quantities
        data = situation_columns(self.config, self.fields, self.tree.infoset_player)
        data["infoset"] = np.arange(len(self.fields))
        data.update(
            {
                "num_actions": self.tree.num_actions,
                "reach": q.infoset_reach,
                "cf_reach": q.infoset_cf_reach,
                "value": q.infoset_value,
            }
        )
        return finish_situations(pd.DataFrame(data))

    def _action_frame(self) -> pd.DataFrame:
        """One row per (infoset, action) slot with its probability, reach and value."""
        cfg = self.config
        tree = self.tree
        slot_infoset = tree.slot_infoset.astype(np.int64)
        actions = tree.legal_actions.astype(np.int64)
        unique = np.unique(actions)
        label = {int(a): move_label(cfg, int(a)) for a in unique}
        full = {int(a): action_to_string(cfg, int(a)) for a in unique}
        hand_counts = self.fields[slot_infoset, F_HAND : F_HAND + NUM_CLANS]
        claimed, bluff = slot_claims(cfg, actions, hand_counts)
        q = self.quantities
        return pd.DataFrame(
            {
                "infoset": slot_infoset,
                "slot": np.arange(len(actions)),
                "action": actions,
                "action_name": [full[int(a)] for a in actions],
                "move": [label[int(a)] for a in actions],
                "probability": self.profile,
                "slot_reach": q.slot_reach,
                "challenged_reach": q.slot_challenged,
                "action_value": q.action_value,
                "claimed_character": claimed,
                "bluff": bluff,
            }
        )

    # ---- single situations -------------------------------------------------------
    def situation(self, infoset: int) -> Situation:
        """The decoded :class:`Situation` of ``infoset``."""
        i = int(infoset)
        if not 0 <= i < self.tree.num_infosets:
            raise ValueError(f"infoset must be in [0, {self.tree.num_infosets}), got {infoset}")
        row = self.situations.iloc[i]
        n = self.config.players
        tokens = [int(t) for t in self.walk.tokens[i, : self.walk.lengths[i]]]
        history = tuple(token_to_string(self.config, t) for t in tokens)
        public = tuple(
            text
            for t, text in zip(tokens, history, strict=True)
            if split_token(t)[0]
            in (TokenKind.PUBLIC, TokenKind.CHALLENGE_TRUE, TokenKind.CHALLENGE_FALSE)
        )
        return situation_from_row(i, row, n, history, public, tuple(self.distribution(i)))

    def _slots(self, infoset: int | Situation) -> slice:
        """Slot range of an infoset."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        offsets = self.tree.action_offsets
        return slice(int(offsets[i]), int(offsets[i + 1]))

    def action_values(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> expected utility of the player to move after taking it."""
        sl = self._slots(infoset)
        names = self.actions["action_name"].to_numpy()[sl]
        values = self.quantities.action_value[sl]
        return {str(a): float(v) for a, v in zip(names, values, strict=True)}

    def reach(self, infoset: int | Situation) -> float:
        """Probability that the situation arises under the solved profile."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        return float(self.quantities.infoset_reach[i])

    def value(self, infoset: int | Situation) -> float:
        """Expected utility of the player to move, given the situation (NaN if impossible)."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        return float(self.quantities.infoset_value[i])

    def aggregate(
        self,
        by: list[str],
        column: str = "move",
        where: Callable[[pd.DataFrame], pd.Series] | None = None,
        **filters: Filter,
    ) -> pd.DataFrame:
        """Reach-weighted action distribution per group of matching situations.

        Returns one row per group (``by`` columns) with the probability of each
        value of ``column`` (an action-frame column such as ``move``): the
        probability mass of taking it divided by the probability of reaching
        the group, plus ``reach`` (the group's total reach probability) and
        ``value`` (the reach-weighted expected utility of the player to move).
        Groups never reached under the profile are left out.
        """
        rows = self.find(**filters)
        if where is not None:
            rows = rows[where(rows)]
        rows = rows[rows["reach"] > 0]
        by = list(by)
        if rows.empty:
            return pd.DataFrame(columns=[*by, "reach", "value"])
        slots = self.actions.merge(rows[["infoset", *by]], on="infoset", how="inner")
        mass = slots.pivot_table(
            index=by, columns=column, values="slot_reach", aggfunc="sum", fill_value=0.0
        )
        weights = rows.assign(wv=rows["reach"] * rows["value"]).groupby(by)[["reach", "wv"]].sum()
        probs = mass.div(weights["reach"], axis=0)
        probs.columns = [str(c) for c in probs.columns]
        probs["reach"] = weights["reach"]
        probs["value"] = weights["wv"] / weights["reach"]
        return probs.reset_index()

    def slot_ratio(
        self,
        slots: pd.DataFrame,
        by: list[str],
        num: str,
        num_mask: np.ndarray | None = None,
        den: str | None = None,
        den_mask: np.ndarray | None = None,
    ) -> pd.DataFrame | None:
        """None: exact figures have no sampling interval (see :class:`~.protocol.Browser`)."""
        return None

    # ---- whole-game figures ----------------------------------------------------------
    def game_value(self) -> tuple[float, ...]:
        """Expected utility of each seat under the solved profile (exact)."""
        v0 = float(self.quantities.value[0])
        return (v0, -v0)

    def game_value_ci(self) -> tuple[float, ...] | None:
        """Half-widths of 95% intervals of the seat values: None, the values are exact."""
        return None

    def turn_cap_ci(self) -> float | None:
        """Half-width of a 95% interval of the turn-cap share: None, it is exact."""
        return None

    def exploitability_bound(self) -> dict[str, Any] | None:
        """A sampled lower bound on exploitability: None, the exploitability is exact."""
        return None

    def value_bounds(self) -> tuple[tuple[float, float], ...] | None:
        """Per seat, the interval certain to hold the equilibrium value (from best responses)."""
        br = self.meta.get("best_response_values")
        if not br or len(br) != 2:
            return None
        lo0, hi0 = -float(br[1]), float(br[0])
        return ((lo0, hi0), (-hi0, -lo0))

    def exploitability(self) -> float | None:
        """The exploitability recorded in the strategy file (NashConv / 2)."""
        e = self.meta.get("exploitability")
        return None if e is None else float(e)

    def turn_cap_share(self) -> float:
        """Probability that a game reaches the turn cap (a draw) under the profile."""
        return self.quantities.turn_cap_share

    def starting_hands(self) -> pd.DataFrame:
        """Every deal-and-draft outcome: both hands, its probability and seat 0's value."""
        w = self.walk
        names = [self.config.clan_name(c) for c in range(NUM_CLANS)]
        reach = self.quantities.reach[w.start_nodes]
        value = self.quantities.value[w.start_nodes]
        return pd.DataFrame(
            {
                "node": w.start_nodes,
                "hand0": counts_to_strings(names, w.start_hands[:, 0, :]),
                "hand1": counts_to_strings(names, w.start_hands[:, 1, :]),
                "probability": reach,
                "value0": value,
            }
        )

    def convergence(self) -> pd.DataFrame | None:
        """The run's convergence log (iteration, seconds, exploitability, ...), if any."""
        path = self.run_dir / CONVERGENCE_FILE
        if not path.is_file():
            return None
        rows = read_csv_log(path)
        if not rows:
            return None
        return pd.DataFrame(rows).astype(float)

    def describe_run(self) -> dict[str, Any]:
        """Run facts for report headers: game, preset, solver, iterations, exploitability."""
        m = self.meta
        return {
            "game": m.get("game"),
            "preset": self.preset,
            "lineup": self.config.lineup_label(),
            "algorithm": m.get("algorithm"),
            "iterations": m.get("iterations"),
            "exploitability": m.get("exploitability"),
            "nash_conv": m.get("nash_conv"),
            "created": m.get("created"),
            "run_dir": str(self.run_dir),
            "infosets": self.tree.num_infosets,
            "nodes": self.tree.num_nodes,
            "method": self.method,
        }


def _refuse_keyed(run_dir: Path) -> None:
    """Raise a clear ValueError for strategy files keyed by hashed information states."""
    meta = run_dir / META_FILE
    try:
        fmt = json.loads(meta.read_text()).get("format") if meta.is_file() else None
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        return  # load_strategy reports the problem
    if fmt == KEYED_FORMAT:
        raise ValueError(
            f"{run_dir} holds an MCCFR strategy keyed by hashed information states; "
            "StrategyBrowser reads exact (compiled-tree) strategy files; use load_run or "
            "SampledBrowser for a sampled view"
        )


__all__ = [
    "Situation",
    "StrategyBrowser",
]
