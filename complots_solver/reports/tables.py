"""Strategy tables of one solved line-up, as pandas DataFrames (CSV export).

Every table is built from the browser layer only
(:class:`complots_solver.browse.StrategyBrowser`, or the sampled
:class:`complots_solver.browse.SampledBrowser` for Monte Carlo CFR strategy
files) and says how its numbers were obtained: ``exact`` (computed on the
compiled game tree under the solved profile, no sampling error) or
``sampled`` (self-play games of the strategy; ``... ±95%`` columns give the
half-widths of 95% confidence intervals).

Probabilities are *reach-weighted*: a group's probability of an action is
the probability, under the solved profile, of reaching a situation of the
group and taking the action there, divided by the probability of reaching
the group. Groups that never arise under the profile are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from complots_solver.browse import CI_COLUMNS, REACH_CI, Browser, mean_ci, signed

EXACT = "exact"
SAMPLED = "sampled"
REACH = "reach"
VALUE = "value"
LOSS_STAGES = {"CHALLENGE_LOSS", "EFFECT_LOSS"}


@dataclass
class StrategyTable:
    """A titled table with its provenance (exact or sampled) and reading notes."""

    key: str  # file stem of the CSV export
    title: str
    description: str
    frame: pd.DataFrame
    basis: str = EXACT  # EXACT or SAMPLED
    method: str = ""  # how the numbers were obtained, in words
    prob_columns: list[str] = field(default_factory=list)  # each row's probabilities sum to 1
    note: str = ""  # e.g. why the table is empty
    faint: list[bool] = field(default_factory=list)  # per row: little data behind it (greyed)

    @property
    def exact(self) -> bool:
        """Whether the numbers are exact (no sampling error)."""
        return self.basis == EXACT

    @property
    def basis_text(self) -> str:
        """'exact: ...' or 'sampled: ...', for captions."""
        return f"{self.basis}: {self.method}" if self.method else self.basis

    def to_csv(self, directory: Path) -> Path:
        """Write ``<key>.csv`` (with a leading comment line naming the basis); return its path."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.key}.csv"
        with path.open("w", newline="") as fh:
            fh.write(f"# {self.title} ({self.basis_text})\n")
            if self.note:
                fh.write(f"# {self.note}\n")
            self.frame.to_csv(fh, index=False)
        return path


def _table(
    b: Browser,
    key: str,
    title: str,
    description: str,
    frame: pd.DataFrame,
    prob_columns: list[str] | None = None,
    note: str = "",
) -> StrategyTable:
    """A StrategyTable carrying the browser's basis."""
    if frame.empty and not note:
        note = (
            "No situation of this kind arises under the solved profile in this game."
            if b.exact
            else "No situation of this kind arose in the sampled games."
        )
    return StrategyTable(
        key=key,
        title=title,
        description=description,
        frame=frame.reset_index(drop=True),
        basis=EXACT if b.exact else SAMPLED,
        method=b.method,
        prob_columns=list(prob_columns or []),
        note=note,
    )


def _moves(frame: pd.DataFrame, fixed: list[str]) -> list[str]:
    """Action columns of an aggregate (all but the group, reach and value columns)."""
    return [c for c in frame.columns if c not in (*fixed, REACH, VALUE, *CI_COLUMNS)]


def _ordered(
    b: Browser, frame: pd.DataFrame, by: list[str], order: list[str] | None = None
) -> pd.DataFrame:
    """Aggregate with move columns in ``order`` (others after), then reach and value."""
    moves = sorted(_moves(frame, by), key=lambda m: _move_key(b, m))
    if order:
        moves = [m for m in order if m in moves] + [m for m in moves if m not in order]
    extra = [c for c in CI_COLUMNS if c in frame.columns]
    return sort_cards(b, frame[[*by, *moves, REACH, VALUE, *extra]], by)


