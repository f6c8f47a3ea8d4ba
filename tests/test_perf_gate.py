"""The performance gate of `knapcheck report`: the rule on measured intervals, its options, and its outputs.

The measurements are synthetic (no test times anything): a PairResult built by hand, or
``measure_pair`` replaced by one that returns such a result.
"""

from __future__ import annotations

import json
import math

import pytest

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.measure.paired import BASELINE, CANDIDATE, STOP_FAILURE, STOP_TIGHT, BenchFailure, PairResult, RowComparison
from knapcheck.measure.perf_gate import PerformanceLimits, growth, performance_failures, worst
from knapcheck.measure.ratio_interval import RatioEstimate
from knapcheck.reports.performance_report import Performance, measurements_markdown, outcome_markdown, to_json


def ratio(low: float, high: float) -> RatioEstimate:
    return RatioEstimate(math.sqrt(low * high), low, high, 20, 0.99)


def pair(time: RatioEstimate | None = None, memory: RatioEstimate | None = None, failure: BenchFailure | None = None,
         candidate: str = "pr.py:dp_knapsack") -> PairResult:
    row = RowComparison("n=200 C=1e+04", 200, 10_000, time or ratio(0.98, 1.02), memory or ratio(1.0, 1.0),
                        {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 2**20, BASELINE: 2**20})
    return PairResult(candidate, "torch:dp_knapsack", [row], 20, STOP_FAILURE if failure else STOP_TIGHT, 5.0, 20.0,
                      1.25, 1.5, 2, failure)


# --- the rule ---------------------------------------------------------------------------------


def test_an_interval_wholly_past_the_limit_fails():
    (failure,) = performance_failures([pair(time=ratio(4.6, 5.3))], PerformanceLimits(max_slowdown=2))
    assert failure.startswith("pr.py:dp_knapsack against torch:dp_knapsack on n=200 C=1e+04: time 4.94x (4.60x-5.30x)")
    assert failure.endswith("the whole interval past --max-slowdown 2")


def test_an_interval_that_straddles_the_limit_passes():
    assert performance_failures([pair(time=ratio(1.7, 2.4))], PerformanceLimits(max_slowdown=2)) == []
    assert performance_failures([pair(time=ratio(2.0, 2.4))], PerformanceLimits(max_slowdown=2)) == []
    assert performance_failures([pair(time=ratio(2.01, 2.4))], PerformanceLimits(max_slowdown=2)) != []


def test_memory_has_its_own_limit():
    hungry = pair(memory=ratio(170, 190))
    assert performance_failures([hungry], PerformanceLimits(max_slowdown=2)) == []
    (failure,) = performance_failures([hungry], PerformanceLimits(max_memory=2))
    assert "peak memory 180x (170x-190x)" in failure and "--max-memory 2" in failure


def test_without_limits_performance_never_fails():
    results = [pair(time=ratio(40, 50), memory=ratio(100, 200)),
               pair(failure=BenchFailure(CANDIDATE, "pr.py:dp_knapsack", "crash", "n=200 C=1e+04", "SIGSEGV"))]
    assert performance_failures(results, PerformanceLimits()) == []


def test_a_candidate_that_could_not_be_measured_fails_a_gate_with_a_limit_but_a_baseline_that_could_not_does_not():
    crashed = BenchFailure(CANDIDATE, "pr.py:dp_knapsack", "crash", "n=200 C=1e+04", "the benchmark process was killed by SIGSEGV")
    (failure,) = performance_failures([pair(failure=crashed)], PerformanceLimits(max_memory=3))
    assert "not measured (pr.py:dp_knapsack (candidate): crash on n=200 C=1e+04:" in failure
    baseline_crashed = BenchFailure(BASELINE, "torch:dp_knapsack", "timeout", "", "the time limit ran out")
    assert performance_failures([pair(failure=baseline_crashed)], PerformanceLimits(max_slowdown=2)) == []


@pytest.mark.parametrize("value", [0, -1.5, math.nan, math.inf, "2", True])
def test_a_limit_must_be_a_positive_number(value):
    with pytest.raises(ValueError, match="max_slowdown must be a positive number"):
        PerformanceLimits(max_slowdown=value)


# --- the options ------------------------------------------------------------------------------


def usage_error(capsys, *options) -> str:
    """``knapcheck report`` with these options must exit 2 with one line on stderr and nothing on stdout."""
    status: int | str | None
    try:
        status = main(["report", "--candidate", "full_table", "--baseline", "torch:dp_knapsack", *options, "--out", "unused"])
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    assert status == exit_status.USAGE and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.mark.parametrize("option", ["--max-slowdown", "--max-memory"])
@pytest.mark.parametrize("text, message", [("-2", "must be a number above 0"), ("0", "must be a number above 0"),
                                           ("nan", "must be a number above 0"), ("inf", "must be a number above 0"),
                                           ("two", "expected a number such as 2 or 1.5")])
