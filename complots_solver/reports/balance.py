"""The balance report: which line-up is better balanced, from self-play of the shipped strategies.

``complots balance`` plays seeded self-play games of each shipped strategy
(:mod:`complots_solver.reports.balance_games`) and measures seat win shares,
the value of each character and starting hand, the draft picks, bluffs and
challenges (:mod:`complots_solver.reports.balance_stats`, every number with
its 95% interval). Page 1 is the answer: for each player count (2 to 6) the
better-balanced line-up of Ambassador and Inquisitor or "cannot tell", the
difference on the deciding measure, how sure (Holm's correction over every
test of the report), the first player's edge with each line-up, the
definition of "better balanced" and one sentence on the strategies' strength
(``meta.json`` of each shipped strategy). A glossary, "How sure are we", the
measures and the detail follow; every table, with every row, goes to an HTML
appendix and CSV files beside the report, whose 2-player answers the strategy
reports quote (:mod:`complots_solver.reports.headline`).

This module reads the strategies' quality, plays the games and assembles the
report from its sections: the answer (:mod:`~complots_solver.reports.balance_verdict`),
the detail (:mod:`~complots_solver.reports.balance_detail`) and the appendix
(:mod:`~complots_solver.reports.balance_appendix`); what they share is in
:mod:`~complots_solver.reports.balance_common`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from complots_solver.play.search_bot import second_opinion_dir, shipped_presets, strategies_dir
from complots_solver.reports.api import write_outputs
from complots_solver.reports.balance_appendix import appendix_sections
from complots_solver.reports.balance_common import (
    AMBASSADOR,
    COVERED,
    DEFAULT_GAMES,
    INQUISITOR,
    MIN_GAMES,
    PAIRS,
    TABLE_RESPONDER,
    WEAK_BOUND,
    BalanceInputs,
    Comparison,
    Quality,
    count_tests,
)
from complots_solver.reports.balance_detail import (
    characters_section,
    edge_section,
    method_section,
    play_section,
)
from complots_solver.reports.balance_games import SOLVED, play_preset
from complots_solver.reports.balance_stats import LineupData, adjust, compare_balance
from complots_solver.reports.balance_verdict import (
    answer_section,
    draw_warning,
    glossary_section,
    measures_section,
    second_answer_section,
    strength_sentence,
    sure_section,
)
from complots_solver.reports.document import Report
from complots_solver.reports.html import write_html
from complots_solver.rules.presets import load_presets

__all__ = [
    "AMBASSADOR",
    "DEFAULT_GAMES",
    "INQUISITOR",
    "MIN_GAMES",
    "BalanceInputs",
    "Comparison",
    "Quality",
    "build_balance_report",
    "build_balance_reports",
    "check_presets",
    "comparisons",
    "draw_warning",
    "run_balance",
    "strategy_quality",
    "strategy_warning",
    "strength_sentence",
    "write_balance",
]


def strongest_lower_bound(raw: object) -> tuple[float, float, float, str] | None:
    """The largest sampled lower bound among ``{method: {"exploitability_lower_bound": ...}}``.

    Every responder's bound is on its own a valid lower bound, so the largest
    is the strongest: (value, CI low, CI high, method).
    """
    if not isinstance(raw, dict):
        return None
    found = []
    for method, record in raw.items():
        if not isinstance(record, dict):
            continue
        for key in ("exploitability_lower_bound", "lower_bound"):
            value = record.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                ci = record.get("ci95") or [float("nan"), float("nan")]
                found.append((float(value), float(ci[0]), float(ci[1]), str(method)))
                break
    return max(found, key=lambda f: f[0]) if found else None


def _find(tree: object, keys: tuple[str, ...]) -> tuple[float, dict] | None:
    """The first number under one of ``keys`` anywhere in a JSON tree, with its parent."""
    if isinstance(tree, dict):
        for key in keys:
            if isinstance(tree.get(key), int | float):
                return float(tree[key]), tree
        for value in tree.values():
            found = _find(value, keys)
            if found is not None:
                return found
    return None


def strategy_quality(preset: str, folder: Path | None = None) -> Quality:
    """The quality of ``preset``'s shipped strategy (or the one in ``folder``), from its meta.json.

    ``exploitability_bound`` is a number (an upper bound), null, or a record
    of sampled bounds such as ``{"lbr": {"exploitability_lower_bound": ...,
    "ci95": [...]}}``; only an upper bound counts as a bound.
    """
    path = (folder or strategies_dir() / preset) / "meta.json"
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return Quality(preset, "UNKNOWN", None, "no readable meta.json")
    text = str(meta.get("quality", "")).strip()
    label = text.split(":", 1)[0].split()[0].rstrip(",;.") if text else "UNKNOWN"
    raw = meta.get("exploitability_bound")
    bound: float | None = None
    lower = None
    by = ""
    gain = meta.get("responder_gain")
    known = load_presets().get(preset)
    table = known is None or known.config().players > 2
    if table and isinstance(gain, dict) and isinstance(gain.get("gain"), int | float):
        # a table strategy (3+ players): a trained responder's win share over 1/n; at 2
        # players the same record's per-game return is an ordinary lower bound, read below
        ci = gain.get("ci95") or [float("nan"), float("nan")]
        return Quality(
            preset,
            label,
            None,
            text,
            (float(gain["gain"]), float(ci[0]), float(ci[1])),
            TABLE_RESPONDER,
        )
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        bound = float(raw)
    elif isinstance(raw, dict):
        up = _find(raw, ("exploitability_upper_bound", "upper_bound"))
        bound = up[0] if up else None
        strongest = strongest_lower_bound(raw)
        if strongest is not None:
            lower, by = strongest[:3], strongest[3]
    return Quality(preset, label, bound, text, lower, by)


def available_presets() -> list[str]:
    """The covered games that have a shipped strategy, in report order."""
    shipped = set(shipped_presets())
    return [p for p in COVERED if p in shipped]


def check_presets(requested: Sequence[str]) -> list[str]:
    """The presets to report: ``requested`` or every available one; ValueError naming the choice."""
    have = available_presets()
    if not requested:
        if not have:
            raise ValueError("no shipped strategy for any covered game yet")
        return have
    missing = [p for p in requested if p not in have]
    if missing:
        raise ValueError(
            f"no shipped strategy for {', '.join(missing)}; "
            f"available: {', '.join(have) or 'none yet'}"
        )
    return list(dict.fromkeys(requested))


def strategy_warning(qualities: Sequence[Quality]) -> str | None:
    """The warning that the strategies behind the numbers are weak, or None."""
    weak = [q for q in qualities if q.warn]
    if not weak:
        return None
    which = "; ".join(f"{q.preset}: {q.short}" for q in weak)
    tables = any(q.lower_by == TABLE_RESPONDER for q in weak)
    note = "; at 3 or more players no such bound exists, only what a trained responder gains"
    return (
        "Warning: weak strategies. Every number in this report describes how the shipped "
        "strategies play against themselves, not how the game plays between strong players: "
        f"{which} (no exploitability upper bound at or below {WEAK_BOUND}"
        f"{note if tables else ''}). Read each verdict as the behaviour of these bots."
    )


def comparisons(data: dict[str, LineupData], seed: int) -> list[Comparison]:
    """Ambassador against Inquisitor at each table size of :data:`PAIRS` (2 to 6 players)."""
    presets = load_presets()
    out = []
    for pair in PAIRS:
        missing = tuple(p for p in pair if p not in data)
        known = [data[p].players for p in pair if p in data]
        players = known[0] if known else presets[pair[0]].config().players
        metrics = None if missing else compare_balance(data[pair[0]], data[pair[1]], seed)
        out.append(Comparison(players, pair, metrics, missing))
    return out


def adjusted_comparisons(
    data: dict[str, LineupData], seed: int, family: int = 0
) -> list[Comparison]:
    """:func:`comparisons` with every p-value Holm-adjusted over the tests of ``data`` (over
    ``family`` tests when that is more)."""
    comps = comparisons(data, seed)
    adjusted = iter(adjust([c.metrics for c in comps if c.metrics is not None], family))
    return [
        Comparison(c.players, c.presets, next(adjusted), c.missing) if c.metrics else c
        for c in comps
    ]


def second_opinion_presets(chosen: Sequence[str]) -> dict[str, Path]:
    """The second strategy of each chosen preset whose line-up pair both have one."""
    out = {}
    for pair in PAIRS:
        folders = [second_opinion_dir(p) if p in chosen else None for p in pair]
        if all(f is not None for f in folders):
            out.update({p: f for p, f in zip(pair, folders, strict=True) if f is not None})
    return out


def build_balance_report(inputs: BalanceInputs) -> Report:
    """The balance report: the answer on page 1, then how sure, the measures and the detail."""
    return build_balance_reports(inputs)[0]


def build_balance_reports(inputs: BalanceInputs) -> tuple[Report, Report]:
    """The balance report and its appendix (every table, all rows in the CSV files)."""
    data = inputs.data
    method = _sampling(inputs)
    comps = adjusted_comparisons(data, inputs.seed)
    tests = count_tests(comps)
    seconds = {  # held to the same standard: corrected for as many tests as the shipped set
        c.players: c
        for c in adjusted_comparisons(inputs.second, inputs.seed, tests)
        if c.metrics is not None
    }
    front = answer_section(inputs, comps, tests, seconds)
    sections = [
        glossary_section(tests),
        sure_section(inputs, comps, tests, seconds),
        measures_section(comps, method),
        edge_section(data, method),
        characters_section(data, method),
        play_section(data, method),
        method_section(inputs),
    ]
    report = Report(
        "Complots balance report",
        [("Command", inputs.command)],
        [s for s in sections if s.paragraphs or s.tables or s.figures],
        front=front,
    )
    extra = appendix_sections(data, inputs.qualities, method, inputs.csv_tables)
    if seconds:
        family = max(tests, count_tests(seconds.values()))
        extra.insert(0, second_answer_section(inputs, list(seconds.values()), family))
    appendix = Report(
        "Complots balance report: appendix",
        [("Command", inputs.command), ("Sampling", method)],
        extra,
    )
    inputs.csv_tables += [t for s in (front, *sections) for t in s.tables]
    if seconds:
        inputs.csv_tables += extra[0].tables
    return report, appendix


def _sampling(inputs: BalanceInputs) -> str:
    """How the report's games were sampled: the table's method line."""
    data = inputs.data
    tables = {p: d for p, d in data.items() if d.players > 2}
    play = "solved in every seat" if tables else "solved vs solved"
    return (
        f"self-play of the shipped strategies ({play}), seed {inputs.seed}; "
        + ", ".join(f"{d.games:,} games of {p}" for p, d in data.items())
        + "; 95% intervals"
    )


def run_balance(
    presets: Sequence[str],
    games: int | dict[str, int],
    seed: int,
    workers: int,
    progress: Callable[[str, int, int | None], None] | None = None,
    folders: dict[str, Path] | None = None,
) -> dict[str, LineupData]:
    """Play and record ``games`` self-play games (per preset if a dict) of each shipped strategy
    (or of the strategy in ``folders[preset]``, with the same seed)."""
    out = {}
    all_presets = load_presets()
    label = "the second strategy of " if folders else ""
    for p in presets:
        n = games[p] if isinstance(games, dict) else games
        done = [0]

        def tick(k: int, p: str = p, done: list[int] = done, n: int = n) -> None:
            done[0] += k
            if progress is not None:
                progress(f"playing {label}{p}", done[0], n)

        if progress is not None:
            progress(f"playing {label}{p}", 0, n)
        spec = f"net:{folders[p]}" if folders and p in folders else SOLVED
        records = play_preset(p, n, seed, workers, tick, spec)
        out[p] = LineupData(p, all_presets[p].config(), records)
    return out


def write_balance(
    presets: Sequence[str],
    out: Path,
    formats: list[str],
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    workers: int = 1,
    command: str = "",
    progress: Callable[[str, int, int | None], None] | None = None,
    pair_games: int | None = None,
    second: bool = True,
) -> dict[str, Path]:
    """Play, measure and write the balance report of ``presets`` (see :func:`check_presets`).

    ``pair_games`` (default ``games``) is the number of games of draft-ambassador and
    draft-inquisitor, the 2-player comparison that needs the most. With ``second``, every
    line-up pair whose two games have a second strategy (:func:`second_opinion_presets`) is
    played again with those, the same number of games and seed, for the second opinion. Beside
    the report: ``<stem>-appendix.html`` (every table) and ``<stem>-tables/`` (CSV).
    """
    chosen = check_presets(presets)
    qualities = {p: strategy_quality(p) for p in chosen}  # before the long part
    folders = second_opinion_presets(chosen) if second else {}
    second_qualities = {p: strategy_quality(p, f) for p, f in folders.items()}
    start = time.perf_counter()
    counts = {p: pair_games if pair_games and p in PAIRS[0] else games for p in chosen}
    data = run_balance(chosen, counts, seed, workers, progress)
    second_data = run_balance(list(folders), counts, seed, workers, progress, folders)
    out = Path(out)
    inputs = BalanceInputs(
        data=data,
        qualities=qualities,
        games=games,
        seed=seed,
        command=command or f"complots balance --games {games} --seed {seed}",
        seconds=time.perf_counter() - start,
        workers=workers,
        stem=out.name,
        second=second_data,
        second_qualities=second_qualities,
    )
    report, appendix = build_balance_reports(inputs)
    paths = write_outputs(report, out, formats, progress)
    folder = out.parent / f"{out.name}-tables"
    for table in inputs.csv_tables:
        table.to_csv(folder)
    paths["csv"] = folder
    paths["appendix"] = write_html(appendix, out.parent / f"{out.name}-appendix.html")
    return paths
