"""One table, three renderings: Markdown (report.md, campaign.md, bench), HTML (report.html), and
aligned plain text (the terminal).

Cells are text. Markdown cells are inline Markdown the caller has made safe
(``knapcheck.reports.markdown`` quotes what a target supplies); the table keeps its own shape, so
a ``|`` in a cell is escaped and a line break becomes a space. HTML cells are plain text, escaped
here. Every column is left-aligned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Sequence

SCROLLS = "table-scroll"
"""The class of the element each HTML table sits in: a page's style lets a wide table scroll within it."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[str]]

    def __post_init__(self) -> None:
        for index, row in enumerate(self.rows):
            if len(row) != len(self.header):
                raise ValueError(f"table row {index} has {len(row)} cells, the header {len(self.header)}")

    def markdown(self) -> list[str]:
        """A GitHub-flavoured pipe table, one line per row."""
        lines = [_markdown_row(self.header), "|" + "---|" * len(self.header)]
        return lines + [_markdown_row(row) for row in self.rows]

    def html(self) -> str:
        """A ``<table>`` with a head and a body, inside a ``<div class="table-scroll">``."""
        head = "".join(f"<th>{escape(cell)}</th>" for cell in self.header)
        body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in self.rows)
        return f'<div class="{SCROLLS}"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'

    def text(self) -> str:
        """Columns padded to their widest cell, two spaces apart, a rule of dashes under the header."""
        rows = [[_one_line(cell) for cell in row] for row in [self.header, *self.rows]]
        widths = [max(len(row[i]) for row in rows) for i in range(len(self.header))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * width for width in widths))
        return "\n".join(lines)


def _one_line(cell: str) -> str:
    return _LINE_BREAK.sub(" ", cell)


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_one_line(cell).replace("|", "\\|") for cell in cells) + " |"
