"""budget_safe: the safe rounding, its promise checked by the judge, and the real budget on every family."""

import math
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings

from knapcheck.fuzz.corpus.harvest_records import CORPUS_DIR, LARGE_CORPUS_DIR, load_harvested
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import check, size_allows
from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports.reproduction import snippet
from knapcheck.solvers import contract
from knapcheck.solvers.contract import BUDGET_SAFE, SAFE_SCALE, UPSTREAM, Instance, Rounding, quantize, quantize_budget_safe
from knapcheck.solvers.isolation.running import run
from knapcheck.solvers.registry import resolve

BUDGET_SAFE_ENTRY = resolve("budget_safe")[0]
SLIDING = resolve("sliding_hirschberg")[0]
LIGHT = Instance((0.00004, 0.00004, 0.00004), (1.0, 1.0, 1.0), 0.0001)
"""Three items that weigh 0 upstream: the quantized optimum saves all three, 1.2 times the budget."""


def solved(entry, instance: Instance):
    return entry.load()(instance.memory, instance.runtimes, instance.max_memory)


def saved_real_memory(instance: Instance, answer) -> float:
    return math.fsum(instance.memory[i] for i in answer[1])


def hidden_by_the_float_product(toward: float) -> tuple[float, int]:
    """A float next to k / SAFE_SCALE (on the side of ``toward``) whose float product is exactly k."""
    for k in range(1, SAFE_SCALE):
        m = math.nextafter(k / SAFE_SCALE, toward)
        if m * SAFE_SCALE == k:
            return m, k
    raise AssertionError("no such float below 1")


def test_weights_round_up_and_the_capacity_down_exactly():
    heavier, k = hidden_by_the_float_product(math.inf)
    lighter, j = hidden_by_the_float_product(0.0)
    assert math.ceil(heavier * SAFE_SCALE) == k and math.floor(lighter * SAFE_SCALE) == j, "the float products hide it"
    weights, capacity = quantize_budget_safe([heavier, 0.0, 1e-12, 0.5], lighter)
    assert weights == [k + 1, 0, 1, SAFE_SCALE // 2]
    assert capacity == j - 1


def test_the_light_items_overshoot_upstream_and_not_budget_safe():
    upstream_answer = solved(SLIDING, LIGHT)
    assert saved_real_memory(LIGHT, upstream_answer) > LIGHT.max_memory
    safe_answer = solved(BUDGET_SAFE_ENTRY, LIGHT)
    assert safe_answer[0] == 2.0, "two items fit the budget"
    assert saved_real_memory(LIGHT, safe_answer) <= LIGHT.max_memory


def test_the_oracle_solves_the_rounding_the_solver_promises():
    shared = optimum(LIGHT)
    done = check(BUDGET_SAFE_ENTRY, LIGHT, "light", shared)
    assert done.oracle.rounding == BUDGET_SAFE
    assert done.oracle.value == 2
    assert done.verdict is Verdict.OPTIMAL
    assert check(SLIDING, LIGHT, "light", shared).oracle is shared


def test_a_solver_judged_on_upstream_rounding_would_fail_budget_safe_answers():
    claims_upstream = replace(BUDGET_SAFE_ENTRY, name="budget_safe_as_upstream", rounding=UPSTREAM)
    assert check(claims_upstream, LIGHT).verdict is Verdict.SUBOPTIMAL


def test_an_answer_over_its_safe_capacity_is_over_budget_with_a_failing_reproduction():
    claims_safe = replace(SLIDING, name="sliding_as_budget_safe", rounding=BUDGET_SAFE)
    done = check(claims_safe, LIGHT)
    assert done.verdict is Verdict.OVER_BUDGET and done.failed
    with pytest.raises(AssertionError, match="OVER_BUDGET"):
        exec(snippet(done), {})


def test_real_memory_over_the_budget_fails_a_rounding_that_promises_it(monkeypatch):
    """The judge checks the promise itself: a broken safe rounding cannot hide an overshoot."""
    monkeypatch.setitem(contract.ROUNDINGS, BUDGET_SAFE, Rounding(BUDGET_SAFE, quantize, keeps_real_budget=True))
    claims_safe = replace(SLIDING, name="sliding_as_budget_safe", rounding=BUDGET_SAFE)
    done = check(claims_safe, LIGHT)
    assert done.verdict is Verdict.OVER_BUDGET
    assert "real memory" in done.judgement.detail
    assert done.judgement.memory_slack > 0


@pytest.mark.parametrize("family_name", families.names())
def test_budget_safe_never_exceeds_the_real_budget(family_name):
    @settings(max_examples=40)
    @given(families.strategy(family_name))
    def within(instance):
        assume(size_allows(BUDGET_SAFE_ENTRY, instance))  # the boundary families' tables past 2**31 units
        answer = solved(BUDGET_SAFE_ENTRY, instance)
        assert saved_real_memory(instance, answer) <= instance.max_memory

    within()


@pytest.mark.parametrize("directory", [CORPUS_DIR, LARGE_CORPUS_DIR], ids=lambda d: d.name)
def test_budget_safe_keeps_every_harvested_budget(directory):
    for record in load_harvested(directory):
        answer = solved(BUDGET_SAFE_ENTRY, record.instance)
        assert saved_real_memory(record.instance, answer) <= record.instance.max_memory, record.name


def test_same_validation_as_the_contract():
    outcome = run(BUDGET_SAFE_ENTRY, LIGHT)
    assert outcome.returned
    with pytest.raises(ValueError, match=r"memory\[1\]"):
        BUDGET_SAFE_ENTRY.load()([0.1, -0.1], [1.0, 1.0], 0.5)
