"""scripts/evaluate_all.py: the statistics behind the seat-advantage tables."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.rules.simulate import wilson_interval
from complots_solver.solvers.mccfr.evaluate import play_games
from complots_solver.solvers.mccfr.solver import MCCFRSolver

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "evaluate_all.py"


def _load_script() -> ModuleType:
    """Import scripts/evaluate_all.py as a module."""
    spec = importlib.util.spec_from_file_location("evaluate_all", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EA = _load_script()


def _means(wins: list[int], draws: int) -> tuple[float, ...]:
    """Mean returns of games with these wins per seat and draws (D-10 utilities)."""
    n, games = len(wins), sum(wins) + draws
    sums = [0.0] * n
    for p in range(n):  # accumulate like the numba loop: one game at a time
        for q, w in enumerate(wins):
            for _ in range(w):
                sums[p] += 1.0 if p == q else -1.0 / (n - 1)
    return tuple(s / games for s in sums)


@pytest.mark.parametrize(
    ("wins", "draws"), [([7, 2], 1), ([300, 280, 250], 170), ([41, 0, 13, 29, 8, 77, 2], 30)]
)
def test_wins_from_returns_recovers_the_counts(wins: list[int], draws: int) -> None:
    """Whole win counts come back from the mean returns, with 2, 3 and 7 seats."""
    games = sum(wins) + draws
    assert EA.wins_from_returns(_means(wins, draws), draws / games, games) == wins


def test_wins_from_returns_rejects_inconsistent_means() -> None:
    """Means that are not those of whole games (or do not add up) raise."""
    with pytest.raises(ValueError):
        EA.wins_from_returns((0.123, -0.123), 0.0, 10)
    with pytest.raises(ValueError):
        EA.wins_from_returns((1.0, -1.0), 0.5, 10)  # 10 wins and 5 draws in 10 games


def test_wins_from_numba_self_play_add_up() -> None:
    """On a real sampled run the counts are whole, add up, and match seat 0's mean."""
    config, _ = resolve_game("ladder-2-ambassador")
    solver = MCCFRSolver(config, algorithm="os", key="markov", seed=0)
    solver.run(50)
    table = solver.policy_table()
    games = 3000
    stats = play_games(config, [table, table], games, seed=1)
    wins = EA.wins_from_returns(stats.mean, stats.capped_share, games)
    draws = games - sum(wins)
    assert draws == round(stats.capped_share * games) and 0 < draws < games
    assert (wins[0] - wins[1]) / games == pytest.approx(stats.mean[0], abs=1e-12)
    summary = EA.seat_summary(wins, draws, games)
    assert summary["utility0"][0] == pytest.approx(stats.mean[0], abs=1e-12)


def test_agreement_uses_the_interval_then_the_tolerance() -> None:
    """Inside the interval: yes; outside but within NashConv: within tolerance; else no."""
    assert EA.agreement(-0.01, 0.01, 0.0, 0.002) == "yes"
    assert EA.agreement(-0.01, 0.01, 0.011, 0.002) == "within tolerance"
    assert EA.agreement(-0.01, 0.01, -0.0115, 0.002) == "within tolerance"
    assert EA.agreement(-0.01, 0.01, 0.013, 0.002) == "no"
    assert EA.agreement(-0.01, 0.01, 0.011, 0.0) == "no"


def test_seat_summary_intervals() -> None:
    """Wilson intervals per seat and for draws; E[u0] only with 2 seats, widened if few wins."""
    two = EA.seat_summary([3, 1], 996, 1000)
    assert two["ci"][0] == list(wilson_interval(3, 1000))
    assert two["draw_ci"] == list(wilson_interval(996, 1000))
    u, lo, hi = two["utility0"]
    assert u == pytest.approx(0.002)
    assert hi - u >= wilson_interval(4, 1000)[1] - 1e-12  # fewer than 10 decisive games
    three = EA.seat_summary([10, 20, 30], 0, 60)
    assert "utility0" not in three and three["win_rate"] == pytest.approx([1 / 6, 1 / 3, 1 / 2])


def test_tables_list_skipped_runs_and_unsampled_rungs(tmp_path: Path) -> None:
    """A missing run is listed as skipped; an unsampled rung shows its exact value only."""
    meta = {
        "algorithm": "cfr+", "iterations": 350, "exploitability": 0.00096,
        "nash_conv": 0.0019, "game_value": 0.0218,
    }  # fmt: skip
    exact = {
        "rows": [
            {"preset": "ladder-5-ambassador", "strategy": "runs/ladder/ladder-5-ambassador",
             "meta": meta, "exact_value": 0.0218, "sampled": False},
        ],
        "skipped": [{"preset": "ladder-4-inquisitor", "reason": "no strategy in x"}],
    }  # fmt: skip
    keyed = {"rows": [], "skipped": [{"preset": "complots-8", "reason": "no strategy in y"}]}
    text = EA.markdown({"exact": exact, "keyed": keyed})
    assert "| ladder-5-ambassador |" in text and "not sampled" in text and "exact only" in text
    assert "skipped ladder-4-inquisitor (no strategy in x)" in text
    assert "skipped complots-8 (no strategy in y)" in text
    # parts missing from the results are simply absent
    assert "counter" not in text and "against the baselines" not in text


