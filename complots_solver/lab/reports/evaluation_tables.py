"""The evaluation tables of ``reports/evaluation.md`` as markdown, from the parts' JSON rows.

The rows come from :mod:`complots_solver.lab.play.evaluation`; every rate is
shown with its 95% interval (Wilson for win rates, normal for E[u0]).
"""

from __future__ import annotations

from typing import Any

TABLE_ORDER = ("versus", "exact", "keyed", "counter")


def decimals(x: float) -> int:
    """Decimals of a percentage: one, or more for rates under 1% (down to 0.001%)."""
    return 1 if x >= 0.01 or x <= 0 else 2 if x >= 0.001 else 3


def pct(x: float) -> str:
    """A rate as a percentage (one decimal, more below 1%)."""
    return f"{100 * x:.{decimals(x)}f}%"


def ci(pair: list[float] | tuple[float, float]) -> str:
    """A rate interval as percentages (decimals set by the upper end)."""
    d = decimals(pair[1])
    return f"[{100 * pair[0]:.{d}f}, {100 * pair[1]:.{d}f}]"


def seats_cell(e: dict) -> str:
    """Every seat's win rate with its interval, in one table cell."""
    return "; ".join(
        f"{s}: {pct(r)} {ci(c)}"
        for s, (r, c) in enumerate(zip(e["win_rate"], e["ci"], strict=True))
    )


def utility_cell(e: dict) -> str:
    """Seat 0's sampled expected utility with its interval."""
    u, lo, hi = e["utility0"]
    return f"{u:+.4f} [{lo:+.4f}, {hi:+.4f}]"


def misses_cell(shares: list[float]) -> str:
    """Per-seat miss shares: one figure if equal to 0.1 point, else the range."""
    lo, hi = min(shares), max(shares)
    return pct(hi) if hi - lo < 0.001 else f"{pct(lo)}-{pct(hi)}"


def strategy_cell(meta: dict) -> str:
    """Solver, iterations, information states and solving time of a keyed strategy."""
    params = meta.get("parameters") or {}
    extra = ", ".join(
        f"{k} {params[k]}" for k in ("averaging", "epsilon") if params.get(k) is not None
    )
    states = meta.get("information_states")
    source = " (from its last checkpoint.npz: no strategy file)" if meta.get("source") else ""
    return (
        f"{meta.get('algorithm')} ({meta.get('key_scheme')} key{', ' + extra if extra else ''}), "
        f"{meta.get('iterations') or 0:,} it., "
        f"{states or 0:,} info states, {meta.get('wall_time_seconds') or 0:.0f} s{source}"
    )


def skipped_lines(part: dict, what: str) -> list[str]:
    """A line per skipped preset of a part."""
    return [f"* {what}: skipped {s['preset']} ({s['reason']})." for s in part.get("skipped", [])]


def markdown_versus(part: dict) -> list[str]:
    """Tables of the draft strategies against the baselines."""
    lines: list[str] = []
    for v in part["rows"]:
        look, miss = v["lookups_misses"]
        lines += [
            f"### {v['preset']}: `{v['strategy']}` against the baselines",
            "",
            f"Strategy: {strategy_cell(v['meta'])}.",
            "",
            f"`{v['command']}` ({v['seconds']:.0f} s)",
            "",
            f"The strategy's decisions at information states its table lacks (played "
            f"uniformly): {miss:,} of {look:,} ({pct(miss / look if look else 0.0)}).",
            "",
            "| opponent | games | strategy wins | opponent wins | draws | "
            "strategy win rate [95% CI] | as seat 0 | as seat 1 | table misses |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |",
        ]
        for r in v["rows"]:
            seat = {
                int(s): f"{pct(w / n)} {ci((lo, hi))}" for s, (w, n, lo, hi) in r["by_seat"].items()
            }
            rl, rm = r["lookups_misses"]
            lines.append(
                f"| {r['opponent']} | {r['games']:,} | {r['wins']:,} | {r['losses']:,} | "
                f"{r['draws']:,} | {pct(r['win_rate'])} {ci(r['ci'])} | {seat[0]} | {seat[1]} | "
                f"{pct(rm / rl if rl else 0.0)} |"
            )
        lines += [
            "",
            "Bradley-Terry ratings (Elo scale) from all games of the round robin:",
            "",
            "| bot | rating | overall win rate [95% CI] |",
            "| --- | ---: | --- |",
        ]
        for s in sorted(v["standings"], key=lambda s: -s["bt_rating"]):
            lines.append(
                f"| {s['bot']} | {s['bt_rating']:+.0f} | "
                f"{pct(s['win_rate'])} {ci((s['ci_low'], s['ci_high']))} |"
            )
        lines.append("")
    return lines + skipped_lines(part, "versus baselines") + [""]


