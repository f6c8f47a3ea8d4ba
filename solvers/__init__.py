"""Solvers: the contract, quantization and input checks, the registry, our solvers, upstream adapters.

Sub-packages: ``core`` (the expanding-core search) and ``dp`` (the DP row updates) import nothing
of knapcheck; ``isolation`` (running a solver in a worker process) imports the modules here, which
never import it.
"""

from .contract import SCALE, Instance, ProblemTooLarge, Solution, quantize, validate
from .entry import SolverEntry
from .registry import get, register, registered, resolve, resolve_all, unregister

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
