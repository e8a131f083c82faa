"""Every committed report laid out as a reader sees it: PDF word boxes, HTML table cells.

The PDF check reads the box of every word on every page with poppler's
``pdftotext -bbox`` after widening each page's box (poppler drops what lies
outside the page, which is exactly what a reader loses), and fails when a word
lies off the page or overlaps the footer line ("page i of N" and the report
title). The HTML check loads each report in headless Chromium and fails when a
word or a number in a table cell is split over two lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reports.test_chromium import HTML_REPORTS, NO_BROWSER, PDF_REPORTS, _open, browser

__all__ = ["browser"]  # the fixture, shared with the other browser tests

GROW = 400.0  # points added on every side of each page so that poppler keeps what spills over
GAP = 8.0  # points between two words of the footer title at most
SLACK = 0.5  # points of tolerance for rounding in the word boxes
PDFTOTEXT = shutil.which("pdftotext")
if os.environ.get("CI") and not PDFTOTEXT:
    raise RuntimeError("the PDF layout test cannot run in CI: pdftotext (poppler-utils) missing")


@dataclass(frozen=True)
class Word:
    """One word's text and box in points, origin at the page's top left."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float


def _grown_copy(path: Path, out: Path) -> list[tuple[float, float]]:
    """Copy ``path`` to ``out`` with every page box grown by GROW; the original page sizes."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf is in the test extra")
    reader = pypdf.PdfReader(str(path))
    writer = pypdf.PdfWriter()
    sizes = []
    for page in reader.pages:
        box = page.mediabox
        x0, y0, x1, y1 = (float(v) for v in (box.left, box.bottom, box.right, box.top))
        sizes.append((x1 - x0, y1 - y0))
        grown = pypdf.generic.RectangleObject([x0 - GROW, y0 - GROW, x1 + GROW, y1 + GROW])
        page.mediabox = grown
        page.cropbox = grown
        writer.add_page(page)
    with out.open("wb") as f:
        writer.write(f)
    return sizes


def page_words(path: Path) -> list[tuple[float, float, list[Word]]]:
    """(width, height, words) of each page, words in the original page's coordinates."""
    with tempfile.TemporaryDirectory() as tmp:
        grown = Path(tmp) / "grown.pdf"
        sizes = _grown_copy(path, grown)
        xml = subprocess.run(
            [PDFTOTEXT, "-bbox", str(grown), "-"], capture_output=True, text=True, check=True
        ).stdout
    root = ET.fromstring(xml.replace('xmlns="http://www.w3.org/1999/xhtml"', ""))
    pages = root.findall(".//page")
    assert len(pages) == len(sizes)
    out = []
    for (w, h), page in zip(sizes, pages, strict=True):
        words = [
            Word(
                e.text or "",
                float(e.get("xMin")) - GROW,
                float(e.get("yMin")) - GROW,
                float(e.get("xMax")) - GROW,
                float(e.get("yMax")) - GROW,
            )
            for e in page.iter("word")
        ]
        out.append((w, h, words))
    return out


def layout_faults(path: Path) -> list[str]:
    """Words off the page or in the footer, as 'page 3: "word" ...' lines."""
    faults = []
    for number, (w, h, words) in enumerate(page_words(path), 1):
        for x in words:
            if x.x0 < -SLACK or x.y0 < -SLACK or x.x1 > w + SLACK or x.y1 > h + SLACK:
                faults.append(f'page {number}: "{x.text}" off the page at ({x.x0:.0f}, {x.y0:.0f})')
        # the footer: 'page i of N' at the bottom right and the title beside it
        marks = [
            k
            for k in range(len(words) - 3)
            if words[k].text == "page"
            and words[k + 2].text == "of"
            and words[k].y0 > 0.9 * h
            and words[k + 1].text.isdigit()
        ]
        if not marks:
            continue
        top = min(words[marks[-1]].y0, words[marks[-1] + 3].y0)
        footer = set(range(marks[-1], marks[-1] + 4))
        # the title: the run of words from the left margin along the footer's line
        row = sorted(
            (x.x0, k) for k, x in enumerate(words) if abs(x.y1 - words[marks[-1]].y1) < 2.5
        )
        edge = 0.05 * w
        for x0, k in row:
            if abs(x0 - edge) > GAP:
                break
            footer.add(k)
            edge = words[k].x1
        for k, x in enumerate(words):
            if k not in footer and x.y1 > top + SLACK:
                faults.append(f'page {number}: "{x.text}" runs into the footer')
    return faults


