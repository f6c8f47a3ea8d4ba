"""The gate on copies of the installed torch's knapsack.py, as a PyTorch developer runs it.

An unchanged copy passes against torch, all four functions at once (it used to fail: every file
target was judged as exact, torch's greedy as a heuristic). A copy with one new defect fails, and
its printed reproduction is of that defect: it passes on torch and fails on the copy (it used to
be torch's own known failure of the same verdict).

A copy that fixes one of torch's defects, or refactors a solver correctly, passes, and the report
opens with what it fixes: the failures it makes visible are torch's own known defects (float32
arithmetic, HiGHS' objective), judged by cause. These copies used to fail the gate, judged
instance by instance. A heuristic made worse passes, saying by how much, unless asked to fail.
"""

import json

import pytest
from first_screens import first_screen
from reproductions import assert_fails_on_the_candidate_alone, baseline_and_candidate_errors
from torch_copies import (
    DP_ASCENDING_MEMORY,
    DP_FLOAT64,
    GREEDY_STRICT_FIT,
    GREEDY_ZERO_MEMORY,
    ILP_HALF,
    ITEM_REUSE,
    MIP_GAP,
    SPLIT,
    SPLIT_FIX,
    write_copy,
)

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.float32_exact import float32_exact

FUNCTIONS = ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")


def assert_reproduces_the_copys_own_defect(failure: dict) -> None:
    """The snippet runs the baseline (torch) first, which passes; then the copy, which fails."""
    assert failure["reproduction"].splitlines()[-4].startswith("# the baseline, torch:")
    (errors,) = baseline_and_candidate_errors([failure])
    assert_fails_on_the_candidate_alone(failure, errors)


def regressions(data: dict) -> list[dict]:
    return [f for f in data["failures"] if f["status"] == "regression"]


def test_an_unchanged_copy_of_all_four_functions_passes_against_torch(tmp_path, monkeypatch):
    copy = write_copy(tmp_path / "knapsack.py")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report"
    status = main(["report", "--candidate", *(f"knapsack.py:{name}" for name in FUNCTIONS), "--baseline", "torch",
                   "--families", "tiny", "zero_items", "quantization_edges", "flop_scale", "large_capacity",
                   "--per-family", "10",
                   "--bench-repeats", "0", "--out", str(out)])
    data = json.loads((out / "report.json").read_text())
    assert status == exit_status.OK, data["gate"]
    assert (data["gate"]["rule"], data["gate"]["passed"], data["gate"]["failing"]) == ("differential", True, [])
    assert data["gate"]["fixes"] == data["gate"]["known_visible"] == []
    solvers = {s["name"]: s for s in data["correctness"]["solvers"]}
    greedy = solvers[f"{copy}:greedy_knapsack"]
    assert (greedy["promise"], greedy["promise_basis"], greedy["counterpart"]) == (
        "heuristic", "named like torch's greedy_knapsack", "torch:greedy_knapsack")
    comparisons = data["correctness"]["comparisons"]
    assert all(c["same_verdict"] == c["instances"] > 200 for c in comparisons.values())
    assert {f["status"] for f in data["correctness"]["failures"]} == {"also in baseline", "baseline"}
    markdown = (out / "report.md").read_text()
    assert "heuristic (named like torch's greedy_knapsack)" in markdown


def test_a_second_off_by_one_in_the_split_fails_the_gate_with_its_own_reproduction(tmp_path):
    copy = write_copy(tmp_path / "knapsack.py", SPLIT)
    out = tmp_path / "report"
    status = main(["report", "--candidate", f"{copy}:dp_knapsack_sliding_hirschberg",
                   "--baseline", "torch:dp_knapsack_sliding_hirschberg", "--families", "tiny", "--per-family", "5",
                   "--bench-repeats", "0", "--out", str(out)])
    data = json.loads((out / "report.json").read_text())["correctness"]
    assert status == exit_status.FAILED
    (regression,) = regressions(data)
    assert regression["signature"] == [f"{copy}:dp_knapsack_sliding_hirschberg", "OVER_BUDGET", "OPTIMAL"]
    assert regression["baseline"]["verdict"] == "OPTIMAL"
    assert_reproduces_the_copys_own_defect(regression)
    shared = [f for f in data["failures"] if f["status"] == "also in baseline"]
    assert "OVER_BUDGET" in [f["verdict"] for f in shared], "torch's own split defect is shown apart, as shared"
    screen = first_screen((out / "report.md").read_text())
    assert screen.lines[2].startswith("**Gate: FAILED** under the differential rule (the default): 1 regression in ")
    (row,) = screen.rows
    assert row["regressions"] == "1: OVER_BUDGET"
    assert "dp_knapsack_sliding_hirschberg OVER_BUDGET where the baseline is OPTIMAL, on " in screen.text
    assert regression["reproduction"] in screen.text


