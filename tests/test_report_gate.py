"""`knapcheck report` as a pull-request gate: which failures fail it, and what its first lines say.

Default (the differential rule): exit 1 when the candidate fails where its baseline, on the same
instance, does not fail the same way. --strict: exit 1 on any candidate failure. The report used to
exit 1 on any candidate failure, whatever the baseline did.
"""

import inspect
import json
import shutil
from pathlib import Path

import pytest

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.verdicts.differential import CheckResult
from knapcheck.fuzz.runs.candidate_run import CandidateRun
from knapcheck.measure.paired import PairResult, RowComparison
from knapcheck.measure.ratio_interval import estimate
from knapcheck.reports.environment import environment
from knapcheck.reports.performance_report import Performance
from knapcheck.reports.regression_report import Report, render_html

PLANTED = Path(__file__).resolve().parent / "planted"


@pytest.fixture
def empty_corpus(tmp_path):
    path = tmp_path / "empty-corpus.json"
    path.write_text('{"schema_version": 1, "cases": []}')
    return path


def report(tmp_path, empty_corpus, *options) -> tuple[int, dict, str]:
    out = tmp_path / "out"
    status = main(["report", *options, "--families", "tiny", "--per-family", "12", "--corpus", str(empty_corpus),
                   "--bench-repeats", "0", "--out", str(out)])
    return status, json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


def test_a_kind_of_failure_the_baseline_never_shows_is_a_regression(tmp_path, empty_corpus, monkeypatch):
    summary = tmp_path / "step_summary.md"
    summary.write_text("an earlier step's summary\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    status, data, markdown = report(tmp_path, empty_corpus, "--candidate", "planted.wrong_answers:takes_everything",
                                    "--baseline", "planted.wrong_answers:takes_nothing")
    assert status == exit_status.FAILED
    first_screen = markdown[:markdown.index("\n## ") + 1]
    assert summary.read_text() == ("an earlier step's summary\n" + first_screen
                                   + "Everything else is in the report's directory: report.md, report.html and report.json.\n")
    assert data["gate"]["rule"] == "differential" and not data["gate"]["passed"]
    failing = data["gate"]["failing"]
    assert ["planted.wrong_answers:takes_everything", "OVER_BUDGET", "SUBOPTIMAL"] in failing
    assert all(target == "planted.wrong_answers:takes_everything" and verdict != baseline for target, verdict, baseline in failing)
    assert markdown.splitlines()[2].startswith("**Gate: FAILED** under the differential rule (the default)")


def test_the_same_kind_of_failure_on_an_instance_the_baseline_passes_is_a_regression(tmp_path, empty_corpus):
    """Both are SUBOPTIMAL, on different instances: comparing kinds alone would pass this."""
    status, data, markdown = report(tmp_path, empty_corpus, "--candidate", "planted.gate:fails_on_many",
                                    "--baseline", "planted.gate:fails_on_few")
    assert status == exit_status.FAILED
    statuses = {(f["solver"], f["status"]) for f in data["correctness"]["failures"]}
    assert statuses == {("planted.gate:fails_on_many", "regression"), ("planted.gate:fails_on_few", "baseline")}


def test_failures_the_baseline_shares_pass_the_gate_but_not_a_strict_one(tmp_path, empty_corpus):
    copy = tmp_path / "wrong_answers.py"
    shutil.copy(PLANTED / "wrong_answers.py", copy)
    options = ["--candidate", f"{copy}:takes_nothing", "--baseline", "planted.wrong_answers:takes_nothing"]
    status, data, markdown = report(tmp_path, empty_corpus, *options)
    assert status == exit_status.OK
    assert [f["status"] for f in data["correctness"]["failures"]] == ["also in baseline", "baseline"]
    assert markdown.splitlines()[2].startswith("**Gate: passed** under the differential rule")
    status, data, markdown = report(tmp_path, empty_corpus, *options, "--strict")
    assert status == exit_status.FAILED and data["gate"]["rule"] == "strict"
    assert markdown.splitlines()[2].startswith("**Gate: FAILED** under the strict rule (--strict)")


