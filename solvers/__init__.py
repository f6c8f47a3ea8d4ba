"""Solvers: the contract, quantization and input checks, the registry, our solvers, upstream adapters."""

from knapcheck.solvers.contract import SCALE, Instance, ProblemTooLarge, Solution, quantize, validate
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import get, register, registered, resolve, resolve_all, unregister

__all__ = [
    "SCALE",
    "Instance",
    "ProblemTooLarge",
    "Solution",
    "SolverEntry",
    "get",
    "quantize",
    "register",
    "registered",
    "resolve",
    "resolve_all",
    "unregister",
    "validate",
]
