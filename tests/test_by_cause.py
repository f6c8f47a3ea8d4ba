"""A failure is judged by its cause: a known defect of the baseline made visible, or a new one.

The known-failure corpus names each of torch's defects; each reaches instances of a trait (float32
arithmetic: runtimes float32 cannot add exactly) or failures within a bound (HiGHS' MIP gap), or
every instance (the Hirschberg split, left to the instance rule). A failure within a known
defect's reach is information, unless the search takes it out of every reach and it survives
there: then it is a regression, reproduced outside them all. The gate used to judge instance by
instance, so a fix that made torch's float32 defect visible elsewhere failed it; and the float32
trait called FLOP-scale runtimes such as k * 2**26, exact in float32, beyond it.
"""

import json
from dataclasses import replace

import pytest
from torch_copies import BACKTRACK_TOLERANCE, SPLIT_FIX, write_copy

from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.by_cause import Causes
from knapcheck.fuzz.judging.known.defects import (
    CAUSES,
    FLOAT32,
    MIP_GAP,
    OBJECTIVE_VALUE,
    SOLUTION_READ,
    UNQUANTIZED_MEMORY,
    ZERO_MEMORY_DIVISION,
    catalogue,
    leaving,
)
from knapcheck.fuzz.judging.known.float32_exact import float32_exact
from knapcheck.fuzz.judging.known.traits import BEYOND_FLOAT32, matched_traits
from knapcheck.fuzz.judging.verdicts.differential import check, check_against, judged
from knapcheck.fuzz.judging.verdicts.gate import is_regression, is_visible
from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract.answer import Answer
from knapcheck.solvers.contract.outcome import RETURNED, Outcome
from knapcheck.solvers.registry import resolve_one

CORPUS = load_known_failures()


def test_float32_is_exact_on_runtimes_of_one_power_of_two_unit_with_a_total_below_2_to_the_24():
    assert float32_exact([3 * 2.0**26, 5 * 2.0**26]), "FLOP-scale multiples of 2**26"
    assert float32_exact([3 * 2.0**-40, 2.0**-41]), "tiny multiples of 2**-41"
    assert float32_exact([18_000_000.0, -0.1]), "18e6 is 140625 units of 2**7; a negative runtime is never added"
    assert not float32_exact([2e7, 1.0]) and not float32_exact([0.1]) and not float32_exact([5e-117])
    assert float32_exact([2.0**-126]) and not float32_exact([2.0**-127]), "the unit at least float32's smallest normal"
    flop_scale = Instance((0.0001, 0.0002), (3 * 2.0**26, 5 * 2.0**26), 0.0002)
    assert BEYOND_FLOAT32 not in matched_traits(flop_scale)
    assert BEYOND_FLOAT32 in matched_traits(Instance((0.0001, 0.0002), (2e7, 1.0), 0.0002))


def test_leaving_the_reach_of_known_defects_keeps_the_quantized_problem():
    instance = Instance((0.00025, 0.00015000000001, 0.0), (2e7, 1.0, 3.0), 0.00045)
    snapped = UNQUANTIZED_MEMORY.leave(instance)
    assert snapped.quantized() == instance.quantized() and not UNQUANTIZED_MEMORY.trait(snapped)
    rounded = FLOAT32.leave(instance)
    assert float32_exact(rounded.runtimes) and rounded.runtimes == (2e7, 0.0, 4.0)
    clean = leaving(instance, [FLOAT32, UNQUANTIZED_MEMORY, ZERO_MEMORY_DIVISION])
    assert clean == Instance((0.0002, 0.0002), (2e7, 0.0), 0.0004)
    assert leaving(Instance((), (), 0.0), [CAUSES["empty_problem"]]) is None


def test_every_corpus_case_names_a_known_defect_that_may_have_made_torch_fail_so():
    """A defect of a trait holds the case's instance; one of a bound is checked on torch's answer."""
    for case in CORPUS:
        cause = CAUSES[case.cause]
        assert cause in catalogue(case.solver, CORPUS)[case.verdict]
        if cause.trait is not None:
            assert cause.trait(case.instance), case.id
        elif cause.bound is not None:
            done = check(resolve_one(case.solver), case.instance)
            assert done.verdict.value == case.verdict and cause.explains(done), case.id


def test_a_copys_known_defects_are_those_of_its_torch_function():
    copy = catalogue("/pr/knapsack.py:dp_knapsack_sliding_hirschberg", CORPUS)
    assert copy == catalogue("torch:dp_knapsack_sliding_hirschberg", CORPUS)
    assert {v: [c.name for c in causes] for v, causes in copy.items()} == {
        "OVER_BUDGET": ["hirschberg_split"], "SUBOPTIMAL": ["float32"]}
    assert catalogue("full_table", CORPUS) == {}