def test_a_looser_mip_gap_is_reported_with_a_reproduction_of_that_gap(tmp_path):
    """The gate with --time 12: the check of 12 instances takes about a second, and shrinking the
    gap (a search over Pisinger instances, each a HiGHS call on both sides) gets the rest."""
    copy = write_copy(tmp_path / "knapsack.py", MIP_GAP)
    out = tmp_path / "report"
    status = main(["report", "--candidate", f"{copy}:ilp_knapsack", "--baseline", "torch:ilp_knapsack",
                   "--families", "pisinger_even_odd", "--per-family", "12", "--bench-repeats", "0", "--time", "12",
                   "--out", str(out)])
    data = json.loads((out / "report.json").read_text())
    assert status == exit_status.FAILED and not data["gate"]["passed"]
    assert data["correctness"]["skipped"] == 0
    found = [f for f in regressions(data["correctness"]) if f["signature"][1:] == ["SUBOPTIMAL", "OPTIMAL"]]
    assert found, [f["signature"] for f in data["correctness"]["failures"]]
    assert_reproduces_the_copys_own_defect(found[0])
    corpus = {json.dumps(f["instance"]["id"]) for f in data["correctness"]["failures"] if f["family"] == "regression corpus"}
    assert json.dumps(found[0]["instance"]["id"]) not in corpus


def test_item_reuse_above_4096_units_is_reported_with_a_reproduction_above_4096_units(tmp_path, capsys):
    copy = write_copy(tmp_path / "knapsack.py", ITEM_REUSE)
    path = tmp_path / "check.json"
    status = main(["check", "--targets", f"{copy}:dp_knapsack", "--baseline", "torch:dp_knapsack",
                   "--families", "tiny", "large_capacity", "--per-family", "3", "--json", str(path)])
    data = json.loads(path.read_text())
    assert status == exit_status.FAILED
    wrong = [f for f in regressions(data) if f["signature"][1:] == ["WRONG_VALUE", "OPTIMAL"]]
    assert wrong and wrong[0]["family"] == "large_capacity"
    assert round(wrong[0]["instance"]["max_memory"] * 10_000) > 4096
    assert_reproduces_the_copys_own_defect(wrong[0])
    out = capsys.readouterr().out
    assert "WRONG_VALUE where the baseline is OPTIMAL" in out
    assert "torch:dp_knapsack: WRONG_VALUE, baseline" in out, "torch's float32 WRONG_VALUE is listed as the baseline's own"


def report_on(tmp_path, copy, function: str, *options: str) -> tuple[int, dict, list[str]]:
    """`knapcheck report` of one function of the copy against torch's, without the benchmark."""
    out = tmp_path / "report"
    status = main(["report", "--candidate", f"{copy}:{function}", "--baseline", f"torch:{function}",
                   "--bench-repeats", "0", *options, "--out", str(out)])
    return status, json.loads((out / "report.json").read_text()), (out / "report.md").read_text().splitlines()


def with_status(data: dict, status: str) -> list[dict]:
    return [f for f in data["correctness"]["failures"] if f["status"] == status]


