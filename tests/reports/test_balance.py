"""The balance report: its statistics on hand-made games, its verdicts, warnings and command."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from complots_solver.cli.main import main
from complots_solver.reports.balance import (
    AMBASSADOR,
    INQUISITOR,
    BalanceInputs,
    Quality,
    build_balance_reports,
    check_presets,
    draw_warning,
    strategy_warning,
)
from complots_solver.reports.balance_games import Claim, GameRecord, Response, play_preset
from complots_solver.reports.balance_stats import (
    Estimate,
    LineupData,
    balance_verdict,
    bootstrap_interval,
    compare_balance,
    holm,
    ratio,
)
from complots_solver.reports.html import render_html
from complots_solver.rules.presets import load_presets

DUCHESS, ASSASSIN, COUNTESS, CAPTAIN, FIFTH = range(5)


def _game(
    g: int, winner: int, hands=((DUCHESS, CAPTAIN), (ASSASSIN, COUNTESS)), **kw
) -> GameRecord:
    """A hand-made game record."""
    return GameRecord(game=g, winner=winner, turns=kw.pop("turns", 8), hands=list(hands), **kw)


def _data(preset: str, records: list[GameRecord]) -> LineupData:
    return LineupData(preset, load_presets()[preset].config(), records)


def _wilson(share: float, n: float, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval, written out here from its textbook formula."""
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5
    return centre - half, centre + half


def test_ratio_interval_is_wilson_on_the_effective_count() -> None:
    """One event per game, 3 of 4: the cluster variance 4/3 * 0.75 / 16 over the binomial
    0.75 * 0.25 / 4 is a design effect of 4/3, so Wilson on 3 effective events."""
    e = ratio(np.array([1, 0, 1, 1]), np.array([1, 1, 1, 1]))
    low, high = _wilson(0.75, 3.0)
    assert e.value == pytest.approx(0.75) and e.n == 4
    assert (e.low, e.high) == pytest.approx((low, high), abs=1e-6)
    # events of one game count once as a cluster: (2 of 2) and (0 of 2) is 50%, 1 effective event
    c = ratio(np.array([2.0, 0.0]), np.array([2.0, 2.0]))
    assert c.value == 0.5 and (c.low, c.high) == pytest.approx(_wilson(0.5, 1.0), abs=1e-6)


@pytest.mark.parametrize(("num", "den"), [([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]), ([3, 2], [3, 2])])
def test_a_share_of_0_or_1_has_a_real_interval(num: list[int], den: list[int]) -> None:
    """0 of 5 or 5 of 5: never [0, 0] or [100, 100]; the estimate inside its interval."""
    e = ratio(np.array(num, dtype=float), np.array(den, dtype=float))
    low, high = _wilson(e.value, 5.0)
    assert (e.low, e.high) == pytest.approx((max(low, 0.0), min(high, 1.0)), abs=1e-6)
    assert e.high - e.low > 0.3 and e.low <= e.value <= e.high


def test_no_draw_in_35000_games_is_not_shown_as_a_single_point() -> None:
    """Wilson's upper end for 0 of 35,000 is 0.011%: shown with the digits that make it one."""
    low, high = _wilson(0.0, 35000.0)
    text = Estimate(0.0, max(low, 0.0), high, 35000).pct()
    assert text == "0.00% [0.00, 0.01]"
    assert Estimate(0.481, 0.45, 0.512, 900).pct() == "48.1% [45.0, 51.2]"


def test_bootstrap_interval_of_a_spread_keeps_its_estimate() -> None:
    """A spread whose bootstrap samples all lie above it (max-min bias): the plain percentile
    interval would leave it out ('1.6 points [1.6, 8.4]'); the corrected one holds it."""
    samples = np.linspace(0.03, 0.09, 1000)
    e = bootstrap_interval(0.016, samples, 1000)
    assert e.low <= 0.016 <= e.high and e.high > 0.03


def test_holm_adjusts_in_order() -> None:
    """Holm on (0.01, 0.04, 0.03): sorted 0.01*3, max(0.03*2, 0.03), max(0.04*1, 0.06)."""
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, float("nan")])[0] == 0.5
    # two tests held to the standard of a family of five: 5 * 0.01, max(4 * 0.02, 0.05)
    assert holm([0.02, 0.01], family=5) == pytest.approx([0.08, 0.05])


