"""One set of numbers: the 2-player first player's edge and the line-up verdict, computed once by
the balance report and quoted word for word by the strategy and comparison reports."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from complots_solver.browse import load_run
from complots_solver.play.search_bot import strategies_dir
from complots_solver.reports import headline
from complots_solver.reports.balance import (
    AMBASSADOR,
    INQUISITOR,
    BalanceInputs,
    Quality,
    build_balance_reports,
)
from complots_solver.reports.balance_games import GameRecord
from complots_solver.reports.balance_stats import LineupData
from complots_solver.reports.compare import build_comparison
from complots_solver.reports.document import MAIN_TABLES, build_report
from complots_solver.rules.presets import load_presets

REPORTS = Path(__file__).resolve().parents[2] / "reports"
DRAFT_REPORTS = [
    "draft-ambassador.html",
    "draft-inquisitor.html",
    "draft-ambassador-vs-inquisitor.html",
]


def _lineup(preset: str, seat0_wins: int, games: int = 400) -> LineupData:
    """Hand-made games: seat 0 wins the first ``seat0_wins``, seat 1 the rest."""
    records = [
        GameRecord(game=g, winner=0 if g < seat0_wins else 1, turns=9, hands=[(0, 3), (1, 2)])
        for g in range(games)
    ]
    return LineupData(preset, load_presets()[preset].config(), records)


@pytest.fixture
def balance_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A balance report's CSV folder from hand-made games, made the committed one."""
    data = {AMBASSADOR: _lineup(AMBASSADOR, 200), INQUISITOR: _lineup(INQUISITOR, 280)}
    quality = {p: Quality(p, "WEAK", None, "WEAK: test") for p in data}
    inputs = BalanceInputs(data, quality, 400, 0, "complots balance x")
    report, _ = build_balance_reports(inputs)
    folder = tmp_path / "balance-tables"
    for table in inputs.csv_tables:
        table.to_csv(folder)
    monkeypatch.setattr(headline, "BALANCE_TABLES", folder)
    return folder


def test_the_headline_is_the_balance_reports_answer_row(balance_folder: Path) -> None:
    """Edges and verdict read back from the CSV equal page 1's cells; Inquisitor 280 - 120 of
    400 is +40.0 points, Ambassador 200 - 200 is +0.0."""
    head = headline.read_headline()
    assert head is not None
    assert head.edges["Inquisitor"].startswith("+40.0 points [")
    assert head.edges["Ambassador"].startswith("+0.0 points [")
    assert head.games == {"Ambassador": 400, "Inquisitor": 400}
    assert head.verdict == "Ambassador"
    assert "significant, seat 0 has the edge" in head.edge_sentence("Inquisitor")
    assert "not significant" in head.edge_sentence("Ambassador")
    assert headline.read_headline(balance_folder.parent / "missing") is None


def test_shipped_strategy_reports_quote_it(balance_folder: Path) -> None:
    """A report of the shipped draft strategies states the balance report's edge and verdict,
    and no verdict of its own on those questions."""
    head = headline.read_headline()
    a = load_run(strategies_dir() / AMBASSADOR, 4, 0)
    b = load_run(strategies_dir() / INQUISITOR, 4, 1)
    report = build_report(a)
    own = " ".join(report.sections[0].paragraphs)
    # a sampled report shows MAIN_TABLES only; the rest is in its appendix
    assert {t.key for t in report.tables()} <= set(MAIN_TABLES)
    assert report.appendix is not None and report.appendix.tables()
    assert head.edge_sentence("Ambassador") in own and head.verdict_sentence() in own
    assert "The difference from 0 is significant" not in own
    both = " ".join(build_comparison(a, b).sections[0].paragraphs)
    assert head.edge_sentence("Inquisitor") in both and head.verdict_sentence() in both
    assert "seat 0 does better with" not in both and "significant at the 95% level" not in both


def _text(path: Path) -> str:
    """A committed HTML report's text, tags dropped, spaces collapsed."""
    raw = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))
    return " ".join(html.unescape(raw).split())


