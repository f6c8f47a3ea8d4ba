"""The oracles check each other: CP-SAT against brute force, the trust anchor, and the reference."""

from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.instances.families import any_instance
from knapcheck.fuzz.judging.verdicts.differential import size_allows
from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.cpsat import cpsat, model_runtimes
from knapcheck.oracles.exact import set_value, set_weight
from knapcheck.oracles.optimum import optimum
from knapcheck.solvers.contract import Instance, exact_scale
from knapcheck.solvers.full_table import full_table
from knapcheck.solvers.registry import resolve_one

small_instances = any_instance().filter(lambda instance: instance.n <= 12)


@settings(max_examples=1500)
@given(small_instances)
def test_cpsat_agrees_with_brute_force(instance):
    anchor = brute_force(instance)
    oracle = cpsat(instance)
    assert oracle.proven
    assert set_weight(instance, oracle.saved) <= instance.quantized()[1]
    assert abs(oracle.value - anchor.value) <= oracle.slack
    if exact_scale(instance.runtimes) is not None:
        assert oracle.value == anchor.value


@settings(max_examples=40)
@given(st.sampled_from(families.names()).flatmap(families.strategy))
def test_full_table_reference_agrees_with_cpsat_on_every_family(instance):
    assume(size_allows(resolve_one("full_table"), instance))
    oracle = cpsat(instance)
    value, saved, _ = full_table(instance.memory, instance.runtimes, instance.max_memory)
    assert set_weight(instance, saved) <= instance.quantized()[1]
    if exact_scale(instance.runtimes) is not None:
        assert value == float(oracle.value)
        assert set_value(instance, saved) == oracle.value


def test_brute_force_values_are_exact_for_any_floats():
    instance = Instance((0.0001, 0.0001), (0.1, 1e300), 0.0002)
    assert brute_force(instance).value == Fraction(0.1) + Fraction(1e300)


def test_cpsat_rounds_huge_runtimes_and_states_the_slack():
    instance = Instance((0.0001, 0.0001, 0.0002), (1e300, 3.0, 1e299), 0.0002)
    coefficients, _, slack = model_runtimes(instance)
    assert max(coefficients).bit_length() <= 51 and slack > 0
    result = cpsat(instance)
    # 3.0 rounds to nothing next to 1e300: the model may leave it out, within the stated slack.
    assert result.proven and 0 in result.saved
    assert 0 <= brute_force(instance).value - result.value <= slack


def test_cpsat_without_time_is_unproven_never_a_pass():
    instance = Instance(tuple(0.0001 * (i % 7 + 1) for i in range(60)), tuple(float(i * 37 % 101) for i in range(60)), 0.01)
    assert not cpsat(instance, time_limit=0.0).proven


HUGE_COMMON_UNIT = Instance(tuple(1e15 * (1 + i % 5) for i in range(13)), tuple(float(i + 1) for i in range(13)), 1e16)
"""13 items weighing 1e19 to 5e19 quantized units (beyond int64), capacity 1e20: a common divisor of 1e19."""


def _spread_weights(n: int) -> Instance:
    """Two items of about 1e24 units beside small odd ones: no common divisor, the sum beyond 2**62."""
    memory = (1e20, 1.2e20) + tuple(0.0001 * (2 * i + 3) for i in range(n - 2))
    return Instance(memory, tuple(float(i % 7 + 1) for i in range(n)), 1.5e20)


def test_cpsat_rescales_weights_beyond_int64_exactly():
    result = cpsat(HUGE_COMMON_UNIT)
    assert result.proven and result.value == brute_force(HUGE_COMMON_UNIT).value


def test_cpsat_clamps_a_budget_beyond_int64_when_everything_fits():
    instance = Instance((1e15,) * 13, (1e19,) * 12 + (-1.0,), 1e300)
    result = cpsat(instance)
    assert result.proven and result.saved == tuple(range(12)) and result.value == Fraction(12 * 10**19)


def test_cpsat_states_why_it_cannot_model_an_instance_and_optimum_falls_back_to_brute_force():
    instance = _spread_weights(13)
    result = cpsat(instance)
    assert not result.proven and "beyond CP-SAT's limit of 2**62" in result.reason
    answer = optimum(instance)
    assert answer.proven and answer.name == "brute_force" and answer == brute_force(instance)


def test_beyond_brute_force_an_instance_cpsat_cannot_hold_is_unverified_with_the_reason():
    result = optimum(_spread_weights(17))
    assert not result.proven and result.saved == () and "2**62" in result.reason
