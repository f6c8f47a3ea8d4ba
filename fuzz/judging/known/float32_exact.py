"""Where float32 arithmetic is exact, and the nearest instance's runtimes where it is.

torch's float32 tables and profiles round, absorb and flush runtimes: a runtime of 1 beside one of
2e7 vanishes, 5e-117 becomes 0. None of that can happen when every positive runtime is a multiple
of one power of two 2**e, their total is below 2**24 in that unit, and the unit lies between
float32's smallest normal 2**-126 and 2**104: then every runtime and every sum of them is a float32
integer multiple of the unit below 2**128, so each addition and comparison is exact. Runtimes such
as k * 2**26 (FLOP-scale) or k * 2**-40 (tiny) qualify; 2e7 + 1 does not. Negative runtimes are
never added by a correct table (the zero-weight defect that adds them is a cause of its own), so
they are not counted.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

from ....solvers.contract import exact_runtimes

SIGNIFICAND_BITS = 24
SMALLEST_NORMAL_EXPONENT = -126
LARGEST_UNIT_EXPONENT = 127 - SIGNIFICAND_BITS
"""A total below 2**24 units of 2**e stays below float32's overflow 2**128 for e up to 104."""


def float32_unit(runtimes: Sequence[float]) -> Fraction | None:
    """The largest power of two of which every positive runtime is a multiple, when float32 adds
    them exactly (module docstring); None when it does not. 1 when no runtime is positive."""
    positive = [r for r in runtimes if r > 0]
    if not positive:
        return Fraction(1)
    integers, denominator = exact_runtimes(positive)
    shift = min((v & -v).bit_length() - 1 for v in integers)
    unit = Fraction(2**shift, denominator)
    if sum(integers) >> shift >= 2**SIGNIFICAND_BITS:
        return None
    if not Fraction(2) ** SMALLEST_NORMAL_EXPONENT <= unit <= Fraction(2) ** LARGEST_UNIT_EXPONENT:
        return None
    return unit


def float32_exact(runtimes: Sequence[float]) -> bool:
    return float32_unit(runtimes) is not None


def onto_float32_grid(runtimes: Sequence[float]) -> tuple[float, ...] | None:
    """The runtimes with each positive one rounded to the nearest multiple of the smallest power of
    two 2**e that keeps their total below 2**23 units (at least 2**-126), so that the rounded
    runtimes are float32-exact; negative ones unchanged. None when their total is past float32's
    range. Runtimes already float32-exact are returned as they are."""
    runtimes = tuple(float(r) for r in runtimes)
    if float32_exact(runtimes):
        return runtimes
    total = math.fsum(r for r in runtimes if r > 0)
    exponent = max(SMALLEST_NORMAL_EXPONENT, math.frexp(total)[1] - (SIGNIFICAND_BITS - 1))
    if exponent > LARGEST_UNIT_EXPONENT:
        return None
    rounded = tuple(math.ldexp(round(math.ldexp(r, -exponent)), exponent) if r > 0 else r for r in runtimes)
    return rounded if float32_exact(rounded) else None
