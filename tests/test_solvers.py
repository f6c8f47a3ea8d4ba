"""Every exact solver of ours, from the registry, against the oracle on every family.

Adding a solver to solvers/catalog.py is enough for these tests to cover it: identical optimal
values on exact instances, valid selections always, and the metamorphic relations that reach
beyond what the oracle can prove.
"""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import check, size_allows
from knapcheck.oracles.exact import set_weight
from knapcheck.solvers.contract import SCALE, Instance, exact_scale
from knapcheck.solvers.isolation.running import run
from knapcheck.solvers.registry import ours

OUR_SOLVERS = [pytest.param(entry, id=entry.name) for entry in ours() if entry.exact]


def returned(entry, instance: Instance):
    """The solver's answer, which it must return."""
    outcome = run(entry, instance)
    assert outcome.returned, f"{entry.name} did not return: {outcome.error}"
    return outcome.answer


def answer(entry, instance: Instance):
    """The solver's answer on a drawn instance; one larger than the solver declares it takes is not drawn."""
    assume(size_allows(entry, instance))
    return returned(entry, instance)


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@pytest.mark.parametrize("family_name", families.names())
def test_optimal_on_every_family(entry, family_name):
    @settings(max_examples=25)
    @given(families.strategy(family_name))
    def optimal(instance):
        if not size_allows(entry, instance):
            return
        found = check(entry, instance, family_name)
        assert found.verdict.value == "OPTIMAL", f"{found.verdict}: {found.judgement.detail}"
        if exact_scale(instance.runtimes) is not None:
            assert found.outcome.answer.value == float(found.oracle.value)

    optimal()


def with_permutation(instance: Instance, order: list[int]) -> Instance:
    return Instance(
        tuple(instance.memory[i] for i in order), tuple(instance.runtimes[i] for i in order), instance.max_memory
    )


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@settings(max_examples=30)
@given(instance=st.sampled_from(families.names()).flatmap(families.strategy), data=st.data())
def test_permuting_items_keeps_the_value(entry, instance, data):
    order = data.draw(st.permutations(range(instance.n)))
    assert answer(entry, with_permutation(instance, order))[0] == pytest.approx(answer(entry, instance)[0], rel=1e-12)


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@settings(max_examples=30)
@given(instance=st.sampled_from(families.names()).flatmap(families.strategy), runtime=st.integers(1, 10**9))
def test_an_item_heavier_than_the_budget_changes_nothing(entry, instance, runtime):
    _, capacity = instance.quantized()
    heavy = Instance(instance.memory + ((capacity + 1) / SCALE,), instance.runtimes + (float(runtime),), instance.max_memory)
    weights, _ = heavy.quantized()
    assume(weights[-1] > capacity)  # past 2**53 units, (capacity + 1) / SCALE may quantize back to the capacity
    value, saved, _ = answer(entry, heavy)
    assert instance.n not in saved
    assert value == answer(entry, instance)[0]


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@settings(max_examples=30)
@given(st.sampled_from(families.names()).flatmap(families.strategy))
def test_one_more_unit_of_budget_never_lowers_the_value(entry, instance):
    _, capacity = instance.quantized()
    larger = Instance(instance.memory, instance.runtimes, (capacity + 1) / SCALE)
    assert answer(entry, larger)[0] >= answer(entry, instance)[0]
    value, saved, _ = answer(entry, larger)
    assert set_weight(larger, saved) <= capacity + 1


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@settings(max_examples=30)
@given(st.sampled_from(families.names(exact=True)).flatmap(families.strategy), st.integers(2, 1000))
def test_scaling_integer_runtimes_by_k_scales_the_value(entry, instance, k):
    scaled = Instance(instance.memory, tuple(r * k for r in instance.runtimes), instance.max_memory)
    if exact_scale(scaled.runtimes) is None:
        return
    assert answer(entry, scaled)[0] == k * answer(entry, instance)[0]


@pytest.mark.parametrize("entry", OUR_SOLVERS)
def test_deterministic(entry):
    instance = Instance(tuple((i % 9 + 1) / SCALE for i in range(30)), tuple(float(i % 4) for i in range(30)), 0.004)
    assert returned(entry, instance) == returned(entry, instance)


@pytest.mark.parametrize("entry", OUR_SOLVERS)
@pytest.mark.parametrize(
    "memory, runtimes, max_memory, message",
    [
        ([0.1], [1.0, 2.0], 1.0, "same length"),
        ([0.1, math.nan], [1.0, 2.0], 1.0, r"memory\[1\]"),
        ([0.1], [-math.inf], 1.0, r"runtimes\[0\]"),
        ([0.1], [1.0], -0.5, "max_memory"),
    ],
)
def test_bad_input_is_a_value_error(entry, memory, runtimes, max_memory, message):
    with pytest.raises(ValueError, match=message):
        entry.load()(memory, runtimes, max_memory)