def _move_key(b: Browser, move: str) -> tuple:
    """Sort key of a move column: card moves ('Keep Duchess+Captain') in clan order."""
    for prefix in ("Counter as ", "Pick ", "Reveal ", "Show ", "Keep "):
        if move.startswith(prefix):
            return (prefix, card_key(b, move[len(prefix) :]))
    return (move, ())


def card_key(b: Browser, cards: object) -> tuple[int, ...]:
    """Sort key of a card list such as 'Duchess+Captain': clan order, fewer cards first."""
    if not isinstance(cards, str) or not cards:
        return ()
    names = {b.config.clan_name(c): c for c in range(5)}
    return (len(cards.split("+")), *(names.get(n, 9) for n in cards.split("+")))


def sort_cards(b: Browser, frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Sort rows by ``by``, card columns in the rulebook's clan order."""
    card_columns = {"hand", "claimed", "examined", "draft_card", "character", "counter_as"}

    def key(col: pd.Series) -> pd.Series:
        if col.name in card_columns:
            return col.map(lambda v: card_key(b, v))
        return col

    return frame.sort_values(by, key=key).reset_index(drop=True)


def _move_order(b: Browser) -> list[str]:
    """Turn actions in the rulebook's order."""
    names = [b.config.clan_name(c) for c in range(5)]
    return [
        "Income",
        "Foreign Aid",
        "Coup",
        "Tax",
        "Assassinate",
        "Steal",
        "Exchange",
        "Examine",
        # Complots 2 powers (docs/rules.md section 7)
        "Illusion",
        "Donate",
        "Execute",
        "Blackmail",
        "Justice",
        "Tithe",
        "Spy",
        *[f"Counter as {n}" for n in names],
    ]


def opening_moves(b: Browser) -> StrategyTable:
    """Each seat's first action for every hand it can hold then."""
    by = ["seat", "hand"]
    frame = b.aggregate(by, stage="ACTION", own_turns=0)
    frame = _ordered(b, frame, by, _move_order(b)) if not frame.empty else frame
    return _table(
        b,
        "opening_moves",
        "Opening move by seat and hand",
        "Probability of each action on the seat's first turn, by the hand held then "
        "(reach-weighted over everything that happened before). 'reach' is the "
        "probability that the seat starts its first turn with that hand; 'value' its "
        "expected utility from there.",
        frame,
        _moves(frame, by),
    )


def action_frequencies(b: Browser) -> StrategyTable:
    """How often each action is announced, per seat, over every turn of the game."""
    by = ["seat"]
    frame = b.aggregate(by, stage="ACTION")
    frame = _ordered(b, frame, by, _move_order(b)) if not frame.empty else frame
    if not frame.empty:
        frame = frame.rename(columns={REACH: "turns per game", REACH_CI: "turns per game ±95%"})
    return _table(
        b,
        "action_frequencies",
        "Action frequencies by seat (all turns)",
        "Share of each action among all the turns a seat plays (reach-weighted); "
        "'turns per game' is the expected number of turns the seat plays.",
        frame,
        [c for c in _moves(frame, by) if not c.startswith("turns per game")],
    )


def draft_picks(b: Browser) -> StrategyTable:
    """The 2-player draft: which card to pick for each random card."""
    by = ["seat", "draft_card"]
    frame = b.aggregate(by, stage="PICK")
    note = ""
    if frame.empty:
        note = (
            "This configuration has no draft pick: with 1 influence (D-13) each player "
            "keeps the random card and picks nothing."
            if b.config.influence == 1
            else "This configuration has no draft."
        )
    else:
        frame = _ordered(b, frame, by)
    return _table(
        b,
        "draft_picks",
        "Draft: card picked for each random card",
        "Probability of picking each card of one's own pile, given the random card "
        "received from pile 3 (the pick is hidden from the opponent).",
        frame,
        _moves(frame, by),
        note,
    )


def challenges(b: Browser) -> StrategyTable:
    """Challenge probability by claimed character and own hand."""
    by = ["context", "claimed", "hand"]
    rows = b.find(stage={"CHALLENGE", "COUNTER_CHALLENGE"})
    frame = pd.DataFrame()
    if not rows.empty:
        frame = b.aggregate(
            ["stage", "claimed", "hand"], stage={"CHALLENGE", "COUNTER_CHALLENGE"}
        ).rename(columns={"stage": "context"})
        frame["context"] = frame["context"].map(
            {"CHALLENGE": "action claim", "COUNTER_CHALLENGE": "counter claim"}
        )
        frame = _ordered(b, frame, by, ["Challenge", "Pass"])
    return _table(
        b,
        "challenges",
        "Challenge probability by claimed character and own hand",
        "Probability of challenging a claim, by the character claimed (by an action or "
        "by a counter) and the responder's own hand.",
        frame,
        _moves(frame, by),
    )


def counters(b: Browser) -> StrategyTable:
    """Counter decisions by pending action and own hand."""
    by = ["pending_action", "hand"]
    frame = b.aggregate(by, stage="COUNTER")
    frame = _ordered(b, frame, by, ["Pass"]) if not frame.empty else frame
    return _table(
        b,
        "counters",
        "Counters by action and own hand",
        "Probability of passing or countering (claiming each allowed character) when "
        + (
            "facing a counterable action (Foreign Aid, the Assassins' and the Voleurs' powers)"
            if b.config.extended
            else "facing Foreign Aid, Assassinate or Steal"
        )
        + ", by the responder's own hand.",
        frame,
        _moves(frame, by),
    )


def counter_rates(b: Browser) -> StrategyTable:
    """Counter and bluff-counter rates per action and counter character."""
    rows = b.find(stage="COUNTER")
    slots = b.actions.merge(rows[["infoset", "pending_action", "reach"]], on="infoset")
    slots = slots[slots["claimed_character"].notna()]
    records = []
    for (action, character), group in slots.groupby(["pending_action", "claimed_character"]):
        honest = group[~group["bluff"]]
        bluff = group[group["bluff"]]
        total = group["slot_reach"].sum()
        records.append(
            {
                "pending_action": action,
                "counter_as": character,
                "counter rate": _ratio(total, group["reach"].sum()),
                "rate holding it": _ratio(honest["slot_reach"].sum(), honest["reach"].sum()),
                "bluff-counter rate": _ratio(bluff["slot_reach"].sum(), bluff["reach"].sum()),
                "bluff share of counters": _ratio(bluff["slot_reach"].sum(), total),
                "counters per game": total,
            }
        )
    frame = pd.DataFrame(records)
    if not frame.empty:
        bl = slots["bluff"].to_numpy()
        frame = _add_slot_cis(
            b,
            frame,
            slots,
            ["pending_action", "claimed_character"],
            ["pending_action", "counter_as"],
            {
                "counter rate": ("mass", None, "visits", None),
                "rate holding it": ("mass", ~bl, "visits", ~bl),
                "bluff-counter rate": ("mass", bl, "visits", bl),
                "bluff share of counters": ("mass", bl, "mass", None),
                "counters per game": ("mass", None, None, None),
            },
        )
    return _table(
        b,
        "counter_rates",
        "Counter and bluff-counter rates",
        "For each action and counter character: how often the target counters with it; "
        "the rate when holding the character, the rate when not holding it (bluff-counter "
        "rate), and the share of such counters that are bluffs.",
        frame,
    )


def reveals(b: Browser) -> StrategyTable:
    """Which card to turn face up when losing influence with a choice."""
    by = ["hand"]
    frame = b.aggregate(by, stage=LOSS_STAGES, num_actions=lambda k: k >= 2)
    note = ""
    if frame.empty:
        note = "No choice arises: every player who loses influence holds a single kind of card."
    else:
        frame = _ordered(b, frame, by)
    return _table(
        b,
        "reveals",
        "Card revealed when losing influence",
        "Probability of turning each card face up, by the hand held (only hands with a choice).",
        frame,
        _moves(frame, by),
        note,
    )


def exchange_keeps(b: Browser) -> StrategyTable:
    """Which cards to keep after an exchange, by the cards in hand after the draw."""
    by = ["hand"]
    frame = b.aggregate(by, stage="EXCHANGE_KEEP", num_actions=lambda k: k >= 2)
    frame = _ordered(b, frame, by) if not frame.empty else frame
    return _table(
        b,
        "exchange_keeps",
        "Cards kept after an exchange",
        "Probability of keeping each set of cards, by all the cards held after the draw "
        "(own cards plus the cards drawn from the Court).",
        frame,
        _moves(frame, by),
    )


def examine_decisions(b: Browser) -> StrategyTable:
    """Inquisitor Examine: return the card or force a swap, by the card shown."""
    by = ["examined", "hand"]
    frame = b.aggregate(by, stage="EXAMINE_DECIDE")
    note = ""
    if frame.empty and b.config.lineup.name != "INQUISITOR":
        note = "No Inquisitor in this line-up."
    elif not frame.empty:
        frame = _ordered(b, frame, by, ["Return card", "Force swap"])
    return _table(
        b,
        "examine_decisions",
        "Inquisitor Examine: return or force a swap",
        "Probability of giving the shown card back or forcing a swap, by the card the "
        "target showed and the Inquisitor's own hand.",
        frame,
        _moves(frame, by),
        note,
    )


def examine_shows(b: Browser) -> StrategyTable:
    """Which card the Examine target shows, when it has a choice."""
    by = ["hand"]
    frame = b.aggregate(by, stage="EXAMINE_SHOW", num_actions=lambda k: k >= 2)
    note = ""
    if frame.empty:
        note = (
            "No Inquisitor in this line-up."
            if b.config.lineup.name != "INQUISITOR"
            else "No choice arises: every examined player holds a single kind of card."
        )
    else:
        frame = _ordered(b, frame, by)
    return _table(
        b,
        "examine_shows",
        "Examine target: card shown",
        "Probability of showing each card to the Inquisitor, by the target's hand.",
        frame,
        _moves(frame, by),
        note,
    )


def bluffs(b: Browser) -> StrategyTable:
    """Bluff frequency per character and how often bluffs are challenged."""
    slots = b.actions[b.actions["claimed_character"].notna()]
    records = []
    for character, group in slots.groupby("claimed_character"):
        honest = group[~group["bluff"]]
        bluff = group[group["bluff"]]
        claims = group["slot_reach"].sum()
        records.append(
            {
                "character": character,
                "claims per game": claims,
                "bluffs per game": bluff["slot_reach"].sum(),
                "bluff frequency": _ratio(bluff["slot_reach"].sum(), claims),
                "bluffs challenged": _ratio(
                    bluff["challenged_reach"].sum(), bluff["slot_reach"].sum()
                ),
                "true claims challenged": _ratio(
                    honest["challenged_reach"].sum(), honest["slot_reach"].sum()
                ),
            }
        )
    frame = pd.DataFrame(records)
    if not frame.empty:
        bl = slots["bluff"].to_numpy()
        frame = _add_slot_cis(
            b,
            frame,
            slots,
            ["claimed_character"],
            ["character"],
            {
                "claims per game": ("mass", None, None, None),
                "bluff frequency": ("mass", bl, "mass", None),
                "bluffs challenged": ("challenged", bl, "mass", bl),
                "true claims challenged": ("challenged", ~bl, "mass", ~bl),
            },
        )
    if not frame.empty:
        order = {b.config.clan_name(c): c for c in range(5)}
        frame = frame.sort_values("character", key=lambda s: s.map(order))
    return _table(
        b,
        "bluffs",
        "Bluff frequency per character",
        "Claims of each character (by actions and counters) per game, the share made "
        "without holding it (bluff frequency), and the probability that a bluffed or a "
        "true claim is challenged.",
        frame,
    )


def _add_slot_cis(
    b: Browser,
    frame: pd.DataFrame,
    slots: pd.DataFrame,
    by: list[str],
    keys: list[str],
    specs: dict[str, tuple[str, np.ndarray | None, str | None, np.ndarray | None]],
) -> pd.DataFrame:
    """Add a '<column> ±95%' column per spec (num, num mask, den, den mask); none if exact."""
    frame = frame.copy()
    for column, (num, num_mask, den, den_mask) in specs.items():
        est = b.slot_ratio(slots, by, num, num_mask, den, den_mask)
        if est is None:  # exact figures: no interval
            continue
        est = est.rename(columns=dict(zip(by, keys, strict=True)))
        ci = frame[keys].merge(est[[*keys, "±95%"]], on=keys, how="left")["±95%"]
        frame[f"{column} ±95%"] = ci.to_numpy()
    return frame


def seat_values(b: Browser, starts: pd.DataFrame, seat: int) -> pd.Series:
    """Seat ``seat``'s return per row of ``starts`` (2-player exact rows: minus seat 0's)."""
    column = f"value{seat}"
    if column in starts.columns:
        return starts[column]
    if b.config.players == 2 and seat == 1:  # zero-sum: the exact browser gives seat 0's only
        return -starts["value0"]
    raise ValueError(f"the starting hands give no value for seat {seat}")


def hand_values(b: Browser) -> StrategyTable:
    """Expected utility of each starting hand, per seat."""
    starts = b.starting_hands()
    records = []
    for seat in range(b.config.players):
        col = f"hand{seat}"
        values = seat_values(b, starts, seat)
        for hand, group in starts.groupby(col):
            prob = group["probability"].sum()
            v = values[group.index]
            record = {
                "seat": seat,
                "hand": hand,
                "probability": prob,
                "value": _ratio((group["probability"] * v).sum(), prob),
            }
            if not b.exact:  # one row per sampled game
                record["value ±95%"] = mean_ci(v.to_numpy())[1]
                record["games"] = len(group)
            records.append(record)
    frame = pd.DataFrame(records).sort_values(["seat", "value"], ascending=[True, False])
    return _table(
        b,
        "hand_values",
        "Value of each starting hand",
        "Expected utility (+1 win, "
        + ("-1 loss" if b.config.players == 2 else f"-1/{b.config.players - 1} loss")
        + ", 0 draw) of a seat given the hand it starts "
        "play with (after the draft), and the probability of that hand under the profile"
        + ("." if b.exact else " (share of the sampled games; 'games' of them)."),
        frame,
    )


def character_values(b: Browser) -> StrategyTable:
    """Expected utility when holding each character at the start, per seat."""
    starts = b.starting_hands()
    records = []
    for c in range(5):
        name = b.config.clan_name(c)
        for seat in range(b.config.players):
            holds = starts[f"hand{seat}"].str.split("+").map(lambda cards, n=name: n in cards)
            prob_all = starts["probability"]
            seat_value = seat_values(b, starts, seat)
            weighted = prob_all * seat_value
            record = {
                "character": name,
                "seat": seat,
                "P(start with it)": prob_all[holds].sum(),
                "value holding it": _ratio(weighted[holds].sum(), prob_all[holds].sum()),
                "value without it": _ratio(weighted[~holds].sum(), prob_all[~holds].sum()),
            }
            if not b.exact:  # one row per sampled game
                values = seat_value.to_numpy()
                record["value holding it ±95%"] = mean_ci(values[holds.to_numpy()])[1]
                record["value without it ±95%"] = mean_ci(values[~holds.to_numpy()])[1]
            records.append(record)
    frame = pd.DataFrame(records)
    frame["advantage"] = frame["value holding it"] - frame["value without it"]
    if not b.exact:
        frame["advantage ±95%"] = np.hypot(
            frame["value holding it ±95%"], frame["value without it ±95%"]
        )
    return _table(
        b,
        "character_values",
        "Value of each character",
        "Expected utility of a seat when its starting hand holds the character, when it "
        "does not, and the difference.",
        frame,
    )


def game_values(b: Browser) -> StrategyTable:
    """Value of each seat, with the interval certain to hold the equilibrium value."""
    if not b.exact:
        return _sampled_game_values(b)
    values = b.game_value()
    bounds = b.value_bounds()
    records = []
    for seat, v in enumerate(values):
        lo, hi = bounds[seat] if bounds else (np.nan, np.nan)
        records.append(
            {"seat": seat, "value": v, "equilibrium value >=": lo, "equilibrium value <=": hi}
        )
    return _table(
        b,
        "game_values",
        "Game value by seat",
        "Expected utility of each seat when both play the solved strategy, and the "
        "interval that certainly holds the game's equilibrium value (from the exact "
        "best responses: the width is the NashConv, twice the exploitability).",
        pd.DataFrame(records),
    )


def _sampled_game_values(b: Browser) -> StrategyTable:
    """Seat values of a sampled browser with their 95% confidence intervals."""
    values = b.game_value()
    cis = b.game_value_ci() or tuple(np.nan for _ in values)
    frame = pd.DataFrame(
        {
            "seat": list(range(len(values))),
            "value": list(values),
            "value ±95%": list(cis),
            "95% CI low": [v - c for v, c in zip(values, cis, strict=True)],
            "95% CI high": [v + c for v, c in zip(values, cis, strict=True)],
        }
    )
    return _table(
        b,
        "game_values",
        "Game value by seat",
        "Mean return of each seat when both play the solved strategy, over the sampled "
        "self-play games, with its 95% confidence interval. This is the value of this "
        "strategy profile, not a bound on the game's equilibrium value (no exact best "
        "response exists for this game).",
        frame,
    )


def solver_phrase(run: dict) -> str:
    """How the run's strategy was made, in words (a belief run's network, or solver and iterations)."""
    if run.get("solver_text") is not None:
        return str(run["solver_text"])
    text = f"{run['algorithm']} after {run['iterations']:,} iterations"
    if run.get("infosets") is not None:
        key = f", {run['key_scheme']} key" if run.get("key_scheme") else ""
        text += f" ({run['infosets']:,} information states{key})"
    return text


COPIES = {2: "two", 3: "three", 4: "four", 5: "five"}


def table_strength_text(run: dict, players: int) -> str | None:
    """A table strategy's strength in words, from the trained responder its meta.json records."""
    gain = run.get("responder_gain")
    if players < 3 or not isinstance(gain, dict):
        return None
    value = gain.get("gain")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    fair = 1.0 / players
    share = float(gain.get("win_share", value + fair))
    lo, hi = (gain.get("ci95") or [np.nan, np.nan])[:2]
    copies = COPIES.get(players - 1, str(players - 1))
    text = (
        f"a player trained against it wins {share:.1%} of {players}-player games against "
        f"{copies} copies of it (95% CI {float(lo) + fair:.1%} to {float(hi) + fair:.1%}"
    )
    if gain.get("games"):
        text += f", {int(gain['games']):,} games"
    if gain.get("train_games"):
        text += f"; the player trained for {int(gain['train_games']):,} games"
    return text + f"), where the fair share is {fair:.1%}"


def exploitability_text(b: Browser) -> str:
    """The run's exploitability in words: exact, a sampled lower bound, or 'not measured'."""
    exact = b.exploitability()
    if exact is not None:
        return f"{exact:.3g} (exact best response)"
    bound = b.exploitability_bound()
    if bound:
        lo, hi = bound.get("ci95", (np.nan, np.nan))
        who = f", {bound['responder']}" if bound.get("responder") else ""
        return (
            f"at least {float(bound['lower_bound']):.3g} (sampled best-response lower bound{who}, "
            f"95% CI {float(lo):.3g} to {float(hi):.3g})"
        )
    table = table_strength_text(b.describe_run(), b.config.players)
    if table:
        return f"not bounded at a table of {b.config.players}; {table}"
    return "not measured"


def _sampled_key_figures(b: Browser) -> StrategyTable:
    """Key figures of a sampled browser (run, information states, values with CIs)."""
    run = b.describe_run()
    values = b.game_value()
    cis = b.game_value_ci() or tuple(np.nan for _ in values)
    cap_ci = b.turn_cap_ci()
    network = run.get("solver_text") is not None  # a policy network: no table, no key
    records = [
        ("game", run["game"]),
        ("line-up", run["lineup"]),
        (
            "solver",
            run["solver_text"]
            if network
            else f"{run['algorithm']}, {run['iterations']:,} iterations",
        ),
    ]
    if not network:
        records += [
            ("information key", str(run.get("key_scheme"))),
            ("information states in the strategy table", f"{run['infosets']:,}"),
        ]
    records += [
        ("exploitability", exploitability_text(b)),
        *(
            (f"value of seat {p}", f"{signed(v)} ± {c:.4f} (95% CI)")
            for p, (v, c) in enumerate(zip(values, cis, strict=True))
        ),
        (
            f"share of games reaching the turn cap ({b.config.max_turns} turns, a draw)",
            f"{b.turn_cap_share():.4f} ± {cap_ci if cap_ci is not None else float('nan'):.4f}",
        ),
        ("sampled self-play games", f"{run['games']:,} (seed {run['seed']})"),
        ("decisions sampled", f"{run['decisions']:,}"),
        ("distinct situations seen", f"{run['situations']:,}"),
    ]
    if not network:
        records.append(("decisions the table lacks (played uniformly)", f"{run['miss_share']:.2%}"))
    frame = pd.DataFrame(records, columns=["figure", "value"])
    return _table(b, "key_figures", "Key figures", "The run and its headline numbers.", frame)


def key_figures(b: Browser) -> StrategyTable:
    """Game value, exploitability and the share of games reaching the turn cap."""
    if not b.exact:
        return _sampled_key_figures(b)
    run = b.describe_run()
    v0 = b.game_value()[0]
    records = [
        ("game", run["game"]),
        ("line-up", run["lineup"]),
        ("solver", f"{run['algorithm']}, {run['iterations']} iterations"),
        ("exploitability", _fmt(run["exploitability"], ".3g")),
        ("value of seat 0", f"{signed(v0, 5)}"),
        ("value of seat 1", f"{signed(-v0, 5)}"),
        (
            f"share of games reaching the turn cap ({b.config.max_turns} turns, a draw)",
            f"{b.turn_cap_share():.4f}",
        ),
        ("information sets", f"{run['infosets']:,}"),
        ("tree nodes", f"{run['nodes']:,}"),
    ]
    frame = pd.DataFrame(records, columns=["figure", "value"])
    return _table(b, "key_figures", "Key figures", "The run and its headline numbers.", frame)


def _fmt(value: float | None, spec: str) -> str:
    """Format a possibly missing number."""
    return "n/a" if value is None else format(float(value), spec)


def _ratio(num: float, den: float) -> float:
    """num / den, NaN when den is 0."""
    return float(num) / float(den) if den > 0 else float("nan")


TABLES: dict[str, Callable[[Browser], StrategyTable]] = {
    "key_figures": key_figures,
    "game_values": game_values,
    "opening_moves": opening_moves,
    "action_frequencies": action_frequencies,
    "draft_picks": draft_picks,
    "challenges": challenges,
    "counters": counters,
    "counter_rates": counter_rates,
    "reveals": reveals,
    "exchange_keeps": exchange_keeps,
    "examine_decisions": examine_decisions,
    "examine_shows": examine_shows,
    "bluffs": bluffs,
    "hand_values": hand_values,
    "character_values": character_values,
}


def all_tables(
    b: Browser, on_table: Callable[[int], None] | None = None
) -> dict[str, StrategyTable]:
    """Every strategy table of one line-up, by key; ``on_table`` is told how many are done."""
    tables: dict[str, StrategyTable] = {}
    for key, make in TABLES.items():
        tables[key] = make(b)
        if on_table:
            on_table(len(tables))
    return tables


def export_csv(tables: dict[str, StrategyTable], directory: Path) -> list[Path]:
    """Write every table as CSV into ``directory``; return the paths."""
    return [t.to_csv(directory) for t in tables.values()]
