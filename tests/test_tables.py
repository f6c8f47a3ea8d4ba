"""One table module renders every table: Markdown that keeps its shape, escaped HTML, aligned text."""

from typing import cast

import pytest
from markdown_it import MarkdownIt

from knapcheck.reports.tables import SCROLLS, Table

TABLE = Table(["solver", "verdict"], [["a|b", "OPTIMAL"], ["line\nbreak", "<script>x</script>"]])


def _cells(markdown: str) -> list[list[str]]:
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    rows: list[list[str]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close":
            rows.append(cast(list[str], row))  # a row closes after it opened
            row = None
    return rows


def test_markdown_keeps_one_row_per_row_and_one_cell_per_column_whatever_the_cells_hold():
    lines = TABLE.markdown()
    assert len(lines) == 4
    cells = _cells("\n".join(lines))
    assert [len(row) for row in cells] == [2, 2, 2] and cells[1] == ["a|b", "OPTIMAL"]
    assert cells[2][0] == "line\\\\nbreak"
    rendered = MarkdownIt("commonmark").enable("table").render("\n".join(lines))
    assert "<script>" not in rendered and "&lt;script&gt;x&lt;/script&gt;" in rendered


def test_markdown_leaves_ordinary_cells_as_they_are():
    table = Table(["solver", "worst instance"], [["dp_knapsack", "n=1, max_memory=0.0"], ["x", "< 4 KiB"]])
    assert table.markdown()[2:] == ["| dp_knapsack | n=1, max_memory=0.0 |", "| x | < 4 KiB |"]


def test_html_escapes_every_cell_and_sits_in_a_container_that_scrolls():
    html = TABLE.html()
    assert html.startswith(f'<div class="{SCROLLS}"><table><thead><tr><th>solver</th>')
    assert "<script>" not in html and "&lt;script&gt;" in html and html.endswith("</tbody></table></div>")


def test_text_pads_columns_and_leaves_no_trailing_spaces():
    text = Table(["solver", "n"], [["full_table", "1"], ["a", "12345"]]).text()
    assert text.splitlines() == ["solver      n", "----------  -----", "full_table  1", "a           12345"]


def test_a_row_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="row 0 has 1 cells, the header 2"):
        Table(["a", "b"], [["x"]])
