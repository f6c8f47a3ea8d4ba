"""One table, three renderings: Markdown (report.md, campaign.md, bench), HTML (report.html), and
aligned plain text (the terminal).

Cells are plain text, which may come from a target (a solver's name, a path as typed): each
rendering keeps it text. In Markdown a cell is escaped (``knapcheck.reports.markdown.prose``), a
``|`` in it too, so a row keeps its cells; in HTML it is escaped. Every column is left-aligned.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Callable, Sequence

from .markdown import one_line, prose

SCROLLS = "table-scroll"
"""The class of the element each HTML table sits in: a page's style lets a wide table scroll within it."""


@dataclass(frozen=True)
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[str]]

    def __post_init__(self) -> None:
        for index, row in enumerate(self.rows):
            if len(row) != len(self.header):
                raise ValueError(f"table row {index} has {len(row)} cells, the header {len(self.header)}")

    def markdown(self, cells_are_markdown: bool = False) -> list[str]:
        """A GitHub-flavoured pipe table, one line per row. ``cells_are_markdown``: the cells are
        inline Markdown already (the caller quoted what a target supplied), not plain text."""
        inline = one_line if cells_are_markdown else prose
        lines = [_markdown_row(self.header, inline), "|" + "---|" * len(self.header)]
        return lines + [_markdown_row(row, inline) for row in self.rows]

    def html(self, breaks_after: str = "", cells_are_html: bool = False) -> str:
        """A ``<table>`` with a head and a body, inside a ``<div class="table-scroll">``.
        ``breaks_after``: characters after which a cell may wrap (``/_``: a path at its slashes,
        OVER_BUDGET over two lines), so that the table needs less width; only characters that
        ``html.escape`` leaves as they are. ``cells_are_html``: the body's cells are HTML already
        (the caller escaped what a target supplied), not plain text."""
        head = "".join(f"<th>{breakable(escape(cell), breaks_after)}</th>" for cell in self.header)
        cell_html = (lambda cell: cell) if cells_are_html else (lambda cell: breakable(escape(cell), breaks_after))
        body = "".join("<tr>" + "".join(f"<td>{cell_html(cell)}</td>" for cell in row) + "</tr>" for row in self.rows)
        return f'<div class="{SCROLLS}"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'

    def text(self) -> str:
        """Columns padded to their widest cell, two spaces apart, a rule of dashes under the header."""
        rows = [[one_line(cell) for cell in row] for row in [self.header, *self.rows]]
        widths = [max(len(row[i]) for row in rows) for i in range(len(self.header))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * width for width in widths))
        return "\n".join(lines)


def _markdown_row(cells: Sequence[str], inline: Callable[[str], str]) -> str:
    return "| " + " | ".join(inline(cell).replace("|", "\\|") for cell in cells) + " |"


def breakable(html: str, after: str) -> str:
    """``html`` with a line-break opportunity (``<wbr>``) after each of the characters ``after``."""
    for mark in after:
        html = html.replace(mark, mark + "<wbr>")
    return html
