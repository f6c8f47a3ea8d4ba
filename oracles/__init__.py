"""Oracles: CP-SAT, brute force, and the verdict function that judges a solver's answer."""

from oracles.brute_force import brute_force
from oracles.cpsat import cpsat
from oracles.optimum import optimum
from oracles.result import OracleResult
from oracles.verdict import Judgement, Verdict, judge

__all__ = ["OracleResult", "Judgement", "Verdict", "brute_force", "cpsat", "judge", "optimum"]