def test_keyed_part_skips_missing_runs(tmp_path: Path) -> None:
    """With no runs at all the keyed part skips every preset and plays nothing."""
    args = EA.parse_args(
        ["--draft-runs", str(tmp_path), "--three-runs", str(tmp_path), "--preset-runs",
         str(tmp_path)]
    )  # fmt: skip
    result = EA.part_keyed(args, tmp_path)
    assert result["rows"] == []
    assert len(result["skipped"]) == 4 + len(EA.MULTI_PRESETS)
    json.dumps(result)  # the part file is plain JSON


def test_trend_rows_gain_the_snapshot_miss_share(tmp_path: Path) -> None:
    """read_trend adds each snapshot's worst self-play miss share; no trend file -> None."""
    assert EA.read_trend(tmp_path) is None
    row = {
        "snapshot": "snapshot-300s", "solve_seconds": 300.0, "iterations": 10, "infostates": 5,
        "bound": 0.5, "ci95_low": 0.4, "ci95_high": 0.6, "responder_iterations": 100,
    }  # fmt: skip
    (tmp_path / "trend.json").write_text(json.dumps([row, {**row, "snapshot": "snapshot-600s"}]))
    (tmp_path / "snapshot-300s").mkdir()
    meta = {"self_play": {"miss_share": [0.01, 0.03]}}
    (tmp_path / "snapshot-300s" / "meta.json").write_text(json.dumps(meta))
    trend = EA.read_trend(tmp_path)
    assert [r["miss_share"] for r in trend] == [0.03, None]
    entry = {
        "preset": "draft-ambassador", "players": 2, "strategy": "runs/long/draft-ambassador",
        "meta": {}, "games": 10, "win_rate": [0.5, 0.5], "ci": [[0.2, 0.8], [0.2, 0.8]],
        "draw_rate": 0.0, "utility0": [0.0, -0.6, 0.6], "miss_share": [0.02, 0.02],
        "trend": trend,
    }  # fmt: skip
    text = "\n".join(EA.markdown_keyed({"rows": [entry]}))
    assert "| snapshot-300s | 300 | 10 | 5 | 0.500 [0.400, 0.600] | 100 | 3.0% |" in text
    assert "| snapshot-600s |" in text and "| 2.0% |" in text


def test_checkpoint_policy_plays_like_the_strategy_file(tmp_path: Path) -> None:
    """A run's last checkpoint gives the table of its strategy file: same self-play games."""
    from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings
    from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

    config, preset = resolve_game("ladder-2-inquisitor")
    settings = MCCFRSettings(algorithm="os", key="markov", iterations=300, averaging="linear")
    MCCFRRun(tmp_path / "run", config, settings, preset=preset).run()
    policy = KeyedPolicy.load(tmp_path / "run")
    got_config, table, meta = EA.checkpoint_policy(tmp_path / "run")
    assert got_config == config and meta["iterations"] == 300
    assert meta["information_states"] == policy.table.num_rows
    games = 2000
    want = play_games(config, [policy.table] * 2, games, seed=3)
    got = play_games(config, [table] * 2, games, seed=3)
    assert got == want and 0 < got.miss_share[0] < 1
    assert "from its last checkpoint.npz" in EA.strategy_cell(meta)


def test_merge_part_replaces_only_the_presets_it_touched() -> None:
    """Re-running a part on some presets keeps the others' rows; a new skip drops an old row."""
    old = {
        "rows": [{"preset": "ladder-1-ambassador", "v": 1}, {"preset": "ladder-2-ambassador", "v": 1},
                 {"preset": "complots-7", "v": 1}],
        "skipped": [{"preset": "ladder-5-ambassador", "reason": "old"}],
        "command": "first", "seconds": 10.0,
    }  # fmt: skip
    new = {
        "rows": [{"preset": "ladder-5-ambassador", "v": 2}, {"preset": "ladder-1-ambassador", "v": 2}],
        "skipped": [{"preset": "complots-7", "reason": "gone"}],
        "command": "second", "seconds": 5.0,
    }  # fmt: skip
    merged = EA.merge_part(old, new)
    assert [(r["preset"], r["v"]) for r in merged["rows"]] == [
        ("ladder-1-ambassador", 2), ("ladder-2-ambassador", 1), ("ladder-5-ambassador", 2),
    ]  # fmt: skip
    assert merged["skipped"] == [{"preset": "complots-7", "reason": "gone"}]
    assert [r["command"] for r in merged["runs"]] == ["first", "second"]


def test_percentages_keep_small_rates_readable() -> None:
    """Rates under 1% get more decimals, so 1-in-10,000 events do not print as 0.0%."""
    assert EA.pct(0.25) == "25.0%" and EA.pct(0.0) == "0.0%"
    assert EA.pct(0.0042) == "0.42%" and EA.pct(0.00012) == "0.012%"
    assert EA.ci((0.0001, 0.0003)) == "[0.010, 0.030]"
    assert EA.ci((0.2, 0.3)) == "[20.0, 30.0]"
