"""A sampled browser over Monte Carlo CFR ("keyed") strategy files.

A keyed strategy (``complots-keyed-strategy``: rows keyed by 64-bit
information keys, :mod:`complots_solver.solvers.mccfr.infokeys`) has no compiled
tree to walk, so :class:`SampledBrowser` estimates what the exact
:class:`~complots_solver.browse.browser.StrategyBrowser` computes: it plays
``games`` self-play games of the strategy (both seats, a seeded
``numpy.random.Generator``; deterministic for a seed) in numba over the rules
core, looking each decision's key up in the table exactly as the evaluation
games of :mod:`complots_solver.solvers.mccfr.evaluate` do (a state the table
lacks plays uniformly, as the policy bot does). At every decision it records
what the player to move knows (the decoded fields of
:mod:`complots_solver.browse.decode`, read from the true state through
:func:`~complots_solver.browse.decode.read_fields`, which reads only the
acting player's information), the strategy's distribution there, the action
played and whether a claim was then challenged; at the end of every game the
returns.

A *situation* is one distinct (information key, decoded fields) pair seen in
these games; its distribution is the table's row for the key. Its ``reach``
is its visits per game (an unbiased estimate of the exact reach, or of the
expected number of visits per game), its ``value`` the mean return of the
player to move over its visits. Aggregates weight situations by visits (the
reach weighting of the exact browser), and carry 95% confidence intervals
computed with the game as the sampling unit (visits in one game are
correlated): ``visits``, ``reach ±95%``, ``value ±95%`` and ``prob ±95%``
(the largest half-width among the group's action probabilities).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numba import njit

from complots_solver.browse.decode import (
    F_COINS,
    F_FACE_DOWN,
    F_FACE_UP,
    F_HAND,
    F_OK,
    F_START_HAND,
    NUM_FIELDS,
    read_fields,
)
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
from complots_solver.rules import core, view
from complots_solver.rules.enums import NUM_CLANS, PlayerId, Stage, Variant
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_PASS,
    C_PLAYERS,
    C_VARIANT,
    MAX_CHANCE_OUTCOMES,
    MAX_PLAYERS,
    STATE_SIZE,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import action_to_string
from complots_solver.solvers.common.strategy_file import load_keyed_strategy
from complots_solver.solvers.mccfr.evaluate import Z95, policy_probs
from complots_solver.solvers.mccfr.infokeys import KEYS, init_keys, step_keys
from complots_solver.solvers.mccfr.table import NO_ROW, sample
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

DEFAULT_GAMES = 20_000
DEFAULT_SEED = 0
VISITS = "visits"
REACH_CI = "reach ±95%"
VALUE_CI = "value ±95%"
PROB_CI = "prob ±95%"
CI_COLUMNS = (VISITS, REACH_CI, VALUE_CI, PROB_CI)  # extra columns of a sampled aggregate
RECORDS_PER_GAME = 32  # first guess of the record buffer (doubled until the games fit)
_CHANCE = int(PlayerId.CHANCE)
_TERMINAL = int(Stage.TERMINAL)


@njit(cache=True)
def note_decision(st, a, cur, r, claim_rec, counter_rec, own_turns, drawn):
    """Bookkeeping after record ``r`` (move ``a`` of ``cur`` at stage ``st``).

    Returns the records of this turn's announced action and counter, and the
    record a challenge just hit (-1 if none), whose ``challenged`` flag the
    caller sets.
    """
    mark = -1
    if st == Stage.ACTION:
        claim_rec = r
        counter_rec = -1
        own_turns[cur] += 1
    elif st == Stage.COUNTER and a != A_PASS:
        counter_rec = r
    elif st == Stage.CHALLENGE and a == A_CHALLENGE and claim_rec >= 0:
        mark = claim_rec
    elif st == Stage.COUNTER_CHALLENGE and a == A_CHALLENGE and counter_rec >= 0:
        mark = counter_rec
    elif st == Stage.EXCHANGE_KEEP:
        drawn[cur] = -1
    return claim_rec, counter_rec, mark


@njit(cache=True)
def _record_games(
    cfg,
    width,
    games,
    rng,
    kind,
    slots,
    row_info,
    probs,
    rec_game,
    rec_seat,
    rec_key,
    rec_row,
    rec_choice,
    rec_challenged,
    rec_fields,
    rec_slot,
    slot_action,
    slot_prob,
    game_returns,
    game_capped,
    game_start,
):
    """Play ``games`` self-play games of one table; record every decision.

    Returns the number of records written, or -1 if a buffer is too small
    (the caller retries with larger buffers and the same seed).
    """
    n = cfg[C_PLAYERS]
    draft = cfg[C_VARIANT] == Variant.DRAFT
    s = np.empty(STATE_SIZE, dtype=np.int32)
    hashes = np.zeros(n, dtype=np.uint64)
    memory = np.zeros(n, dtype=np.int64)
    new_hashes = np.zeros(n, dtype=np.uint64)
    new_memory = np.zeros(n, dtype=np.int64)
    acts = np.empty(width, dtype=np.int32)
    sig = np.empty(width)
    outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    chance_probs = np.empty(MAX_CHANCE_OUTCOMES)
    ret = np.zeros(n)
    draft_card = np.empty(n, dtype=np.int64)
    own_turns = np.empty(n, dtype=np.int64)
    drawn = np.empty(n, dtype=np.int64)
    max_records = rec_game.shape[0]
    max_slots = slot_action.shape[0]
    r_at = 0
    sl_at = 0
    for g in range(games):
        core.reset_state(s, cfg)
        init_keys(cfg, hashes, memory)
        draft_card[:] = -1
        own_turns[:] = 0
        drawn[:] = -1
        setup_done = 0
        claim_rec = -1  # record of this turn's announced action
        counter_rec = -1  # record of this turn's counter
        for p in range(n):
            for c in range(NUM_CLANS):
                game_start[g, p, c] = 0
        while view.stage(s) != _TERMINAL:
            st = view.stage(s)
            if view.current_player(s) == _CHANCE:
                a = core.sample_chance(s, cfg, rng, outcomes, chance_probs)
                if st == Stage.DEAL:
                    if draft:
                        draft_card[view.deal_next(s)] = a
                elif st == Stage.EXCHANGE_DRAW:
                    drawn[view.drawer(s)] = a
            else:
                cur = view.current_player(s)
                k = core.legal_actions_into(s, cfg, acts)
                if r_at >= max_records or sl_at + k > max_slots:
                    return -1
                key, r = policy_probs(s, cfg, kind, slots, row_info, probs, hashes, memory, k, sig)
                j = sample(sig, k, rng)
                a = acts[j]
                rec_game[r_at] = g
                rec_seat[r_at] = cur
                rec_key[r_at] = key
                rec_row[r_at] = r
                rec_choice[r_at] = j
                rec_challenged[r_at] = 0
                rec_slot[r_at] = sl_at
                for i in range(k):
                    slot_action[sl_at + i] = acts[i]
                    slot_prob[sl_at + i] = sig[i]
                sl_at += k
                row = rec_fields[r_at]
                row[F_OK] = 1
                read_fields(
                    s, cfg, cur, draft_card[cur], own_turns[cur], drawn[cur], setup_done, row
                )
                for c in range(NUM_CLANS):
                    row[F_START_HAND + c] = game_start[g, cur, c]
                claim_rec, counter_rec, mark = note_decision(
                    st, a, cur, r_at, claim_rec, counter_rec, own_turns, drawn
                )
                if mark >= 0:
                    rec_challenged[mark] = 1
                r_at += 1
            step_keys(s, cfg, a, kind, hashes, memory, new_hashes, new_memory)
            core.apply_action(s, cfg, a)
            hashes[:] = new_hashes
            memory[:] = new_memory
            if setup_done == 0 and view.stage(s) != Stage.DEAL and view.stage(s) != Stage.PICK:
                setup_done = 1
                for p in range(n):
                    for c in range(NUM_CLANS):
                        game_start[g, p, c] = view.hidden(s, p, c)
        core.returns_into(s, cfg, ret)
        for p in range(n):
            game_returns[g, p] = ret[p]
        game_capped[g] = 1 if view.winner(s) < 0 else 0
    rec_slot[r_at] = sl_at
    return r_at


def _padding(column: int, players: int) -> bool:
    """Whether a decoded-field column belongs to a seat the game does not have (always 0)."""
    per_seat = (
        (F_COINS, 1),
        (F_FACE_UP, NUM_CLANS),
        (F_FACE_DOWN, 1),
    )
    for start, width in per_seat:
        if start + players * width <= column < start + MAX_PLAYERS * width:
            return True
    return False


class SampledGames:
    """The raw record of sampled self-play games (one row per decision, per game)."""

    def __init__(self, policy: KeyedPolicy, games: int, seed: int) -> None:
        """Play ``games`` games of ``policy`` with ``numpy.random.default_rng(seed)``."""
        if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 1:
            raise ValueError(f"games must be a positive integer, got {games!r}")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        config = policy.config
        if config.players != 2:
            raise ValueError("the sampled browser needs a 2-player game")
        table = policy.table
        n = config.players
        width = config.num_distinct_actions()
        per_game = RECORDS_PER_GAME
        while True:
            cap = games * per_game
            rec = {
                "game": np.empty(cap, np.int32),
                "seat": np.empty(cap, np.int8),
                "key": np.empty(cap, np.int64),
                "row": np.empty(cap, np.int64),
                "choice": np.empty(cap, np.int16),
                "challenged": np.empty(cap, np.int8),
                "fields": np.empty((cap, NUM_FIELDS), np.int32),
                "slot": np.empty(cap + 1, np.int64),
            }
            slot_action = np.empty(cap * 4, np.int32)
            slot_prob = np.empty(cap * 4, np.float64)
            returns = np.empty((games, n), np.float64)
            capped = np.empty(games, np.int8)
            start = np.empty((games, n, NUM_CLANS), np.int32)
            count = _record_games(
                config.to_array(), width, int(games), np.random.default_rng(int(seed)),
                KEYS[policy.key], table.slots, table.row_info, table.probs,
                rec["game"], rec["seat"], rec["key"], rec["row"], rec["choice"], rec["challenged"],
                rec["fields"], rec["slot"], slot_action, slot_prob, returns, capped, start,
            )  # fmt: skip
            if count >= 0:
                break
            per_game *= 2
        slots = int(rec["slot"][count])
        self.games = int(games)
        self.seed = int(seed)
        self.count = int(count)
        self.game = rec["game"][:count].copy()
        self.seat = rec["seat"][:count].astype(np.int64)
        self.key = rec["key"][:count].copy()
        self.row = rec["row"][:count].copy()
        self.choice = rec["choice"][:count].astype(np.int64)
        self.challenged = rec["challenged"][:count].astype(bool)
        self.fields = rec["fields"][:count].copy()
        self.slot = rec["slot"][: count + 1].copy()
        self.slot_action = slot_action[:slots].copy()
        self.slot_prob = slot_prob[:slots].copy()
        self.returns = returns
        self.capped = capped.astype(bool)
        self.start_hands = start

    @classmethod
    def from_records(cls, games: int, seed: int, **arrays: np.ndarray) -> SampledGames:
        """Games recorded elsewhere (e.g. by a policy network), as the same arrays."""
        out = cls.__new__(cls)
        out.games = int(games)
        out.seed = int(seed)
        out.count = len(arrays["seat"])
        for name in (
            "game", "seat", "key", "row", "choice", "challenged", "fields", "slot",
            "slot_action", "slot_prob", "returns", "capped", "start_hands",
        ):  # fmt: skip
            setattr(out, name, arrays[name])
        return out

    def probabilities(self, record: int) -> dict[int, float]:
        """Action id -> probability the strategy played at one record."""
        lo, hi = int(self.slot[record]), int(self.slot[record + 1])
        return {
            int(a): float(p)
            for a, p in zip(self.slot_action[lo:hi], self.slot_prob[lo:hi], strict=True)
        }


def mean_ci(samples: np.ndarray) -> tuple[float, float]:
    """Mean of i.i.d. samples and the half-width of its 95% normal interval."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan")
    if x.size == 1:
        return float(x[0]), float("nan")
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size))


