"""Render a :class:`Report` as a PDF with matplotlib's PdfPages (no extra dependency).

Layout (A4 landscape): a title page (game, solver, exploitability, date,
contents); then, section by section, table chunks of at most
:data:`LINES_PER_PAGE` lines (a text cell longer than :data:`CELL_WRAP`
characters wraps onto up to :data:`MAX_CELL_LINES` lines) placed one below
the other while they fit on a page (``Report.compact``, the default; off,
each chunk takes its own page), and each figure on its own page; a
section's paragraphs head its first item. Every page after the title page
is numbered "page i of N". Text is
embedded as TrueType (fonttype 42) so that it can be extracted.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from complots_solver.reports.document import (  # noqa: E402
    Report,
    Section,
    display_frame,
    text_columns,
)
from complots_solver.reports.tables import StrategyTable  # noqa: E402

PAGE = (11.69, 8.27)  # A4 landscape, inches
LINES_PER_PAGE = 30  # table lines (a wrapped row takes several) per page
CELL_WRAP = 70  # characters per line of a text cell
MAX_CELL_LINES = 4  # longer cells are cut, with an ellipsis, after this many lines
HEADER_WRAP = 16  # characters per line of a column label
BOLD_WIDTH = 1.15  # a bold label character is about this much wider than a cell's
TEXT_CELL_PAD = 0.005  # left padding of text cells, as a share of the table's width
DEFAULT_CELL_PAD = 0.1  # matplotlib's Cell.PAD
TOP = 0.95
BOTTOM = 0.06
FAINT = "#a0a6b4"  # rows with little data behind them
WARNING = "#b3261e"  # page numbers and the footer sit below this
LEFT = 0.05
CHAR_EM = 0.6  # a character's mean width in ems (DejaVu Sans, digits and capitals included)
PARAGRAPH = 9.5  # font size of body text


def page_count(report: Report) -> int:
    """Number of pages :func:`write_pdf` writes for ``report``."""
    return 1 + len(_plan(report))


def _line_height(size: float) -> float:
    """Height of one text line of ``size`` points, as a share of the page height."""
    return size / 72 / PAGE[1] * 1.45


def _wrap_at(size: float, width: float = 1 - 2 * LEFT) -> int:
    """Characters of ``size`` points that fit on a line ``width`` (share of the page) wide."""
    return max(20, int(width * PAGE[0] * 72 / (size * CHAR_EM)))


def _wrap(text: str, size: float, width: float = 1 - 2 * LEFT) -> list[str]:
    """``text`` broken into lines that fit ``width`` at ``size`` points (long words split)."""
    return textwrap.wrap(text, _wrap_at(size, width), break_on_hyphens=False) or [""]


def _text_height(lines: list[str], size: float) -> float:
    """Height :func:`_text_block` takes for ``lines``."""
    wrapped = sum(len(_wrap(line, size)) for line in lines)
    return wrapped * _line_height(size) + 0.008 * len(lines)


def _table_height(table: StrategyTable, rows: list[list[str]], columns: list[str]) -> float:
    """Height of one table chunk: title, description, note and rows (see :func:`_table_page`)."""
    height = 0.035 + _text_height([f"{table.description} [{table.basis_text}]"], 8.5)
    if table.note:
        height += _text_height([table.note], 8.5)
    if rows:
        height += 0.026 * (_lines(_labels(columns)) + sum(_lines(r) for r in rows)) + 0.01
    return height + 0.03


# one planned item: (section number, section, index in the section, kind, item, height)
_Item = tuple[int, Section, int, str, object, float]
HEADING = 0.05  # height of a section heading


def _text_chunks(paragraphs: list[str], first: float, room: float) -> list[list[str]]:
    """Paragraphs cut into pieces that fit: ``first`` of height on the first page, then ``room``.

    A paragraph that does not fit is split between lines, so text never runs
    past the bottom of a page.
    """
    line = _line_height(PARAGRAPH)
    chunks: list[list[str]] = [[]]
    free = first
    for para in paragraphs:
        lines = _wrap(para, PARAGRAPH)
        while lines:
            fit = int((free - 0.008) / line)
            if fit <= 0:
                chunks.append([])
                free = room
                continue
            take, lines = lines[:fit], lines[fit:]
            chunks[-1].append(" ".join(take))
            free -= len(take) * line + 0.008
    return [c for c in chunks if c]


def _plan(report: Report) -> list[list[_Item]]:
    """The pages after the first page, each a list of items drawn from the top down.

    Text, table chunks and figures are placed one below the other while they
    fit (with ``report.compact``; off, each table chunk and figure gets its own
    page); a figure always takes a page of its own, and a section's text that
    does not fit continues on the next page.
    """
    room = TOP - BOTTOM
    pages: list[list[_Item]] = []
    used = room  # no open page yet
    for number, section in enumerate(report.sections, 1):
        items: list[tuple[str, object, float]] = []
        free = room - used if report.compact else 0.0
        if free < HEADING + 3 * _line_height(PARAGRAPH):
            free = room
        text = section.paragraphs + [f"{label}: {href}" for label, href in section.links]
        for chunk in _text_chunks(text, free - HEADING, room - HEADING):
            items.append(("text", chunk, _text_height(chunk, PARAGRAPH)))
        for tab in section.tables:
            columns, chunks = _table_chunks(tab)
            offset = 0
            for k, chunk in enumerate(chunks):
                part = f" (part {k + 1} of {len(chunks)})" if len(chunks) > 1 else ""
                faint = [bool(x) for x in tab.faint[offset : offset + len(chunk)]]
                offset += len(chunk)
                draw = _table_page(tab, chunk, columns, part, faint)
                items.append(("table", draw, _table_height(tab, chunk, columns)))
        for f in section.figures:
            items.append(("figure", f, room))
        if not items:
            items.append(("text", [], 0.0))
        for k, (kind, item, height) in enumerate(items):
            need = min(height + (HEADING if k == 0 else 0.0), room)
            open_page = bool(pages) and pages[-1][-1][3] != "figure"
            fits = open_page and used + need <= room + 1e-9
            if kind != "figure" and fits and (report.compact or kind == "text"):
                pages[-1].append((number, section, k, kind, item, need))
                used += need
                continue
            pages.append([(number, section, k, kind, item, need)])
            used = need
    return pages


def _table_chunks(table: StrategyTable) -> tuple[list[str], list[list[list[str]]]]:
    """The displayed columns and the table's rows as wrapped cells, page by page."""
    shown = display_frame(table)
    columns = list(shown.columns)
    cells = _cells(shown.values.tolist(), columns, text_columns(table))
    return columns, _chunks(cells, _lines(_labels(columns)))


