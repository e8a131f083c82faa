"""A strategy card: how the strategy plays, in sentences drawn from its tables, each with its number.

For a player at the table: what to keep in the draft, what to open with for
each starting hand, which characters it bluffs on its first turn with each
hand, which characters it bluffs and how often those bluffs are called, and
which claims it challenges, with the hand that challenges most. Only rows
resting on at least :data:`MIN_VISITS` sampled decisions are used; the seats
are pooled (probabilities weighted by visits).
"""

from __future__ import annotations

import pandas as pd

from complots_solver.reports.tables import StrategyTable
from complots_solver.rules.text import claims_by_label

MIN_VISITS = 30
_NOT_MOVES = {"seat", "hand", "reach", "value", "visits", "draft_card", "context", "claimed"}
# the characters each turn action claims (the characters' data); e.g. 'Exchange' -> Ambassador
# and Inquisitor, only one of which is in a game
MOVE_CLAIMS = claims_by_label()


def _a(word: str) -> str:
    """'a Duchess', 'an Assassin'."""
    return ("an " if word[:1].upper() in "AEIOU" else "a ") + word


def _moves(frame: pd.DataFrame) -> list[str]:
    """The probability columns of a table (a move each)."""
    return [c for c in frame.columns if c not in _NOT_MOVES and "±" not in c]


def pooled(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    """Rows merged over the seats, probabilities weighted by visits, well-visited rows only
    (``by``, ``visits`` and the move columns, in the table's order of ``by``)."""
    moves = _moves(frame)
    rows = []
    for key, g in frame.groupby(by, sort=False):
        w = g["visits"].fillna(0).to_numpy(dtype=float)
        if w.sum() < MIN_VISITS:
            continue
        row = {by: key, "visits": int(w.sum())}
        for m in moves:
            row[m] = float((g[m].fillna(0).to_numpy(dtype=float) * w).sum() / w.sum())
        rows.append(row)
    return pd.DataFrame(rows)


def _draft(frame: pd.DataFrame) -> str | None:
    """'Draft: given a Duchess, keep the Captain (52%); ...'."""
    if frame.empty:
        return None
    rows = pooled(frame, "draft_card")
    if rows.empty:
        return None
    moves = _moves(rows.drop(columns=["draft_card"]))
    parts = []
    for _, r in rows.iterrows():
        best = max(moves, key=lambda m: r[m])
        parts.append(f"given {_a(r['draft_card'])}, keep the {best[5:]} ({r[best]:.0%})")
    return "Draft: " + "; ".join(parts) + "."


def _opening(frame: pd.DataFrame) -> str | None:
    """'Opening: Tax (93-95%) holding Duchess+Assassin, ...; Steal (64%) holding ...'."""
    if frame.empty:
        return None
    rows = pooled(frame, "hand")
    if rows.empty:
        return None
    moves = _moves(rows.drop(columns=["hand"]))
    groups: dict[str, list[tuple[str, float]]] = {}
    for _, r in rows.iterrows():
        best = max(moves, key=lambda m: r[m])
        groups.setdefault(best, []).append((r["hand"], r[best]))
    parts = []
    for move, hands in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lo, hi = min(p for _, p in hands), max(p for _, p in hands)
        share = f"{lo:.0%}" if round(lo, 2) == round(hi, 2) else f"{lo:.0%} to {hi:.0%}"
        parts.append(f"{move} ({share} of first turns) holding " + ", ".join(h for h, _ in hands))
    return "Opening move by starting hand: " + "; ".join(parts) + "."


def _opening_bluffs(frame: pd.DataFrame) -> str | None:
    """'First-turn bluffs: holding Captain+Countess, 64% (Tax 60%, Steal 4%); ...'."""
    if frame.empty:
        return None
    rows = pooled(frame, "hand")
    if rows.empty:
        return None
    claims = [m for m in _moves(rows.drop(columns=["hand"])) if m in MOVE_CLAIMS]
    parts = []
    honest = []
    for _, r in rows.iterrows():
        cards = str(r["hand"]).split("+")
        lies = [
            (m, float(r[m])) for m in claims if not MOVE_CLAIMS[m] & set(cards) and r[m] >= 0.005
        ]
        total = sum(p for _, p in lies)
        if total < 0.005:
            honest.append(str(r["hand"]))
            continue
        detail = ", ".join(f"{m} {p:.0%}" for m, p in sorted(lies, key=lambda mp: -mp[1]))
        parts.append(f"holding {r['hand']}, {total:.0%} of first turns ({detail})")
    out = []
    if parts:
        out.append(
            "First-turn bluffs (a turn action claiming a character not in the hand): "
            + "; ".join(parts)
            + "."
        )
    if honest:
        out.append("It never bluffs on its first turn holding " + ", ".join(honest) + ".")
    return " ".join(out) if out else None


def _bluffs(frame: pd.DataFrame) -> str | None:
    """'Bluffs: the Countess in 42% of its claims (bluffs called 88% of the time); ...'."""
    if frame.empty:
        return None
    rows = frame[frame["claims per game"].fillna(0) > 0]
    rows = rows.sort_values("bluff frequency", ascending=False)
    parts = [
        f"the {r['character']} in {r['bluff frequency']:.0%} of its {r['character']} claims "
        f"({r['claims per game']:.2f} claims a game; its bluffs are challenged "
        f"{r['bluffs challenged']:.0%} of the time)"
        for _, r in rows.iterrows()
        if pd.notna(r["bluff frequency"])
    ]
    return ("Bluffs: " + "; ".join(parts) + ".") if parts else None


def _challenges(frame: pd.DataFrame) -> str | None:
    """'Challenges: a Duchess claim 22% of the time, most (37%) holding Countess; ...'."""
    if frame.empty:
        return None
    acts = frame[frame["context"] == "action claim"]
    parts = []
    for claimed, g in acts.groupby("claimed", sort=False):
        w = g["visits"].fillna(0).to_numpy(dtype=float)
        if w.sum() < MIN_VISITS:
            continue
        rate = float((g["Challenge"].fillna(0).to_numpy(dtype=float) * w).sum() / w.sum())
        solid = g[g["visits"] >= MIN_VISITS]
        text = f"{_a(claimed)} claim {rate:.0%} of the time"
        if len(solid) > 1:
            top = solid.loc[solid["Challenge"].idxmax()]
            text += f", most ({top['Challenge']:.0%}) holding {top['hand']}"
        parts.append(text)
    return ("It challenges " + "; ".join(parts) + ".") if parts else None


def strategy_card(tables: dict[str, StrategyTable], players: int = 2) -> list[str]:
    """The card's sentences (draft, opening, first-turn bluffs, bluffs, challenges), from the
    full sampled tables."""
    seats = "both seats" if players == 2 else f"all {players} seats"
    out = [
        "How this strategy plays, for a player at the table (rows with at least "
        f"{MIN_VISITS} sampled decisions, {seats} pooled; the percentages are the "
        "strategy's own frequencies in its self-play games)."
    ]
    makers = [
        ("draft_picks", _draft),
        ("opening_moves", _opening),
        ("opening_moves", _opening_bluffs),
        ("bluffs", _bluffs),
        ("challenges", _challenges),
    ]
    for key, make in makers:
        if key in tables:
            text = make(tables[key].frame)
            if text:
                out.append(text)
    return out if len(out) > 1 else []
