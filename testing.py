"""Assertions for your own tests: a solver judged by knapcheck's oracles on one instance.

    from knapcheck.testing import assert_optimal

    assert_optimal(my_solver, instance)               # an exact solver: the proven optimum
    assert_valid(my_greedy, instance)                 # a heuristic: a valid selection

``solver`` is a callable with torch's signature, ``solve(memory, runtimes, max_memory) -> (value,
saved, recomputable)``, called here in this process; or a spec string (``torch:dp_knapsack``,
``pr/knapsack.py:dp_knapsack``, a registered name such as ``full_table``), run as ``knapcheck
check`` runs it (isolated, if it is not one of ours) and judged on its own promise and rounding.
``instance`` is a ``knapcheck.solvers.contract.Instance`` (what ``knapcheck.strategies`` draws), a
mapping with ``memory``, ``runtimes`` and ``max_memory``, or those three as a tuple.

A failure raises ``SolverFailure`` (an AssertionError) whose message is the verdict, what was
wrong, what the oracle proved, what the solver returned and a snippet that reproduces it. An
instance the oracle cannot prove the optimum of (``UNVERIFIED``) is never a pass: it raises too.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .solvers.contract import Instance

if TYPE_CHECKING:
    from .fuzz.judging.verdicts.differential import Check
    from .solvers.entry import SolverEntry

__all__ = ["SolverFailure", "assert_optimal", "assert_valid", "check"]


class SolverFailure(AssertionError):
    """A solver failed its promise on an instance (or the optimum could not be proven)."""

    def __init__(self, message: str, check: Check) -> None:
        super().__init__(message)
        self.check = check
        """The whole check: ``check.verdict``, ``check.judgement.detail``, ``check.oracle``, ``check.outcome``."""


def assert_optimal(solver: Callable | str, instance) -> None:
    """The solver returns a valid selection worth the proven optimum, and reports its value."""
    _assert(solver, instance, exact=True)


def assert_valid(solver: Callable | str, instance) -> None:
    """The solver returns a valid selection (a partition, within the budget, its value reported);
    being short of the optimum is no failure: a heuristic's promise."""
    _assert(solver, instance, exact=False)


def check(solver: Callable | str, instance, *, exact: bool | None = None) -> Check:
    """The check of the solver on the instance, without asserting: ``check(...).verdict``.
    ``exact``: what the solver promises (default: True for a callable, a spec's own promise)."""
    from dataclasses import replace

    from .fuzz.judging.verdicts import differential
    from .solvers.contract.outcome import call_in_process

    given = _instance(instance)
    if isinstance(solver, str):
        from .solvers.registry import resolve_one

        entry = resolve_one(solver)
        return differential.check(entry if exact is None else replace(entry, exact=exact), given, "given")
    if not callable(solver):
        raise ValueError(f"solver must be a callable or a solver spec string, got {type(solver).__name__}")
    entry = _entry_of(solver, True if exact is None else exact)
    return differential.judged(entry, given, "given", None, call_in_process(solver, given))


def _assert(solver: Callable | str, instance, *, exact: bool) -> None:
    from .oracles.verdict import Verdict

    done = check(solver, instance, exact=exact)
    if done.failed or done.verdict is Verdict.UNVERIFIED:
        raise SolverFailure(_message(done, importable=not callable(solver) or _spec_of(solver) is not None), done)


def _instance(instance) -> Instance:
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, Mapping):
        return Instance.from_dict(instance)
    if isinstance(instance, tuple) and len(instance) == 3:
        return Instance(*instance)
    raise ValueError(
        "instance must be a knapcheck Instance, a mapping with memory, runtimes and max_memory,"
        f" or the tuple (memory, runtimes, max_memory); got {type(instance).__name__}"
    )


def _spec_of(solver: Callable) -> str | None:
    """A spec that imports this very callable again: ``torch:NAME`` for torch's solvers, ``module:NAME``
    for a module inside a package, ``FILE.py:NAME`` for a top-level module (a test file); None when
    nothing does (a lambda, a closure, a method)."""
    from .solvers.specs import TORCH_KNAPSACK_MODULE

    name = getattr(solver, "__qualname__", "")
    module = sys.modules.get(getattr(solver, "__module__", None) or "")
    if not name.isidentifier() or module is None or getattr(module, name, None) is not solver:
        return None
    if module.__name__ == TORCH_KNAPSACK_MODULE:
        return f"torch:{name}"
    package = getattr(getattr(module, "__spec__", None), "parent", "")
    if package and module.__name__ != "__main__":
        return f"{module.__name__}:{name}"
    try:
        path = inspect.getsourcefile(module)
    except TypeError:
        path = None
    return f"{path}:{name}" if path and path.endswith(".py") else None


def _entry_of(solver: Callable, exact: bool) -> SolverEntry:
    from .solvers.entry import SolverEntry

    spec = _spec_of(solver)
    name = spec if spec else getattr(solver, "__name__", type(solver).__name__)
    return SolverEntry(name=name, spec=spec or f"{__name__}:unnamed_solver", exact=exact, origin="given")


def _message(done: Check, *, importable: bool) -> str:
    from .reports.reproduction import import_lines, snippet

    returned = done.outcome.answer if done.outcome.returned else done.outcome.error
    reproduction = snippet(done)
    if not importable:
        binding = "\n".join(import_lines(done.solver.spec))
        reproduction = reproduction.replace(
            binding, "# bind solve to the solver under test here: it has no name it can be imported by", 1
        )
    return "\n".join([
        f"{done.solver.name}: {done.verdict.value}: {done.judgement.detail}",
        f"  instance: {done.instance.as_dict()}",
        f"  expected: {float(done.oracle.value)!r} with saved={list(done.oracle.saved)} ({done.oracle.name})",
        f"  returned: {returned!r}"[:600],
        "  reproduce with this snippet (it fails when run as shown):",
        "",
        reproduction,
    ])
