"""What an oracle says about an instance: the best value it found, and whether it proved it."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..solvers.contract import UPSTREAM


@dataclass(frozen=True)
class OracleResult:
    name: str
    value: Fraction
    """Exact value of ``saved``."""
    saved: tuple[int, ...]
    proven: bool
    """True when no feasible set is worth more than ``value + slack``."""
    slack: Fraction = Fraction(0)
    """How much better than ``value`` the true optimum may be (non-zero only for rounded models)."""
    reason: str = ""
    """Why optimality is not proven (a time limit, a model CP-SAT cannot hold); empty when proven."""
    rounding: str = UPSTREAM
    """The quantization (knapcheck.solvers.contract.ROUNDINGS) of the problem it solved."""
