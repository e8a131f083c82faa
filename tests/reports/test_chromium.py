"""Every committed HTML report in a real browser (headless Chromium), and the committed PDFs.

The browser checks load each ``reports/*.html`` with Playwright driving
Debian's ``/usr/bin/chromium`` (nothing is downloaded) and look for console
errors, the opening section and every table, a table that sorts on a header
click, tables that fit the page width, and a screenshot that is not blank.
They skip with the reason when Chromium or Playwright is missing; ``.ci/run``
installs both, so CI runs them.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[2] / "reports"
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
HTML_REPORTS = sorted(REPORTS.glob("*.html"))
PDF_REPORTS = sorted(REPORTS.glob("*.pdf"))
BALANCE = REPORTS / "balance.html"
MIN_PAGE_CHARS = 250  # a PDF page with less text than this (footer included) is nearly empty


def _why_no_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"Chromium is not installed ({CHROMIUM}); .ci/run installs it"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


NO_BROWSER = _why_no_browser()
if os.environ.get("CI") and NO_BROWSER:  # CI must run them: fail instead of skipping
    raise RuntimeError(f"browser tests cannot run in CI: {NO_BROWSER}")


class _Tables(HTMLParser):
    """The data-key of every table and the id of every section, from the file's source."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.sections: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "table" and "data-key" in a:
            self.tables.append(a["data-key"])
        if tag == "section" and "id" in a:
            self.sections.append(a["id"])


def _source(path: Path) -> _Tables:
    """Tables and sections of ``path`` as written."""
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module."""
    if NO_BROWSER:
        pytest.skip(NO_BROWSER)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        b = p.chromium.launch(executable_path=exe, args=FLAGS, headless=True)
        yield b
        b.close()


def _open(browser, path: Path):
    """A page showing ``path``, with the console errors it logged."""
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    return page, errors


def _number(text: str) -> float | None:
    """The leading number of a cell as the page's sorter reads it (parseFloat), or None."""
    m = re.match(r"\s*([-+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?)", text)
    return float(m.group(1).replace(",", "")) if m else None


def test_there_are_reports_to_check() -> None:
    """The balance report and at least one strategy report are committed."""
    assert BALANCE in HTML_REPORTS
    assert len(HTML_REPORTS) >= 2 and (REPORTS / "balance.pdf") in PDF_REPORTS


@pytest.mark.parametrize("path", HTML_REPORTS, ids=lambda p: p.name)
def test_report_renders_in_chromium(browser, path: Path) -> None:
    """No console error, opening section and all tables shown, fits the width, not blank."""
    source = _source(path)
    page, errors = _open(browser, path)
    try:
        shown = page.eval_on_selector_all("table.sortable", "ts => ts.map(t => t.dataset.key)")
        assert shown == source.tables
        assert source.tables, "a report with no table"
        first = source.sections[0]
        assert page.locator(f"section#{first}").is_visible()
        if path == BALANCE:
            assert first == "answer"
            text = page.inner_text("section#answer")
            assert "95%" in text and "line-up" in text and "provisional" in text
        width = page.evaluate("document.documentElement.clientWidth")
        wide = page.eval_on_selector_all(
            "table",
            "ts => ts.map(t => [t.dataset.key || 'facts', t.getBoundingClientRect().right,"
            " t.parentElement.scrollWidth - t.parentElement.clientWidth])",
        )
        over = [(k, r, s) for k, r, s in wide if r > width + 1 or s > 1]
        assert not over, f"tables wider than the page ({width}px): {over}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        png = page.screenshot(full_page=False)
        import matplotlib.image as mpimg

        pixels = mpimg.imread(io.BytesIO(png), format="png")[..., :3]
        ink = (pixels.mean(axis=2) < 0.85).mean()
        assert pixels.std() > 0.05 and ink > 0.01, f"blank screenshot (ink {ink:.4f})"
        assert errors == []
    finally:
        page.close()


def _sortable_column(page) -> tuple[int, int]:
    """(table index, column index) of a numeric column with distinct values in some table."""
    tables = page.eval_on_selector_all(
        "table.sortable",
        "ts => ts.map(t => Array.from(t.tBodies[0].rows).map("
        "r => Array.from(r.cells).map(c => c.textContent.trim())))",
    )
    for t, rows in enumerate(tables):
        if len(rows) < 3:
            continue
        for c in range(len(rows[0])):
            values = [_number(r[c]) for r in rows]
            if all(v is not None for v in values) and len(set(values)) >= 3:
                if values != sorted(values):
                    return t, c
    pytest.fail("no table with an unsorted numeric column to sort")


@pytest.mark.skipif(not BALANCE.exists(), reason="reports/balance.html not committed")
def test_a_table_sorts_on_a_header_click(browser) -> None:
    """Clicking a numeric header sorts its rows ascending, a second click descending."""
    page, errors = _open(browser, BALANCE)
    try:
        t, c = _sortable_column(page)
        table = page.locator("table.sortable").nth(t)
        header = table.locator("th").nth(c)

        def column() -> list[float]:
            cells = table.locator("tbody tr").evaluate_all(
                f"rs => rs.map(r => r.cells[{c}].textContent)"
            )
            return [_number(x) for x in cells]

        before = column()
        header.click()
        assert column() == sorted(before)
        header.click()
        assert column() == sorted(before, reverse=True)
        assert errors == []
    finally:
        page.close()


def _pdf_pages(path: Path) -> list[str]:
    """The text of each page of a PDF."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf is in the test extra")
    return [p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages]


@pytest.mark.skipif(not (REPORTS / "balance.pdf").exists(), reason="balance.pdf not committed")
def test_balance_pdf_pages_and_verdicts() -> None:
    """The balance PDF: at most 12 pages, none nearly empty; page 1 the answer and nothing else,
    'How sure are we' after it."""
    pages = _pdf_pages(REPORTS / "balance.pdf")
    assert 4 <= len(pages) <= 12
    short = [(i + 1, len(t)) for i, t in enumerate(pages) if len(t) < MIN_PAGE_CHARS]
    assert not short, f"nearly empty pages (page, characters): {short}"
    first = pages[0]
    assert "Ambassador or Inquisitor" in first and "Better balanced means" in first
    assert "provisional" in first and "Warning" not in first and "Command" not in first
    rows = re.findall(
        r"^\s*([2-6])\s+(Ambassador|Inquisitor|cannot tell|mixed|not compared)", first, re.M
    )
    assert [r[0] for r in rows] == ["2", "3", "4", "5", "6"], rows
    assert re.search(r"[-+]\d+\.\d points \[[-+]\d+\.\d, [-+]\d+\.\d\]", first)
    assert any("How sure are we" in p for p in pages[1:3])
    assert f"page {len(pages)} of {len(pages)}" in pages[-1]
    joined = "\n".join(pages)
    assert not re.search(r"\d\.\d+e-\d", joined), "a probability in scientific notation"


def test_the_balance_html_matches_its_pdf() -> None:
    """Both formats come from the same run: the same command line is recorded in each."""
    if not BALANCE.exists():
        pytest.skip("reports/balance.html not committed")
    html = BALANCE.read_text(encoding="utf-8")
    m = re.search(r"Command: (complots balance[^<]*)", html)
    assert m, "the command that made the report"
    pages = " ".join(_pdf_pages(REPORTS / "balance.pdf"))
    assert " ".join(m.group(1).split()) in " ".join(pages.split())