def _labels(columns: list[str]) -> list[str]:
    """Column labels wrapped at HEADER_WRAP characters."""
    return ["\n".join(textwrap.wrap(c, HEADER_WRAP)) or c for c in columns]


def _wrap_cell(value: object) -> str:
    """A cell's text, wrapped at CELL_WRAP characters onto at most MAX_CELL_LINES lines."""
    text = str(value)
    if len(text) <= CELL_WRAP:
        return text
    lines = textwrap.wrap(text, CELL_WRAP) or [""]
    if len(lines) > MAX_CELL_LINES:
        lines = lines[:MAX_CELL_LINES]
        lines[-1] = lines[-1][: CELL_WRAP - 1] + "…"
    return "\n".join(lines)


def _cells(rows: list[list[object]], columns: list[str], text_cols: set[str]) -> list[list[str]]:
    """Rows as cell strings: text columns wrapped, numbers as they are."""
    wrap = [c in text_cols for c in columns]
    return [[_wrap_cell(v) if w else str(v) for v, w in zip(r, wrap, strict=True)] for r in rows]


def _lines(row: list[str]) -> int:
    """Lines a row takes."""
    return max((cell.count("\n") + 1 for cell in row), default=1)


def _chunks(cells: list[list[str]], header_lines: int = 1) -> list[list[list[str]]]:
    """Rows split into pages of at most LINES_PER_PAGE lines, the header's extra lines counted."""
    budget = LINES_PER_PAGE - (header_lines - 1)
    chunks: list[list[list[str]]] = [[]]
    used = 0
    for row in cells:
        n = _lines(row)
        if chunks[-1] and used + n > budget:
            chunks.append([])
            used = 0
        chunks[-1].append(row)
        used += n
    return chunks