def test_lineup_statistics_on_hand_made_games() -> None:
    """Seat wins, draws, holder win rates, picks, bluffs, challenges and first moves."""
    bluff = Claim(0, DUCHESS, True, "action", challenged=True)
    true = Claim(1, CAPTAIN, False, "action")
    games = [
        _game(0, 0, picks=[(DUCHESS, CAPTAIN), (FIFTH, DUCHESS)], claims=[bluff, true],
              responses=[Response(1, DUCHESS, False, True, "action"),
                         Response(0, CAPTAIN, True, False, "action")],
              first_moves=[(0, "Tax", DUCHESS, True), (1, "Income", -1, False)]),
        _game(1, 0, picks=[(DUCHESS, CAPTAIN), (FIFTH, ASSASSIN)],
              first_moves=[(0, "Tax", DUCHESS, False), (1, "Income", -1, False)]),
        _game(2, 1, first_moves=[(0, "Income", -1, False)]),
        _game(3, -1, turns=200),
    ]  # fmt: skip
    d = _data(AMBASSADOR, games)
    assert d.seat_win(0).value == 0.5 and d.seat_win(1).value == 0.25
    assert d.draws().value == 0.25
    assert d.first_player_edge().value == pytest.approx(0.25)
    chars = d.character_table().set_index("character")
    # seat 0 holds Duchess+Captain in every game and won 2 of 4
    assert chars.loc["Duchess", "estimate"].value == 0.5
    assert chars.loc["Assassin", "estimate"].value == 0.25
    assert chars.loc["Ambassador", "holders"] == 0
    picks = d.pick_table()
    assert list(picks["character"][:3]) == ["Captain", "Duchess", "Assassin"]
    assert picks.iloc[0]["estimate"].value == 0.5
    play = d.play_table().set_index("character")
    assert play.loc["Duchess", "bluff share"].value == 1.0
    assert play.loc["Duchess", "bluffs challenged"].value == 1.0
    assert play.loc["Captain", "bluff share"].value == 0.0
    assert play.loc["Duchess", "challenged, holding none"].value == 1.0
    assert play.loc["Captain", "challenged, holding one"].value == 0.0
    assert play.loc["Countess", "bluff share"].n == 0
    first = d.first_moves()
    tax = first[(first["seat"] == 0) & (first["first action"] == "Tax")].iloc[0]
    assert tax["estimate"].value == pytest.approx(2 / 3) and tax["bluffed"].value == 0.5
    assert d.game_length().value == pytest.approx((8 * 3 + 200) / 4)


def _seat_games(n: int, seat0_wins: int) -> list[GameRecord]:
    return [_game(g, 0 if g < seat0_wins else 1) for g in range(n)]


def test_balance_verdict_names_the_balanced_line_up() -> None:
    """A lopsided line-up (seat 0 wins 90%) loses to an even one; equal ones cannot be told."""
    even = _data(AMBASSADOR, _seat_games(400, 200))
    lopsided = _data(INQUISITOR, _seat_games(400, 360))
    metrics = compare_balance(even, lopsided, seed=0)
    assert metrics[0].better == 0
    text = balance_verdict(metrics, ("Ambassador", "Inquisitor"))
    assert text.startswith("The Ambassador line-up is better balanced")
    same = compare_balance(even, _data(INQUISITOR, _seat_games(400, 205)), seed=0)
    assert "cannot tell" in balance_verdict(same, ("Ambassador", "Inquisitor"))


def test_warnings() -> None:
    """Weak or unbounded strategies and draw-dominated games are flagged; strong ones are not."""
    weak = Quality("draft-ambassador", "WEAK", None, "WEAK: short run")
    loose = Quality("draft-inquisitor", "GOOD", 0.35, "")
    tight = Quality("draft-inquisitor", "GOOD", 0.05, "")
    text = strategy_warning([weak, tight])
    assert text is not None and "draft-ambassador" in text and "draft-inquisitor" not in text
    assert "draft-inquisitor" in (strategy_warning([loose]) or "")
    assert strategy_warning([tight]) is None
    draws = draw_warning("ladder-3-ambassador", Estimate(0.7, 0.65, 0.75, 500), 4)
    assert draws is not None and "70.0%" in draws and "4 turns" in draws
    assert draw_warning("draft-ambassador", Estimate(0.01, 0.0, 0.02, 500), 200) is None


