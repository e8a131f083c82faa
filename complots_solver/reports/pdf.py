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
WRAP = 150


def page_count(report: Report) -> int:
    """Number of pages :func:`write_pdf` writes for ``report``."""
    return 1 + len(_plan(report))


def _line_height(size: float) -> float:
    """Height of one text line of ``size`` points, as a share of the page height."""
    return size / 72 / PAGE[1] * 1.45


def _text_height(lines: list[str], size: float) -> float:
    """Height :func:`_text_block` takes for ``lines``."""
    wrapped = sum(len(textwrap.wrap(line, WRAP) or [""]) for line in lines)
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


def _plan(report: Report) -> list[list[_Item]]:
    """The pages after the title page, each a list of items drawn from the top down.

    Each table chunk and figure gets its own page; with ``report.compact``
    table chunks and text-only sections share a page while they fit, so that
    small tables leave no nearly empty pages (figures still take a page).
    """
    room = TOP - BOTTOM
    pages: list[list[_Item]] = []
    used = room  # no open page yet
    open_page = False
    for number, section in enumerate(report.sections, 1):
        items: list[tuple[str, object, float]] = []
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
            items.append(("text", None, 0.0))
        head = 0.05 + _text_height(section.paragraphs, 9.5)
        first = items[0][2]
        if section.paragraphs and items[0][0] == "table" and room - head < 0.6 * first:
            # below the text the table would be squeezed (at worst to a negative height, which
            # matplotlib refuses): the text takes a page of its own
            items.insert(0, ("text", None, 0.0))
        for k, (kind, item, height) in enumerate(items):
            need = height + (head if k == 0 else 0.0)
            fits = open_page and used + need <= room
            if report.compact and kind != "figure" and fits:
                pages[-1].append((number, section, k, kind, item, need))
                used += need
                continue
            pages.append([(number, section, k, kind, item, need)])
            used = need
            open_page = report.compact and kind != "figure"
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
        wrapped = textwrap.wrap(line, WRAP) or [""]
        for part in wrapped:
            fig.text(LEFT, y, part, fontsize=size, va="top", **kw)
            y -= size / 72 / PAGE[1] * 1.45
        y -= 0.008
    return y


def _title_page(report: Report) -> Figure:
    """The title page."""
    fig = Figure(figsize=PAGE)
    fig.text(0.5, 0.86, report.title, ha="center", fontsize=20, weight="bold")
    y = 0.80
    for warning in report.warnings:
        lines = textwrap.wrap(warning, 110)
        fig.text(
            0.08,
            y,
            "\n".join(lines),
            fontsize=10.5,
            weight="bold",
            color=WARNING,
            va="top",
            linespacing=1.4,
            bbox={"boxstyle": "square,pad=0.6", "fc": "#fdecea", "ec": WARNING, "lw": 2},
        )
        y -= 0.027 * len(lines) + 0.045
    y = min(y, 0.74)
    for key, value in [*report.facts, ("Report date", report.created)]:
        fig.text(0.12, y, f"{key}:", fontsize=11, weight="bold", va="top")
        for k, part in enumerate(textwrap.wrap(str(value), 95)):
            fig.text(0.3, y - k * 0.03, part, fontsize=11, va="top")
        y -= 0.03 * max(1, len(textwrap.wrap(str(value), 95))) + 0.015
    y -= 0.02
    fig.text(0.12, y, "Contents", fontsize=12, weight="bold", va="top")
    y -= 0.035
    half = (len(report.sections) + 1) // 2
    for i, s in enumerate(report.sections):
        x = 0.14 if i < half else 0.5
        fig.text(x, y - (i % half) * 0.026, f"{i + 1}. {s.title}", fontsize=10, va="top")
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
        tab.set_fontsize(6.5 if len(columns) > 8 else 7.5)
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
                top = y
                heading = f"{number}. {section.title}" if k == 0 else ""
                if heading:
                    y -= 0.05
                if kind == "figure":
                    spec = item
                    if k == 0:
                        y = _text_block(Figure(figsize=PAGE), y, section.paragraphs, 9.5)
                    fig = _figure_page(spec.make(), spec.title, spec.caption, y)  # type: ignore[union-attr]
                    if k == 0:
                        _text_block(fig, top - 0.05, section.paragraphs, 9.5)
                else:
                    fig = fig or Figure(figsize=PAGE)
                    if k == 0:
                        y = _text_block(fig, y, section.paragraphs, 9.5)
                    if kind == "table":
                        item(fig, y)  # type: ignore[operator]
                if heading:
                    fig.text(LEFT, top, heading, fontsize=15, weight="bold", va="top")
                y = top - need
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