def _text_block(fig: Figure, y: float, lines: list[str], size: float, **kw: object) -> float:
    """Write wrapped paragraphs from height ``y`` down; return the next free height."""
    for line in lines:
        for part in _wrap(line, size):
            fig.text(LEFT, y, part, fontsize=size, va="top", **kw)
            y -= size / 72 / PAGE[1] * 1.45
        y -= 0.008
    return y


def _title_page(report: Report) -> Figure:
    """The first page: the front section when the report has one, else title, facts, contents.

    The facts and contents shrink until they fit above the bottom margin.
    """
    if report.front is not None:
        return _front_page(report)
    for scale in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4):
        fig = Figure(figsize=PAGE)
        if _title_contents(fig, report, scale) >= BOTTOM:
            return fig
    return fig


def _title_contents(fig: Figure, report: Report, scale: float) -> float:
    """Draw the title page's contents at ``scale``; return the lowest height used."""
    y = TOP
    for part in _wrap(report.title, 20, 0.9):
        fig.text(0.5, y, part, ha="center", fontsize=20, weight="bold", va="top")
        y -= _line_height(20)
    y -= 0.04
    for warning in report.warnings:
        lines = _wrap(warning, 10.5 * scale * BOLD_WIDTH, 0.84)
        fig.text(
            0.08,
            y,
            "\n".join(lines),
            fontsize=10.5 * scale,
            weight="bold",
            color=WARNING,
            va="top",
            linespacing=1.4,
            bbox={"boxstyle": "square,pad=0.6", "fc": "#fdecea", "ec": WARNING, "lw": 2},
        )
        y -= len(lines) * _line_height(10.5 * scale) * 1.4 / 1.45 + 0.045
    size = 11 * scale
    for key, value in [*report.facts, ("Report date", report.created)]:
        fig.text(0.08, y, f"{key}:", fontsize=size, weight="bold", va="top")
        parts = _wrap(str(value), size, 0.66)
        for k, part in enumerate(parts):
            fig.text(0.26, y - k * _line_height(size), part, fontsize=size, va="top")
        y -= _line_height(size) * len(parts) + 0.012 * scale
    y -= 0.02
    fig.text(0.08, y, "Contents", fontsize=12 * scale, weight="bold", va="top")
    y -= _line_height(12 * scale)
    half = (len(report.sections) + 1) // 2
    step = _line_height(10 * scale)
    for i, s in enumerate(report.sections):
        x = 0.1 if i < half else 0.5
        title = _wrap(f"{i + 1}. {s.title}", 10 * scale, 0.38)[0]
        fig.text(x, y - (i % half) * step, title, fontsize=10 * scale, va="top")
    return y - half * step


def _front_page(report: Report) -> Figure:
    """Page 1 of a report with a front section: its title, text and tables, nothing else."""
    assert report.front is not None
    fig = Figure(figsize=PAGE)
    y = TOP
    front = report.front
    for part in _wrap(report.title, 13, 0.9):
        fig.text(LEFT, y, part, fontsize=13, color="#5a6275", va="top")
        y -= _line_height(13)
    for part in _wrap(front.title, 18, 0.9):
        fig.text(LEFT, y, part, fontsize=18, weight="bold", va="top")
        y -= _line_height(18)
    y -= 0.015
    y = _text_block(fig, y, front.paragraphs[:1], 11)
    y -= 0.01
    for tab in front.tables:
        columns, chunks = _table_chunks(tab)
        _table_page(tab, chunks[0], columns, "", list(tab.faint))(fig, y)
        y -= _table_height(tab, chunks[0], columns)
    _text_block(fig, y, front.paragraphs[1:], 10.5)
    return fig


