"""The evaluation behind the seat-advantage tables (scripts/evaluate_all.py's package logic)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from complots_solver.lab.play import evaluation as EV
from complots_solver.lab.policies import measure, runs
from complots_solver.lab.reports import evaluation_tables as TABLES
from complots_solver.rules import stats as rules_stats
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.stats import wilson_interval
from complots_solver.solvers.mccfr.evaluate import play_games
from complots_solver.solvers.mccfr.solver import MCCFRSolver

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "evaluate_all.py"


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
    assert rules_stats.wins_from_returns(_means(wins, draws), draws / games, games) == wins


def test_wins_from_returns_rejects_inconsistent_means() -> None:
    """Means that are not those of whole games (or do not add up) raise."""
    with pytest.raises(ValueError):
        rules_stats.wins_from_returns((0.123, -0.123), 0.0, 10)
    with pytest.raises(ValueError):
        rules_stats.wins_from_returns((1.0, -1.0), 0.5, 10)  # 10 wins and 5 draws in 10 games


def test_wins_from_numba_self_play_add_up() -> None:
    """On a real sampled run the counts are whole, add up, and match seat 0's mean."""
    config, _ = resolve_game("ladder-2-ambassador")
    solver = MCCFRSolver(config, algorithm="os", key="markov", seed=0)
    solver.run(50)
    table = solver.policy_table()
    games = 600
    stats = play_games(config, [table, table], games, seed=1)
    wins = rules_stats.wins_from_returns(stats.mean, stats.capped_share, games)
    draws = games - sum(wins)
    assert draws == round(stats.capped_share * games) and 0 < draws < games
    assert (wins[0] - wins[1]) / games == pytest.approx(stats.mean[0], abs=1e-12)
    summary = rules_stats.seat_summary(wins, draws, games)
    assert summary["utility0"][0] == pytest.approx(stats.mean[0], abs=1e-12)


def test_agreement_uses_the_interval_then_the_tolerance() -> None:
    """Inside the interval: yes; outside but within NashConv: within tolerance; else no."""
    assert rules_stats.agreement(-0.01, 0.01, 0.0, 0.002) == "yes"
    assert rules_stats.agreement(-0.01, 0.01, 0.011, 0.002) == "within tolerance"
    assert rules_stats.agreement(-0.01, 0.01, -0.0115, 0.002) == "within tolerance"
    assert rules_stats.agreement(-0.01, 0.01, 0.013, 0.002) == "no"
    assert rules_stats.agreement(-0.01, 0.01, 0.011, 0.0) == "no"


def test_seat_summary_intervals() -> None:
    """Wilson intervals per seat and for draws; E[u0] only with 2 seats, widened if few wins."""
    two = rules_stats.seat_summary([3, 1], 996, 1000)
    assert two["ci"][0] == list(wilson_interval(3, 1000))
    assert two["draw_ci"] == list(wilson_interval(996, 1000))
    u, lo, hi = two["utility0"]
    assert u == pytest.approx(0.002)
    assert hi - u >= wilson_interval(4, 1000)[1] - 1e-12  # fewer than 10 decisive games
    three = rules_stats.seat_summary([10, 20, 30], 0, 60)
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
    text = TABLES.markdown({"exact": exact, "keyed": keyed})
    assert "| ladder-5-ambassador |" in text and "not sampled" in text and "exact only" in text
    assert "skipped ladder-4-inquisitor (no strategy in x)" in text
    assert "skipped complots-8 (no strategy in y)" in text
    # parts missing from the results are simply absent
    assert "counter" not in text and "against the baselines" not in text


def test_keyed_part_skips_missing_runs(tmp_path: Path) -> None:
    """With no runs at all the keyed part skips every preset and plays nothing."""
    options = EV.EvaluationOptions(root=tmp_path, draft_runs="a", three_runs="b", preset_runs="c")
    result = EV.part_keyed(options)
    assert result["rows"] == []
    assert len(result["skipped"]) == 4 + len(EV.MULTI_PRESETS)
    assert all(s["reason"].startswith("no run at ") for s in result["skipped"])
    json.dumps(result)  # the part file is plain JSON


