"""Oracles: CP-SAT, brute force, and the verdict function that judges a solver's answer."""

from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.cpsat import cpsat
from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.result import OracleResult
from knapcheck.oracles.verdict import Judgement, Verdict, judge

__all__ = ["OracleResult", "Judgement", "Verdict", "brute_force", "cpsat", "judge", "optimum"]
