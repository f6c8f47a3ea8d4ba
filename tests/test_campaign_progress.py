"""The campaign's live display keeps to the terminal's width; its plain line names only failures."""

from collections import Counter

from rich.console import Console

from fuzz.campaign import Progress
from oracles.verdict import Verdict
from reports.campaign_report import progress_line, progress_view

SOLVERS = ["full_table", "sliding_hirschberg", "/a/very/long/path/to/a/pull/request/checkout/torch/knapsack.py:dp_knapsack"]
PROGRESS = Progress(
    elapsed=3725.0,
    remaining=25075.0,
    cases=123456,
    verified=123000,
    counts={name: Counter({v.value: 1000 + i for i, v in enumerate(Verdict)}) for name in SOLVERS},
    workers=16,
    stored=12,
    troubles=1,
)


def test_the_live_display_fits_a_narrow_terminal():
    console = Console(width=60, record=True, color_system=None)
    console.print(progress_view(PROGRESS))
    lines = console.export_text().splitlines()
    assert len(lines) == 1 + 1 + len(SOLVERS), "a headline, a header, one row per solver"
    assert max(len(line) for line in lines) <= 60
    assert lines[0].startswith("1:02:05 elapsed, 6:57:55 left, 123456 cases")


def test_the_plain_line_counts_only_failing_verdicts():
    line = progress_line(PROGRESS)
    assert "16 workers" in line and "1 lost or retried" in line
    assert "full_table SUBOPTIMAL=1001" in line
    assert "OPTIMAL=1000" not in line and "UNVERIFIED" not in line
