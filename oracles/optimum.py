"""The oracle to ask for an instance (under a rounding): brute force while it is cheap, CP-SAT beyond.

When CP-SAT cannot prove the optimum (its int64 model cannot hold the instance, or time ran out)
and n is within brute force's reach, brute force answers: exact on Python's unbounded integers.
"""

from __future__ import annotations

from functools import lru_cache

from ..solvers.contract import UPSTREAM, Instance
from .brute_force import MAX_ITEMS, brute_force
from .cpsat import DEFAULT_TIME_LIMIT, cpsat
from .result import OracleResult

BRUTE_FORCE_UP_TO = 12
REMEMBERED = 1 << 14
"""Answers kept, by instance content: a check asks once per instance, but shrinking asks again for
every candidate it meets twice, and each failure's search draws the same seeded examples."""


def optimum(instance: Instance, *, time_limit: float = DEFAULT_TIME_LIMIT, rounding: str = UPSTREAM) -> OracleResult:
    """The oracle's answer, asked once per (instance, time limit, rounding) in this process."""
    return _remembered(instance, time_limit, rounding)


@lru_cache(maxsize=REMEMBERED)
def _remembered(instance: Instance, time_limit: float, rounding: str) -> OracleResult:
    if instance.n <= BRUTE_FORCE_UP_TO:
        return brute_force(instance, rounding)
    result = cpsat(instance, time_limit=time_limit, rounding=rounding)
    if not result.proven and instance.n <= MAX_ITEMS:
        return brute_force(instance, rounding)
    return result
