"""The verdict function: each verdict, and its order, on hand-made answers."""

from fractions import Fraction

import pytest

from oracles.brute_force import brute_force
from oracles.result import OracleResult
from oracles.verdict import OracleDisagreement, Verdict, judge
from solvers import outcome as outcomes
from solvers.contract import Instance

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


def test_beating_a_proven_optimum_blames_the_oracle():
    wrong = OracleResult("cpsat", Fraction(1), (0,), proven=True)
    with pytest.raises(OracleDisagreement):
        verdict_of((2.0, [0, 1], [2]), wrong)


def test_real_memory_slack_is_information_not_failure():
    instance = Instance((0.00016, 0.00016), (1.0, 1.0), 0.0003)  # 2 + 2 units > capacity 3
    edge = Instance((0.000149, 0.000149), (1.0, 1.0), 0.0002)  # 1 + 1 units <= 2, real memory 0.000298 > 0.0002
    assert judge(instance, outcomes.Outcome(outcomes.RETURNED, answer=(2.0, [0, 1], [])), brute_force(instance)).verdict is Verdict.OVER_BUDGET
    judgement = judge(edge, outcomes.Outcome(outcomes.RETURNED, answer=(2.0, [0, 1], [])), brute_force(edge))
    assert judgement.verdict is Verdict.OPTIMAL and judgement.memory_slack == pytest.approx(0.000098)
