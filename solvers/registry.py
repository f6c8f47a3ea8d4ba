"""One registry of every solver knapcheck knows, with what each one promises (design.md, section 4).

Tests, campaigns, benchmarks and reports iterate over it. Our own solvers are listed in
``solvers.builtin``; upstream solvers are resolved from a spec:

- ``torch``: every solver in the installed torch;
- ``torch:NAME``: one of them;
- ``path/to/knapsack.py:NAME``: a function in a file, for instance one taken from a pull request;
- ``package.module:NAME``: a function in an importable module;
- a registered name such as ``full_table``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from solvers.contract import Solver

TORCH_KNAPSACK_MODULE = "torch._functorch._activation_checkpointing.knapsack"
TORCH_HEURISTICS = frozenset({"greedy_knapsack"})


@dataclass(frozen=True)
class SolverEntry:
    """A solver and its promises. ``load`` imports lazily, so listing the registry is cheap."""

    name: str
    load: Callable[[], Solver] = field(repr=False, compare=False)
    exact: bool
    origin: str
    device: str = "cpu"
    memory_model: str = ""
    max_cells: int | None = None
    """Largest n * (C + 1) the checks hand this solver; None means no limit."""
    isolate: bool = False
    """Run in a child process with a memory cap and a time limit (untrusted or heavy code)."""
    time_limit: float | None = None
    """Seconds one isolated call may take; None: solvers.isolation's default."""
    memory_limit: int | None = None
    """Bytes of address space one isolated call may add; None: solvers.isolation's default."""

    @property
    def ours(self) -> bool:
        return self.origin == "ours"

    def accepts(self, n: int, capacity: int) -> bool:
        return self.max_cells is None or n * (capacity + 1) <= self.max_cells


_REGISTRY: dict[str, SolverEntry] = {}


def register(entry: SolverEntry) -> SolverEntry:
    _ensure_builtins()
    if entry.name in _REGISTRY:
        raise ValueError(f"a solver named {entry.name!r} is already registered")
    _REGISTRY[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def registered() -> list[SolverEntry]:
    _ensure_builtins()
    return list(_REGISTRY.values())


def ours() -> list[SolverEntry]:
    return [e for e in registered() if e.ours]


def get(name: str) -> Solver:
    """A registered solver (or any spec naming exactly one) as a plain callable."""
    found = resolve(name)
    if len(found) != 1:
        raise ValueError(f"{name!r} names {len(found)} solvers; name exactly one, e.g. torch:dp_knapsack")
    return found[0].load()


def resolve(spec: str) -> list[SolverEntry]:
    """The entries a spec names; see the module docstring for the forms a spec takes."""
    _ensure_builtins()
    if spec in _REGISTRY:
        return [_REGISTRY[spec]]
    if spec == "torch":
        return torch_entries()
    if ":" not in spec:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown solver {spec!r}; registered: {known}; or use torch, torch:NAME, FILE.py:NAME, module:NAME")
    where, _, name = spec.rpartition(":")
    if where == "torch":
        return [_torch_entry(name)]
    if where.endswith(".py"):
        return [_file_entry(Path(where), name)]
    return [_module_entry(where, name)]


def resolve_all(specs: Iterable[str]) -> list[SolverEntry]:
    seen: dict[str, SolverEntry] = {}
    for spec in specs:
        for entry in resolve(spec):
            seen.setdefault(entry.name, entry)
    return list(seen.values())


def torch_entries() -> list[SolverEntry]:
    """Every knapsack solver the installed torch defines, in definition order."""
    module = importlib.import_module(TORCH_KNAPSACK_MODULE)
    names = [
        name
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if fn.__module__ == module.__name__ and not name.startswith("_")
    ]
    names.sort(key=lambda name: getattr(module, name).__code__.co_firstlineno)
    return [_torch_entry(name) for name in names]


def _torch_version() -> str:
    import torch

    return torch.__version__


def _torch_entry(name: str) -> SolverEntry:
    module = importlib.import_module(TORCH_KNAPSACK_MODULE)
    if not callable(getattr(module, name, None)):
        raise ValueError(f"the installed torch {_torch_version()} has no knapsack solver {name!r}")
    return SolverEntry(
        name=f"torch:{name}",
        load=lambda: getattr(importlib.import_module(TORCH_KNAPSACK_MODULE), name),
        exact=name not in TORCH_HEURISTICS,
        origin=f"torch {_torch_version()}",
        memory_model="float32 table n x (C+1)" if name == "dp_knapsack" else "",
        max_cells=200_000_000 if name == "dp_knapsack" else None,
    )


def _file_entry(path: Path, name: str) -> SolverEntry:
    if not path.is_file():
        raise ValueError(f"solver file {str(path)!r} does not exist")
    path = path.resolve()

    def load() -> Solver:
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(f"knapcheck_target_{digest}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not callable(getattr(module, name, None)):
            raise ValueError(f"{path} defines no function {name!r}")
        return getattr(module, name)

    return SolverEntry(name=f"{path}:{name}", load=load, exact=True, origin=f"file {path}", isolate=True)


def _module_entry(module_name: str, name: str) -> SolverEntry:
    def load() -> Solver:
        module = importlib.import_module(module_name)
        if not callable(getattr(module, name, None)):
            raise ValueError(f"module {module_name} defines no function {name!r}")
        return getattr(module, name)

    return SolverEntry(name=f"{module_name}:{name}", load=load, exact=True, origin=f"module {module_name}")


def _ensure_builtins() -> None:
    from solvers import builtin

    for entry in builtin.ENTRIES:
        _REGISTRY.setdefault(entry.name, entry)
