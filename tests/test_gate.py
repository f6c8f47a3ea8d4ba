"""The gate's rule in one module: pairing, the differential signature, what counts, what is known.

A candidate failure is a regression when its baseline, on the same instance, does not fail the
same way; shrinking keeps that relation. These used to be decided by (solver, verdict) alone: a
candidate OVER_BUDGET was "shared" whenever the baseline was OVER_BUDGET anywhere, and its
reproduction was the smallest OVER_BUDGET instance, often one the baseline fails too.
"""

from dataclasses import replace

import pytest

from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.known import matching_case
from knapcheck.fuzz.judging.known.traits import LARGE_CAPACITY, OFF_GRID, matched_traits
from knapcheck.fuzz.judging.verdicts.comparison import Comparison
from knapcheck.fuzz.judging.verdicts.differential import NOT_RUN, check, check_against, instance_id
from knapcheck.fuzz.judging.verdicts.gate import counterparts, decide, is_regression, pair, record
from knapcheck.fuzz.judging.verdicts.shrink import minimal_reproduction
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one

EVERY_SPLIT = "planted.off_by_one_split:solve"
"""Over budget from the first split on: fails some two-item instances."""
DEEP_SPLITS = "planted.off_by_one_split:off_by_one_hirschberg"
"""Over budget only from recursion depth 2 on: optimal on every instance of one or two items."""
EIGHT_ITEMS = Instance(tuple(u / 10_000 for u in (3, 1, 4, 1, 5, 9, 2, 6)), (3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0), 0.0015)
"""Both are over budget on it."""
SIX_ITEMS = Instance(tuple(u / 10_000 for u in (7, 4, 7, 1, 9, 4)), (8.0, 8.0, 9.0, 4.0, 6.0, 4.0), 0.0022)
"""Only EVERY_SPLIT is over budget on it."""
TWO_ITEMS = Instance((0.0001, 0.0001), (2.0, 1.0), 0.0001)
"""Only EVERY_SPLIT is over budget on it: the split gives each item the unit of capacity."""


def entry(spec):
    return resolve_one(spec)


def test_a_candidate_is_paired_with_the_baseline_of_its_function_name_else_the_only_one():
    candidates = [entry("/pr/knapsack.py:dp_knapsack"), entry("/pr/knapsack.py:greedy_knapsack")]
    torch = [entry("torch:greedy_knapsack"), entry("torch:dp_knapsack")]
    assert {c: b.name for c, b in pair(candidates, torch).items()} == {
        "/pr/knapsack.py:dp_knapsack": "torch:dp_knapsack",
        "/pr/knapsack.py:greedy_knapsack": "torch:greedy_knapsack",
    }
    assert pair([entry("full_table")], [entry("torch:dp_knapsack")])["full_table"].name == "torch:dp_knapsack"
    assert pair(candidates, []) == {}


