"""A report's pages: the same sections written as Markdown and as self-contained HTML.

A :class:`Section` holds a heading, paragraphs, an optional table (header + rows of text)
and figures (PNG paths with captions). :func:`write_markdown` links the figures;
:func:`write_html` embeds them, so ``report.html`` can be mailed on its own. A table column
listed in ``link_column`` holds relative links (``views/…html``) shown as "view".
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1f2933}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border-bottom:1px solid #e3e7eb;
padding:3px 10px;text-align:right}td:first-child,th:first-child,td:nth-child(2),th:nth-child(2)
{text-align:left}th{background:#f4f6f8}img{max-width:100%;border:1px solid #e3e7eb}
figure{margin:16px 0}figcaption{color:#52606d;font-size:13px}.notes{color:#8a5a00}"""


@dataclass
class Section:
    """One part of a report page."""

    heading: str
    paragraphs: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    text_columns: int = 2
    link_column: int | None = None
    figures: list[tuple[Path, str]] = field(default_factory=list)
    max_md_rows: int | None = None


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int = 2) -> str:
    """A Markdown table; the first ``text_columns`` columns left-aligned, the others right."""
    align = [":---" if i < text_columns else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_markdown(path: Path, title: str, intro: Sequence[str], notes: Sequence[str],
                   sections: Sequence[Section], footer: str = "") -> None:
    """Write the sections as Markdown (figures linked relative to ``path``)."""
    out = [f"# {title}", "", *intro, ""]
    if notes:
        out += ["Notes:", *[f"- {n}" for n in notes], ""]
    for section in sections:
        out += [f"## {section.heading}", ""]
        if section.header:
            rows = [list(r) for r in section.rows]
            shown = rows[: section.max_md_rows] if section.max_md_rows else rows
            if section.link_column is not None:
                for row in shown:
                    link = row[section.link_column]
                    row[section.link_column] = f"[view]({link})" if link else ""
            out += [md_table(section.header, shown, section.text_columns), ""]
            if len(shown) < len(rows):
                out += [f"{len(rows) - len(shown)} more rows in report.html and the CSV files.",
                        ""]
        for paragraph in section.paragraphs:
            out += [paragraph, ""]
        for fig, caption in section.figures:
            rel = fig.relative_to(path.parent) if fig.is_relative_to(path.parent) else fig
            out += [f"![{fig.stem}]({rel.as_posix()})", "", caption, ""]
    if footer:
        out += [footer, ""]
    path.write_text("\n".join(out), encoding="utf-8")


def _html_table(section: Section) -> str:
    esc = html.escape
    out = ["<table><thead><tr>", *[f"<th>{esc(h)}</th>" for h in section.header],
           "</tr></thead><tbody>"]
    for row in section.rows:
        cells = []
        for i, cell in enumerate(row):
            if i == section.link_column:
                cells.append(f"<a href='{esc(cell)}'>view</a>" if cell else "")
            else:
                cells.append(esc(str(cell)))
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def write_html(path: Path, title: str, intro: Sequence[str], notes: Sequence[str],
               sections: Sequence[Section], footer: str = "") -> None:
    """Write the sections as one self-contained HTML page (figures embedded)."""
    esc = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{esc(title)}</h1>", *[f"<p>{esc(s)}</p>" for s in intro]]
    if notes:
        out.append("<ul class='notes'>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    for section in sections:
        out.append(f"<h2>{esc(section.heading)}</h2>")
        if section.header:
            out.append(_html_table(section))
        out += [f"<p>{esc(p)}</p>" for p in section.paragraphs]
        for fig, caption in section.figures:
            data = base64.b64encode(fig.read_bytes()).decode("ascii")
            out.append(f"<figure><img alt='{esc(fig.stem)}' src='data:image/png;base64,{data}'>"
                       f"<figcaption>{esc(caption)}</figcaption></figure>")
    if footer:
        out.append(f"<p>{esc(footer)}</p>")
    out.append("</body></html>")
    path.write_text("\n".join(out), encoding="utf-8")