def test_trend_rows_gain_the_snapshot_miss_share(tmp_path: Path) -> None:
    """read_trend adds each snapshot's worst self-play miss share; no trend file -> None."""
    assert measure.read_trend(tmp_path) is None
    row = {
        "snapshot": "snapshot-300s", "solve_seconds": 300.0, "iterations": 10, "infostates": 5,
        "bound": 0.5, "ci95_low": 0.4, "ci95_high": 0.6, "responder_iterations": 100,
    }  # fmt: skip
    (tmp_path / "trend.json").write_text(json.dumps([row, {**row, "snapshot": "snapshot-600s"}]))
    (tmp_path / "snapshot-300s").mkdir()
    meta = {"self_play": {"miss_share": [0.01, 0.03]}}
    (tmp_path / "snapshot-300s" / "meta.json").write_text(json.dumps(meta))
    trend = measure.read_trend(tmp_path)
    assert [r["miss_share"] for r in trend] == [0.03, None]
    entry = {
        "preset": "draft-ambassador", "players": 2, "strategy": "runs/long/draft-ambassador",
        "meta": {}, "games": 10, "win_rate": [0.5, 0.5], "ci": [[0.2, 0.8], [0.2, 0.8]],
        "draw_rate": 0.0, "utility0": [0.0, -0.6, 0.6], "miss_share": [0.02, 0.02],
        "trend": trend,
    }  # fmt: skip
    text = "\n".join(TABLES.markdown_keyed({"rows": [entry]}))
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
    got_config, table, meta = runs.checkpoint_policy(tmp_path / "run")
    assert got_config == config and meta["iterations"] == 300
    assert meta["information_states"] == policy.table.num_rows
    games = 2000
    want = play_games(config, [policy.table] * 2, games, seed=3)
    got = play_games(config, [table] * 2, games, seed=3)
    assert got == want and 0 < got.miss_share[0] < 1
    assert "from its last checkpoint.npz" in TABLES.strategy_cell(meta)


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
    merged = EV.merge_part(old, new)
    assert [(r["preset"], r["v"]) for r in merged["rows"]] == [
        ("ladder-1-ambassador", 2), ("ladder-2-ambassador", 1), ("ladder-5-ambassador", 2),
    ]  # fmt: skip
    assert merged["skipped"] == [{"preset": "complots-7", "reason": "gone"}]
    assert [r["command"] for r in merged["runs"]] == ["first", "second"]


def test_percentages_keep_small_rates_readable() -> None:
    """Rates under 1% get more decimals, so 1-in-10,000 events do not print as 0.0%."""
    assert TABLES.pct(0.25) == "25.0%" and TABLES.pct(0.0) == "0.0%"
    assert TABLES.pct(0.0042) == "0.42%" and TABLES.pct(0.00012) == "0.012%"
    assert TABLES.ci((0.0001, 0.0003)) == "[0.010, 0.030]"
    assert TABLES.ci((0.2, 0.3)) == "[20.0, 30.0]"


def test_records_read_back_as_written(tmp_path: Path) -> None:
    """read_records inverts TournamentResult.write_csv, seats and table counts included."""
    from complots_solver.play.tournament import GameRecord, TournamentResult, read_records

    config, _ = resolve_game("ladder-1-ambassador")
    records = [
        GameRecord(0, 0, ("policy:x", "honest"), 1, 7, (5, 0), (2, 0)),
        GameRecord(0, 1, ("policy:x", "honest"), -1, 9, (4, 0), (0, 0)),
        GameRecord(1, 0, ("honest", "policy:x"), 1, 3, (0, 6), (0, 1)),
    ]
    seatings = [("policy:x", "honest"), ("honest", "policy:x")]
    result = TournamentResult(config, ["policy:x", "honest"], seatings, 2, 0, records)
    result.write_csv(tmp_path / "games.csv")
    assert read_records(tmp_path / "games.csv") == records
    (tmp_path / "empty.csv").write_text("seating,game,seat0,seat1,winner_seat\n")
    with pytest.raises(ValueError, match="no games"):
        read_records(tmp_path / "empty.csv")


def test_baseline_rows_count_each_meeting() -> None:
    """Wins, losses, draws and seat splits of a strategy against each baseline; its misses."""
    from complots_solver.play.tournament import GameRecord

    p = "policy:x"
    records = [
        GameRecord(0, 0, (p, "random"), 0, 5, (4, 0), (1, 0)),  # strategy wins as seat 0
        GameRecord(0, 1, (p, "random"), 1, 5, (6, 0), (0, 0)),  # loses
        GameRecord(1, 0, ("random", p), 1, 5, (0, 3), (0, 3)),  # wins as seat 1
        GameRecord(1, 1, ("random", p), -1, 5, (0, 2), (0, 0)),  # draw
        GameRecord(2, 0, (p, "honest"), 0, 5, (1, 0), (0, 0)),
    ]
    rows = {r["opponent"]: r for r in EV.baseline_rows(records, p)}
    random = rows["random"]
    assert (random["games"], random["wins"], random["losses"], random["draws"]) == (4, 2, 1, 1)
    assert random["by_seat"][0][:2] == (1, 2) and random["by_seat"][1][:2] == (1, 2)
    assert random["ci"] == list(wilson_interval(2, 4))
    assert random["lookups_misses"] == (15, 4)
    assert rows["honest"]["wins"] == 1 and rows["honest"]["games"] == 1
    assert set(rows) == {"random", "honest"}  # baselines never met get no row
    assert EV.policy_misses(records, p) == (16, 4)


