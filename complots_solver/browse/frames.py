"""What both browsers share: situations decoded into frame columns, and queries over the frames.

A browser holds two frames: ``situations`` (one row per information set or
sampled situation, the decoded fields of :mod:`complots_solver.browse.decode`)
and ``actions`` (one row per action slot). This module turns decoded rows into
the situation columns, builds :class:`Situation` records from rows, names
moves and claims, and :class:`FrameQueries` answers the filter queries
(``mask``, ``find``, ``query``, ``situations_where``, ``distribution``) the
same way for both browsers.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Iterator
from dataclasses import dataclass
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
    F_OWN_TURNS,
    F_SHOWN,
    F_STAGE,
    F_START_HAND,
    F_TARGET,
    F_TREASURY,
    F_TURN,
)
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, ActionKind, Stage
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
from complots_solver.rules.text import action_to_string

NO_CARD = ""
ACTION_NAMES = {k: k.name.replace("_", " ").title() for k in ActionKind}


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


class FrameQueries(abc.ABC):
    """Filter queries over a browser's ``situations`` and ``actions`` frames (both browsers).

    The browser sets ``config``, ``situations``, ``actions`` and ``profile``
    (the probability of every action slot), and gives each situation its slot
    range with ``_slots``.
    """

    config: GameConfig
    situations: pd.DataFrame
    actions: pd.DataFrame
    profile: np.ndarray

    @abc.abstractmethod
    def _slots(self, infoset: int | Situation) -> slice:
        """Slot range of a situation (each browser has its own layout)."""

    @abc.abstractmethod
    def situation(self, infoset: int) -> Situation:
        """The :class:`Situation` of one row of ``situations``."""

    def distribution(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> probability under the solved strategy."""
        sl = self._slots(infoset)
        names = self.actions["action_name"].to_numpy()[sl]
        return {str(a): float(p) for a, p in zip(names, self.profile[sl], strict=True)}

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
