"""Render a :class:`Report` as one self-contained HTML file.

Inline CSS, figures as base64 PNG, tables sortable by clicking a header
(a few lines of inline JavaScript); nothing is fetched from the network.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from complots_solver.reports.document import Report, Section, display_frame
from complots_solver.reports.figures import png_bytes

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1100px;color:#1d2330;line-height:1.45;padding:0 1em}
h1{font-size:1.7em;margin-bottom:.2em;overflow-wrap:anywhere}h2{border-bottom:2px solid #d8dce6;padding-bottom:.2em;
margin-top:2em}h3{font-size:1.05em;margin-bottom:.3em}
table{border-collapse:collapse;font-size:.82em;margin:.4em 0 1.2em;max-width:100%}
th,td{border:1px solid #d8dce6;padding:.25em .55em;text-align:right;overflow-wrap:normal;
word-break:normal;hyphens:none}td{font-variant-numeric:tabular-nums}
th{background:#eef1f7;cursor:pointer;user-select:none;position:sticky;top:0}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.text,th.text{text-align:left}tr:nth-child(even) td{background:#fafbfd}
.facts td{text-align:left}.basis{font-size:.8em;color:#5a6275}
.note{font-style:italic;color:#5a6275}figure{margin:1em 0}figcaption{font-size:.85em;color:#5a6275}
nav ul{columns:2;font-size:.9em}img{max-width:100%}
.table-wrap{max-height:34em;overflow-y:auto;max-width:100%}
tr.faint td{color:#a0a6b4}
table.wide{font-size:.68em}table.wide th,table.wide td{padding:.2em .3em}
.warning{border:3px solid #b3261e;background:#fdecea;color:#5f1412;padding:.6em 1em;
margin:1em 0;font-weight:600}
"""

JS = """
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var asc=!th.classList.contains('sorted-asc');
      t.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc')});
      th.classList.add(asc?'sorted-asc':'sorted-desc');
      var body=t.tBodies[0],rows=Array.from(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[i].textContent.trim(),y=b.cells[i].textContent.trim();
        var nx=parseFloat(x.replace(/,/g,'')),ny=parseFloat(y.replace(/,/g,''));
        var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
        return asc?c:-c;});
      rows.forEach(function(r){body.appendChild(r)});
    });
  });
});
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ report.title }}</title><style>{{ css | safe }}</style></head>
<body>
<h1>{{ report.title }}</h1>
{% macro show(s) %}
<section id="{{ s.key }}"><h2>{{ s.title }}</h2>
{% for p in s.paragraphs[:s.lead] %}<p>{{ p }}</p>{% endfor %}
{% for t in s.rendered_tables %}
<h3 id="table-{{ t.key }}">{{ t.title }}</h3>
<p>{{ t.description }} <span class="basis">[{{ t.basis }}]</span></p>
{% if t.note %}<p class="note">{{ t.note }}</p>{% endif %}
{% if t.rows %}<div class="table-wrap"><table class="sortable{{ ' wide' if t.columns | length > WIDE_COLUMNS else '' }}" data-key="{{ t.key }}"><thead><tr>
{% for c in t.columns %}<th class="{{ 'text' if c.text else '' }}">{{ c.name | breakable }}</th>{% endfor %}
</tr></thead><tbody>
{% for r in t.rows %}<tr{% if t.faint[loop.index0] %} class="faint"{% endif %}>{% for v in r %}<td class="{{ 'text' if t.columns[loop.index0].text else '' }}">{{ v | breakable }}</td>{% endfor %}</tr>
{% endfor %}</tbody></table></div>{% endif %}
{% endfor %}
{% for p in s.paragraphs[s.lead:] %}<p>{{ p }}</p>{% endfor %}
{% for text, href in s.links %}<p><a href="{{ href }}">{{ text }}</a></p>{% endfor %}
{% for f in s.rendered_figures %}
<figure id="figure-{{ f.key }}"><img alt="{{ f.title }}" src="data:image/png;base64,{{ f.data }}">
<figcaption>{{ f.title }}: {{ f.caption }}</figcaption></figure>
{% endfor %}
</section>
{% endmacro %}
{% if report.front %}{{ show(report.front) }}{% endif %}
{% for w in report.warnings %}<div class="warning" role="alert">{{ w }}</div>
{% endfor %}
<table class="facts">{% for k, v in report.facts %}<tr><th class="text">{{ k }}</th>
<td class="text">{{ v | breakable }}</td></tr>{% endfor %}
<tr><th class="text">Report date</th><td class="text">{{ report.created }}</td></tr></table>
<nav><ul>{% for s in report.sections %}<li><a href="#{{ s.key }}">{{ s.title }}</a></li>
{% endfor %}</ul></nav>
{% for s in report.sections %}{{ show(s) }}{% endfor %}
<script>{{ js | safe }}</script>
</body></html>
"""