def test_combined_bound_adds_the_seats_errors_in_quadrature() -> None:
    """Half the sum of the seats' values; the half-width is 1.96 * sqrt(e0^2 + e1^2) / 2."""
    bound, low, high = rules_stats.combined_bound([0.1, 0.3], [0.03, 0.04])
    assert bound == pytest.approx(0.2)
    assert high - bound == pytest.approx(1.959963984540054 * 0.05 / 2)
    assert bound - low == pytest.approx(high - bound)


def test_snapshots_sort_by_seconds_and_trend_round_trips(tmp_path: Path) -> None:
    """Snapshots order numerically; a written trend reads back with each snapshot's miss share."""
    for name in ("snapshot-1200s", "snapshot-300s", "snapshot-600s", "snapshot-900s"):
        (tmp_path / name).mkdir()
        if name != "snapshot-900s":  # no strategy: not a snapshot
            (tmp_path / name / "strategy.npz").write_bytes(b"")
    found = measure.snapshots(tmp_path)
    assert [p.name for p in found] == ["snapshot-300s", "snapshot-600s", "snapshot-1200s"]
    with pytest.raises(ValueError, match="path must name a snapshot"):
        measure.snapshot_seconds(tmp_path / "other")
    bound = {"lower_bound": 0.4, "ci95": [0.3, 0.5], "train_iterations": [100, 100],
             "games_per_seat": 50}  # fmt: skip
    meta = {"wall_time_seconds": 301.0, "iterations": 9, "information_states": {"total": 4},
            "exploitability_bound": bound,
            "self_play": {"turn_cap_share": 0.1, "miss_share": [0.2, 0.25]}}  # fmt: skip
    assert measure.has_bound(meta, 100, 50) and not measure.has_bound(meta, 100, 60)
    assert not measure.has_bound({}, 100, 50)
    (found[0] / "meta.json").write_text(json.dumps(meta))
    row = measure.trend_row(found[0], meta, 100, 50)
    assert (row["snapshot"], row["bound"], row["ci95_high"], row["infostates"]) == (
        "snapshot-300s", 0.4, 0.5, 4,
    )  # fmt: skip
    measure.write_trend(tmp_path, [row])
    assert (tmp_path / "trend.csv").read_text().splitlines()[0].startswith("snapshot,solve_seconds")
    assert measure.read_trend(tmp_path) == [{**row, "miss_share": 0.25}]
    with pytest.raises(ValueError, match="rows"):
        measure.write_trend(tmp_path, [])


def test_bound_into_meta_writes_the_measurement(tmp_path: Path) -> None:
    """The bound and self-play shares land in meta.json, with the budget asked for."""
    from complots_solver.solvers.mccfr.run import MCCFRRun, MCCFRSettings

    config, preset = resolve_game("ladder-1-ambassador")
    settings = MCCFRSettings(algorithm="os", key="markov", iterations=200)
    MCCFRRun(tmp_path / "run", config, settings, preset=preset).run()
    result = measure.bound_into_meta(
        tmp_path / "run", 300, train_iterations=200, self_play_games=500
    )
    meta = json.loads((tmp_path / "run" / "meta.json").read_text())
    assert meta["exploitability_bound"]["train_iterations"] == [200, 200]
    assert meta["exploitability_bound"]["games_per_seat"] == 300
    assert meta["self_play"]["games"] == 500 and meta["self_play"] == result["self_play"]
    assert measure.has_bound(meta, 200, 300)
    lo, hi = meta["exploitability_bound"]["ci95"]
    assert lo <= meta["exploitability_bound"]["lower_bound"] <= hi
    assert runs.solved_seconds(tmp_path / "run") == meta["wall_time_seconds"] > 0
    assert runs.solved_seconds(tmp_path) == 0.0


def test_run_settings_refuse_another_family(tmp_path: Path) -> None:
    """A config.json of another solver family is not read as a Monte Carlo CFR run."""
    (tmp_path / "config.json").write_text(json.dumps({"game": "ladder-1-ambassador",
                                                      "solver": {"kind": "cfr"}}))  # fmt: skip
    with pytest.raises(ValueError, match="not a Monte Carlo CFR run"):
        runs.run_settings(tmp_path)


def test_script_checks_its_parts_and_assembles_nothing(tmp_path: Path) -> None:
    """The thin script: an unknown part exits with its name; 'none' writes empty results."""
    bad = subprocess.run(
        [sys.executable, str(SCRIPT), "--parts", "bogus", "--out", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode != 0 and "unknown parts ['bogus']" in bad.stderr
    subprocess.run(
        [sys.executable, str(SCRIPT), "--parts", "none", "--out", str(tmp_path)], check=True
    )
    assert json.loads((tmp_path / "results.json").read_text()) == {}
