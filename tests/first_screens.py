"""Reading report.md's first screen as a reviewer does: the verdict line, the per-function table,
the reproduction, all before the first heading below the title."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CELL_BORDER = re.compile(r"(?<!\\)\|")


@dataclass
class FirstScreen:
    lines: list[str]
    """report.md's lines up to the first ``## `` heading."""
    table_start: int
    """The index of the per-function table's header line in report.md."""
    rows: list[dict[str, str]]
    """The table's rows, each cell by its column's header."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def table_end(self) -> int:
        """The index of the table's last line."""
        return self.table_start + 1 + len(self.rows)

    def row(self, function: str) -> dict[str, str]:
        (found,) = [row for row in self.rows if row["function"] == f"`{function}`"]
        return found


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in _CELL_BORDER.split(line)[1:-1]]


def first_screen(markdown: str) -> FirstScreen:
    lines = markdown.splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    start = next(i for i, line in enumerate(lines) if line.startswith("| function |"))
    header = _cells(lines[start])
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, _cells(line))))
    return FirstScreen(lines[:end], start, rows)