def markdown_exact(part: dict) -> list[str]:
    """The exact ladder table: sampled self-play against the exact value."""
    lines = [
        "### Exact ladder: self-play of the solved strategy against the exact value",
        "",
        "| preset | strategy | games | seat 0 wins [95% CI] | seat 1 wins [95% CI] | draws | "
        "sampled E[u0] [95% CI] | value of this profile | exact game value (seat 0; seat 1: "
        "its negative) | agrees with the game value (with the profile value) |",
        "| --- | --- | ---: | --- | --- | ---: | --- | ---: | ---: | --- |",
    ]
    for e in part["rows"]:
        m = e["meta"]
        strat = (
            f"`{e['strategy']}`: {m['algorithm']} {m['iterations']} it., "
            f"expl. {m['exploitability']:.5f}"
        )
        head = f"| {e['preset']} | {strat} |"
        tail = f"{m['game_value']:+.4f} | {e['exact_value']:+.4f} |"
        if not e["sampled"]:
            lines.append(f"{head} not sampled | | | | | {tail} exact only |")
            continue
        agree = e["agrees"] if e["agrees"] == "yes" else f"**{e['agrees']}**"
        agree += f" (profile value: {e['agrees_profile']})"
        lines.append(
            f"{head} {e['games']:,} | {pct(e['win_rate'][0])} {ci(e['ci'][0])} | "
            f"{pct(e['win_rate'][1])} {ci(e['ci'][1])} | {pct(e['draw_rate'])} | "
            f"{utility_cell(e)} | {tail} {agree} |"
        )
    return lines + [""] + skipped_lines(part, "exact ladder") + [""]


def markdown_keyed(part: dict) -> list[str]:
    """The keyed MCCFR self-play table, and the draft runs' bound trends."""
    lines = [
        "### MCCFR strategies: self-play by seat",
        "",
        "| preset | players | strategy | games | win rate by seat [95% CI] | draws | "
        "sampled E[u0] [95% CI] | table misses (by seat) |",
        "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |",
    ]
    for e in part["rows"]:
        util = utility_cell(e) if "utility0" in e else "-"
        lines.append(
            f"| {e['preset']} | {e['players']} | `{e['strategy']}`: {strategy_cell(e['meta'])} | "
            f"{e['games']:,} | {seats_cell(e)} | {pct(e['draw_rate'])} | {util} | "
            f"{misses_cell(e['miss_share'])} |"
        )
    lines += [""] + skipped_lines(part, "MCCFR self-play") + [""]
    for e in part["rows"]:
        if not e.get("trend"):
            continue
        lines += [
            f"Bound trend of `{e['strategy']}` (`trend.json`: sampled best-response lower "
            "bound on exploitability, responder trained a fixed number of iterations):",
            "",
            "| snapshot | solving s | iterations | info states | bound [95% CI] | "
            "responder iterations | self-play table misses |",
            "| --- | ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        for t in e["trend"]:
            miss = "-" if t.get("miss_share") is None else pct(t["miss_share"])
            lines.append(
                f"| {t['snapshot']} | {t['solve_seconds']:.0f} | {t['iterations']:,} | "
                f"{t['infostates']:,} | {t['bound']:.3f} [{t['ci95_low']:.3f}, "
                f"{t['ci95_high']:.3f}] | {t['responder_iterations']:,} | {miss} |"
            )
        lines.append("")
    return lines


def markdown_counter(part: dict) -> list[str]:
    """The ``counter`` self-play table."""
    lines = [
        "### Every preset: self-play of the `counter` bot, win rate by seat",
        "",
        "| preset | players | games | win rate by seat [95% CI] | draws (turn cap) |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for e in part["rows"]:
        lines.append(
            f"| {e['preset']} | {e['players']} | {e['games']:,} | {seats_cell(e)} | "
            f"{pct(e['draw_rate'])} |"
        )
    return lines + [""]


def markdown(results: dict[str, Any]) -> str:
    """The tables of reports/evaluation.md, from whichever parts are present."""
    lines: list[str] = []
    render = {
        "versus": markdown_versus,
        "exact": markdown_exact,
        "keyed": markdown_keyed,
        "counter": markdown_counter,
    }
    for name in TABLE_ORDER:
        if name in results:
            lines += render[name](results[name])
    return "\n".join(lines)