def test_a_corpus_case_is_not_taken_at_its_word_for_a_cause_that_cannot_be_its_own(tmp_path):
    """A case of a CRASH blamed on float32, or on a defect this knapcheck does not know, adds nothing;
    a cause that is not a string makes the corpus unreadable, said in one line."""
    case = CORPUS[0]
    assert catalogue(case.solver, [replace(case, verdict="CRASH", cause="float32"), replace(case, cause="gremlins")]) == {}
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"schema_version": 1, "cases": [{**case.as_dict(), "cause": 5}]}))
    with pytest.raises(ValueError, match="cause") as raised:
        load_known_failures(path)
    assert "\n" not in str(raised.value)


SPANNER = Instance((0.0003, 0.0003, 0.0003), (20000.0, 3.0, 3.0), 0.0006)
"""Optimum 20003; one item of 3 less is 1.5e-4 of it."""


def answered(value: float, saved: list[int]):
    """The check of torch's ilp_knapsack having returned this answer on SPANNER."""
    outcome = Outcome(RETURNED, Answer(value, saved, [i for i in range(SPANNER.n) if i not in saved]))
    return judged(resolve_one("torch:ilp_knapsack"), SPANNER, "", optimum(SPANNER), outcome)


@pytest.mark.parametrize(
    "value, saved, verdict, within",
    [
        (20003.0, [0, 1], Verdict.OPTIMAL, set()),
        (20003.0, [0], Verdict.SUBOPTIMAL, {SOLUTION_READ}),
        (20000.0, [0], Verdict.SUBOPTIMAL, set()),
        (20003.000000001, [0, 1], Verdict.WRONG_VALUE, {OBJECTIVE_VALUE}),
        (20004.0, [0, 1], Verdict.WRONG_VALUE, set()),
    ],
    ids=["optimal", "x == 1 drops a chosen item", "a gap past 1e-4", "HiGHS' objective", "a value off by 1"],
)
def test_highs_defects_reach_failures_within_their_bounds(value, saved, verdict, within):
    done = answered(value, saved)
    assert done.verdict is verdict
    assert {c for c in (SOLUTION_READ, OBJECTIVE_VALUE, MIP_GAP) if done.failed and c.explains(done)} == within


def test_a_suboptimal_answer_within_highs_relative_gap_is_the_mip_gap():
    close = Instance((0.0003, 0.0001, 0.0001, 0.0002), (20000.0, 2.0, 2.0, 1.0), 0.0005)
    outcome = Outcome(RETURNED, Answer(20002.0, [0, 1], [2, 3]))
    done = judged(resolve_one("torch:ilp_knapsack"), close, "", optimum(close), outcome)
    assert done.verdict is Verdict.SUBOPTIMAL and MIP_GAP.explains(done), "2 of 20004 is within 1e-4"


def causes_of_dp(copy_edit, function, tmp_path):
    copy = resolve_one(f"{write_copy(tmp_path / 'knapsack.py', copy_edit)}:{function}")
    baseline = resolve_one(f"torch:{function}")
    return copy, baseline, Causes([baseline], CORPUS)


def test_a_fix_that_makes_torchs_float32_defect_visible_stays_known_after_the_search(tmp_path):
    """The issue's instance: both files' float32 profiles absorb the 1 beside 2e7; torch passes
    only because its extra unit of capacity takes another path."""
    copy, torch, causes = causes_of_dp(SPLIT_FIX, "dp_knapsack_sliding_hirschberg", tmp_path)
    found = causes.explained(check_against(copy, torch, Instance((0.0, 0.0001, 0.0), (2e7, 1.0, 0.0), 0.007)))
    assert found.differential_signature.parts()[1:] == ("SUBOPTIMAL", "OPTIMAL") and found.causes == ("float32",)
    finding = causes.reproduce(found, None, lambda: False)
    assert is_visible(finding) and finding.causes == ("float32",)


def test_a_new_defect_inside_a_known_defects_reach_is_still_a_regression(tmp_path):
    """A backtrack with a tolerance of 1e-6 never saves an item of runtime 1e-7. On runtimes float32
    cannot add exactly, torch's float32 defect could explain a SUBOPTIMAL, but the copy with its
    table in float64 (float32's repair) still fails there: a regression on the instance itself (the
    reach alone called it known), reproduced where torch is optimal."""
    copy, torch, causes = causes_of_dp(BACKTRACK_TOLERANCE, "dp_knapsack", tmp_path)
    found = causes.explained(check_against(copy, torch, Instance((0.0001, 0.0002, 0.0003), (1e-7, 2e-7, 3e-7), 0.0005)))
    assert found.verdict is Verdict.SUBOPTIMAL and found.causes == () and is_regression(found)
    assert found.repaired.repairs == ("float32",) and found.repaired.decided, "the zero-weight repair cannot reach it"
    assert found.repaired.verdict is Verdict.SUBOPTIMAL
    finding = causes.reproduce(found, None, lambda: False)
    assert is_regression(finding) and finding.verdict is Verdict.SUBOPTIMAL and finding.instance.n == 1
    assert float32_exact(finding.instance.runtimes) and finding.repaired is None, \
        "outside float32's reach its repair is no evidence: the reach decides"
    assert finding.baseline.verdict is Verdict.OPTIMAL and check(torch, finding.instance).verdict is Verdict.OPTIMAL