def test_a_bad_limit_is_a_usage_error(capsys, option, text, message):
    err = usage_error(capsys, option, text)
    assert f"argument {option}: {message}" in err


def test_a_limit_without_the_benchmark_or_without_a_baseline_is_a_usage_error(capsys, tmp_path):
    err = usage_error(capsys, "--max-slowdown", "2", "--bench-repeats", "0")
    assert err.endswith("--max-slowdown needs the benchmark, which --bench-repeats 0 skips")
    assert main(["report", "--candidate", "full_table", "--max-memory", "2", "--out", str(tmp_path / "r")]) == exit_status.USAGE
    assert capsys.readouterr().err.strip().endswith("--max-memory compares the candidate with a baseline: give --baseline")
    assert not (tmp_path / "r").exists()


# --- the outputs, end to end with a stand-in benchmark ----------------------------------------


@pytest.fixture
def empty_corpus(tmp_path):
    path = tmp_path / "empty-corpus.json"
    path.write_text('{"schema_version": 1, "cases": []}')
    return path


def report(tmp_path, empty_corpus, *options) -> tuple[int, dict, str]:
    out = tmp_path / "out"
    status = main(["report", "--candidate", "full_table", "--baseline", "sliding_hirschberg", "--families", "tiny",
                   "--per-family", "3", "--corpus", str(empty_corpus), *options, "--out", str(out)])
    return status, json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


@pytest.fixture
def five_times_slower(monkeypatch):
    """measure_pair replaced: every candidate reads 5x (4.6x-5.3x) slower, memory equal."""
    calls = []

    def measure_pair(candidate, baseline, **options):
        assert options.pop("stop_requested")() == "", "the benchmark stops when the run is asked to"
        calls.append((candidate.name, baseline.name, options))
        return pair(time=ratio(4.6, 5.3), candidate=candidate.name)

    monkeypatch.setattr("knapcheck.measure.paired.measure_pair", measure_pair)
    return calls


def test_a_slowdown_past_the_limit_fails_the_report_and_every_output_says_so(tmp_path, empty_corpus, five_times_slower):
    status, data, markdown = report(tmp_path, empty_corpus, "--max-slowdown", "2", "--bench-time-limit", "7",
                                    "--bench-repeats", "30")
    assert status == exit_status.FAILED
    assert five_times_slower == [("full_table", "sliding_hirschberg", {"time_limit": 7.0, "max_rounds": 30,
                                                                       "output": tmp_path / "out" / "solvers.log"})]
    assert data["gate"]["passed"] is False and data["gate"]["failing"] == [], "correctness passed; performance did not"
    gate = data["performance"]["gate"]
    assert gate["max_slowdown"] == 2.0 and gate["max_memory"] is None and gate["passed"] is False
    assert len(gate["failing"]) == 1 and "4.94x (4.60x-5.30x)" in gate["failing"][0]
    (measured,) = data["performance"]["pairs"]
    assert measured["rows"][0]["time"] == {"ratio": pytest.approx(4.94, abs=0.01), "low": 4.6, "high": 5.3,
                                           "samples": 20, "confidence": 0.99}
    assert measured["load"] == {"before": 1.25, "after": 1.5, "cpus": 2}
    assert measured["measured"] == {"time": "cpu", "memory": "sampled"}
    headline = markdown.splitlines()[2]
    assert headline.startswith("**Gate: FAILED**") and "Performance is past its limits (--max-slowdown 2) in 1 case" in headline
    section = markdown[markdown.index("## Performance"):markdown.index("## Environment")]
    assert "| n=200 C=1e+04 | 10 ms | 10 ms | 4.94x (4.60x-5.30x) |" in section
    assert "load average 1.25 at the start and 1.50 at the end, on 2 cores." in section
    assert section.count("Time is the CPU time of each solver's") == 1
    assert "memory is each tree's proportional anonymous and shared memory, sampled every 10 ms" in section
    assert "Performance gate: FAILED (--max-slowdown 2):" in section
    assert "--max-slowdown 2" in data["command"]
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<td>4.94x (4.60x-5.30x)</td>" in html and "Performance gate: FAILED" in html


def test_without_a_limit_the_same_slowdown_is_information(tmp_path, empty_corpus, five_times_slower):
    status, data, markdown = report(tmp_path, empty_corpus)
    assert status == exit_status.OK and data["gate"]["passed"] is True
    assert data["performance"]["gate"] == {"max_slowdown": None, "max_memory": None, "passed": True, "failing": []}
    assert "4.94x (4.60x-5.30x)" in markdown and "performance is information, never a failure" in markdown


