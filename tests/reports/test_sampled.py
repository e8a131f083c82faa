"""The sampled browser over keyed (MCCFR) strategies, its tables, reports and CLI."""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from complots_solver.browse import (
    CI_COLUMNS,
    SampledBrowser,
    StrategyBrowser,
    load_run,
)
from complots_solver.browse.exact import profile_quantities
from complots_solver.cli.main import main
from complots_solver.reports.compare import build_comparison
from complots_solver.reports.document import build_report
from complots_solver.reports.html import render_html
from complots_solver.reports.pdf import write_pdf
from complots_solver.reports.tables import SAMPLED, all_tables
from complots_solver.rules.presets import load_presets
from complots_solver.solvers.common.strategy_file import keyed_strategy, save_keyed_strategy
from complots_solver.solvers.exact.best_response import game_value
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.mccfr.infokeys import KEY_SCHEME_VERSION
from complots_solver.solvers.mccfr.solver import MCCFRSolver

TRAIN = 3000  # ES iterations on ladder-1 (perfect key): a non-uniform strategy in ~1 s
GAMES = 4000
VALUE_GAMES = 20000  # ladder-1 ends in a draw ~95% of the time: values need more games
SEED = 5
LINEUPS = ("ambassador", "inquisitor")
DESCRIPTIVE = [
    "seat", "stage", "turn", "actor", "hand", "start_hand", "coins0", "coins1", "face_up0",
    "face_up1", "face_down0", "face_down1", "pending_action", "claim", "target", "challenger",
    "counter", "counterer", "examined", "draft_card", "drawn", "own_turns", "treasury",
    "num_actions",
]  # fmt: skip