def test_presets_without_a_strategy_are_refused() -> None:
    """Naming what is available."""
    assert check_presets([]) == [
        AMBASSADOR,
        INQUISITOR,
        "draft-c2-catechumene",
        "draft-c2-expert",
        "complots-ambassador-3",
        "complots-inquisitor-3",
        "complots-ambassador",
        "complots-inquisitor",
        "complots2-catechumene-3",
        "complots2-catechumene",
        "complots-ambassador-5",
        "complots-inquisitor-5",
        "complots-ambassador-6",
        "complots-inquisitor-6",
    ]
    with pytest.raises(ValueError, match="complots-7.*available: draft-ambassador"):
        check_presets(["complots-7"])


def _intervals_hold_their_estimates(text: str) -> list[str]:
    """Every 'x% [a, b]' and 'x points [a, b]' of ``text`` whose estimate lies outside."""
    bad = []
    pattern = r"([-+]?\d+\.\d)(%| points) \[([-+]?\d+\.\d), ([-+]?\d+\.\d)\]"
    for m in re.finditer(pattern, text):
        x, lo, hi = float(m.group(1)), float(m.group(3)), float(m.group(4))
        # a share's interval is never a single point; a difference may round to one
        if not lo <= x <= hi or (m.group(2) == "%" and lo == hi):
            bad.append(m.group(0))
    return bad


def test_report_opens_with_the_answer_and_keeps_its_promises() -> None:
    """Page 1 is the answer table (one row per player count), a definition and a strength
    sentence; then the glossary and 'how sure'; rare rows only in the appendix and CSV."""
    rng = np.random.default_rng(3)
    hands = [(DUCHESS, CAPTAIN), (ASSASSIN, FIFTH), (COUNTESS, COUNTESS), (DUCHESS, FIFTH)]

    def games(p0: float) -> list[GameRecord]:
        out = []
        for g in range(120):
            a, b = rng.choice(len(hands), 2, replace=False)
            first = (CAPTAIN, CAPTAIN) if g < 5 else hands[a]  # a rare hand: left out
            out.append(
                _game(g, int(rng.random() > p0), hands=(first, hands[b]),
                      picks=[(DUCHESS, int(rng.integers(5))), (FIFTH, DUCHESS)],
                      claims=[Claim(0, DUCHESS, bool(rng.random() < 0.4), "action")],
                      first_moves=[(0, "Tax", DUCHESS, False)])
            )  # fmt: skip
        return out

    data = {AMBASSADOR: _data(AMBASSADOR, games(0.5)), INQUISITOR: _data(INQUISITOR, games(0.6))}
    quality = {
        p: Quality(p, "WEAK", None, "WEAK: test", (0.354, 0.326, 0.383), "responder") for p in data
    }
    inputs = BalanceInputs(data, quality, 120, 0, "complots balance x")
    report, appendix = build_balance_reports(inputs)
    front = report.front
    assert front is not None and [t.key for t in front.tables] == ["answer"]
    answer = front.tables[0].frame
    assert list(answer["players"]) == [2, 3, 4, 5, 6]
    assert answer["better balanced"][0] in ("Ambassador", "Inquisitor", "cannot tell")
    assert (answer["better balanced"][1:] == "not compared").all()
    assert answer["first player's edge, Ambassador"][0].endswith("]")
    assert front.paragraphs[0].startswith("Better balanced means")
    # (1 + 0.354) / 2 = 67.7%: a trained player's win share, rounded
    assert "wins about 68% (Ambassador) and 68% (Inquisitor)" in front.paragraphs[1]
    assert "provisional" in front.paragraphs[1] and len(front.paragraphs) == 2
    keys = [s.key for s in report.sections]
    assert keys[:2] == ["glossary", "sure"] and not report.warnings
    glossary = " ".join(report.sections[0].paragraphs)
    for term in ("Win share:", "Fair share:", "Exploitability:", "per game"):
        assert term in glossary
    sure = " ".join(report.sections[1].paragraphs)
    assert "Number of tests: 3" in sure and "Holm" in sure and "120 per line-up" in sure
    for table in report.tables():
        assert len(table.frame.columns) <= 7, table.key
        assert not table.frame.empty, table.key
        assert not any(table.faint), table.key
    hands_table = next(t for t in appendix.tables() if t.key == "hand_values")
    assert "Captain+Captain" not in set(hands_table.frame["starting hand"])
    assert "left out" in hands_table.note
    full = next(t for t in inputs.csv_tables if t.key == "hand_values")
    assert "Captain+Captain" in set(full.frame["starting hand"])
    figures = [f.key for s in report.sections for f in s.figures]
    assert figures == ["edge_by_players", "character_values"]
    page = render_html(report)
    assert page.index('id="answer"') < page.index('class="facts"')
    assert not re.search(r"\d\.\d+e-\d", page.split("<img")[0])
    assert _intervals_hold_their_estimates(page + render_html(appendix)) == []


