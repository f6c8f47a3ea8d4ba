"""The gate on copies of the installed torch's knapsack.py, as a PyTorch developer runs it.

An unchanged copy passes against torch, all four functions at once (it used to fail: every file
target was judged as exact, torch's greedy as a heuristic). A copy with one new defect fails, and
its printed reproduction is of that defect: it passes on torch and fails on the copy (it used to
be torch's own known failure of the same verdict).
"""

import json
import subprocess
import sys

from knapcheck import exit_status
from knapcheck.cli import main
from torch_copies import ITEM_REUSE, MIP_GAP, SPLIT, write_copy

FUNCTIONS = ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")


def run_snippet(source: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=300)


def assert_reproduces_the_copys_own_defect(failure: dict) -> None:
    """The snippet runs the baseline (torch) first, which passes; then the copy, which fails."""
    source = failure["reproduction"]
    lines = source.splitlines()
    assert lines[-4].startswith("# the baseline, torch:") and lines[-2] == "reproduce(baseline)"
    assert lines[-1].startswith("reproduce(solve)")
    on_torch = run_snippet("\n".join(lines[:-1]))
    assert on_torch.returncode == 0, f"the reproduction fails on torch:\n{on_torch.stderr}"
    on_copy = run_snippet(source)
    assert on_copy.returncode != 0 and f"AssertionError: {failure['verdict']}" in on_copy.stderr
    assert f'File "<string>", line {len(lines)}, in <module>' in on_copy.stderr, "it is the copy's call that fails"


def regressions(data: dict) -> list[dict]:
    return [f for f in data["failures"] if f["status"] == "regression"]


def test_an_unchanged_copy_of_all_four_functions_passes_against_torch(tmp_path, monkeypatch):
    copy = write_copy(tmp_path / "knapsack.py")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report"
    status = main(["report", "--candidate", *(f"knapsack.py:{name}" for name in FUNCTIONS), "--baseline", "torch",
                   "--families", "tiny", "zero_items", "quantization_edges", "flop_scale", "--per-family", "10",
                   "--bench-repeats", "0", "--out", str(out)])
    data = json.loads((out / "report.json").read_text())
    assert status == exit_status.OK, data["gate"]
    assert data["gate"] == {"rule": "differential", "passed": True, "failing": []}
    solvers = {s["name"]: s for s in data["correctness"]["solvers"]}
    greedy = solvers[f"{copy}:greedy_knapsack"]
    assert (greedy["promise"], greedy["promise_basis"], greedy["counterpart"]) == (
        "heuristic", "named like torch's greedy_knapsack", "torch:greedy_knapsack")
    comparisons = data["correctness"]["comparisons"]
    assert all(c["same_verdict"] == c["instances"] > 6000 for c in comparisons.values())
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
    markdown = (out / "report.md").read_text()
    assert "OVER_BUDGET where the baseline is OPTIMAL" in markdown.splitlines()[2]


def test_a_looser_mip_gap_is_reported_with_a_reproduction_of_that_gap(tmp_path, capsys, selected_families_only):
    copy = write_copy(tmp_path / "knapsack.py", MIP_GAP)
    path = tmp_path / "check.json"
    status = main(["check", "--targets", f"{copy}:ilp_knapsack", "--baseline", "torch:ilp_knapsack",
                   "--families", "pisinger_even_odd", "--per-family", "12", "--json", str(path)])
    data = json.loads(path.read_text())
    assert status == exit_status.FAILED and not data["gate"]["passed"]
    found = [f for f in regressions(data) if f["signature"][1:] == ["SUBOPTIMAL", "OPTIMAL"]]
    assert found, [f["signature"] for f in data["failures"]]
    assert_reproduces_the_copys_own_defect(found[0])
    corpus = {json.dumps(f["instance"]["id"]) for f in data["failures"] if f["family"] == "regression corpus"}
    assert json.dumps(found[0]["instance"]["id"]) not in corpus


def test_item_reuse_above_4096_units_is_reported_with_a_reproduction_above_4096_units(tmp_path, capsys):
    copy = write_copy(tmp_path / "knapsack.py", ITEM_REUSE)
    path = tmp_path / "check.json"
    status = main(["check", "--targets", f"{copy}:dp_knapsack", "--baseline", "torch:dp_knapsack",
                   "--families", "tiny", "--per-family", "3", "--json", str(path)])
    data = json.loads(path.read_text())
    assert status == exit_status.FAILED
    wrong = [f for f in regressions(data) if f["signature"][1:] == ["WRONG_VALUE", "OPTIMAL"]]
    assert wrong and wrong[0]["family"] == "large_capacity"
    assert round(wrong[0]["instance"]["max_memory"] * 10_000) > 4096
    assert_reproduces_the_copys_own_defect(wrong[0])
    out = capsys.readouterr().out
    assert "WRONG_VALUE where the baseline is OPTIMAL" in out
    assert "torch:dp_knapsack: WRONG_VALUE, baseline" in out, "torch's float32 WRONG_VALUE is listed as the baseline's own"
