"""The check's progress: instances done of how many, and each solver's failures so far, on stderr."""

from collections import Counter

from rich.console import Console

from knapcheck.fuzz.judging.verdicts.differential import CheckResult
from knapcheck.fuzz.runs.check import next_chunk_size, run_check
from knapcheck.reports.check_progress import progress_line, progress_view
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one


def test_the_line_counts_instances_and_names_only_solvers_that_failed():
    exact, heuristic = resolve_one("full_table"), resolve_one("torch:greedy_knapsack")
    result = CheckResult([exact, heuristic], instances=40, skipped=2)
    result.counts[exact.name] = Counter({"OPTIMAL": 30, "OVER_BUDGET": 10})
    result.counts[heuristic.name] = Counter({"OPTIMAL": 20, "SUBOPTIMAL": 20})
    assert progress_line(result, 100) == "42 of 100 instances checked; failures so far: full_table 10"
    console = Console(width=100, record=True)
    console.print(progress_view(result, 100))
    text = console.export_text()
    assert "42 of 100 instances checked" in text
    assert "full_table" in text and "torch:greedy_knapsack" in text


def test_each_chunk_reports_how_far_the_check_is():
    instances = [Instance((0.0001 * k,), (1.0,), 0.0002) for k in range(5)]
    seen = []
    run_check([resolve_one("full_table")], [], stored={"listed": instances},
              advanced=lambda result, total: seen.append((result.instances, total)))
    assert seen[-1] == (5, 5)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_chunks_grow_while_quick_and_shrink_once_slow():
    assert next_chunk_size(1, 0.0) == 2
    assert next_chunk_size(256, 0.0) == 256
    assert next_chunk_size(64, 10.0) == 32
    assert next_chunk_size(1, 10.0) == 1