WIDE_COLUMNS = 9  # a table with more columns is set smaller, so that no cell breaks a word
LONG_WORD = 30  # a longer word may break after its commas and '+' (game strings, line-ups)
_LONG = re.compile(r"\S{" + str(LONG_WORD) + ",}")


def breakable(value: object) -> Markup:
    """A cell's text, escaped, with a line break allowed after each ',' and '+' of a long word.

    Cells never break inside a word or a number; a game string such as
    ``complots(players=2,...)`` or a five-character line-up would otherwise
    widen its table past the page.
    """
    return Markup(_LONG.sub(_break_points, str(escape(value))))


def _break_points(m: re.Match) -> str:
    """The matched long word with <wbr> after its commas and plus signs."""
    return m.group(0).replace(",", ",<wbr>").replace("+", "+<wbr>")


def restyle(html: str) -> str:
    """A report written by an earlier version, given the current stylesheet and cell breaks."""
    html = re.sub(
        r"<style>.*?</style>", lambda _: f"<style>{CSS}</style>", html, count=1, flags=re.S
    )

    def cell(m: re.Match) -> str:
        body = m.group(3)
        if "<" in body:  # already marked up
            return m.group(0)
        return m.group(1) + _LONG.sub(_break_points, body) + m.group(4)

    return re.sub(r"(<(td|th)[^>]*>)(.*?)(</\2>)", cell, html, flags=re.S)


def render_html(
    report: Report, dpi: int = 80, on_section: Callable[[int], None] | None = None
) -> str:
    """The report as one HTML document; ``on_section`` is told how many sections are done."""

    def shown(s: Section, lead: int) -> dict:
        tables = []
        for t in s.tables:
            frame = display_frame(t)
            text_cols = {
                c
                for c in t.frame.columns
                if t.frame[c].dtype == object or str(t.frame[c].dtype) == "str"
            } | {"distribution"}
            tables.append(
                {
                    "key": t.key,
                    "title": t.title,
                    "description": t.description,
                    "basis": t.basis_text,
                    "note": t.note,
                    "columns": [{"name": c, "text": c in text_cols} for c in frame.columns],
                    "rows": frame.values.tolist(),
                    "faint": [bool(x) for x in t.faint] + [False] * (len(frame) - len(t.faint)),
                }
            )
        rendered = []
        for f in s.figures:
            fig = f.make()
            rendered.append(
                {
                    "key": f.key,
                    "title": f.title,
                    "caption": f.caption,
                    "data": base64.b64encode(png_bytes(fig, dpi)).decode("ascii"),
                }
            )
        return {
            "key": s.key,
            "title": s.title,
            "paragraphs": s.paragraphs,
            "lead": lead,
            "links": s.links,
            "rendered_tables": tables,
            "rendered_figures": rendered,
        }

    sections = []
    for s in report.sections:
        sections.append(shown(s, len(s.paragraphs)))
        if on_section:
            on_section(len(sections))
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["breakable"] = breakable
    view = {"title": report.title, "facts": report.facts, "created": report.created}
    view["warnings"] = report.warnings
    view["sections"] = sections
    # the front section: its first paragraph above its table, the rest below (as on page 1)
    view["front"] = shown(report.front, 1) if report.front is not None else None
    env.globals["WIDE_COLUMNS"] = WIDE_COLUMNS
    return env.from_string(TEMPLATE).render(report=view, css=CSS, js=JS)


def write_html(report: Report, path: Path, on_section: Callable[[int], None] | None = None) -> Path:
    """Write the report's HTML to ``path`` (``on_section``: see :func:`render_html`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report, on_section=on_section), encoding="utf-8")
    return path