def _keyed_run(root: Path, preset: str, seed: int) -> Path:
    """Train perfect-key ES MCCFR on ``preset`` and save it as a keyed run directory."""
    config = load_presets()[preset].config()
    solver = MCCFRSolver(config, algorithm="es", key="perfect", seed=seed)
    solver.run(TRAIN)
    meta = {
        "game": config.game_string(),
        "preset": preset,
        "algorithm": "es-mccfr",
        "iterations": solver.iteration,
        "key_scheme": {"name": "perfect", "version": KEY_SCHEME_VERSION},
        "information_states": {"total": solver.num_infostates},
        "exploitability": None,
        "exploitability_bound": None,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    out = root / f"keyed-{preset}"
    save_keyed_strategy(out, keyed_strategy(solver.average_table(), meta))
    return out


@pytest.fixture(scope="module")
def keyed_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Keyed runs of ladder-1 with each line-up."""
    root = tmp_path_factory.mktemp("keyed")
    return {lineup: _keyed_run(root, f"ladder-1-{lineup}", 11) for lineup in LINEUPS}


@pytest.fixture(scope="module")
def sampled(keyed_runs: dict[str, Path]) -> dict[str, SampledBrowser]:
    """A sampled browser over each keyed run."""
    return {k: SampledBrowser(p, games=GAMES, seed=SEED) for k, p in keyed_runs.items()}


def test_load_run_picks_the_browser(keyed_runs: dict, runs: dict) -> None:
    """load_run gives a sampled browser for keyed files, an exact one for tree files."""
    b = load_run(keyed_runs["ambassador"], games=50, seed=1)
    assert isinstance(b, SampledBrowser) and not b.exact and b.games == 50
    rows = b.policy.table.num_rows
    b.release_policy()
    assert b.policy is None and b.describe_run()["infosets"] == rows
    assert b.aggregate(["seat"], stage="ACTION")["visits"].sum() > 0
    assert type(load_run(runs["ambassador"])) is StrategyBrowser
    with pytest.raises(ValueError, match="keyed by hashed"):
        StrategyBrowser(keyed_runs["ambassador"])
    with pytest.raises(ValueError, match="games"):
        SampledBrowser(keyed_runs["ambassador"], games=0)
    with pytest.raises(ValueError, match="seed"):
        SampledBrowser(keyed_runs["ambassador"], games=10, seed=-1)


@pytest.mark.parametrize("lineup", LINEUPS)
def test_distributions_are_the_strategy_file(sampled: dict, lineup: str) -> None:
    """Each situation's distribution sums to 1 and is the file's row for its key."""
    b: SampledBrowser = sampled[lineup]
    sums = b.actions.groupby("infoset")["probability"].sum()
    assert sums.to_numpy() == pytest.approx(1.0, abs=1e-9)
    assert b.situations["in_table"].mean() > 0.9
    rng = np.random.default_rng(0)
    checked = 0
    for i in rng.choice(len(b.situations), size=min(300, len(b.situations)), replace=False):
        row = b.policy.table.row_of(int(b.situations["key"].iat[int(i)]))
        got = b.actions[b.actions["infoset"] == i].set_index("action")["probability"].to_dict()
        if row < 0:
            assert got == pytest.approx({a: 1.0 / len(got) for a in got})
            continue
        assert got == pytest.approx(b.policy.row_probabilities(row), abs=0)
        checked += 1
    assert checked > 100
    # every record's played distribution is its situation's
    smp = b.samples
    for r in rng.choice(smp.count, size=200, replace=False):
        sit = int(b.record_situation[r])
        want = b.actions[b.actions["infoset"] == sit].set_index("action")["probability"]
        assert smp.probabilities(int(r)) == pytest.approx(want.to_dict(), abs=0)


@pytest.mark.parametrize("lineup", LINEUPS)
def test_situations_are_ones_the_exact_browser_knows(
    sampled: dict, browsers: dict, lineup: str
) -> None:
    """Every sampled situation's description is one of the exact tree's decoded infosets."""
    b, exact = sampled[lineup], browsers[lineup]

    def rows(frame: pd.DataFrame) -> set[tuple]:
        return set(frame[DESCRIPTIVE].astype(str).itertuples(index=False, name=None))

    seen, known = rows(b.situations), rows(exact.situations)
    assert len(seen) > 50
    assert seen <= known


@pytest.mark.parametrize("lineup", LINEUPS)
def test_sampled_values_agree_with_the_exact_values_of_the_same_strategy(
    keyed_runs: dict, lineup: str
) -> None:
    """Game value and turn-cap share lie within their 95% CI of the keyed strategy's exact ones."""
    b = SampledBrowser(keyed_runs[lineup], games=VALUE_GAMES, seed=SEED)
    tree = compile_complots_tree(b.config, validate=False)
    strategy, found, _ = b.policy.tree_strategy(tree)
    assert found > 0
    exact = game_value(tree, strategy)
    (v0, v1), (c0, _) = b.game_value(), b.game_value_ci()
    assert v0 == pytest.approx(-v1) and c0 > 0
    assert abs(v0 - exact) <= c0, (v0, c0, exact)
    q = profile_quantities(tree, strategy)
    assert abs(b.turn_cap_share() - q.turn_cap_share) <= b.turn_cap_ci()
    # seat 0's first turn: one visit per game, so reach sums to 1 exactly
    first = b.aggregate(["hand"], stage="ACTION", own_turns=0, seat=0)
    assert first["reach"].sum() == pytest.approx(1.0)
    assert first["visits"].sum() == VALUE_GAMES
    assert (first["value ±95%"] > 0).all()


def test_aggregate_is_the_visit_weighted_mean(sampled: dict) -> None:
    """aggregate(): visit-weighted probabilities and values, game-clustered CIs."""
    b: SampledBrowser = sampled["inquisitor"]
    agg = b.aggregate(["hand"], stage="CHALLENGE", seat=1)
    rows = b.find(stage="CHALLENGE", seat=1)
    for _, row in agg.iterrows():
        sub = rows[rows["hand"] == row["hand"]]
        w = sub["visits"].to_numpy()
        chal = [b.distribution(int(i)).get("Challenge", 0.0) for i in sub["infoset"]]
        assert row["Challenge"] == pytest.approx((w * np.array(chal)).sum() / w.sum())
        assert row["value"] == pytest.approx((w * sub["value"]).sum() / w.sum())
        assert row["reach"] == pytest.approx(w.sum() / GAMES)
        assert row["visits"] == w.sum()
    assert set(CI_COLUMNS) <= set(agg.columns)
    assert (agg["reach ±95%"] > 0).all() and (agg["prob ±95%"] >= 0).all()


def test_same_seed_same_sample(keyed_runs: dict, sampled: dict) -> None:
    """A seed fixes every number; another seed gives another sample."""
    again = SampledBrowser(keyed_runs["ambassador"], games=GAMES, seed=SEED)
    first = sampled["ambassador"]
    assert np.array_equal(again.samples.returns, first.samples.returns)
    pd.testing.assert_frame_equal(again.situations, first.situations)
    pd.testing.assert_frame_equal(again.actions, first.actions)
    other = SampledBrowser(keyed_runs["ambassador"], games=GAMES, seed=SEED + 1)
    assert not np.array_equal(other.samples.returns, first.samples.returns)


def test_sampled_tables(sampled: dict) -> None:
    """Every table is marked sampled with games, seed and CI; distributions sum to 1."""
    b = sampled["inquisitor"]
    tables = all_tables(b)
    checked = 0
    for t in tables.values():
        assert t.basis == SAMPLED and not t.exact
        assert t.basis_text == f"sampled: {GAMES:,} self-play games, seed {SEED}, 95% CI"
        if t.prob_columns and not t.frame.empty:
            sums = t.frame[t.prob_columns].sum(axis=1).to_numpy()
            assert sums == pytest.approx(1.0, abs=1e-9), t.key
            assert not set(t.prob_columns) & set(CI_COLUMNS)
            assert "prob ±95%" in t.frame.columns and "value ±95%" in t.frame.columns
            checked += 1
    assert checked >= 4
    gv = tables["game_values"].frame
    assert gv["value"].tolist() == pytest.approx(list(b.game_value()))
    assert (gv["95% CI low"] < gv["value"]).all() and (gv["value"] < gv["95% CI high"]).all()
    hv = tables["hand_values"].frame
    for seat in range(2):
        sub = hv[hv["seat"] == seat]
        assert sub["games"].sum() == GAMES
        assert (sub["probability"] * sub["value"]).sum() == pytest.approx(b.game_value()[seat])
    cv = tables["character_values"].frame
    assert (cv["advantage ±95%"] > 0).all()
    bl = tables["bluffs"].frame.set_index("character")
    assert (bl["bluff frequency ±95%"] > 0).all() and (bl["claims per game ±95%"] > 0).all()
    slots = b.actions[b.actions["claimed_character"].notna()]
    mask = slots["bluff"].to_numpy()
    per_game = b.slot_ratio(slots, ["claimed_character"], "mass").set_index("claimed_character")
    freq = b.slot_ratio(slots, ["claimed_character"], "mass", mask, "mass")
    freq = freq.set_index("claimed_character")
    assert per_game["estimate"].to_dict() == pytest.approx(bl["claims per game"].to_dict())
    assert freq["estimate"].to_dict() == pytest.approx(bl["bluff frequency"].to_dict())
    assert freq["±95%"].to_dict() == pytest.approx(bl["bluff frequency ±95%"].to_dict())
    cr = tables["counter_rates"].frame
    assert {"counter rate ±95%", "bluff-counter rate ±95%"} <= set(cr.columns)
    figures = dict(tables["key_figures"].frame.itertuples(index=False, name=None))
    assert figures["exploitability"] == "not measured"
    assert figures["sampled self-play games"] == f"{GAMES:,} (seed {SEED})"


class _Sections(HTMLParser):
    """Section ids, h3 titles and table headers of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.h3: list[str] = []
        self.headers: list[str] = []
        self._tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._tag = tag
        if tag == "section":
            self.sections.append(dict(attrs)["id"])

    def handle_data(self, data: str) -> None:
        if self._tag == "h3" and data.strip():
            self.h3.append(data.strip())
        if self._tag == "th" and data.strip():
            self.headers.append(data.strip())

    def handle_endtag(self, tag: str) -> None:
        self._tag = None


def test_sampled_report_html_and_pdf(sampled: dict, tmp_path: Path) -> None:
    """The report of a keyed run: every section, sampled basis and CIs, PDF headers."""
    report = build_report(sampled["inquisitor"])
    facts = dict(report.facts)
    assert facts["Exploitability"] == "not measured"
    assert "es-mccfr" in facts["Solver"] and "information states" in facts["Solver"]
    assert "95% confidence intervals" in facts["Tables"]
    page = render_html(report)
    parser = _Sections()
    parser.feed(page)
    assert parser.sections == [s.key for s in report.sections]
    for table in report.tables():
        assert table.title in parser.h3
    assert "value ±95%" in parser.headers and "prob ±95%" in parser.headers
    assert page.count(f"sampled: {GAMES:,} self-play games, seed {SEED}, 95% CI") >= len(
        report.tables()
    )
    pypdf = pytest.importorskip("pypdf")
    path = tmp_path / "r.pdf"
    pages = write_pdf(report, path)
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(str(path)).pages).split())
    assert len(re.findall(r"page \d+ of", text)) == pages - 1
    for header in ("Game value by seat", "Challenge", "visits", "not measured", "95% CI"):
        assert header in text, header


def test_sampled_comparison_states_uncertainty(sampled: dict, browsers: dict) -> None:
    """The comparison gives the seat-value difference with a CI and says if it is significant."""
    mixed = build_comparison(sampled["ambassador"], browsers["inquisitor"])
    sv = mixed.tables()[0].frame
    assert (sv["value Inquisitor ±95%"] == 0).all() and (sv["value Ambassador ±95%"] > 0).all()
    a, b = sampled["ambassador"], sampled["inquisitor"]
    report = build_comparison(a, b)
    sv = report.tables()[0].frame
    assert sv["value Ambassador"].tolist() == pytest.approx(list(a.game_value()))
    half = np.hypot(sv["value Ambassador ±95%"], sv["value Inquisitor ±95%"])
    assert sv["difference ±95%"].to_numpy() == pytest.approx(half.to_numpy())
    text = " ".join(report.sections[0].paragraphs)
    diff = b.game_value()[0] - a.game_value()[0]
    assert f"{diff:+.4f} ± {half.iloc[0]:.4f}" in text
    expected = "is not significant" if abs(diff) <= half.iloc[0] else "is significant"
    assert expected in text


def test_sampled_comparison_charts_have_error_bars(sampled: dict, browsers: dict) -> None:
    """A sampled comparison's value bars carry each run's 95% half-width; exact ones none."""
    report = build_comparison(sampled["ambassador"], browsers["inquisitor"])
    spec = next(f for s in report.sections for f in s.figures if f.key == "character_values_seat0")
    assert "error bars" in spec.caption and "no error bars" not in spec.caption
    fig = spec.make()
    ax = fig.axes[0]
    bars = [c for c in ax.containers if hasattr(c, "errorbar") and c.errorbar is not None]
    assert len(bars) == 2, "one bar group per line-up, each with error bars"
    cv = report.tables()[1].frame
    cv = cv[cv["seat"] == 0]
    for container, label, exact in ((bars[0], "Ambassador", False), (bars[1], "Inquisitor", True)):
        lines = container.errorbar.lines[2][0].get_segments()  # one vertical segment per bar
        halves = np.array([(seg[1][1] - seg[0][1]) / 2 for seg in lines])
        want = cv[f"value holding it ±95% {label}"].to_numpy()
        assert halves == pytest.approx(want, abs=1e-9)
        assert (halves == 0).all() if exact else (halves > 0).any()
    exact = build_comparison(browsers["ambassador"], browsers["inquisitor"])
    spec = next(f for s in exact.sections for f in s.figures if f.key == "character_values_seat0")
    assert "no error bars" in spec.caption


def test_cli_report_and_compare_keyed(keyed_runs: dict, runs: dict, tmp_path: Path) -> None:
    """complots report/compare read keyed runs with --games/--seed; bad --games exits 2."""
    main(
        ["report", str(keyed_runs["ambassador"]), "--format", "html", "--out",
         str(tmp_path / "k"), "--games", "300", "--seed", "2"]
    )  # fmt: skip
    page = (tmp_path / "k.html").read_text()
    assert "sampled: 300 self-play games, seed 2, 95% CI" in page
    main(
        ["compare", str(keyed_runs["ambassador"]), str(keyed_runs["inquisitor"]), "--format",
         "html", "--out", str(tmp_path / "c"), "--games", "300", "--csv", str(tmp_path / "csv")]
    )  # fmt: skip
    page = (tmp_path / "c.html").read_text()
    assert "significant" in page and "difference ±95%" in page
    assert "run A 300 self-play games, seed 0, 95% CI; run B 300 self-play games, seed 1" in page
    assert (tmp_path / "csv" / "seat_values.csv").is_file()
    with pytest.raises(SystemExit) as exc:
        main(
            ["report", str(keyed_runs["ambassador"]), "--format", "html", "--out",
             str(tmp_path / "x"), "--games", "0"]
        )  # fmt: skip
    assert exc.value.code == 2


@pytest.mark.slow
def test_draft_game_report(tmp_path: Path) -> None:
    """On a short run of the 2-player draft game every decision table fills and renders."""
    config = load_presets()["draft-ambassador"].config()
    solver = MCCFRSolver(config, algorithm="os", key="markov", epsilon=0.6, seed=1)
    solver.run(100_000)
    meta = {
        "game": config.game_string(),
        "preset": "draft-ambassador",
        "algorithm": "os-mccfr",
        "iterations": solver.iteration,
        "key_scheme": {"name": "markov", "version": KEY_SCHEME_VERSION},
        "exploitability_bound": {"lower_bound": 0.5, "ci95": [0.45, 0.55]},
    }
    save_keyed_strategy(tmp_path / "run", keyed_strategy(solver.average_table(), meta))
    b = SampledBrowser(tmp_path / "run", games=5000, seed=0)
    tables = all_tables(b)
    for key in ("draft_picks", "exchange_keeps", "reveals", "challenges", "counters", "bluffs"):
        assert not tables[key].frame.empty, key
    for t in tables.values():
        if t.prob_columns and not t.frame.empty:
            sums = t.frame[t.prob_columns].sum(axis=1).to_numpy()
            assert sums == pytest.approx(1.0, abs=1e-9), t.key
    report = build_report(b, tables)
    assert dict(report.facts)["Exploitability"].startswith("at least 0.5")
    page = render_html(report)
    assert len(page.encode()) < 5 * 1024 * 1024


def test_strongest_recorded_bound_is_reported(sampled: dict) -> None:
    """The title's bound is the largest of the trained responder's and the bots' bounds."""
    b: SampledBrowser = sampled["ambassador"]
    saved = dict(b.meta)
    try:
        b.meta["exploitability_bound"] = {"lower_bound": 0.3, "ci95": [0.29, 0.31]}
        assert b.exploitability_bound()["responder"] == "trained MCCFR responder"
        b.meta["bot_responders"] = {
            "honest": {"lower_bound": 0.9, "ci95": [0.85, 0.95]},
            "counter": {"lower_bound": 0.8, "ci95": [0.75, 0.85]},
        }
        best = b.exploitability_bound()
        assert best["lower_bound"] == 0.9 and "'honest' bot" in best["responder"]
        from complots_solver.reports.tables import exploitability_text

        assert exploitability_text(b).startswith("at least 0.9 (")
        assert "'honest' bot as a fixed responder" in exploitability_text(b)
    finally:
        b.meta.clear()
        b.meta.update(saved)


def test_complots2_keyed_run_names_its_characters(tmp_path: Path) -> None:
    """A sampled report of a Complots 2 run names the game's five characters, not a line-up."""
    run = _keyed_run(tmp_path, "ladder-1-c2-catechumene", 3)
    b = SampledBrowser(run, games=500, seed=0)
    label = b.describe_run()["lineup"]
    for name in ("Bourreau", "Espion", "Justicier", "Ursuline"):
        assert name in label
    assert "Ambassador" not in label
    sums = b.actions.groupby("infoset")["probability"].sum()
    assert sums.to_numpy() == pytest.approx(1.0, abs=1e-9)
