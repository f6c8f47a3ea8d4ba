"""`knapcheck report`: the three outputs, their limits, and reproductions that fail as shown."""

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from reproductions import assert_each_fails

import knapcheck.fuzz.runs.check
from knapcheck.commands.cli import main
from knapcheck.commands.durations import duration
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.fuzz.runs.candidate_run import run_candidate
from knapcheck.measure.paired import PairResult, RowComparison
from knapcheck.oracles.result import OracleResult
from knapcheck.reports import real_budget
from knapcheck.reports.environment import environment
from knapcheck.reports.performance_report import plots
from knapcheck.reports.regression_report import Performance, Report, render_html, render_json, render_markdown
from knapcheck.reports.reproduction import snippet
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import register, resolve, unregister

TORCH_SOLVERS = ["torch:dp_knapsack", "torch:dp_knapsack_sliding_hirschberg"]


def test_a_report_on_torch_solvers_shows_each_distinct_failure_once_with_a_reproduction_that_fails(tmp_path):
    out, empty_corpus = tmp_path / "report", tmp_path / "empty.json"
    empty_corpus.write_text('{"schema_version": 1, "cases": []}')
    status = main(
        ["report", "--candidate", *TORCH_SOLVERS, "--baseline", "full_table", "--families", "duplicates_ties",
         "flop_scale", "exhaustive_small", "large_capacity", "--per-family", "6", "--time", "600", "--corpus", str(empty_corpus),
         "--bench-repeats", "0", "--out", str(out)]
    )
    assert status == 1

    markdown = (out / "report.md").read_text()
    assert len(markdown.encode()) < 60_000
    lines = markdown.splitlines()
    assert lines[2].startswith("**Gate: FAILED** under the differential rule")
    table = next(i for i, line in enumerate(lines) if line.startswith("| solver | role | judged on its promise | OPTIMAL |"))
    order = [lines.index(heading) for heading in ("## Failures of the candidate", "## Performance", "## How the gate decides",
             "## Candidate against baseline, instance by instance", f"## {real_budget.TITLE}", "## Environment")]
    assert [*order[:3], table, *order[3:]] == sorted([table, *order]), "failures and the gate come before information"
    failures = [line for line in lines if line.startswith("### ") and line[4].isdigit()]
    assert markdown.count("<details><summary>Reproduction</summary>") == len(failures) - 1 > 0, "the first is on top"
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "## " not in html
    assert real_budget.TITLE in html
    data = json.loads((out / "report.json").read_text())
    assert data["schema_version"] == 2
    assert {row["solver"] for row in data["correctness"]["real_budget"]} == {*TORCH_SOLVERS, "full_table"}
    assert data["environment"]["torch"]["version"]
    roles = {s["name"]: s["role"] for s in data["correctness"]["solvers"]}
    assert roles == {**{name: "candidate" for name in TORCH_SOLVERS}, "full_table": "baseline"}

    failures = data["correctness"]["failures"]
    signatures = [tuple(f["signature"]) for f in failures]
    assert len(signatures) == len(set(signatures))
    assert ("torch:dp_knapsack_sliding_hirschberg", "OVER_BUDGET", "OPTIMAL") in signatures
    assert ("torch:dp_knapsack", "WRONG_VALUE", "OPTIMAL") in signatures
    assert all(f["role"] == "candidate" and f["status"] == "regression" for f in failures)
    assert {k: data["gate"][k] for k in ("rule", "passed", "failing")} == {
        "rule": "differential", "passed": False, "failing": [list(s) for s in signatures]}
    assert all(f["instance"]["id"] and f["baseline"]["verdict"] == "OPTIMAL" for f in failures)
    assert_each_fails(failures)


def test_plots_draw_one_line_per_solver_for_time_and_memory():
    pairs = []
    for candidate, factor in (("torch:dp_knapsack", 1.0), ("full_table", 0.5)):
        rows = [RowComparison(f"C={capacity}", 200, capacity, seconds={"candidate": seconds * factor, "baseline": seconds},
                              peak_bytes={"candidate": 2**20 * capacity, "baseline": 2**20})
                for capacity, seconds in ((1000, 0.01), (10_000, 0.1), (100_000, 1.0))]
        pairs.append(PairResult(candidate, "torch:baseline", rows, 10, "tight", 5.0, 20.0, 1.0, 1.0, 2))
    time_plot, memory_plot = plots(Performance(pairs))
    for svg in (time_plot, memory_plot):
        assert svg.count("<polyline") == 3
        assert "torch:dp_knapsack" in svg and "full_table" in svg and "torch:baseline" in svg
    assert plots(Performance()) == []


