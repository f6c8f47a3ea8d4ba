"""Oracles: CP-SAT, brute force, and the verdict function that judges a solver's answer."""

from .brute_force import brute_force
from .cpsat import cpsat
from .optimum import optimum
from .result import OracleResult
from .verdict import Judgement, Verdict, judge

__all__ = ["OracleResult", "Judgement", "Verdict", "brute_force", "cpsat", "judge", "optimum"]