def test_only_the_baselines_some_candidate_is_compared_with_are_run(tmp_path, monkeypatch):
    """`report --candidate pr/knapsack.py:dp_knapsack --baseline torch` used to run and shrink all
    four of torch's solvers, three of which decide nothing."""
    from knapcheck.commands.cli import main

    torch = [entry(f"torch:{name}") for name in ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")]
    assert [b.name for b in counterparts([entry("/pr/knapsack.py:dp_knapsack"), entry("/pr/knapsack.py:greedy_knapsack")], torch)] == [
        "torch:greedy_knapsack", "torch:dp_knapsack"]
    assert counterparts([entry("full_table")], [entry("torch:dp_knapsack")])[0].name == "torch:dp_knapsack"
    assert counterparts([entry("full_table")], []) == []

    (tmp_path / "knapsack.py").write_text("def dp_knapsack(memory, runtimes, max_memory):\n    return 0.0, [], list(range(len(memory)))\n")
    run = {}

    def recorded(candidate, baseline, *args, **kwargs):
        run["baseline"] = [b.name for b in baseline]
        raise KeyboardInterrupt

    monkeypatch.setattr("knapcheck.fuzz.runs.candidate_run.run_candidate", recorded)
    main(["report", "--candidate", f"{tmp_path / 'knapsack.py'}:dp_knapsack", "--baseline", "torch", "--out", str(tmp_path / "r")])
    assert run["baseline"] == ["torch:dp_knapsack"]


@pytest.mark.parametrize(
    "candidates, baselines, words",
    [
        (["full_table"], ["torch:dp_knapsack", "torch:ilp_knapsack"], "no baseline is a function named 'full_table'"),
        (["torch:dp_knapsack"], ["torch:dp_knapsack"], "named both as a target and as a baseline"),
        (["/pr/knapsack.py:dp_knapsack"], ["torch:dp_knapsack", "/base/knapsack.py:dp_knapsack"], "several baselines are"),
    ],
)
def test_a_candidate_without_a_single_counterpart_is_refused_in_one_line(candidates, baselines, words):
    with pytest.raises(ValueError, match=words) as raised:
        pair([entry(c) for c in candidates], [entry(b) for b in baselines])
    assert "\n" not in str(raised.value)


def test_the_same_verdict_where_the_baseline_passes_is_a_regression_and_where_it_fails_too_is_not():
    every, deep = entry(EVERY_SPLIT), entry(DEEP_SPLITS)
    regression = check_against(every, deep, TWO_ITEMS)
    assert regression.differential_signature == Signature(EVERY_SPLIT, "OVER_BUDGET", "OPTIMAL")
    assert is_regression(regression)
    shared = check_against(every, deep, EIGHT_ITEMS)
    assert shared.differential_signature == Signature(EVERY_SPLIT, "OVER_BUDGET", "OVER_BUDGET")
    assert not is_regression(shared) and shared.failed
    assert decide([regression, shared], [EVERY_SPLIT], 0, baseline=True).failing == [regression]
    assert decide([regression, shared], [EVERY_SPLIT], 0, baseline=True, strict=True).failing == [regression, shared]
    assert decide([shared], [EVERY_SPLIT], 1, baseline=True).passed is False, "an oracle shown wrong fails the gate"


def test_a_baseline_not_run_on_a_size_its_entry_refuses_does_not_share_the_failure():
    every, deep = entry(EVERY_SPLIT), replace(entry(DEEP_SPLITS), max_capacity=0)
    done = check_against(every, deep, TWO_ITEMS)
    assert done.baseline is None and done.baseline_verdict == NOT_RUN and is_regression(done)


def test_shrinking_keeps_the_baseline_verdict():
    """The naive shrink (the candidate's verdict alone) ends on two items, where only the candidate fails."""
    every, deep = entry(EVERY_SPLIT), entry(DEEP_SPLITS)
    shared = check_against(every, deep, EIGHT_ITEMS)
    shrunk = minimal_reproduction(shared)
    assert shrunk.differential_signature == shared.differential_signature
    assert shrunk.baseline.verdict.value == "OVER_BUDGET" and 3 <= shrunk.instance.n < EIGHT_ITEMS.n
    alone = minimal_reproduction(check(every, EIGHT_ITEMS))
    assert alone.instance.n == 2 and check(deep, alone.instance).verdict.value == "OPTIMAL"


def test_a_regression_shrinks_to_an_instance_the_baseline_passes():
    every, deep = entry(EVERY_SPLIT), entry(DEEP_SPLITS)
    found = check_against(every, deep, SIX_ITEMS)
    assert found.differential_signature == Signature(EVERY_SPLIT, "OVER_BUDGET", "OPTIMAL")
    shrunk = minimal_reproduction(found)
    assert shrunk.baseline.verdict.value == "OPTIMAL" and shrunk.verdict.value == "OVER_BUDGET"
    assert check(deep, shrunk.instance).verdict.value == "OPTIMAL"


def test_the_tally_counts_regressions_shared_failures_fixes_and_selection_changes():
    every, deep = entry(EVERY_SPLIT), entry(DEEP_SPLITS)
    comparison = Comparison(deep.name)
    for instance in (TWO_ITEMS, EIGHT_ITEMS, Instance((0.0001,), (1.0,), 0.0001)):
        record(comparison, check_against(every, deep, instance))
    record(comparison, check_against(deep, every, TWO_ITEMS))
    assert comparison.instances == 4 and comparison.same_verdict == 2
    assert comparison.regressed == {("OVER_BUDGET", "OPTIMAL"): 1}
    assert comparison.shared == {"OVER_BUDGET": 1} and comparison.fixed == {"OVER_BUDGET": 1}
    assert comparison.both_valid == 1 and comparison.selection_changes == 0


def test_instance_ids_are_a_hash_of_the_content():
    a = Instance((0.1, 0.2), (1.0, 2.0), 0.2)
    assert instance_id(a) == instance_id(Instance((0.1, 0.2), (1, 2), 0.2)) and len(instance_id(a)) == 16
    assert instance_id(a) != instance_id(Instance((0.2, 0.1), (2.0, 1.0), 0.2))


CORPUS = load_known_failures()


def test_a_failure_matching_a_corpus_case_by_solver_verdict_and_cause_is_known():
    split = Instance((0.0002, 0.0002), (1.0, 3.0), 0.0003)
    case = matching_case("torch:dp_knapsack_sliding_hirschberg", "OVER_BUDGET", split, CORPUS)
    assert case is not None and case.id.startswith("torch_dp_knapsack_sliding_hirschberg-OVER_BUDGET")
    copy = matching_case("/pr/knapsack.py:dp_knapsack_sliding_hirschberg", "OVER_BUDGET", split, CORPUS)
    assert copy == case, "a copy of torch's function is matched with torch's cases"
    assert matching_case("full_table", "OVER_BUDGET", split, CORPUS) is None


def test_another_cause_of_the_same_solver_and_verdict_is_new():
    reused = Instance((0.0001,), (1.0,), 0.4097)
    assert matched_traits(reused) == {LARGE_CAPACITY}
    assert matching_case("torch:dp_knapsack", "WRONG_VALUE", reused, CORPUS) is None
    off_grid = Instance((0.00015, 0.0002), (1.0, 3.0), 0.0003)
    assert OFF_GRID in matched_traits(off_grid)
    assert matching_case("torch:dp_knapsack_sliding_hirschberg", "OVER_BUDGET", off_grid, CORPUS) is None


def test_the_corpus_causes_of_one_solver_and_verdict_have_different_traits():
    """dp_knapsack's SUBOPTIMAL cases: a negative runtime on a zero-weight item, and float32 (two cases, one cause)."""
    traits = {matched_traits(c.instance) for c in CORPUS if (c.solver, c.verdict) == ("torch:dp_knapsack", "SUBOPTIMAL")}
    assert len(traits) == 2
