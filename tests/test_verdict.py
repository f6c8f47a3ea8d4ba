"""The verdict function: each verdict, and its order, on hand-made answers."""

from fractions import Fraction

import numpy as np
import pytest
from planted import wrong_answers

from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.result import OracleResult
from knapcheck.oracles.verdict import Verdict, judge
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract import outcome as outcomes

INSTANCE = Instance((0.0003, 0.0003, 0.0004), (1.0, 1.0, 1.5), 0.0006)
ORACLE = brute_force(INSTANCE)


def verdict_of(answer, oracle=ORACLE):
    return judge(INSTANCE, outcomes.Outcome(outcomes.RETURNED, answer=answer), oracle)


@pytest.mark.parametrize(
    "answer, verdict",
    [
        ((2.0, [0, 1], [2]), Verdict.OPTIMAL),
        ((2.0, [1, 0], [2]), Verdict.OPTIMAL),
        ((1.5, [2], [0, 1]), Verdict.SUBOPTIMAL),
        ((2.5, [0, 2], [1]), Verdict.OVER_BUDGET),
        ((2.5, [0, 1], [2]), Verdict.WRONG_VALUE),
        ((float("nan"), [0, 1], [2]), Verdict.WRONG_VALUE),
        ((2.0, [0, 1], [1, 2]), Verdict.BAD_PARTITION),
        ((2.0, [0, 1], []), Verdict.BAD_PARTITION),
        ((2.0, [0, 1, 1], [2]), Verdict.BAD_PARTITION),
        ((2.0, [0, 1], [3]), Verdict.BAD_PARTITION),
        ((2.0, [0, 1.5], [2]), Verdict.BAD_PARTITION),
        ((2.0, [0, 1]), Verdict.BAD_PARTITION),
        (None, Verdict.BAD_PARTITION),
    ],
)
def test_each_answer_gets_its_verdict(answer, verdict):
    assert verdict_of(answer).verdict is verdict


def test_over_budget_reports_the_excess_in_quantized_units():
    judgement = verdict_of((2.5, [0, 2], [1]))
    assert judgement.excess == 1


def test_suboptimal_reports_the_gap_and_fails_only_exact_solvers():
    judgement = verdict_of((1.5, [2], [0, 1]))
    assert judgement.gap == 0.5
    assert judgement.failed(exact=True) and not judgement.failed(exact=False)
    assert verdict_of((2.5, [0, 2], [1])).failed(exact=False)


@pytest.mark.parametrize(
    "kind, verdict",
    [
        (outcomes.RAISED, Verdict.REJECTED),
        (outcomes.CRASHED, Verdict.CRASH),
        (outcomes.TIMED_OUT, Verdict.TIMEOUT),
        (outcomes.OUT_OF_MEMORY, Verdict.OUT_OF_MEMORY),
    ],
)
def test_calls_that_did_not_return(kind, verdict):
    judgement = judge(INSTANCE, outcomes.Outcome(kind, error="boom"), ORACLE)
    assert judgement.verdict is verdict and judgement.detail == "boom" and judgement.failed(exact=False)


def test_unproven_oracle_gives_unverified_never_optimal():
    unproven = OracleResult("cpsat", Fraction(2), (0, 1), proven=False)
    judgement = verdict_of((2.0, [0, 1], [2]), unproven)
    assert judgement.verdict is Verdict.UNVERIFIED and not judgement.failed(exact=True)
    assert verdict_of((1.5, [2], [0, 1]), unproven).verdict is Verdict.SUBOPTIMAL


@pytest.mark.parametrize(
    "answer, verdict, words",
    [
        (("2.0", [0, 1], [2]), Verdict.WRONG_VALUE, "must be a real number, got str '2.0'"),
        ((None, [0, 1], [2]), Verdict.WRONG_VALUE, "must be a real number, got NoneType None"),
        ((2.0, {0: "a", 1: "b"}, [2]), Verdict.BAD_PARTITION, "saved must be a sequence"),
        ((2.0, [0, 1], {2}), Verdict.BAD_PARTITION, "recomputable must be a sequence"),
        ((2.0, iter([0, 1]), [2]), Verdict.BAD_PARTITION, "saved must be a sequence"),
        ((2.0, [0, 1], "2"), Verdict.BAD_PARTITION, "recomputable must be a sequence"),
        ((2.0, [0, 1], [2.0]), Verdict.BAD_PARTITION, "integer indices, got float 2.0"),
    ],
)
def test_values_must_be_real_numbers_and_selections_real_sequences_of_ints(answer, verdict, words):
    judgement = verdict_of(answer)
    assert judgement.verdict is verdict and words in judgement.detail