@pytest.mark.parametrize("text, seconds", [("90", 90), ("90s", 90), ("10m", 600), ("1h", 3600), ("2.5m", 150)])
def test_time_budgets_read_as_seconds(text, seconds):
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "-5", "ten", "5d"])
def test_a_bad_time_budget_is_refused(text):
    with pytest.raises(Exception, match="positive duration"):
        duration(text)


@pytest.fixture
def planted_pair():
    entries = [
        register(SolverEntry("planted_candidate", "planted.wrong_answers:takes_everything", exact=True, origin="test")),
        register(SolverEntry("planted_baseline", "planted.wrong_answers:takes_nothing", exact=True, origin="test")),
    ]
    yield entries
    for entry in entries:
        unregister(entry.name)


def test_failures_are_compared_by_kind_between_candidate_and_baseline(planted_pair):
    candidate, baseline = planted_pair
    corpus = {"corpus": [Instance((0.0001,), (1.0,), 0.0)]}
    run = run_candidate([candidate], [baseline], ["tight_budget"], per_family=3, stored=corpus)
    assert all(e.isolate for e in run.result.solvers), "code under review always runs isolated"
    assert run.result.instances == 4 and run.stored == {"corpus": 1}
    report = Report("knapcheck report ...", run, environment(), Performance(note="not measured"))
    correctness = render_json(report)["correctness"]
    statuses = {(f["solver"], f["verdict"]): f["status"] for f in correctness["failures"]}
    assert statuses == {("planted_candidate", "OVER_BUDGET"): "regression", ("planted_baseline", "SUBOPTIMAL"): "baseline"}
    comparison = correctness["comparisons"]["planted_candidate"]
    assert comparison["baseline"] == "planted_baseline" and comparison["instances"] == 4
    assert {r["verdict"] for r in comparison["regressed"]} == {"OVER_BUDGET"}
    markdown = render_markdown(report)
    assert "**Gate: FAILED** under the differential rule" in markdown.splitlines()[2]
    candidate = markdown[markdown.index("## Failures of the candidate"):markdown.index("## Performance")]
    assert "OVER_BUDGET (regression)" in candidate and "planted_baseline`:" not in candidate
    baseline = markdown[markdown.index("## The baseline's known defects on these instances"):]
    assert "| `planted_baseline` | SUBOPTIMAL |" in baseline
    assert "- found in family tight_budget" in markdown or "- found in stored instances: corpus" in markdown
    assert "<strong>Gate: FAILED</strong> under the differential rule" in render_html(report)


def test_a_candidate_that_cannot_be_loaded_stops_the_report_with_its_error(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no module named fancy_kernels')\n")
    assert main(["report", "--candidate", f"{broken}:solve", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "fancy_kernels" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "report.md").exists()


def test_an_oracle_shown_wrong_is_in_every_output_and_the_report_goes_on(monkeypatch):
    monkeypatch.setattr(knapcheck.fuzz.runs.check, "optimum", lambda instance: OracleResult("lying", Fraction(0), (), proven=True))
    entry = register(SolverEntry("planted_reference", "knapcheck.solvers.full_table:full_table", exact=True, origin="test"))
    try:
        run = run_candidate([entry], [], [], stored={"corpus": [Instance((0.0001,), (1.0,), 0.0001)]})
    finally:
        unregister(entry.name)
    (finding,) = run.result.oracle_findings
    assert finding.verdict.value == "UNVERIFIED" and run.result.findings == []
    report = Report("knapcheck report ...", run, environment(), Performance(note="not measured"))
    disagreement = "lying proved 0.0 optimal, but a feasible answer is worth 1.0"
    assert render_json(report)["correctness"]["oracle_findings"][0]["disagreement"] == disagreement
    assert "## Oracle findings" in render_markdown(report) and disagreement in render_markdown(report)
    assert disagreement in render_html(report)


def test_the_reproduction_of_a_solver_that_changes_its_input_fails_as_shown():
    (entry,) = resolve("planted.wrong_answers:zeroes_the_runtimes_it_was_given")
    failure = check(entry, Instance((0.0001, 0.0002), (1.0, 2.0), 0.0002))
    assert failure.verdict.value == "MUTATED_INPUT"
    tests = str(Path(__file__).parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(tests).parent), tests]))
    run = subprocess.run([sys.executable, "-c", snippet(failure)], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode != 0 and "AssertionError: MUTATED_INPUT" in run.stderr