def test_without_a_baseline_every_candidate_failure_counts(tmp_path, empty_corpus):
    status, data, markdown = report(tmp_path, empty_corpus, "--candidate", "planted.wrong_answers:takes_nothing")
    assert status == exit_status.FAILED and data["correctness"]["failures"][0]["status"] == "new"
    assert data["gate"]["rule"] == "no baseline"
    assert markdown.splitlines()[2].startswith("**Gate: FAILED** under no baseline (every failure counts): 1 failure in")


def test_a_job_summary_that_cannot_be_written_is_one_warning_and_the_report_is_whole(tmp_path, empty_corpus, monkeypatch,
                                                                                      capsys):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))
    status, data, markdown = report(tmp_path, empty_corpus, "--candidate", "planted.wrong_answers:takes_nothing")
    assert status == exit_status.FAILED and markdown.startswith("# knapcheck report: ")
    assert (tmp_path / "out" / "report.html").is_file() and data["gate"]["passed"] is False
    (warning,) = [line for line in capsys.readouterr().err.splitlines() if "summary" in line]
    assert warning.startswith("knapcheck report: warning: the job summary was not written (GITHUB_STEP_SUMMARY=")
    assert warning.endswith("Is a directory); the report is complete")


def test_a_pull_request_file_against_torch_from_another_directory(tmp_path, monkeypatch):
    """The packaged corpus is checked from any directory (the default used to be a relative path,
    so run from a PyTorch checkout it silently checked no case); a planted regression in a copy of
    torch's knapsack.py fails the gate, the unchanged copy passes it."""
    from torch._functorch._activation_checkpointing import knapsack

    source = Path(inspect.getsourcefile(knapsack)).read_text()
    line = "    quantized_max_memory = round(max_memory * S)\n"
    assert source.count(line) >= 1
    pull_request = tmp_path / "pr"
    pull_request.mkdir()
    (pull_request / "unchanged.py").write_text(source)
    (pull_request / "planted.py").write_text(source.replace(line, line.rstrip() + " + 1\n", 1))
    monkeypatch.chdir(tmp_path)
    results = {}
    for name in ("unchanged", "planted"):
        out = tmp_path / f"report-{name}"
        status = main(["report", "--candidate", f"pr/{name}.py:dp_knapsack", "--baseline", "torch:dp_knapsack",
                       "--families", "tiny", "--per-family", "5", "--bench-repeats", "0", "--out", str(out)])
        results[name] = status, json.loads((out / "report.json").read_text())
    assert results["unchanged"][0] == exit_status.OK
    assert results["planted"][0] == exit_status.FAILED
    planted = f"{(pull_request / 'planted.py').resolve()}:dp_knapsack"
    assert [planted, "OVER_BUDGET", "OPTIMAL"] in results["planted"][1]["gate"]["failing"]
    for _, data in results.values():
        assert data["correctness"]["stored"] == {"regression corpus": len(load_known_failures())}


def test_the_html_report_shows_the_performance_as_a_table():
    """It used to show a Markdown pipe table inside <pre>."""
    row = RowComparison("n=200 C=1e+03", 200, 1000, estimate([0.0] * 10), estimate([0.0] * 10),
                        {"candidate": 0.1, "baseline": 0.1}, {"candidate": 2**20, "baseline": 2**20})
    performance = Performance([PairResult("a", "torch:b", [row], 10, "tight", 3.0, 20.0, 0.5, 0.6, 2)])
    run = CandidateRun({}, CheckResult([]), [], {}, 0.0, None)
    html = render_html(Report("knapcheck report ...", run, environment(), performance))
    performance_part = html[html.index("<h2>Performance</h2>"):html.index("<h2>Environment</h2>")]
    assert "<table><thead><tr><th>row</th><th>candidate time</th>" in performance_part
    assert "<td>1.00x (1.00x-1.00x)</td>" in performance_part
    assert "|---" not in html and "<pre>" not in performance_part
