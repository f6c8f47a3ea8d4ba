"""What a reviewer reads first: report.md opens with the answer.

Read on the shared gate of torch's copies (copies_gate): torch's repaired file (two functions), a
planted new bug, a fix, and a fix beside a new bug, each against torch's function of its name. The
verdict line and the per-function table lie within report.md's first 25 lines, and the
reproduction of a regression follows them; each cause is a short name there, linked to its one
explanation below; everything else is folded, the baseline's own failures under a heading of
their own. report.md used to open with a 60-word rule, a 2 400-character paragraph repeating each
cause's text in every combination, and torch's failures listed under "Failures".
"""

import json
import re

import pytest
from copies_gate import copies_gate, copy_specs
from first_screens import first_screen
from markdown_it import MarkdownIt

from knapcheck.commands import exit_status
from knapcheck.fuzz.judging.known.defects import CAUSES
from knapcheck.solvers.specs import shown

MOST_LINES = 25
"""The verdict and the per-function table lie within report.md's first 25 lines."""
MOST_BYTES = 16 * 1024
"""report.md of torch's repaired file was 32 KB, and is to fit in half (docs/gate.md measures it on
the default families). Here, all but the candidate's failures, which the repaired file has none of."""


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    """The shared gate's exit status, each copy's functions as report.md shows them, report.json and report.md."""
    root = copies_gate(tmp_path_factory)
    report = root / "report"
    functions = {name: [shown(spec) for spec in found] for name, found in copy_specs(root).items()}
    return (int((root / "status").read_text()), functions, json.loads((report / "report.json").read_text()),
            (report / "report.md").read_text())


def test_the_verdict_and_a_row_per_function_open_report_md(gate):
    status, specs, data, markdown = gate
    screen = first_screen(markdown)
    failing = data["gate"]["failing"]
    assert status == exit_status.FAILED and len(failing) >= 2
    assert screen.lines[2] == (f"**Gate: FAILED** under the differential rule (the default): {len(failing)} regressions"
                               " in 2 functions. Exit status 1.")
    assert screen.table_end < MOST_LINES
    assert [row["function"] for row in screen.rows] == [f"`{spec}`" for found in specs.values() for spec in found]
    (finfo,) = specs["finfo"]
    assert re.fullmatch(r"\d+: SUBOPTIMAL", screen.row(finfo)["regressions"]) and screen.row(finfo)["fixes (causes)"] == "0"
    (fix_and_bug,) = specs["fix_and_bug"]
    assert screen.row(fix_and_bug)["fixes (causes)"].endswith(": [float32](#cause-float32)")
    (width,) = specs["width"]
    assert screen.row(width)["regressions"] == "0"
    assert screen.row(width)["fixes (causes)"].endswith(": [hirschberg_split](#cause-hirschberg_split)")
    assert screen.row(width)["known defects only moved"].endswith(": [float32](#cause-float32)")
    for spec in specs["repaired"]:
        row = screen.row(spec)
        assert row["regressions"] == "0" and row["known defects only moved"] == "0"
        assert "[float32](#cause-float32)" in row["fixes (causes)"]
        assert row["time ratio (99% interval), worst size"] == "not measured"
    assert "[hirschberg_split](#cause-hirschberg_split)" in screen.row(specs["repaired"][1])["fixes (causes)"]


def test_the_first_regression_s_reproduction_follows_the_table(gate):
    _, _, data, markdown = gate
    screen = first_screen(markdown)
    (first,) = [f for f in data["correctness"]["failures"] if f["signature"] == data["gate"]["failing"][0]]
    fence = screen.lines.index("```python")
    assert screen.table_end < fence
    assert "\n".join(screen.lines[fence + 1:]).startswith(first["reproduction"] + "\n```")
    assert markdown.count(first["reproduction"]) == 1, "shown once: its failure below points up to it"


def test_each_cause_is_named_by_its_short_name_and_explained_once_below(gate):
    _, _, _, markdown = gate
    screen = first_screen(markdown)
    named = set(re.findall(r"\]\(#cause-(\w+)\)", screen.text))
    assert {"float32", "hirschberg_split"} <= named
    for name in named:
        assert CAUSES[name].what not in screen.text
        assert markdown.count(CAUSES[name].what) == 1
        assert markdown.count(f'<a id="cause-{name}"></a>') == 1
    assert not [c.what for c in CAUSES.values() if c.what in screen.text]


def test_everything_else_is_folded_and_the_baseline_s_failures_are_its_own(gate):
    _, _, data, markdown = gate
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert headings == ["Causes", "Failures of the candidate", "Performance", "How the gate decides",
                        "Candidate against baseline, instance by instance", "The baseline's known defects on these instances",
                        "Real memory against max_memory", "Environment"]
    sections = re.split(r"^## .*$", markdown, flags=re.M)[1:]
    folded = dict(zip(headings, sections))
    assert folded["Performance"].strip() == "Not measured (--bench-repeats 0).", "nothing measured: nothing to fold"
    for heading in {*headings} - {"Causes", "Performance"}:
        assert "<details><summary>" in folded[heading] and folded[heading].count("<details>") == folded[heading].count("</details>")
    candidate = folded["Failures of the candidate"]
    assert len(markdown.encode()) - len(candidate.encode()) <= MOST_BYTES
    baseline = folded["The baseline's known defects on these instances"]
    failures = data["correctness"]["failures"]
    of_candidate = [shown(f["solver"]) for f in failures if f["role"] == "candidate"]
    assert re.findall(r"^### \d+\. `([^`]+)`", candidate, re.M) == of_candidate
    of_baseline = [shown(f["solver"]) for f in failures if f["role"] == "baseline"]
    assert of_baseline and re.findall(r"^\| `([^`]+)` \|", baseline, re.M) == of_baseline
    assert not set(of_baseline) & set(of_candidate)