def test_the_split_fix_passes_the_gate_and_its_report_opens_with_what_it_fixes(tmp_path, monkeypatch):
    """On float32_limits the fix is SUBOPTIMAL where torch is OPTIMAL (torch's extra unit of
    capacity took another path past float32's absorption) or OVER_BUDGET: torch's float32 defect,
    no longer hidden behind the split's. It used to fail the gate on those two instances."""
    monkeypatch.chdir(tmp_path)
    copy = write_copy(tmp_path / "knapsack.py", SPLIT_FIX)
    status, data, markdown = report_on(tmp_path, copy, "dp_knapsack_sliding_hirschberg",
                                       "--families", "float32_limits", "--per-family", "40")
    assert status == exit_status.OK, data["gate"]
    assert data["gate"]["passed"] and data["gate"]["failing"] == []
    (fix,) = data["gate"]["fixes"]
    assert (fix["verdict"], fix["causes"]) == ("OVER_BUDGET", ["hirschberg_split"]) and fix["instances"] >= 2
    visible = with_status(data, "known defect, now visible")
    assert {f["signature"][2] for f in visible} == {"OPTIMAL", "OVER_BUDGET"}
    assert all(f["verdict"] == "SUBOPTIMAL" and f["causes"] == ["float32"] for f in visible)
    assert not any(float32_exact(f["instance"]["runtimes"]) for f in visible)
    assert {v["baseline_verdict"] for v in data["gate"]["known_visible"]} == {"OPTIMAL", "OVER_BUDGET"}
    assert markdown[2].startswith("**Gate: passed**") and f"fixes {fix['instances']} failures of the baseline" in markdown[2]
    (row,) = first_screen("\n".join(markdown)).rows
    assert row["function"] == "`knapsack.py:dp_knapsack_sliding_hirschberg`"
    assert row["fixes (causes)"] == f"{fix['instances']}: [hirschberg_split](#cause-hirschberg_split)"
    moved = sum(v["instances"] for v in data["gate"]["known_visible"])
    assert row["known defects only moved"] == f"{moved}: [float32](#cause-float32)"
    for explained in ("`hirschberg_split`: the Hirschberg split hands the two halves capacity + 1 units",
                      "`float32`: float32 arithmetic:"):
        assert sum(explained in line for line in markdown) == 1


def test_check_against_torch_passes_the_split_fix_and_says_what_it_fixes(tmp_path, capsys):
    """The corpus's two cases of torch's split defect are enough to show the fixes."""
    copy = write_copy(tmp_path / "knapsack.py", SPLIT_FIX)
    path = tmp_path / "check.json"
    status = main(["check", "--targets", f"{copy}:dp_knapsack_sliding_hirschberg", "--baseline", "torch",
                   "--families", "tiny", "--per-family", "1", "--json", str(path)])
    data = json.loads(path.read_text())
    assert status == exit_status.OK and data["gate"]["passed"]
    assert [(f["verdict"], f["causes"], f["instances"]) for f in data["gate"]["fixes"]] == [
        ("OVER_BUDGET", ["hirschberg_split"], 2)]
    gate = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("gate on the named targets"))
    assert gate.endswith("fixes 2 of the baseline's failures: OVER_BUDGET on 2 (the Hirschberg split hands the two"
                         " halves capacity + 1 units between them)")


def test_reading_ilp_solutions_with_a_half_passes_the_gate_and_its_fix_counts_by_chance(tmp_path):
    """``x > 0.5`` saves the items HiGHS chose at 0.9999999 (the corpus's ``x == 1`` case passes),
    and its reported value, HiGHS' objective, is then 1e-13 off the saved items' sum: torch's
    ``-res.fun`` defect, WRONG_VALUE where torch was SUBOPTIMAL. That used to be a regression.
    The fix counts by chance: reading HiGHS' x by rounding still over-fills where an item of 10**6
    units sits at 0.999999 (``weight_limits``), and the ``solution_read`` repair still applies.
    The corpus is cut to ilp_knapsack's two cases of those defects, and shrinking HiGHS' answers
    to 6 s (40 % of --time)."""
    copy = write_copy(tmp_path / "knapsack.py", ILP_HALF)
    corpus = tmp_path / "corpus.json"
    cases = [c.as_dict() for c in load_known_failures() if c.cause in ("solution_read", "objective_value")]
    corpus.write_text(json.dumps({"schema_version": 1, "cases": cases}))
    instance = tmp_path / "spanner.json"
    instance.write_text(json.dumps({"memory": [0.05, 0.03, 0.048, 0.005, 0.05, 0.02],
                                    "runtimes": [500.0, 1.0, 400.0, 1.0, 200.0, 178.0], "max_memory": 0.1}))
    status, data, markdown = report_on(tmp_path, copy, "ilp_knapsack", "--families", "tight_budget", "--per-family", "1",
                                       "--corpus", str(corpus), "--instances", str(instance), "--time", "15")
    assert status == exit_status.OK, data["gate"]
    assert [(f["verdict"], f["causes"], f["instances"], f["by_chance"]) for f in data["gate"]["fixes"]] == [
        ("SUBOPTIMAL", ["solution_read"], 1, True)]
    (visible,) = with_status(data, "known defect, now visible")
    assert visible["signature"][1:] == ["WRONG_VALUE", "SUBOPTIMAL"] and visible["causes"] == ["objective_value"]
    screen = first_screen("\n".join(markdown))
    (row,) = screen.rows
    assert row["fixes (causes)"] == "0; 1: [solution_read](#cause-solution_read) by chance"
    assert "By chance: the candidate passes there, but the defect's code is still in its source" in screen.text