@pytest.mark.skipif(headline.read_headline() is None, reason="no committed balance tables")
def test_committed_reports_state_the_same_two_player_answers() -> None:
    """balance.html and every committed draft report give the same edges and the same verdict."""
    head = headline.read_headline()
    assert head is not None
    balance = _text(REPORTS / "balance.html")
    for lineup in ("Ambassador", "Inquisitor"):
        assert head.edges[lineup] in balance
    assert head.sure in balance
    for name in DRAFT_REPORTS:
        text = _text(REPORTS / name)
        assert head.verdict_sentence() in text, name
        assert "seat 0 does better with" not in text, name
        assert "The difference from 0 is significant" not in text, name
    for lineup, name in (("Ambassador", DRAFT_REPORTS[0]), ("Inquisitor", DRAFT_REPORTS[1])):
        assert head.edge_sentence(lineup) in _text(REPORTS / name)
    # the Complots 2 drafts: their own first player's edge is the balance report's too
    presets = load_presets()
    for preset in ("draft-c2-catechumene", "draft-c2-expert"):
        path = REPORTS / f"{preset}.html"
        if path.exists():
            text = _text(path)
            assert head.edge_sentence(presets[preset].config().lineup_label()) in text, preset
            assert "The difference from 0 is significant" not in text, preset


def test_edge_sentence_reads_the_interval_not_the_estimate() -> None:
    """An estimate above 0 whose interval holds 0 is not significant; one below 0 clear of it is
    seat 1's edge."""
    h = headline.Headline(
        {"Ambassador": "+1.0 points [-0.5, +2.5]", "Inquisitor": "-2.0 points [-3.5, -0.5]"},
        {"Ambassador": 10, "Inquisitor": 10},
        "cannot tell",
        "seat spread",
        "-1.0 points [-3.0, +1.0]",
        "not sure",
        "x",
    )
    assert h.edge_sentence("Ambassador").endswith("not significant).")
    assert "seat 1 has the edge" in h.edge_sentence("Inquisitor")
    assert "better balanced: cannot tell (seat spread difference" in h.verdict_sentence()
    assert "-1.0 points [-3.0, +1.0]; not sure)" in h.verdict_sentence()


def test_table_edge_sentence_speaks_of_the_fair_share() -> None:
    """At 3 players an interval clear of 0 says the first player wins more (or less) than the
    fair share, not which seat has the edge; the verdict names the player count."""
    h = headline.Headline(
        {
            "3-player Ambassador": "+3.5 points [+0.8, +6.4]",
            "3-player Inquisitor": "-2.0 points [-3.5, -0.5]",
        },
        {"3-player Ambassador": 1000, "3-player Inquisitor": 1000},
        "cannot tell",
        "seat spread",
        "+1.9 points [-3.4, +7.0]",
        "not sure",
        "x",
        players=3,
    )
    assert "wins more than the fair share" in h.edge_sentence("3-player Ambassador")
    assert "wins less than the fair share" in h.edge_sentence("3-player Inquisitor")
    assert "seat" not in h.edge_sentence("3-player Ambassador").split("(")[1]
    assert h.verdict_sentence().startswith("Ambassador or Inquisitor at 3 players")


def test_table_strategies_read_their_own_player_count(balance_folder: Path) -> None:
    """A shipped 3-player strategy is named as the balance report names it, and the answers read
    for 3 players are the 3-player rows (none in a 2-player-only balance folder)."""
    assert (
        headline.shipped_lineup("complots-ambassador-3", strategies_dir() / "complots-ambassador-3")
        == "3-player Ambassador"
    )
    assert headline.shipped_lineup("complots-ambassador-3", balance_folder) is None
    assert headline.read_headline(players=3) is None
    committed = headline.read_headline(REPORTS / "balance-tables", players=4)
    if committed is not None:
        assert set(committed.edges) >= {"4-player Ambassador", "4-player Inquisitor"}
        assert committed.players == 4
