"""A registry entry: a solver named by its spec, and what it promises."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from . import specs
from .contract import UPSTREAM, Solver


@dataclass(frozen=True)
class SolverEntry:
    """Plain data: nothing is imported until ``load`` is called, so listing entries is cheap."""

    name: str
    spec: str
    """Where the code is: ``module:NAME``, ``FILE.py:NAME`` or ``torch:NAME`` (see knapcheck.solvers.specs)."""
    exact: bool
    """Promises the optimum (else only a valid selection: a heuristic)."""
    origin: str
    """``ours``, ``torch VERSION``, ``file PATH`` or ``module NAME``."""
    device: str = "cpu"
    memory_model: str = ""
    max_cells: int | None = None
    """Largest n * (C + 1) the solver accepts; None means no limit on that product."""
    max_capacity: int | None = None
    """Largest quantized capacity C the solver accepts; None means no limit."""
    isolate: bool = False
    """Run in a child process with a memory cap and a time limit (untrusted or heavy code)."""
    time_limit: float | None = None
    """Seconds one isolated call may take; None: knapcheck.solvers.isolation.worker's default."""
    memory_limit: int | None = None
    """Bytes of address space one isolated call may add; None: knapcheck.solvers.isolation.worker's default."""
    rounding: str = UPSTREAM
    """The quantization it is exact for (a name in knapcheck.solvers.contract.ROUNDINGS): the checks judge it on that."""
    requires: tuple[tuple[str, str], ...] = ()
    """(module, knapcheck extra that installs it) for each module its code needs beyond knapcheck's
    own dependencies: ``("triton", "cuda")`` for the cuda solver."""

    @property
    def ours(self) -> bool:
        return self.origin == "ours"

    def accepts(self, n: int, capacity: int) -> bool:
        """Whether the solver promises to solve a problem of this size (a refusal above it is no defect)."""
        if self.max_capacity is not None and capacity > self.max_capacity:
            return False
        return self.max_cells is None or n * (capacity + 1) <= self.max_cells

    def unavailable(self) -> str | None:
        """Why the solver cannot run in this environment, as a clause ("needs triton, which is not
        installed ..."); None when it can. Looks the modules up without importing them."""
        missing = [(module, extra) for module, extra in self.requires if importlib.util.find_spec(module) is None]
        if not missing:
            return None
        modules = " and ".join(module for module, _ in missing)
        extras = ",".join(dict.fromkeys(extra for _, extra in missing))
        return f"needs {modules}, which is not installed (knapcheck[{extras}] installs it)"

    def load(self) -> Solver:
        return specs.load(self.spec)