@pytest.mark.parametrize(
    "edit, function, families, verdicts, cause",
    [
        (GREEDY_ZERO_MEMORY, "greedy_knapsack", ["tiny", "--per-family", "10"], {"REJECTED"}, "zero_memory_division"),
        (DP_FLOAT64, "dp_knapsack", ["float32_limits", "--per-family", "10"], {"SUBOPTIMAL", "WRONG_VALUE"}, "float32"),
    ],
    ids=["greedy without the zero division", "dp in float64"],
)
def test_fixes_of_other_known_defects_pass_and_say_what_they_fix(tmp_path, edit, function,
                                                                  families, verdicts, cause):
    copy = write_copy(tmp_path / "knapsack.py", edit)
    status, data, markdown = report_on(tmp_path, copy, function, "--families", *families)
    assert status == exit_status.OK, data["gate"]
    assert {f["verdict"] for f in data["gate"]["fixes"]} == verdicts
    assert all(f["causes"] == [cause] for f in data["gate"]["fixes"])
    (row,) = first_screen("\n".join(markdown)).rows
    fixed = sum(f["instances"] for f in data["gate"]["fixes"])
    assert row["fixes (causes)"] == f"{fixed}: [{cause}](#cause-{cause})"


def test_a_refactor_of_dp_that_orders_items_by_memory_passes(tmp_path):
    """Exact wherever torch is exact; float32 absorbs other runtimes than in torch's order, so a
    failure moves: SUBOPTIMAL where torch is WRONG_VALUE. That used to be a regression."""
    copy = write_copy(tmp_path / "knapsack.py", DP_ASCENDING_MEMORY)
    status, data, markdown = report_on(tmp_path, copy, "dp_knapsack", "--families", "float32_limits", "--per-family", "10")
    assert status == exit_status.OK, data["gate"]
    visible = with_status(data, "known defect, now visible")
    assert visible and all(f["causes"] == ["float32"] for f in visible)
    assert not any(float32_exact(f["instance"]["runtimes"]) for f in visible)


def test_a_worse_greedy_reports_its_quality_loss_and_fails_only_when_asked(tmp_path, capsys):
    """``<`` instead of ``<=`` leaves out an item that fills the budget exactly: a valid selection
    that saves less. It used to pass without a word."""
    copy = write_copy(tmp_path / "knapsack.py", GREEDY_STRICT_FIT)
    options = ["--families", "tight_budget", "--per-family", "10"]
    status, data, markdown = report_on(tmp_path, copy, "greedy_knapsack", *options)
    quality = data["correctness"]["comparisons"][str(copy) + ":greedy_knapsack"]["quality"]
    assert status == exit_status.OK and quality["less"] >= 1 and 0 < quality["median_loss"] <= quality["worst"]["loss"]
    assert quality["worst"]["value"] < quality["worst"]["baseline_value"]
    (row,) = first_screen("\n".join(markdown)).rows
    assert row["quality loss"].endswith(f" % at worst, on {quality['less']} of {quality['compared']}")
    status, data, markdown = report_on(tmp_path, copy, "greedy_knapsack", *options, "--max-quality-loss", "0.0001")
    assert status == exit_status.FAILED
    assert data["gate"]["quality_failing"] == [f"{copy}:greedy_knapsack"] and data["gate"]["failing"] == []
    assert markdown[2].startswith("**Gate: FAILED**") and "past --max-quality-loss 0.0001" in markdown[2]
    capsys.readouterr()
    for bad in ("-0.1", "1.5", "nan", "five"):
        with pytest.raises(SystemExit) as exited:
            report_on(tmp_path, copy, "greedy_knapsack", "--max-quality-loss", bad)
        err = capsys.readouterr().err
        assert exited.value.code == exit_status.USAGE and err.count("\n") == 1 and "--max-quality-loss" in err
    assert main(["report", "--candidate", f"{copy}:greedy_knapsack", "--max-quality-loss", "0.1", "--out",
                 str(tmp_path / "r")]) == exit_status.USAGE
    assert capsys.readouterr().err == ("knapcheck report: --max-quality-loss compares the candidate with a baseline:"
                                       " give --baseline\n")