def test_numpy_values_and_index_arrays_are_real_answers():
    assert verdict_of((np.float64(2.0), np.array([0, 1]), (2,))).verdict is Verdict.OPTIMAL


@pytest.mark.parametrize(
    "solver, verdict, words",
    [
        (wrong_answers.value_as_text, "WRONG_VALUE", "real number, got str"),
        (wrong_answers.saved_as_a_dict, "BAD_PARTITION", "saved must be a sequence"),
        (wrong_answers.zeroes_the_runtimes_it_was_given, "MUTATED_INPUT", "runtimes[0] went from 1.0 to 0.0"),
    ],
)
def test_an_optimal_selection_in_a_wrong_form_is_never_optimal(solver, verdict, words):
    judgement = judge(INSTANCE, outcomes.call_in_process(solver, INSTANCE), ORACLE)
    assert judgement.verdict.value == verdict and words in judgement.detail
    assert judgement.failed(exact=False)


def test_changing_the_given_lists_is_a_failure_of_its_own_that_outranks_the_answer():
    def sorts_memory_in_place(memory, runtimes, max_memory):
        memory.sort(reverse=True)
        return 2.0, [0, 1], [2]

    outcome = outcomes.call_in_process(sorts_memory_in_place, INSTANCE)
    assert outcome.returned and tuple(outcome.answer) == (2.0, [0, 1], [2])
    judgement = judge(INSTANCE, outcome, ORACLE)
    assert judgement.verdict.value == "MUTATED_INPUT"
    assert judgement.detail == "the solver changed the lists it was given: memory[0] went from 0.0003 to 0.0004"
    assert outcomes.call_in_process(lambda m, r, c: (2.0, [0, 1], [2]), INSTANCE).changed_input == ""


def test_beating_a_proven_optimum_is_an_oracle_finding_never_an_exception():
    wrong = OracleResult("cpsat", Fraction(1), (0,), proven=True)
    judgement = verdict_of((2.0, [0, 1], [2]), wrong)
    assert judgement.verdict is Verdict.UNVERIFIED and not judgement.failed(exact=True)
    assert judgement.oracle_disagreement == "cpsat proved 1.0 optimal, but a feasible answer is worth 2.0"


@pytest.mark.parametrize(
    "witness, words",
    [
        (OracleResult("cpsat", Fraction(2), (2, 0), proven=True), "cpsat's own selection weighs 7 > capacity 6"),
        (OracleResult("cpsat", Fraction(2), (2,), proven=True), "cpsat's own selection is worth 1.5, not the 2.0 it claims"),
        (OracleResult("cpsat", Fraction(2), (0, 0), proven=True), "is not a set of item indices"),
    ],
)
def test_a_suboptimal_verdict_needs_an_oracle_selection_that_backs_its_value(witness, words):
    judgement = verdict_of((1.5, [2], [0, 1]), witness)
    assert judgement.verdict is Verdict.UNVERIFIED and words in judgement.oracle_disagreement
    assert verdict_of((1.5, [2], [0, 1])).verdict is Verdict.SUBOPTIMAL


def test_a_refusal_is_no_defect_only_above_the_size_the_entry_accepts():
    refused = outcomes.call_in_process(wrong_answers.refuses_everything, INSTANCE)
    assert refused.kind == outcomes.REFUSED
    declined = judge(INSTANCE, refused, ORACLE, accepted=False)
    assert declined.verdict is Verdict.UNVERIFIED and not declined.failed(exact=True)
    assert "refused a size its entry does not accept (n=3, C=6)" in declined.detail
    rejected = judge(INSTANCE, refused, ORACLE)
    assert rejected.verdict is Verdict.REJECTED and rejected.failed(exact=True)
    assert "refused a size its entry accepts (n=3, C=6): ProblemTooLarge: planted" in rejected.detail


def test_real_memory_slack_is_information_not_failure():
    instance = Instance((0.00016, 0.00016), (1.0, 1.0), 0.0003)  # 2 + 2 units > capacity 3
    edge = Instance((0.000149, 0.000149), (1.0, 1.0), 0.0002)  # 1 + 1 units <= 2, real memory 0.000298 > 0.0002
    assert judge(instance, outcomes.Outcome(outcomes.RETURNED, answer=(2.0, [0, 1], [])), brute_force(instance)).verdict is Verdict.OVER_BUDGET
    judgement = judge(edge, outcomes.Outcome(outcomes.RETURNED, answer=(2.0, [0, 1], [])), brute_force(edge))
    assert judgement.verdict is Verdict.OPTIMAL and judgement.memory_slack == pytest.approx(0.000098)
