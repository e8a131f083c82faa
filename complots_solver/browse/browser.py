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
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from complots_solver.browse.decode import (
    F_ACT,
    F_ACTOR,
    F_CHALLENGER,
    F_CLAIM,
    F_COINS,
    F_COUNTER_CLAN,
    F_COUNTERER,
    F_DRAFT_CARD,
    F_DRAWN,
    F_FACE_DOWN,
    F_FACE_UP,
    F_HAND,
    F_OK,
    F_OWN_TURNS,
    F_SHOWN,
    F_STAGE,
    F_START_HAND,
    F_TARGET,
    F_TREASURY,
    F_TURN,
    decode_tokens,
)
from complots_solver.browse.exact import profile_quantities, walk_infosets
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, ActionKind, Stage, TokenKind
from complots_solver.rules.layout import (
    A_COUNTER,
    A_EXCHANGE,
    A_REVEAL,
    A_TARGETED,
    A_TAX,
    MS_FIRST,
    MS_SECOND,
    NUM_MULTISETS,
    T_ASSASSINATE,
    T_EXAMINE,
    T_STEAL,
    X_GIVE,
    X_TITHE,
    X_WITCH,
    c2_base,
    c2_donate,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import action_to_string, split_token, token_to_string
from complots_solver.solvers.common.rundir import read_csv_log
from complots_solver.solvers.common.strategy_file import (
    StrategyFile,
    load_strategy,
)
from complots_solver.solvers.exact.run import CONVERGENCE_FILE

KEYED_FORMAT = "complots-keyed-strategy"  # MCCFR tables (hashed keys)
EXACT_ORDER_PREFIX = "complots_tree.compile_complots_tree"
NO_CARD = ""
ACTION_NAMES = {k: k.name.replace("_", " ").title() for k in ActionKind}
EXACT_METHOD = "computed on the compiled game tree under the solved profile"


def cards_string(config: GameConfig, counts: np.ndarray | list[int]) -> str:
    """'Duchess+Captain' for per-clan counts, in clan order ('' for none)."""
    names: list[str] = []
    for c in range(NUM_CLANS):
        names += [config.clan_name(c)] * int(counts[c])
    return "+".join(names)


def multiset_names(config: GameConfig, m: int) -> str:
    """'Duchess+Captain' for a multiset id (-1 gives '')."""
    if m < 0:
        return NO_CARD
    counts = [0] * NUM_CLANS
    counts[int(MS_FIRST[m])] += 1
    if MS_SECOND[m] >= 0:
        counts[int(MS_SECOND[m])] += 1
    return cards_string(config, counts)


def move_label(config: GameConfig, action: int) -> str:
    """An action's name without its target ('Steal', 'Counter as Duchess', 'Keep Duchess')."""
    a = int(action)
    n = config.players
    if A_TARGETED <= a < c2_base(n):
        block = (a - A_TARGETED) // n
        if not config.extended:
            return ("Coup", "Assassinate", "Steal", "Examine")[block]
    text = action_to_string(config, a)
    if a >= A_TARGETED and re.search(r" P\d+$", text):
        text = re.sub(r"( on| from| to)? P\d+$", "", text)
    return text


def claimed_clan(config: GameConfig, action: int) -> int:
    """Clan an action or counter claims (-1 for none)."""
    a = int(action)
    if a == A_TAX:
        return 0
    if a == A_EXCHANGE:
        return 4
    if A_COUNTER <= a < A_REVEAL:
        return a - A_COUNTER
    n = config.players
    if A_TARGETED <= a < c2_base(n):
        block = (a - A_TARGETED) // n
        return {T_ASSASSINATE: 1, T_STEAL: 3, T_EXAMINE: 4}.get(block, -1)
    if config.extended and a >= c2_base(n):
        x = a - c2_base(n)
        if x == X_TITHE:
            return 3
        if X_WITCH <= x < X_GIVE:
            return 2
        if a >= c2_donate(n):
            return 0
    return -1


@dataclass(frozen=True)
class Situation:
    """What the player to move knows at one information set."""

    infoset: int
    seat: int
    stage: str  # a Stage name: ACTION, CHALLENGE, COUNTER, PICK, ...
    turn: int  # turns completed
    actor: int | None  # the seat whose turn it is (None during the deal/draft)
    hand: str  # own face-down cards, 'Duchess+Captain'
    start_hand: str  # own hand when play began ('' during the draft)
    coins: tuple[int, ...]
    face_up: tuple[str, ...]  # per seat
    face_down: tuple[int, ...]  # face-down card counts per seat
    pending_action: str | None  # 'Steal', 'Foreign Aid', ... announced this turn
    claim: str | None  # character claimed by the pending action
    target: int | None
    challenger: int | None
    counter: str | None  # character claimed by a pending counter
    counterer: int | None
    examined: str | None  # card shown to the Inquisitor (seen by the viewer)
    draft_card: str | None  # the random card of the 2-player draft
    drawn: str | None  # cards drawn for a pending exchange
    own_turns: int  # actions this seat announced before
    treasury: int
    history: tuple[str, ...]  # every observation of this seat, in order
    public_history: tuple[str, ...]  # the public moves among them
    legal_actions: tuple[str, ...]

    def recent_history(self, k: int = 6) -> tuple[str, ...]:
        """The last ``k`` public moves."""
        return self.public_history[-k:] if k > 0 else ()

    def describe(self) -> str:
        """One paragraph a person can read."""
        parts = [f"P{self.seat} to move ({self.stage.lower()}), turn {self.turn + 1}"]
        parts.append(f"hand [{self.hand}]")
        parts.append("coins " + " / ".join(str(c) for c in self.coins))
        up = [f"P{p} [{u}]" for p, u in enumerate(self.face_up) if u]
        if up:
            parts.append("face up " + ", ".join(up))
        if self.pending_action:
            text = f"P{self.actor} announced {self.pending_action}"
            if self.target is not None:
                text += f" on P{self.target}"
            if self.claim:
                text += f" as {self.claim}"
            if self.counter:
                text += f"; P{self.counterer} counters as {self.counter}"
            parts.append(text)
        if self.examined:
            parts.append(f"examined {self.examined}")
        if self.draft_card:
            parts.append(f"draft card {self.draft_card}")
        return "; ".join(parts)


def situation_columns(config: GameConfig, fields: np.ndarray, seats: np.ndarray) -> dict[str, Any]:
    """Situation-frame columns of decoded rows (see decode.py) seen by ``seats``."""
    cfg = config
    f = fields
    n = cfg.players
    names = [cfg.clan_name(c) for c in range(NUM_CLANS)]
    card_lookup = {c: names[c] for c in range(NUM_CLANS)} | {-1: None}
    stage_names = {int(s): s.name for s in Stage}
    ms_names = {m: multiset_names(cfg, m) or None for m in range(-1, NUM_MULTISETS)}
    kinds = {int(k): ACTION_NAMES[k] for k in ActionKind} | {-1: None}

    def opt(col: np.ndarray) -> list[int | None]:
        return [int(x) if x >= 0 else None for x in col]

    hands = counts_to_strings(names, f[:, F_HAND : F_HAND + NUM_CLANS])
    start = counts_to_strings(names, f[:, F_START_HAND : F_START_HAND + NUM_CLANS])
    seat = np.asarray(seats).astype(np.int64)
    data: dict[str, Any] = {
        "seat": seat,
        "stage": [stage_names[int(x)] for x in f[:, F_STAGE]],
        "turn": f[:, F_TURN],
        "actor": opt(f[:, F_ACTOR]),
        "hand": hands,
        "hand_size": f[:, F_HAND : F_HAND + NUM_CLANS].sum(axis=1),
        "start_hand": start,
    }
    for p in range(n):
        data[f"coins{p}"] = f[:, F_COINS + p]
    for p in range(n):
        data[f"face_up{p}"] = counts_to_strings(
            names, f[:, F_FACE_UP + p * NUM_CLANS : F_FACE_UP + (p + 1) * NUM_CLANS]
        )
    for p in range(n):
        data[f"face_down{p}"] = f[:, F_FACE_DOWN + p]
    if n == 2:
        rows = np.arange(len(f))
        data["own_coins"] = f[rows, F_COINS + seat]
        data["opp_coins"] = f[rows, F_COINS + 1 - seat]
    data.update(
        {
            "pending_action": [kinds[int(x)] for x in f[:, F_ACT]],
            "claim": [card_lookup[int(x)] for x in f[:, F_CLAIM]],
            "target": opt(f[:, F_TARGET]),
            "challenger": opt(f[:, F_CHALLENGER]),
            "counter": [card_lookup[int(x)] for x in f[:, F_COUNTER_CLAN]],
            "counterer": opt(f[:, F_COUNTERER]),
            "examined": [card_lookup[int(x)] for x in f[:, F_SHOWN]],
            "draft_card": [ms_names[int(x)] for x in f[:, F_DRAFT_CARD]],
            "drawn": [ms_names[int(x)] for x in f[:, F_DRAWN]],
            "own_turns": f[:, F_OWN_TURNS],
            "treasury": f[:, F_TREASURY],
        }
    )
    return data


def finish_situations(frame: pd.DataFrame) -> pd.DataFrame:
    """Put ``infoset`` first and add ``claimed`` (the claim a challenge decision faces)."""
    frame = frame[["infoset", *[c for c in frame.columns if c != "infoset"]]].copy()
    frame["claimed"] = frame["counter"].where(frame["stage"] == "COUNTER_CHALLENGE", frame["claim"])
    return frame


def slot_claims(
    config: GameConfig, actions: np.ndarray, hand_counts: np.ndarray
) -> tuple[list[str | None], np.ndarray]:
    """Per slot: the character its action claims (None) and whether that is a bluff."""
    unique = np.unique(actions)
    claim = {int(a): claimed_clan(config, int(a)) for a in unique}
    claim_clan = np.array([claim[int(a)] for a in actions], dtype=np.int64)
    holds = np.where(
        claim_clan >= 0,
        hand_counts[np.arange(len(actions)), np.maximum(claim_clan, 0)] > 0,
        False,
    )
    names = [config.clan_name(c) for c in range(NUM_CLANS)] + [None]
    return [names[c] for c in claim_clan], (claim_clan >= 0) & ~holds


Filter = Any  # a value, a collection of values, or a predicate on the column


def situation_from_row(
    infoset: int,
    row: pd.Series,
    players: int,
    history: tuple[str, ...],
    public_history: tuple[str, ...],
    legal_actions: tuple[str, ...],
) -> Situation:
    """A :class:`Situation` from one row of a browser's situation frame."""
    n = players
    return Situation(
        infoset=infoset,
        seat=int(row["seat"]),
        stage=str(row["stage"]),
        turn=int(row["turn"]),
        actor=_opt_int(row["actor"]),
        hand=str(row["hand"]),
        start_hand=str(row["start_hand"]),
        coins=tuple(int(row[f"coins{p}"]) for p in range(n)),
        face_up=tuple(str(row[f"face_up{p}"]) for p in range(n)),
        face_down=tuple(int(row[f"face_down{p}"]) for p in range(n)),
        pending_action=_opt_str(row["pending_action"]),
        claim=_opt_str(row["claim"]),
        target=_opt_int(row["target"]),
        challenger=_opt_int(row["challenger"]),
        counter=_opt_str(row["counter"]),
        counterer=_opt_int(row["counterer"]),
        examined=_opt_str(row["examined"]),
        draft_card=_opt_str(row["draft_card"]),
        drawn=_opt_str(row["drawn"]),
        own_turns=int(row["own_turns"]),
        treasury=int(row["treasury"]),
        history=history,
        public_history=public_history,
        legal_actions=legal_actions,
    )


class StrategyBrowser:
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

    def distribution(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> probability under the solved strategy."""
        sl = self._slots(infoset)
        names = self.actions["action_name"].to_numpy()[sl]
        return {str(a): float(p) for a, p in zip(names, self.profile[sl], strict=True)}

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

    # ---- queries ---------------------------------------------------------------------
    def _normalise(self, column: str, value: Filter) -> Filter:
        """Canonical form of a filter value (hands as 'Duchess+Captain', stages by name)."""
        if column in ("hand", "start_hand", "drawn", "draft_card") or column.startswith("face_up"):
            if isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value):
                return self._hand_string(value)
            if isinstance(value, str):
                return self._hand_string(value.split("+")) if value else value
        if column in ("claim", "counter", "examined", "claimed") and isinstance(value, str):
            return self.config.clan_name(self.config.clan_of(value))
        if column == "stage" and isinstance(value, Stage):
            return value.name
        if column == "stage" and isinstance(value, str):
            return value.upper()
        return value

    def _hand_string(self, cards: list[str] | tuple[str, ...]) -> str:
        """Canonical hand string of card names (any order, Coup aliases allowed)."""
        counts = [0] * NUM_CLANS
        for name in cards:
            counts[self.config.clan_of(name)] += 1
        return cards_string(self.config, counts)

    def mask(self, **filters: Filter) -> np.ndarray:
        """Boolean mask over infosets matching every filter.

        A filter is ``column=value``, ``column={values}`` (any of them) or
        ``column=predicate``; ``coins=(a, b)`` and ``face_up=(...)`` match all
        seats at once. Columns are those of :attr:`situations`.
        """
        frame = self.situations
        mask = np.ones(len(frame), dtype=bool)
        for column, value in filters.items():
            if column in ("coins", "face_up", "face_down") and isinstance(value, (tuple, list)):
                for p, v in enumerate(value):
                    mask &= self.mask(**{f"{column}{p}": v})
                continue
            if column not in frame.columns:
                raise ValueError(
                    f"unknown situation field {column!r}; fields: {', '.join(frame.columns)}"
                )
            col = frame[column]
            if callable(value):
                mask &= np.asarray(col.map(value), dtype=bool)
            elif isinstance(value, (set, frozenset, list)):
                allowed = [self._normalise(column, v) for v in value]
                mask &= np.asarray(col.isin(allowed), dtype=bool)
            elif value is None:
                mask &= np.asarray(col.isna(), dtype=bool)
            else:
                mask &= np.asarray(col == self._normalise(column, value), dtype=bool)
        return mask

    def find(self, **filters: Filter) -> pd.DataFrame:
        """Rows of :attr:`situations` matching the filters (see :meth:`mask`)."""
        return self.situations[self.mask(**filters)]

    def situations_where(self, **filters: Filter) -> Iterator[Situation]:
        """Every :class:`Situation` matching the filters, in infoset order."""
        for i in np.flatnonzero(self.mask(**filters)):
            yield self.situation(int(i))

    def query(self, **filters: Filter) -> pd.DataFrame:
        """Matching situations with their action distributions, one row per action."""
        rows = self.find(**filters)
        merged = self.actions.merge(rows, on="infoset", how="inner")
        return merged.sort_values(["infoset", "slot"]).reset_index(drop=True)

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


def counts_to_strings(names: list[str], counts: np.ndarray) -> list[str]:
    """Hand strings for rows of per-clan counts (cached by row content)."""
    cache: dict[bytes, str] = {}
    out: list[str] = []
    for row in np.ascontiguousarray(counts):
        key = row.tobytes()
        text = cache.get(key)
        if text is None:
            parts: list[str] = []
            for c, k in enumerate(row):
                parts += [names[c]] * int(k)
            text = "+".join(parts)
            cache[key] = text
        out.append(text)
    return out


def _opt_str(value: Any) -> str | None:
    """``str(value)``, or None for a missing value."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return str(value)


def _opt_int(value: Any) -> int | None:
    """``int(value)``, or None for a missing value."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return int(value)


def _refuse_keyed(run_dir: Path) -> None:
    """Raise a clear ValueError for strategy files keyed by hashed information states."""
    meta = run_dir / "meta.json"
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