def test_games_do_not_depend_on_workers() -> None:
    """The same seed gives the same recorded games on 1 and 2 workers."""
    one = play_preset(AMBASSADOR, 2, seed=5, workers=1)
    two = play_preset(AMBASSADOR, 2, seed=5, workers=2)
    assert [(r.winner, r.turns, r.hands, len(r.claims)) for r in one] == [
        (r.winner, r.turns, r.hands, len(r.claims)) for r in two
    ]
    assert all(len(r.picks) == 2 and r.hands[0] and r.first_moves for r in one)


def test_balance_command_end_to_end(tmp_path: Path, capsys) -> None:
    """Thirty games of one line-up: the report records its command, the appendix and the CSV
    folder sit beside it, and a line-up without its pair reads 'not compared'."""
    out = tmp_path / "b"
    main(["balance", AMBASSADOR, "--games", "30", "--workers", "1", "--format", "html",
          "--out", str(out)])  # fmt: skip
    page = (tmp_path / "b.html").read_text()
    assert 'id="answer"' in page
    assert f"complots balance draft-ambassador --games 30 --seed 0 --workers 1 --out {out}" in page
    assert "not compared" in page
    assert (tmp_path / "b-appendix.html").exists() and (
        tmp_path / "b-tables" / "answer.csv"
    ).exists()
    assert 'href="b-appendix.html"' in page


