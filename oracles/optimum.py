"""The oracle to ask for an instance: brute force while it is cheap, CP-SAT beyond."""

from __future__ import annotations

from oracles.brute_force import brute_force
from oracles.cpsat import DEFAULT_TIME_LIMIT, cpsat
from oracles.result import OracleResult
from solvers.contract import Instance

BRUTE_FORCE_UP_TO = 12


def optimum(instance: Instance, *, time_limit: float = DEFAULT_TIME_LIMIT) -> OracleResult:
    if instance.n <= BRUTE_FORCE_UP_TO:
        return brute_force(instance)
    return cpsat(instance, time_limit=time_limit)