needs_poppler = pytest.mark.skipif(PDFTOTEXT is None, reason="pdftotext (poppler-utils) missing")


@needs_poppler
def test_the_check_sees_a_word_off_the_page_and_in_the_footer(tmp_path: Path) -> None:
    """A page drawn with a word past the right edge and one over the footer fails twice."""
    import matplotlib
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    path = tmp_path / "bad.pdf"
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:
        fig = Figure(figsize=(11.69, 8.27))
        fig.text(0.05, 0.5, "inside")
        fig.text(0.97, 0.5, "overflowing-the-right-edge")
        fig.text(0.3, 0.025, "intruder")
        fig.text(0.05, 0.02, "Title", fontsize=7)
        fig.text(0.95, 0.02, "page 2 of 2", fontsize=8, ha="right")
        pdf.savefig(fig)
    faults = layout_faults(path)
    assert any("overflowing" in f and "off the page" in f for f in faults)
    assert any("intruder" in f and "footer" in f for f in faults)
    assert not any("inside" in f or "Title" in f for f in faults)


@needs_poppler
@pytest.mark.parametrize("path", PDF_REPORTS, ids=lambda p: p.name)
def test_no_word_off_the_page_or_in_the_footer(path: Path) -> None:
    """Every word of every page of the committed PDF lies on the page, above the footer."""
    faults = layout_faults(path)
    assert not faults, f"{len(faults)} misplaced words, first: {faults[:8]}"


# every word of a table cell whose glyphs lie on more than one line; a line may break at white
# space and after a comma, '+', '/' or '-' ('Duchess+' / 'Inquisitor'), never inside a word or a
# number
BROKEN_WORDS = """
() => {
  const out = [];
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\\s,+\\/-]+[,+\\/-]*/g;
      let m;
      while ((m = re.exec(node.data)) !== null) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects())
          .filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) {
          const table = cell.closest('table');
          out.push(((table && table.dataset.key) || 'facts') + ': ' + m[0]);
        }
      }
    }
  }
  return out;
}
"""


@pytest.mark.skipif(NO_BROWSER is not None, reason=str(NO_BROWSER))
def test_the_check_sees_a_broken_word(browser, tmp_path: Path) -> None:
    """A narrow cell that must split a long word is caught."""
    path = tmp_path / "narrow.html"
    path.write_text(
        "<table style='width:60px'><tr><td style='overflow-wrap:anywhere'>"
        "Duchess+Inquisitor 0.15052</td></tr></table>"
    )
    page, _ = _open(browser, path)
    try:
        assert page.evaluate(BROKEN_WORDS)
    finally:
        page.close()


@pytest.mark.parametrize("path", HTML_REPORTS, ids=lambda p: p.name)
def test_no_table_cell_breaks_a_word(browser, path: Path) -> None:
    """No word or number in a table cell of the committed HTML is split over two lines."""
    page, _ = _open(browser, path)
    try:
        broken = page.evaluate(BROKEN_WORDS)
    finally:
        page.close()
    assert not broken, f"{len(broken)} words broken in table cells, first: {broken[:8]}"


_REPORTS = Path(__file__).resolve().parents[2] / "reports"
# the strategy reports of shipped full-game strategies: the 2-player drafts, the 3- and 4-player
# tables
DRAFT_PDFS = sorted([*_REPORTS.glob("draft-*.pdf"), *_REPORTS.glob("complots-*.pdf")])


@pytest.mark.parametrize("path", DRAFT_PDFS, ids=lambda p: p.name)
def test_full_game_strategy_reports_are_at_most_ten_pages(path: Path) -> None:
    """A report of a shipped full-game strategy reads in minutes: 10 pages at most."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf is in the test extra")
    assert len(pypdf.PdfReader(str(path)).pages) <= 10
