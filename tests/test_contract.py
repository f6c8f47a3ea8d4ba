"""The contract's input checks, quantization and exactness rules."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from knapcheck.solvers import contract
from knapcheck.solvers.contract import Instance, exact_runtimes, exact_scale, float_tolerance, quantize, validate
from knapcheck.solvers.registry import ours


@pytest.mark.parametrize(
    "memory, runtimes, max_memory, message",
    [
        ([0.1, 0.2], [1.0], 1.0, "same length, got 2 and 1"),
        ([0.1, float("nan")], [1.0, 1.0], 1.0, r"memory\[1\] must be finite"),
        ([0.1, 0.2], [1.0, float("inf")], 1.0, r"runtimes\[1\] must be finite"),
        ([0.1, -0.2], [1.0, 1.0], 1.0, r"memory\[1\] must be >= 0"),
        ([0.1], [1.0], -1.0, "max_memory must be >= 0"),
        ([0.1], [1.0], float("nan"), "max_memory must be finite"),
        (["0.1"], [1.0], 1.0, r"memory\[0\] must be a real number, got str"),
        ([0.1], [None], 1.0, r"runtimes\[0\] must be a real number, got NoneType"),
        ([True], [1.0], 1.0, r"memory\[0\] must be a real number, got bool"),
        ([0.1], [1.0], "1", "max_memory must be a real number"),
        ([1e306], [1.0], 1.0, r"memory\[0\] = 1e\+306 is too large to quantize"),
        (0.1, [1.0], 1.0, "memory must be a sequence"),
    ],
)
def test_bad_input_names_the_argument_and_index(memory, runtimes, max_memory, message):
    with pytest.raises(ValueError, match=message):
        validate(memory, runtimes, max_memory)


UNREPRESENTABLE = [
    pytest.param([10**400], [1.0], 1.0, r"memory\[0\] = 1000.* is beyond float64's range", id="memory 10**400"),
    pytest.param([0.1, 0.1], [1.0, 10**400], 1.0, r"runtimes\[1\] = 1000.* is beyond float64's range", id="runtime 10**400"),
    pytest.param([0.1], [1.0], -(10**400), r"max_memory = -1000.* is beyond float64's range", id="budget -10**400"),
    pytest.param([0.1], [1.0], 10**5000, "max_memory = a int too long to print is beyond float64's range", id="budget 10**5000"),
    pytest.param([0.1, 0.1], [1e308, 1e308], 1.0, "runtimes: the positive runtimes sum to more than float64 holds", id="total 2e308"),
    pytest.param([0.1, 0.1, 0.1], [6e307, 6e307, -1e308], 1.0, r"runtimes: the positive runtimes sum to 1\.2e\+308", id="total 1.2e308"),
]
"""Values no float64 holds, and runtimes whose total saved would overflow float64 (each one fits)."""


@pytest.mark.parametrize("memory, runtimes, max_memory, message", UNREPRESENTABLE)
def test_numbers_float64_cannot_hold_are_rejected_naming_the_argument(memory, runtimes, max_memory, message):
    with pytest.raises(ValueError, match=message):
        validate(memory, runtimes, max_memory)


@pytest.mark.parametrize("entry", ours(), ids=lambda entry: entry.name)
@pytest.mark.parametrize("memory, runtimes, max_memory, message", UNREPRESENTABLE)
def test_every_solver_of_ours_rejects_them_before_solving(entry, memory, runtimes, max_memory, message):
    with pytest.raises(ValueError, match=message):
        entry.load()(memory, runtimes, max_memory)


def test_runtimes_whose_total_fits_are_solved():
    assert validate([0.1, 0.1], [4e307, 4e307], 1.0)[1] == [4e307, 4e307]
    assert ours()[0].load()([0.1, 0.1], [4e307, 4e307], 1.0) == (8e307, [0, 1], [])


@pytest.mark.parametrize(
    "argument, value",
    [
        ("memory", {0.5: "a", 0.25: "b"}),
        ("runtimes", {1.0: "a", 2.0: "b"}),
        ("memory", {0.5, 0.25}),
        ("runtimes", frozenset({1.0, 2.0})),
        ("memory", iter([0.5, 0.25])),
        ("runtimes", (r for r in [1.0, 2.0])),
        ("memory", "12"),
        ("runtimes", b"\x01\x02"),
        ("memory", np.array([[0.5], [0.25]])),
        ("runtimes", np.float64(1.0)),
    ],
)
def test_memory_and_runtimes_must_be_sequences(argument, value):
    arguments = {"memory": [0.5, 0.25], "runtimes": [1.0, 2.0], "max_memory": 1.0, argument: value}
    with pytest.raises(ValueError, match=f"^{argument} must be (a sequence|one-dimensional)"):
        validate(**arguments)
    with pytest.raises(ValueError, match=f"^{argument} must be"):
        Instance.from_dict(arguments)


def test_lists_tuples_ranges_numpy_arrays_and_torch_tensors_are_sequences():
    import torch

    memory, runtimes, _ = validate(torch.tensor([0.5, 0.25], dtype=torch.float64), np.array([3, 2]), 1.0)
    assert memory == [0.5, 0.25] and runtimes == [3.0, 2.0]
    assert validate((0.5, 0.25), range(2), 1.0)[:2] == ([0.5, 0.25], [0.0, 1.0])


def test_numpy_and_torch_numbers_are_accepted():
    import torch

    memory, runtimes, budget = validate(np.array([0.5, 0.25]), [torch.tensor(3.0).item(), np.int64(2)], np.float32(0.5))
    assert memory == [0.5, 0.25] and runtimes == [3.0, 2.0] and budget == 0.5


def test_quantization_is_pythons_round_of_the_float_product():
    # 0.00025 * 10000 == 2.5 exactly: ties go to even; 0.00015 * 10000 is just below 1.5.
    assert quantize([0.00025, 0.00035, 0.00015], 0.00045) == ([2, 4, 1], 4)
    assert quantize([0.1 + 0.2], 0.3) == ([3000], 3000)


def test_exact_scale_covers_integers_and_binary_fractions_below_2_53():
    assert exact_scale([1.0, 2.0, 3.0]) == 1
    assert exact_scale([0.5, 0.25, 3.0]) == 4
    assert exact_scale([2.0**52, 2.0**52]) is None
    assert exact_scale([0.1]) is not None  # a dyadic rational with a 2**55 denominator, still below 2**53 in total
    assert exact_scale([0.1, 1e3]) is None


def test_exact_runtimes_are_the_exact_dyadic_values():
    integers, denominator = exact_runtimes([0.1, 1e300, -0.5])
    assert [n / denominator for n in integers] == [0.1, 1e300, -0.5]


def test_float_tolerance_is_zero_on_exact_instances_and_small_otherwise():
    assert float_tolerance([1.0, 2.0]) == 0.0
    runtimes = [0.1, 1e3, 7.3]
    assert 0 < float_tolerance(runtimes) <= 2 * 3 * 2.0**-53 * math.fsum(runtimes) * (1 + 2.0**-40)


class UnreadableFloat(float):
    """A float whose __float__ raises."""

    def __float__(self):
        raise RuntimeError("planted: unreadable")


class UnreadableSequence(list):
    def __iter__(self):
        raise RuntimeError("planted: cannot iterate")


UNREADABLE = [
    pytest.param([UnreadableFloat(0.1)], [1.0], 1.0, r"^memory\[0\] cannot be read as a float: RuntimeError: planted", id="memory"),
    pytest.param([0.1, 0.2], [1.0, UnreadableFloat(2.0)], 1.0, r"^runtimes\[1\] cannot be read as a float", id="runtimes"),
    pytest.param([0.1], [1.0], UnreadableFloat(1.0), r"^max_memory cannot be read as a float", id="max_memory"),
    pytest.param(UnreadableSequence([0.1]), [1.0], 1.0, r"^memory cannot be read: RuntimeError: planted: cannot iterate", id="iteration"),
]
"""Numbers and sequences whose own code raises while being read."""


@pytest.mark.parametrize("entry", ours(), ids=lambda entry: entry.name)
@pytest.mark.parametrize("memory, runtimes, max_memory, message", UNREADABLE)
def test_every_solver_of_ours_names_the_argument_it_cannot_read(entry, memory, runtimes, max_memory, message):
    with pytest.raises(ValueError, match=message):
        entry.load()(memory, runtimes, max_memory)


def test_instance_round_trips_through_a_dict_and_is_validated():
    instance = Instance((0.1, 0.2), (3.0, 4.0), 0.25)
    assert Instance.from_dict(instance.as_dict()) == instance
    with pytest.raises(ValueError, match="missing"):
        Instance.from_dict({"memory": [0.1]})
    with pytest.raises(ValueError, match=r"runtimes\[0\] must be finite"):
        Instance((0.1,), (float("nan"),), 1.0)


def _outcome(check, *args):
    try:
        return check(*args)
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


numbers = st.one_of(st.floats(), st.integers(-(2**1100), 2**1100), st.sampled_from([1e306, 1.5e308, -1.5e308, -0.0, 5e-324]))


@given(st.lists(st.tuples(numbers, numbers), max_size=6), numbers)
def test_the_fast_path_answers_as_the_item_by_item_checks(items, max_memory):
    memory, runtimes = [m for m, _ in items], [r for _, r in items]
    assert _outcome(validate, memory, runtimes, max_memory) == _outcome(
        contract._checked_one_by_one, memory, runtimes, max_memory
    )


@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**60), 2**60))))
def test_exact_runtimes_of_integer_floats_take_the_shortcut_to_the_same_answer(runtimes):
    integers, denominator = exact_runtimes(runtimes)
    ratios = [float(r).as_integer_ratio() for r in runtimes]
    assert denominator == max((d for _, d in ratios), default=1)
    assert integers == [n * (denominator // d) for n, d in ratios]