@pytest.mark.parametrize(
    "args",
    [
        ["balance", "complots-7", "--out", "{tmp}/x"],
        ["balance", "--out", "/proc/r"],
        ["balance", "--games", "0", "--out", "{tmp}/x"],
        ["balance", "--games", "29", "--out", "{tmp}/x"],
        ["balance", "--pair-games", "10", "--out", "{tmp}/x"],
        ["report", "{tmp}", "--out", "/proc/r"],
    ],
)
def test_bad_input_exits_2_in_one_line(args: list[str], tmp_path: Path, capsys) -> None:
    """No shipped strategy, an unwritable folder or a bad count: exit 2, one line."""
    with pytest.raises(SystemExit) as exc:
        main([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error:") and "Traceback" not in err[0]


def test_strategy_reports_lead_with_answers(browsers: dict) -> None:
    """A ladder-1 report: win rates first, the draw warning, no empty table, one value chart."""
    from complots_solver.reports.document import build_report, format_cell

    b = browsers["ambassador"]
    report = build_report(b)
    first = report.sections[0].paragraphs[0]
    shares = [float(x) / 100 for x in re.findall(r"(\d+\.\d)%", first)[:3]]
    assert first.startswith("Takeaways") and sum(shares) == pytest.approx(1.0, abs=2e-3)
    assert shares[2] == pytest.approx(b.turn_cap_share(), abs=1e-3)
    # ladder-1 has a 2-turn cap: most games are draws
    assert any("draws dominate" in w and f"{b.turn_cap_share():.1%}" in w for w in report.warnings)
    assert all(not t.frame.empty for t in report.tables())
    keys = [f.key for s in report.sections for f in s.figures]
    assert "character_values" in keys and "hand_values" not in keys  # one card: one chart
    assert format_cell("Challenge", 6.435e-08, probability=True) == "< 0.1%"
    assert format_cell("reach", 6.435e-08) == "< 0.0001"
    assert format_cell("Challenge", 0.25, probability=True) == "25.0%"


@pytest.mark.parametrize(
    ("bound", "short", "warn"),
    [
        (None, "exploitability not measured", True),
        (0.05, "exploitability at most 0.05", False),
        (0.3, "exploitability at most 0.3", True),
        (
            {"lbr": {"exploitability_lower_bound": 0.0333, "ci95": [-0.1466, 0.2133]}},
            "sampled lower bound 0.03, local best response, 95% CI -0.15 to 0.21",
            True,
        ),
        (  # the largest of several responders' bounds is the strongest
            {
                "lbr": {"exploitability_lower_bound": 0.0333, "ci95": [-0.1466, 0.2133]},
                "bot:honest": {"exploitability_lower_bound": 0.41, "ci95": [0.36, 0.46]},
                "bot:random": {"exploitability_lower_bound": -0.6, "ci95": [-0.65, -0.55]},
            },
            "sampled lower bound 0.41, the 'honest' bot as a fixed responder, 95% CI 0.36 to 0.46",
            True,
        ),
        (  # at 2 players the trained network responder's mean return per game is a lower bound
            {
                "responder": {"exploitability_lower_bound": 0.745, "ci95": [0.724, 0.766]},
                "lbr": {"exploitability_lower_bound": 0.515, "ci95": [0.477, 0.553]},
            },
            "no exploitability upper bound (sampled lower bound 0.74, trained network responder, "
            "95% CI 0.72 to 0.77)",
            True,
        ),
    ],
)
def test_strategy_quality_reads_meta_json(
    bound: object, short: str, warn: bool, tmp_path: Path, monkeypatch
) -> None:
    """Numbers, null and records of sampled bounds; only an upper bound can lift the warning."""
    import json

    import complots_solver.reports.balance as balance

    folder = tmp_path / "draft-ambassador"
    folder.mkdir()
    meta = {"quality": "WEAK: a test", "exploitability_bound": bound}
    (folder / "meta.json").write_text(json.dumps(meta))
    monkeypatch.setattr(balance, "strategies_dir", lambda: tmp_path)
    q = balance.strategy_quality("draft-ambassador")
    assert q.label == "WEAK" and short in q.short and q.warn is warn


def test_a_two_player_responder_record_is_a_per_game_bound(tmp_path: Path, monkeypatch) -> None:
    """At 2 players `bound --write` also writes responder_gain; the report reads the per-game bound."""
    import json

    import complots_solver.reports.balance as balance

    folder = tmp_path / "draft-c2-catechumene"
    folder.mkdir()
    meta = {
        "quality": "WEAK: a test",
        "responder_gain": {"gain": 0.19, "ci95": [0.18, 0.21], "per_game": 0.387},
        "exploitability_bound": {
            "responder": {"exploitability_lower_bound": 0.387, "ci95": [0.358, 0.416]},
            "lbr": {"exploitability_lower_bound": 0.312, "ci95": [0.270, 0.354]},
        },
    }
    (folder / "meta.json").write_text(json.dumps(meta))
    monkeypatch.setattr(balance, "strategies_dir", lambda: tmp_path)
    q = balance.strategy_quality("draft-c2-catechumene")
    assert "table of 3 or more" not in q.short
    assert "sampled lower bound 0.39, trained network responder, 95% CI 0.36 to 0.42" in q.short
    table = tmp_path / "complots2-catechumene-3"  # the same record at a table of 3+: a win share
    table.mkdir()
    (table / "meta.json").write_text(json.dumps(meta))
    assert "a table of 3 or more" in balance.strategy_quality("complots2-catechumene-3").short


def test_comparison_puts_bluff_heat_maps_side_by_side(browsers: dict) -> None:
    """One figure with a panel per line-up; the short-horizon warning names each line-up."""
    from complots_solver.reports.compare import build_comparison

    report = build_comparison(browsers["ambassador"], browsers["inquisitor"])
    bluffs = next(s for s in report.sections if s.key == "bluffs")
    heat = [f for f in bluffs.figures if f.key == "bluff_heatmaps"]
    assert len(heat) == 1
    fig = heat[0].make()
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["Ambassador", "Inquisitor"]
    assert any(w.startswith("Ambassador: Warning: draws dominate") for w in report.warnings)
    assert any(w.startswith("Inquisitor: Warning: draws dominate") for w in report.warnings)


def test_a_quality_label_followed_by_a_comma_is_the_word_alone(tmp_path: Path) -> None:
    """'WEAK, a candidate, ...' is labelled WEAK (read from a folder given outright)."""
    import json

    from complots_solver.reports.balance import strategy_quality

    (tmp_path / "meta.json").write_text(json.dumps({"quality": "WEAK, a candidate: test"}))
    assert strategy_quality("draft-inquisitor", tmp_path).label == "WEAK"
