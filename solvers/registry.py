"""One registry of every solver knapcheck knows, with what each one promises.

Tests, campaigns, benchmarks and reports iterate over it. It starts with our own solvers
(``knapcheck.solvers.catalog``); ``register`` adds one, ``unregister`` removes one. ``resolve`` turns any
spec (``knapcheck.solvers.specs``) into entries: a registered name, ``torch``, ``torch:NAME``,
``FILE.py:NAME`` or ``module:NAME``, the last three also read from another file (``<SOURCE.py``:
SOURCE.py's code, never the code the spec names; ``torch:NAME<SOURCE.py`` is judged on the promise of
torch's NAME, whether or not the installed torch has one). Every solver that is not one of our registered ones is
isolated: it runs in a worker process (``knapcheck.solvers.isolation.worker``), so a crash, a hang or a runaway
allocation becomes a verdict instead of the end of the run.

What a target is judged on is its promise. A file or module function named like one of torch's
solvers (``pr/knapsack.py:greedy_knapsack``) takes that solver's promise: heuristic for greedy,
exact for the others, and torch's size limit for ``dp_knapsack``'s table. Any other function is
exact. A spec ending in ``@exact`` or ``@heuristic`` declares the promise instead
(``knapcheck.solvers.specs``); ``promise_basis`` says which of these applied.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from typing import Iterable

from . import catalog, specs, torch_source
from .contract import Solver
from .entry import SolverEntry

TORCH_SOLVER_NAMES = ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")
"""The solvers of torch's knapsack.py (2.13 to 2.15): a file or module function of one of these
names takes that solver's promise."""
TORCH_HEURISTICS = frozenset({"greedy_knapsack"})
TORCH_DP_MAX_CELLS = 200_000_000
"""torch's dp_knapsack allocates a float32 table of n x (C+1) cells; the checks stop at this many."""
TORCH_SLIDING_MAX_CAPACITY = 2**27 - 1
"""torch's dp_knapsack_sliding_hirschberg allocates four float32 profiles of C+1 cells: past this
capacity they exceed the 2 GiB an isolated call may add, whatever n is."""

_REGISTRY: dict[str, SolverEntry] = {entry.name: entry for entry in catalog.OURS}


def register(entry: SolverEntry) -> SolverEntry:
    if not isinstance(entry, SolverEntry):
        raise ValueError(f"entry must be a SolverEntry, got {type(entry).__name__}")
    if entry.name in _REGISTRY:
        raise ValueError(f"a solver named {entry.name!r} is already registered")
    if ":" in entry.name or entry.name == "torch":
        raise ValueError(f"a registered name cannot look like a spec, got {entry.name!r}")
    specs.parse(entry.spec)
    _REGISTRY[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    """Remove a registered solver (ours included); ValueError if none has that name."""
    if _REGISTRY.pop(name, None) is None:
        raise ValueError(f"no solver named {name!r} is registered")


def registered() -> list[SolverEntry]:
    return list(_REGISTRY.values())


def ours() -> list[SolverEntry]:
    return [e for e in registered() if e.ours]


def get(spec: str) -> Solver:
    """The solver a spec names (exactly one) as a plain callable."""
    return resolve_one(spec).load()


def resolve_one(spec: str) -> SolverEntry:
    found = resolve(spec)
    if len(found) != 1:
        raise ValueError(f"{spec!r} names {len(found)} solvers; name exactly one, e.g. torch:dp_knapsack")
    return found[0]


def resolve(spec: str) -> list[SolverEntry]:
    """The entries a spec names; ValueError with the known names for an unknown one."""
    parsed = specs.parse(spec)
    return [_declared(entry, parsed) for entry in _undeclared(parsed)]


def _undeclared(parsed: specs.Spec) -> list[SolverEntry]:
    if parsed.kind == "name":
        if parsed.name not in _REGISTRY:
            known = ", ".join(sorted(_REGISTRY))
            raise ValueError(f"unknown solver {parsed.name!r}; registered: {known}; or use {specs.FORMS}")
        return [_REGISTRY[parsed.name]]
    if parsed.kind == "torch_all":
        return torch_entries()
    if parsed.kind == "torch" and not parsed.source:
        return [_torch_entry(parsed.name)]
    for entry in _REGISTRY.values():
        if specs.parse(entry.spec) == parsed.target:
            return [entry]
    origin = f"file {parsed.source or parsed.where}" if parsed.source or parsed.kind == "file" else f"module {parsed.where}"
    name = str(parsed.target)
    return [SolverEntry(name=name, spec=name, origin=origin, isolate=True, **_torch_promise(parsed.name))]


def _declared(entry: SolverEntry, parsed: specs.Spec) -> SolverEntry:
    """The entry judged on the promise its spec declares, if it declares one."""
    if parsed.promise is None:
        return entry
    return replace(entry, spec=str(replace(specs.parse(entry.spec), promise=parsed.promise)),
                   exact=parsed.promise == "exact")


def promise_basis(entry: SolverEntry) -> str:
    """Where an entry's promise comes from, in words."""
    spec = specs.parse(entry.spec)
    if spec.promise is not None:
        return f"declared (@{spec.promise})"
    if entry.name in _REGISTRY:
        return "registered"
    if spec.kind == "torch" and not spec.source:
        return f"torch's {spec.name}"
    if spec.name in TORCH_SOLVER_NAMES:
        return f"named like torch's {spec.name}"
    return "the default for a function not named like a torch solver"


def _torch_promise(name: str) -> dict:
    """What one of torch's solvers promises (a function of another name: exact, no size limit)."""
    dp, sliding = name == "dp_knapsack", name == "dp_knapsack_sliding_hirschberg"
    return {
        "exact": name not in TORCH_HEURISTICS,
        "memory_model": "float32 table n x (C+1)" if dp else "four float32 profiles of C+1 cells" if sliding else "",
        "max_cells": TORCH_DP_MAX_CELLS if dp else None,
        "max_capacity": TORCH_SLIDING_MAX_CAPACITY if sliding else None,
    }


def resolve_all(spec_list: Iterable[str]) -> list[SolverEntry]:
    """The entries of several specs, each once, in order."""
    seen: dict[str, SolverEntry] = {}
    for spec in spec_list:
        for entry in resolve(spec):
            seen.setdefault(entry.name, entry)
    return list(seen.values())


def torch_entries() -> list[SolverEntry]:
    """Every knapsack solver the installed torch defines, in definition order."""
    return [_torch_entry(name) for name in specs.torch_solver_names()]


def _torch_version() -> str:
    if "torch" not in sys.modules and (version := torch_source.version()) is not None:
        return version
    return importlib.import_module("torch").__version__


def _torch_entry(name: str) -> SolverEntry:
    if name not in specs.torch_solver_names():
        raise ValueError(f"the installed torch {_torch_version()} has no knapsack solver {name!r}")
    return SolverEntry(
        name=f"torch:{name}", spec=f"torch:{name}", origin=f"torch {_torch_version()}", isolate=True, **_torch_promise(name)
    )


def with_isolation(entry: SolverEntry) -> SolverEntry:
    """The same entry, run in a worker process."""
    return entry if entry.isolate else replace(entry, isolate=True)
