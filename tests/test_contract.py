"""The contract's input checks, quantization and exactness rules."""

import math

import numpy as np
import pytest

from solvers.contract import Instance, exact_runtimes, exact_scale, float_tolerance, quantize, validate


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
    assert 0 < float_tolerance(runtimes) <= 2 * 3 * 2.0**-53 * math.fsum(runtimes)


def test_instance_round_trips_through_a_dict_and_is_validated():
    instance = Instance((0.1, 0.2), (3.0, 4.0), 0.25)
    assert Instance.from_dict(instance.as_dict()) == instance
    with pytest.raises(ValueError, match="missing"):
        Instance.from_dict({"memory": [0.1]})
    with pytest.raises(ValueError, match=r"runtimes\[0\] must be finite"):
        Instance((0.1,), (float("nan"),), 1.0)