def test_bench_repeats_0_skips_the_benchmark(tmp_path, empty_corpus, five_times_slower):
    status, data, markdown = report(tmp_path, empty_corpus, "--bench-repeats", "0")
    assert status == exit_status.OK and five_times_slower == []
    assert data["performance"]["pairs"] == [] and data["performance"]["note"] == "Not measured (--bench-repeats 0)."
    assert "Not measured (--bench-repeats 0)." in markdown


def markdown_lines(performance: Performance) -> list[str]:
    """The Performance section of report.md: the rule's outcome, then the measurements folded under it."""
    return outcome_markdown(performance) + measurements_markdown(performance)


def test_a_pair_that_could_not_be_measured_says_why_instead_of_an_empty_table():
    crashed = BenchFailure(CANDIDATE, "pr.py:dp_knapsack", "crash", "n=200 C=1e+03", "the benchmark process was killed by SIGSEGV")
    result = pair(failure=crashed)
    result.rows[0].time = result.rows[0].memory = None
    lines = markdown_lines(Performance([result], PerformanceLimits(max_slowdown=2), ["not measured"]))
    (line,) = [line for line in lines if line.startswith("**pr.py:dp_knapsack against torch:dp_knapsack**")]
    assert line.endswith("Not measured: pr.py:dp_knapsack (candidate): crash on n=200 C=1e+03: the benchmark process"
                         " was killed by SIGSEGV.")
    assert not any(line.startswith("| row |") for line in lines)
    assert "Performance gate: FAILED (--max-slowdown 2):" in lines and "- not measured" in lines


# --- sizes: the ladder in n -------------------------------------------------------------------


def ladder_pair(small: RatioEstimate, large: RatioEstimate) -> PairResult:
    """A pair measured at n=250 and n=2000 (the ladder in n) and at n=200 C=1e5."""
    rows = [RowComparison("n=250 C=1e+03", 250, 1000, small, ratio(1.0, 1.0), {CANDIDATE: 0.008, BASELINE: 0.008},
                          {CANDIDATE: 2**20, BASELINE: 2**20}, grows_in="n"),
            RowComparison("n=2000 C=4e+03", 2000, 4000, large, ratio(1.0, 1.0), {CANDIDATE: 0.6, BASELINE: 0.075},
                          {CANDIDATE: 2**24, BASELINE: 2**24}, grows_in="n"),
            RowComparison("n=200 C=1e+05", 200, 100_000, ratio(0.98, 1.02), ratio(1.0, 1.0),
                          {CANDIDATE: 0.05, BASELINE: 0.05}, {CANDIDATE: 2**26, BASELINE: 2**26})]
    return PairResult("pr.py:dp_knapsack", "torch:dp_knapsack", rows, 20, STOP_TIGHT, 5.0, 20.0, 1.25, 1.5, 2)


def test_a_slowdown_that_grows_with_n_fails_on_the_largest_size_and_says_the_ratio_at_the_smallest():
    result = ladder_pair(ratio(0.98, 1.04), ratio(7.6, 8.4))
    (failure,) = performance_failures([result], PerformanceLimits(max_slowdown=1.5))
    assert failure.startswith("pr.py:dp_knapsack against torch:dp_knapsack on n=2000 C=4e+03: time 7.99x (7.60x-8.40x)")
    assert failure.endswith("the whole interval past --max-slowdown 1.5; 1.01x at n=250")
    assert growth(result).factor(CANDIDATE) == pytest.approx(75) and growth(result).factor(BASELINE) == pytest.approx(9.375)
    assert worst(result, "time").row == "n=2000 C=4e+03"


def test_the_report_gives_each_pair_s_growth_in_n_and_its_worst_sizes():
    """The worst sizes are in report.json, and in the first screen's table (test_report_first_screen)."""
    result = ladder_pair(ratio(0.98, 1.04), ratio(7.6, 8.4))
    lines = markdown_lines(Performance([result], PerformanceLimits(max_slowdown=1.5)))
    assert ("Growth in n: from n=250 to n=2000 the baseline's time grows 9.38x, the candidate's 75x (time ratio"
            " 1.01x, then 7.99x).") in lines
    (pair_json,) = to_json(Performance([result]))["pairs"]
    assert pair_json["growth"] == {"from_n": 250, "to_n": 2000, "from_row": "n=250 C=1e+03", "to_row": "n=2000 C=4e+03",
                                   "baseline_factor": pytest.approx(9.375), "candidate_factor": pytest.approx(75)}
    assert pair_json["worst"]["time"] == "n=2000 C=4e+03"
    assert [row["grows_in"] for row in pair_json["rows"]] == ["n", "n", ""]


def test_without_two_sizes_there_is_no_growth_to_give():
    assert growth(pair()) is None
    assert to_json(Performance([pair()]))["pairs"][0]["growth"] is None