def _table_page(
    table: StrategyTable,
    rows: list[list[str]],
    columns: list[str],
    part: str,
    faint: list[bool] | None = None,
) -> Callable[[Figure, float], None]:
    """A drawer of one table chunk (cell strings, wrapped) below height ``y``."""
    text_cols = text_columns(table)

    def draw(fig: Figure, y: float) -> None:
        fig.text(LEFT, y, table.title + part, fontsize=12, weight="bold", va="top")
        y -= 0.035
        y = _text_block(fig, y, [f"{table.description} [{table.basis_text}]"], 8.5)
        if table.note:
            y = _text_block(fig, y, [table.note], 8.5, style="italic")
        if not rows:
            return
        cells = rows
        labels = _labels(columns)
        widths = [
            max(
                [math.ceil(len(line) * BOLD_WIDTH) for line in labels[k].split("\n")]
                + [len(line) for r in cells for line in r[k].split("\n")]
            )
            for k in range(len(columns))
        ]
        total = sum(max(w, 4) for w in widths)
        lines = [_lines(labels)] + [_lines(r) for r in cells]  # the header, then each row
        height = min(y - 0.06, 0.026 * sum(lines))
        ax = fig.add_axes((LEFT, y - 0.01 - height, 0.9, height))
        ax.axis("off")
        tab = ax.table(
            cellText=cells,
            colLabels=labels,
            colWidths=[max(w, 4) / total for w in widths],
            loc="upper left",
            cellLoc="right",
        )
        tab.auto_set_font_size(False)
        # the widest line of every column side by side must fit the table's width
        fit = 0.9 * PAGE[0] * 72 / (sum(max(w, 4) + 2 for w in widths) * CHAR_EM)
        tab.set_fontsize(min(6.5 if len(columns) > 8 else 7.5, fit))
        tab.scale(1.0, 1.0)
        text_columns = {k for k, c in enumerate(columns) if c in text_cols}
        for (r, c), cell in tab.get_celld().items():
            cell.set_linewidth(0.3)
            cell.set_height(cell.get_height() * lines[r])
            if c in text_columns:
                cell.get_text().set_horizontalalignment("left")
                cell._loc = "left"  # noqa: SLF001 (matplotlib positions text by _loc)
                # matplotlib pads by a share of the width: make it the same for every column
                cell.PAD = min(DEFAULT_CELL_PAD, TEXT_CELL_PAD / max(cell.get_width(), 1e-9))
            if r == 0:
                cell.set_facecolor("#eef1f7")
                cell.set_text_props(weight="bold")
            elif faint and r - 1 < len(faint) and faint[r - 1]:
                cell.get_text().set_color(FAINT)

    return draw


def write_pdf(report: Report, path: Path, on_section: Callable[[int], None] | None = None) -> int:
    """Write the report as a PDF to ``path``; return the number of pages.

    ``on_section`` is told how many sections are done after each one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    plan = _plan(report)
    total = 1 + len(plan)
    ends = {item[0]: page for page, items in enumerate(plan, 2) for item in items}
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:
        meta = pdf.infodict()
        meta["Title"] = report.title
        meta["Subject"] = "Complots strategy report"
        pdf.savefig(_title_page(report))
        for page, items in enumerate(plan, 2):
            fig: Figure | None = None
            y = TOP
            for number, section, k, kind, item, need in items:
                below = y - (HEADING if k == 0 else 0.0)
                if kind == "figure":
                    spec = item
                    fig = _figure_page(spec.make(), spec.title, spec.caption, below)  # type: ignore[union-attr]
                else:
                    fig = fig or Figure(figsize=PAGE)
                    if kind == "text":
                        _text_block(fig, below, item, PARAGRAPH)  # type: ignore[arg-type]
                    else:
                        item(fig, below)  # type: ignore[operator]
                if k == 0:
                    heading = f"{number}. {section.title}"
                    fig.text(LEFT, y, heading, fontsize=15, weight="bold", va="top")
                y -= need
            assert fig is not None
            fig.text(LEFT, 0.02, report.title, fontsize=7, color="#5a6275")
            fig.text(0.95, 0.02, f"page {page} of {total}", fontsize=8, ha="right")
            pdf.savefig(fig)
            if on_section:
                for number in (n for n, end in ends.items() if end == page):
                    on_section(number)
    return total


def _figure_page(fig: Figure, title: str, caption: str, top: float) -> Figure:
    """Resize a report figure to the page and put its title and caption above it (vector)."""
    fig.set_size_inches(*PAGE)
    fig.tight_layout(rect=(0.03, 0.07, 0.97, top - 0.1))
    fig.text(LEFT, top, title, fontsize=12, weight="bold", va="top")
    _text_block(fig, top - 0.035, [caption], 8.5)
    return fig
