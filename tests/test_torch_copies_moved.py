"""Correct changes that move where torch's Hirschberg split defect shows pass the gate; new bugs
beside a known defect still fail it.

Each copy of torch's knapsack.py here changes dp_knapsack_sliding_hirschberg correctly but leaves
torch's split line in place, so the copy over-fills other instances than torch does: OVER_BUDGET
where torch is OPTIMAL. That defect reaches instances of every shape, so judged by the instance it
was a regression and the gate failed every such change. Judged by intervention, the copy with
torch's split repaired in its own source is OPTIMAL there: the known defect, moved. A copy with an
over-budget bug of its own beside the split defect, or a float bug of its own beside torch's float32
table, still fails with the repair made: a regression, reproduced where torch passes.

One report judges the four moved copies side by side (each against torch's function of its name),
so that they share one run of the instances.
"""

import json
import re

import pytest
from first_screens import first_screen
from shared_runs import run_once
from test_torch_copies import assert_reproduces_the_copys_own_defect, regressions
from torch_copies import (
    RUNTIMES_FLOAT16,
    SPLIT_BY_WEIGHT,
    SPLIT_HALVES_EXCHANGED,
    SPLIT_IN_HELPER,
    SPLIT_LAST_BEST,
    SPLIT_QUOTED,
    SPLIT_ROUNDED_UP,
    write_copy,
)

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main

SLIDING = "dp_knapsack_sliding_hirschberg"
MOVED = {"halves_exchanged": SPLIT_HALVES_EXCHANGED, "last_best_split": SPLIT_LAST_BEST,
         "split_by_weight": SPLIT_BY_WEIGHT, "split_rounded_up": SPLIT_ROUNDED_UP,
         "split_in_a_helper": (*SPLIT_IN_HELPER, *SPLIT_HALVES_EXCHANGED),
         "quoted_in_a_docstring": (*SPLIT_QUOTED, *SPLIT_HALVES_EXCHANGED)}
"""Each moves torch's split defect; the last two also move its code into a module-level helper, or
quote its line in a docstring and a comment: structure finds the code in the helper, and text in a
docstring or comment is not code."""


def _copies(root) -> dict:
    return {name: f"{root / name / 'knapsack.py'}:{SLIDING}" for name in MOVED}


def _gate_the_moved_copies(root) -> None:
    for name, edit in MOVED.items():
        (root / name).mkdir()
        write_copy(root / name / "knapsack.py", edit)
    status = main(["report", "--candidate", *_copies(root).values(), "--baseline", f"torch:{SLIDING}",
                   "--families", "tiny", "exhaustive_small", "large_capacity", "--per-family", "5",
                   "--bench-repeats", "0", "--out", str(root / "report")])
    (root / "status").write_text(str(status))


@pytest.fixture(scope="module")
def moved_report(tmp_path_factory):
    """One gate of the four copies against torch, run once for every xdist worker."""
    root = run_once(tmp_path_factory, "moved", _gate_the_moved_copies)
    out = root / "report"
    return (int((root / "status").read_text()), _copies(root), json.loads((out / "report.json").read_text()),
            (out / "report.md").read_text())


def test_correct_changes_that_move_the_split_defect_pass_the_gate(moved_report):
    status, copies, data, _ = moved_report
    assert status == exit_status.OK, data["gate"]["failing"]
    assert data["gate"]["passed"] and data["gate"]["failing"] == []
    assert not regressions(data["correctness"])


@pytest.mark.parametrize("name", sorted(MOVED))
def test_each_copy_over_fills_where_torch_does_not_and_its_repair_passes_there(moved_report, name):
    _, copies, data, _ = moved_report
    copy = copies[name]
    moved = [f for f in data["correctness"]["failures"] if f["solver"] == copy and f["status"] == "known defect, now visible"]
    assert moved, f"{name} over-fills nowhere torch does not: it does not move the defect"
    for failure in moved:
        assert (failure["verdict"], failure["baseline"]["verdict"], failure["causes"]) == (
            "OVER_BUDGET", "OPTIMAL", ["hirschberg_split"])
        assert failure["repaired"]["decided"] and failure["repaired"]["verdict"] == "OPTIMAL"
        assert "hirschberg_split" in failure["repaired"]["repairs"]
    (split,) = [r for r in data["correctness"]["repairs"][copy] if r["cause"] == "hirschberg_split"]
    assert split["applied"] and [h["after"].strip() for h in split["hunks"]] == ["right_capacity = (capacity - 1) - best_split"]
    assert [h["function"] for h in split["hunks"]] == ["_split_capacities" if name == "split_in_a_helper" else SLIDING]
    fixes = [f for f in data["gate"]["fixes"] if f["candidate"] == copy and f["causes"] == ["hirschberg_split"]]
    assert all(f["by_chance"] for f in fixes), "passing where torch over-fills is chance: the split line is still there"


def test_the_report_of_a_moved_defect_names_the_repair_and_shows_the_repaired_candidate_passes(moved_report):
    _, _, _, markdown = moved_report
    assert "(known defect, now visible: [hirschberg_split](#cause-hirschberg_split))" in markdown
    assert "it is OPTIMAL on this instance: the failure is that known defect, moved" in markdown
    assert "- repair hirschberg_split: line 246: `right_capacity = capacity - best_split` -> " \
           "`right_capacity = (capacity - 1) - best_split`" in markdown
    how = markdown[markdown.index("## How the gate decides"):]
    assert "The baseline's known defects in the candidate's source" in how and "hirschberg_split at line 246" in how
    screen = first_screen(markdown)
    assert "fixes" not in screen.lines[2], "passing where torch over-fills by chance is no fix"
    by_chance = r"0(; \d+: .*\[hirschberg_split\]\(#cause-hirschberg_split\).* by chance)?"
    assert all(re.fullmatch(by_chance, row["fixes (causes)"]) for row in screen.rows), screen.rows


def test_a_float_bug_of_its_own_beside_torchs_float32_table_still_fails(tmp_path, monkeypatch):
    """Runtimes read in float16: with float32's repair (the table in float64) the copy still rounds
    2049 to 2048. A regression, reproduced where torch passes."""
    monkeypatch.chdir(tmp_path)
    copy = write_copy(tmp_path / "knapsack.py", RUNTIMES_FLOAT16)
    out = tmp_path / "report"
    status = main(["report", "--candidate", f"{copy}:dp_knapsack", "--baseline", "torch:dp_knapsack",
                   "--families", "runtime_span", "--per-family", "5", "--bench-repeats", "0", "--out", str(out)])
    data = json.loads((out / "report.json").read_text())["correctness"]
    assert status == exit_status.FAILED
    found = regressions(data)
    assert found and all(f["repaired"] is None or f["repaired"]["verdict"] == f["verdict"] for f in found)
    assert_reproduces_the_copys_own_defect(found[0])