def _cluster_sums(
    group: np.ndarray, game: np.ndarray, columns: np.ndarray, games: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per (group, game) cluster: its group and the column sums over its records."""
    cluster = group.astype(np.int64) * games + game.astype(np.int64)
    order = np.argsort(cluster, kind="stable")
    sorted_ids = cluster[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    sums = np.add.reduceat(columns[order], starts, axis=0)
    return sorted_ids[starts] // games, sums


def ratio_ci(
    group: np.ndarray, game: np.ndarray, num: np.ndarray, groups: int, games: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ratio estimates with game-clustered 95% half-widths, per group.

    ``num`` holds one column per quantity, one row per record; the ratio of
    a column is its sum over the group's records divided by the group's
    records (a visit-weighted mean). Returns (visits, ratios, ratio
    half-widths, reach = visits per game, reach half-width); the variance of
    a ratio is the delta-method one with games as independent clusters.
    """
    cols = np.column_stack([np.ones(len(group)), num])
    cgroup, sums = _cluster_sums(group, game, cols, games)
    b = sums[:, 0]
    total_b = np.bincount(cgroup, weights=b, minlength=groups)
    total_a = np.zeros((groups, num.shape[1]))
    np.add.at(total_a, cgroup, sums[:, 1:])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = total_a / total_b[:, None]
        resid = sums[:, 1:] - ratio[cgroup] * b[:, None]
        var = np.zeros_like(total_a)
        np.add.at(var, cgroup, resid**2)
        scale = games / max(games - 1, 1)
        half = Z95 * np.sqrt(var * scale) / total_b[:, None]
        reach = total_b / games
        sq = np.bincount(cgroup, weights=b * b, minlength=groups)
        reach_var = np.maximum(sq / games - reach**2, 0.0) * scale / games
    return total_b, ratio, half, reach, Z95 * np.sqrt(reach_var)


def strongest_exploitability_bound(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The strongest sampled lower bound on exploitability recorded in a keyed run's meta, if any.

    Candidates are the trained MCCFR responder (``exploitability_bound``) and
    each heuristic bot played as a fixed responder (``bot_responders``); every
    one is on its own an estimate of a lower bound, so the largest is
    reported, with ``responder`` naming it.
    """
    candidates = []
    bound = meta.get("exploitability_bound")
    if isinstance(bound, dict) and "lower_bound" in bound:
        candidates.append({**bound, "responder": "trained MCCFR responder"})
    for name, b in (meta.get("bot_responders") or {}).items():
        if isinstance(b, dict) and "lower_bound" in b:
            candidates.append({**b, "responder": f"the '{name}' bot as a fixed responder"})
    if not candidates:
        return None
    return max(candidates, key=lambda c: float(c["lower_bound"]))


class SampledBrowser(FrameQueries):
    """Sampled view of a keyed (MCCFR) strategy: same queries, estimates with 95% CIs."""

    exact = False

    def __init__(
        self, run_dir: Path | str, games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED
    ) -> None:
        """Load the keyed strategy in ``run_dir`` and play ``games`` games with ``seed``."""
        self.run_dir = Path(run_dir)
        strategy = load_keyed_strategy(self.run_dir)
        self.meta: dict[str, Any] = strategy.meta
        game = self.meta.get("game")
        if not isinstance(game, str):
            raise ValueError(f"{self.run_dir}: meta.json names no game")
        self.config, self.preset = resolve_game(game)
        if self.meta.get("preset"):
            self.preset = self.meta["preset"]
        self.policy: KeyedPolicy | None = KeyedPolicy(strategy, self.config)
        self.table_rows = int(strategy.key.shape[0])
        self.samples = SampledGames(self.policy, games, seed)
        self.games = self.samples.games
        self.seed = self.samples.seed
        self.method = f"{self.games:,} self-play games, seed {self.seed}, 95% CI"
        self._build()

    # ---- frames ----------------------------------------------------------------
    def _build(self) -> None:
        """Group records into situations; build the situation and action frames."""
        smp = self.samples
        cfg = self.config
        n_games = self.games
        seat = smp.seat
        n = cfg.players
        used = [c for c in range(NUM_FIELDS) if not _padding(c, n)]
        ident = np.ascontiguousarray(
            np.column_stack(
                [smp.key.view(np.int32).reshape(-1, 2), seat.astype(np.int32), smp.fields[:, used]]
            )
        )
        rows = ident.view(np.dtype((np.void, ident.dtype.itemsize * ident.shape[1]))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        self.record_situation = inverse
        num_sits = first.shape[0]
        visits = np.bincount(inverse, minlength=num_sits)
        mover_return = smp.returns[smp.game, seat]
        value_sum = np.bincount(inverse, weights=mover_return, minlength=num_sits)
        self.record_return = mover_return
        self.record_seat = seat
        sit_fields = smp.fields[first]
        self.fields = sit_fields
        lo = smp.slot[first]
        k = smp.slot[first + 1] - lo
        data = situation_columns(cfg, sit_fields, seat[first])
        data["infoset"] = np.arange(num_sits)
        data.update(
            {
                "key": smp.key[first],
                "in_table": smp.row[first] != NO_ROW,
                "num_actions": k,
                "visits": visits,
                "reach": visits / n_games,
                "value": value_sum / visits,
            }
        )
        self.situations = finish_situations(pd.DataFrame(data))
        # slots of each situation (from its first record: the strategy is a function of the key)
        slot_sit = np.repeat(np.arange(num_sits), k)
        offsets = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
        self.slot_offsets = offsets
        src = np.repeat(lo - offsets[:-1], k) + np.arange(int(offsets[-1]))
        actions = smp.slot_action[src].astype(np.int64)
        prob = smp.slot_prob[src]
        self.profile = prob
        # what was played: per slot, times chosen, chosen then challenged, returns
        chosen_slot = offsets[inverse] + smp.choice
        num_slots = int(offsets[-1])
        chosen = np.bincount(chosen_slot, minlength=num_slots)
        challenged = np.bincount(chosen_slot[smp.challenged], minlength=num_slots)
        ret_sum = np.bincount(chosen_slot, weights=mover_return, minlength=num_slots)
        unique = np.unique(actions)
        label = {int(a): move_label(cfg, int(a)) for a in unique}
        full = {int(a): action_to_string(cfg, int(a)) for a in unique}
        claimed, bluff = slot_claims(cfg, actions, sit_fields[slot_sit, F_HAND : F_HAND + 5])
        with np.errstate(invalid="ignore", divide="ignore"):
            action_value = np.where(chosen > 0, ret_sum / np.maximum(chosen, 1), np.nan)
        self.actions = pd.DataFrame(
            {
                "infoset": slot_sit,
                "slot": np.arange(num_slots),
                "action": actions,
                "action_name": [full[int(a)] for a in actions],
                "move": [label[int(a)] for a in actions],
                "probability": prob,
                "slot_reach": visits[slot_sit] * prob / n_games,
                "challenged_reach": challenged / n_games,
                "action_value": action_value,
                "times_played": chosen,
                "claimed_character": claimed,
                "bluff": bluff,
            }
        )

    def release_policy(self) -> None:
        """Drop the loaded strategy table (gigabytes for long runs); the samples stay usable."""
        self.policy = None

    # ---- single situations -------------------------------------------------------
    def situation(self, infoset: int) -> Situation:
        """The :class:`Situation` of one sampled situation (no token history is kept)."""
        i = int(infoset)
        if not 0 <= i < len(self.situations):
            raise ValueError(f"infoset must be in [0, {len(self.situations)}), got {infoset}")
        row = self.situations.iloc[i]
        n = self.config.players

        return situation_from_row(i, row, n, (), (), tuple(self.distribution(i)))

    def _slots(self, infoset: int | Situation) -> slice:
        """Slot range of a situation."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        return slice(int(self.slot_offsets[i]), int(self.slot_offsets[i + 1]))

    def action_values(self, infoset: int | Situation) -> dict[str, float]:
        """Action name -> mean return of the mover over the games where it was played (NaN if never)."""
        sl = self._slots(infoset)
        names = self.actions["action_name"].to_numpy()[sl]
        values = self.actions["action_value"].to_numpy()[sl]
        return {str(a): float(v) for a, v in zip(names, values, strict=True)}

    def reach(self, infoset: int | Situation) -> float:
        """Visits of the situation per game (estimate of its reach probability)."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        return float(self.situations["reach"].iat[i])

    def value(self, infoset: int | Situation) -> float:
        """Mean return of the player to move over the situation's visits."""
        i = infoset.infoset if isinstance(infoset, Situation) else int(infoset)
        return float(self.situations["value"].iat[i])

    # ---- aggregates ------------------------------------------------------------------
    def aggregate(
        self,
        by: list[str],
        column: str = "move",
        where: Callable[[pd.DataFrame], pd.Series] | None = None,
        **filters: Filter,
    ) -> pd.DataFrame:
        """Visit-weighted action distribution per group, with game-clustered 95% CIs.

        Same rows and columns as the exact browser's ``aggregate`` (``by``,
        one column per value of ``column``, ``reach`` = visits per game,
        ``value`` = mean return of the player to move), plus :data:`CI_COLUMNS`.
        """
        rows = self.find(**filters)
        if where is not None:
            rows = rows[where(rows)]
        rows = rows[rows["visits"] > 0]
        by = list(by)
        if rows.empty:
            return pd.DataFrame(columns=[*by, "reach", "value", *CI_COLUMNS])
        grouped = rows.groupby(by, sort=True, dropna=False)
        gid = grouped.ngroup().to_numpy()
        labels = grouped.size().index
        groups = len(labels)
        slots = self.actions.merge(
            pd.DataFrame({"infoset": rows["infoset"].to_numpy(), "pos": np.arange(len(rows))}),
            on="infoset",
            how="inner",
        )
        codes, names = pd.factorize(slots[column])
        dense = np.zeros((len(rows), len(names)))
        np.add.at(dense, (slots["pos"].to_numpy(), codes), slots["probability"].to_numpy())
        pos_of = np.full(len(self.situations), -1, np.int64)
        pos_of[rows["infoset"].to_numpy()] = np.arange(len(rows))
        rec_pos = pos_of[self.record_situation]
        keep = rec_pos >= 0
        rp = rec_pos[keep]
        num = np.column_stack([self.record_return[keep], dense[rp]])
        visits, ratio, half, reach, reach_half = ratio_ci(
            gid[rp], self.samples.game[keep], num, groups, self.games
        )
        frame = pd.DataFrame(ratio[:, 1:], columns=[str(c) for c in names])
        index = labels.to_frame(index=False) if isinstance(labels, pd.MultiIndex) else None
        if index is None:
            index = pd.DataFrame({by[0]: list(labels)})
        out = pd.concat([index.reset_index(drop=True), frame], axis=1)
        out["reach"] = reach
        out["value"] = ratio[:, 0]
        out[VISITS] = visits.astype(np.int64)
        out[REACH_CI] = reach_half
        out[VALUE_CI] = half[:, 0]
        out[PROB_CI] = np.nanmax(half[:, 1:], axis=1) if len(names) else np.nan
        return out

    # ---- slot-level estimates -----------------------------------------------------
    def _record_values(
        self, slots: pd.DataFrame, gid: np.ndarray, kind: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(record, group, value) triples of one slot quantity (see :meth:`slot_ratio`)."""
        if kind == "challenged":
            chosen = self.slot_offsets[self.record_situation] + self.samples.choice
            group_of = np.full(int(self.slot_offsets[-1]), -1, np.int64)
            group_of[slots["slot"].to_numpy()] = gid
            g = group_of[chosen]
            ok = (g >= 0) & self.samples.challenged
            rec = np.flatnonzero(ok)
            return rec, g[ok], np.ones(len(rec))
        if kind not in ("mass", "visits"):
            raise ValueError(f"kind must be mass, visits or challenged, got {kind!r}")
        weight = slots["probability"].to_numpy() if kind == "mass" else np.ones(len(slots))
        per_sit = (
            pd.DataFrame({"sit": slots["infoset"].to_numpy(), "g": gid, "v": weight})
            .groupby(["sit", "g"], sort=False)["v"]
            .sum()
            .reset_index()
        )
        records = pd.DataFrame({"rec": np.arange(self.samples.count), "sit": self.record_situation})
        records = records[records["sit"].isin(per_sit["sit"].unique())]
        merged = records.merge(per_sit, on="sit")
        return merged["rec"].to_numpy(), merged["g"].to_numpy(), merged["v"].to_numpy()

    def slot_ratio(
        self,
        slots: pd.DataFrame,
        by: list[str],
        num: str,
        num_mask: np.ndarray | None = None,
        den: str | None = None,
        den_mask: np.ndarray | None = None,
    ) -> pd.DataFrame:
        """A slot quantity per group, or a ratio of two, with a game-clustered 95% CI.

        ``slots`` are rows of :attr:`actions` (with the ``by`` columns); a
        quantity is ``mass`` (the strategy's probability of the slot, summed
        over visits: ``slot_reach`` times games), ``visits`` (visits of the
        slot's situation) or ``challenged`` (times the slot was played and
        then challenged), over the rows selected by its mask. Without ``den``
        the estimate is per game. Returns ``by``, ``estimate`` and ``±95%``.
        """
        by = list(by)
        if slots.empty:
            return pd.DataFrame(columns=[*by, "estimate", "±95%"])
        grouped = slots.groupby(by, sort=True, dropna=False)
        gid = grouped.ngroup().to_numpy()
        labels = grouped.size().index
        groups = len(labels)
        n = self.games
        parts = []
        for column, kind, mask in ((0, num, num_mask), (1, den, den_mask)):
            if kind is None:
                continue
            keep = np.ones(len(slots), bool) if mask is None else np.asarray(mask, bool)
            rec, g, v = self._record_values(slots[keep], gid[keep], kind)
            values = np.zeros((len(rec), 2))
            values[:, column] = v
            parts.append((g, self.samples.game[rec], values))
        g = np.concatenate([p[0] for p in parts])
        game = np.concatenate([p[1] for p in parts])
        values = np.concatenate([p[2] for p in parts])
        if len(g):
            cgroup, sums = _cluster_sums(g, game, values, n)
        else:
            cgroup, sums = np.zeros(0, np.int64), np.zeros((0, 2))
        total = np.zeros((groups, 2))
        np.add.at(total, cgroup, sums)
        scale = n / max(n - 1, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            if den is None:
                est = total[:, 0] / n
                sq = np.bincount(cgroup, weights=sums[:, 0] ** 2, minlength=groups)
                var = np.maximum(sq / n - est**2, 0.0) * scale / n
                half = Z95 * np.sqrt(var)
            else:
                est = total[:, 0] / total[:, 1]
                resid = sums[:, 0] - est[cgroup] * sums[:, 1]
                var = np.bincount(cgroup, weights=resid**2, minlength=groups) * scale
                half = Z95 * np.sqrt(var) / total[:, 1]
        index = labels.to_frame(index=False) if isinstance(labels, pd.MultiIndex) else None
        if index is None:
            index = pd.DataFrame({by[0]: list(labels)})
        out = index.reset_index(drop=True)
        out["estimate"] = est
        out["±95%"] = half
        return out

    # ---- whole-game figures ----------------------------------------------------------
    def game_value(self) -> tuple[float, ...]:
        """Mean return of each seat over the sampled games."""
        return tuple(float(x) for x in self.samples.returns.mean(axis=0))

    def game_value_ci(self) -> tuple[float, ...] | None:
        """Half-width of the 95% interval of each seat's value."""
        return tuple(mean_ci(self.samples.returns[:, p])[1] for p in range(self.config.players))

    def value_bounds(self) -> tuple[tuple[float, float], ...] | None:
        """No certain bounds on the equilibrium value (no exact best response)."""
        return None

    def exploitability(self) -> float | None:
        """The exact exploitability recorded in the run (normally none for MCCFR runs)."""
        e = self.meta.get("exploitability")
        return None if e is None else float(e)

    def exploitability_bound(self) -> dict[str, Any] | None:
        """The strongest sampled lower bound on exploitability recorded in the run, if any."""
        return strongest_exploitability_bound(self.meta)

    def turn_cap_share(self) -> float:
        """Share of the sampled games that reached the turn cap (draws)."""
        return float(self.samples.capped.mean())

    def turn_cap_ci(self) -> float | None:
        """Half-width of the 95% interval of the turn-cap share."""
        return mean_ci(self.samples.capped.astype(np.float64))[1]

    def miss_share(self) -> float:
        """Share of sampled decisions whose information state the table lacks (played uniformly)."""
        return float((self.samples.row == NO_ROW).mean()) if self.samples.count else 0.0

    def starting_hands(self) -> pd.DataFrame:
        """One row per sampled game: every seat's starting hand (``hand0``, ``hand1``, ...), weight
        1/games and every seat's return (``value0``, ``value1``, ...)."""
        names = [self.config.clan_name(c) for c in range(NUM_CLANS)]
        start = self.samples.start_hands
        n = self.config.players
        data: dict[str, Any] = {"game": np.arange(self.games)}
        for p in range(n):
            data[f"hand{p}"] = counts_to_strings(names, start[:, p, :])
        data["probability"] = np.full(self.games, 1.0 / self.games)
        for p in range(n):
            data[f"value{p}"] = self.samples.returns[:, p]
        return pd.DataFrame(data)

    def convergence(self) -> pd.DataFrame | None:
        """MCCFR runs log no exact exploitability over iterations."""
        return None

    def describe_run(self) -> dict[str, Any]:
        """Run facts for report headers (solver, iterations, information states, bound, sampling)."""
        m = self.meta
        states = m.get("information_states") or {}
        return {
            "game": m.get("game"),
            "preset": self.preset,
            "lineup": self.config.lineup_label(),
            "algorithm": m.get("algorithm"),
            "iterations": m.get("iterations"),
            "exploitability": m.get("exploitability"),
            "exploitability_bound": self.exploitability_bound(),
            "nash_conv": m.get("nash_conv"),
            "created": m.get("created"),
            "run_dir": str(self.run_dir),
            "infosets": states.get("total", self.table_rows),
            "nodes": None,
            "key_scheme": (m.get("key_scheme") or {}).get("name"),
            "games": self.games,
            "seed": self.seed,
            "situations": len(self.situations),
            "decisions": self.samples.count,
            "miss_share": self.miss_share(),
            "method": f"sampled: {self.method}",
        }
