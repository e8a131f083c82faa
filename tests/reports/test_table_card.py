"""The strategy card of a 3-player table strategy says what its tables say: every number in its
sentences is recomputed here from the CSV files the report writes beside it."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from complots_solver.browse.net_sampled import NetSampledBrowser
from complots_solver.reports import headline
from complots_solver.reports.card import MIN_VISITS, strategy_card
from complots_solver.reports.tables import all_tables, export_csv

STRATEGIES = Path(__file__).resolve().parents[2] / "games" / "strategies"
REPORTS = Path(__file__).resolve().parents[2] / "reports"
# the committed table reports: preset -> players
TABLE_REPORTS = {
    "complots-ambassador-3": 3,
    "complots-inquisitor-3": 3,
    "complots-ambassador": 4,
    "complots-inquisitor": 4,
}
GAMES = 300  # about 60 first turns per starting hand over the three seats
# the characters a turn action claims, from the rulebook (docs/rules.md): the Ambassador and the
# Inquisitor each exchange, the Inquisitor examines
CLAIMS = {
    "Tax": {"Duchess"},
    "Assassinate": {"Assassin"},
    "Steal": {"Captain"},
    "Exchange": {"Ambassador", "Inquisitor"},
    "Examine": {"Inquisitor"},
}


def read_csv(path: Path) -> pd.DataFrame:
    """A table written by StrategyTable.to_csv (its '#' lines skipped)."""
    text = "".join(line for line in path.open(encoding="utf-8") if not line.startswith("#"))
    return pd.read_csv(io.StringIO(text))


def card_and_csv(sentences: list[str], folder: Path) -> list[str]:
    """Disagreements between the card's bluff and first-turn sentences and the CSV files."""
    bad = []
    bluffs = read_csv(folder / "bluffs.csv").set_index("character")
    text = " ".join(sentences)
    said = re.findall(r"the (\w+) in (\d+)% of its \1 claims", text)
    assert said, "no bluff sentence"
    for character, pct in said:
        want = f"{bluffs.loc[character, 'bluff frequency']:.0%}"
        if f"{pct}%" != want:
            bad.append(f"{character}: card {pct}%, bluffs.csv {want}")
    opening = read_csv(folder / "opening_moves.csv")
    for hand, pct in re.findall(r"holding ([\w+]+), (\d+)% of first turns", text):
        rows = opening[opening["hand"] == hand]
        w = rows["visits"]
        cards = hand.split("+")
        lies = [m for m in CLAIMS if m in rows.columns and not CLAIMS[m] & set(cards)]
        share = sum(
            (rows[m] * w).sum() / w.sum() for m in lies if (rows[m] * w).sum() / w.sum() >= 0.005
        )
        if w.sum() < MIN_VISITS or f"{share:.0%}" != f"{pct}%":
            bad.append(f"{hand}: card {pct}%, opening_moves.csv {share:.0%} ({w.sum()} visits)")
    return bad


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path]:
    """The card of the shipped 3-player Inquisitor strategy and its tables as CSV files."""
    b = NetSampledBrowser(STRATEGIES / "complots-inquisitor-3", games=GAMES, seed=0)
    tables = all_tables(b)
    folder = tmp_path_factory.mktemp("tables")
    export_csv(tables, folder)
    return strategy_card(tables, b.config.players), folder


def test_the_card_quotes_the_csv_tables(written: tuple[list[str], Path]) -> None:
    """Each bluff rate on the card is bluffs.csv's; each first-turn bluff share is the
    visit-weighted sum over the seats of opening_moves.csv's bluffing moves."""
    sentences, folder = written
    assert len(re.findall(r"holding [\w+]+, \d+% of first turns", " ".join(sentences))) >= 3
    assert card_and_csv(sentences, folder) == []


def test_the_check_sees_a_card_that_disagrees(written: tuple[list[str], Path]) -> None:
    """A card whose first bluff rate is changed by one point is caught."""
    sentences, folder = written
    text = " ".join(sentences)
    m = re.search(r"the (\w+) in (\d+)% of its \1 claims", text)
    assert m is not None
    wrong = f"the {m.group(1)} in {(int(m.group(2)) + 1) % 100}% of its {m.group(1)} claims"
    assert card_and_csv([text.replace(m.group(0), wrong)], folder)


def _text(path: Path) -> str:
    """A committed HTML report's text, tags dropped, spaces collapsed."""
    raw = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))
    return " ".join(html.unescape(raw).split())


@pytest.mark.parametrize("preset", sorted(TABLE_REPORTS))
def test_committed_table_reports_agree_with_their_tables(preset: str) -> None:
    """Each committed 3- and 4-player report: its card's numbers are its CSV files'; a claim
    bluffed more than 90% of the time is named; its strength is the meta.json's responder win
    share with the WEAK warning; its first player's edge is the balance report's."""
    page = REPORTS / f"{preset}.html"
    if not page.exists():
        pytest.skip(f"{page.name} not committed")
    text = _text(page)
    folder = REPORTS / f"{preset}-tables"
    assert card_and_csv([text], folder) == []
    for character, row in read_csv(folder / "bluffs.csv").set_index("character").iterrows():
        extreme = f"Extreme: {row['bluff frequency']:.1%} of its {character} claims are bluffs."
        assert (extreme in text) == (row["bluff frequency"] > 0.9), character
    meta = json.loads((STRATEGIES / preset / "meta.json").read_text())
    gain = meta["responder_gain"]
    players = TABLE_REPORTS[preset]
    assert f"wins {gain['win_share']:.1%} of {players}-player games" in text
    assert f"the fair share is {1 / players:.1%}" in text
    assert meta["quality"].startswith("WEAK") and "Warning: weak strategy" in text
    head = headline.read_headline(players=players)
    lineup = headline.shipped_lineup(preset, STRATEGIES / preset)
    assert head is not None and lineup is not None
    assert head.edge_sentence(lineup) in text
    assert "Strategy card" in text and "First-turn bluffs" in text


def test_no_two_seat_comparison_of_table_strategies() -> None:
    """The comparison, written for two seats, refuses 3-player strategies in one line."""
    from complots_solver.reports.compare import build_comparison

    a = NetSampledBrowser(STRATEGIES / "complots-ambassador-3", games=2, seed=0)
    b = NetSampledBrowser(STRATEGIES / "complots-inquisitor-3", games=2, seed=1)
    with pytest.raises(ValueError, match="2-player strategies only"):
        build_comparison(a, b)
