"""Solver specs: the one place that reads a spec and the one place that imports what it names.

A spec says where a solver's code is:

- ``torch``: every solver in the installed torch;
- ``torch:NAME``: one of them;
- ``path/to/knapsack.py:NAME``: a function in a file, for instance one taken from a pull request;
- ``package.module:NAME``: a function in an importable module;
- anything without a colon: a registered name such as ``full_table`` (``knapcheck.solvers.registry``).

A function spec may end in a promise, ``@exact`` or ``@heuristic`` (``pr/knapsack.py:greedy_knapsack@exact``):
what the target is judged on, instead of its default (``knapcheck.solvers.registry``: a function named
like one of torch's solvers takes that solver's promise; any other is exact).

Loading is cached by spec, so a file or module is imported once however many entries name it.

A ``FILE.py:NAME``, ``torch:NAME`` or ``module:NAME`` spec may end in ``<SOURCE.py``: the code is
then read from SOURCE.py, but loaded where the file or module sits, as a sibling module of its
package (its relative imports load from the same tree; ``torch:NAME<SOURCE.py`` beside torch's
knapsack.py). No other form can be read from another file: ``torch<SOURCE.py`` or a registered name
with one is refused. knapcheck's repaired candidates are loaded so
(``knapcheck.fuzz.judging.known.repaired``): the candidate's own source with a known defect repaired.

A file spec names its file by absolute path, so that it loads and compares the same from any
directory; ``shown`` gives the form a reader sees, the path relative to the working directory.

Before knapcheck installed everything under its own name, its modules were top-level
(``solvers.full_table``); a module spec written then, in a stored record or a corpus, is read as the
``knapcheck.`` module it became, when knapcheck has that module.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Iterable, Literal, cast

from . import torch_source
from .contract import Solver
from .files.reader import readable_problem

TORCH_KNAPSACK_MODULE = "torch._functorch._activation_checkpointing.knapsack"

Kind = Literal["torch_all", "torch", "file", "module", "name"]
PROMISES = ("exact", "heuristic")


@dataclass(frozen=True)
class Spec:
    kind: Kind
    where: str
    """The module's dotted name (``torch`` and ``module``), the file's absolute path (``file``), or ''."""
    name: str
    """The function's name, or the registered name (``name``); '' for ``torch_all``."""
    promise: str | None = None
    """A declared promise (one of PROMISES), or None: the registry's default for the target."""
    source: str = ""
    """The absolute path of a file whose code replaces the file's or module's own; '' for its own."""

    def __str__(self) -> str:
        if self.kind == "torch_all":
            return "torch"
        if self.kind == "name":
            return self.name
        declared = f"@{self.promise}" if self.promise else ""
        read_from = f"<{self.source}" if self.source else ""
        return f"{'torch' if self.kind == 'torch' else self.where}:{self.name}{declared}{read_from}"

    @property
    def target(self) -> "Spec":
        """The same spec without its declared promise: what names and loads the code."""
        return Spec(self.kind, self.where, self.name, source=self.source)

    @property
    def module(self) -> str:
        """The dotted module a ``torch`` or ``module`` spec imports."""
        return TORCH_KNAPSACK_MODULE if self.kind == "torch" else self.where


FORMS = "torch, torch:NAME, FILE.py:NAME, module:NAME or a registered name"
PROMISE_SYNTAX = "append @exact or @heuristic to torch:NAME, FILE.py:NAME or module:NAME to declare its promise"

_FORMER_TOP_LEVEL = frozenset({"solvers", "oracles", "fuzz", "reports"})


def parse(text: str) -> Spec:
    """Read a spec; ValueError naming the spec when it has none of the forms above."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a solver spec must be a non-empty string ({FORMS}), got {text!r}")
    given = text.strip()
    text, source = _source_of(given)
    if source and ":" not in text:
        raise ValueError(f"solver spec {given!r}: only FILE.py:NAME, torch:NAME and module:NAME can be read from another"
                         f" file (<SOURCE.py), not {text!r}")
    spec = _parse(text)
    return replace(spec, source=source) if source else spec


def _source_of(text: str) -> tuple[str, str]:
    """A spec's text without its ``<SOURCE.py`` ending, and SOURCE's absolute path ('' without one)."""
    head, mark, tail = text.rpartition("<")
    if not mark or not tail.endswith(".py") or ":" in tail:
        return text, ""
    return head, str(Path(tail).expanduser().resolve())


def _parse(text: str) -> Spec:
    if ":" not in text and "@" in text:
        raise ValueError(f"solver spec {text!r}: a promise (@exact, @heuristic) can be declared only for torch:NAME,"
                         " FILE.py:NAME or module:NAME")
    if text == "torch":
        return Spec("torch_all", "", "")
    if ":" not in text:
        return Spec("name", "", text)
    where, _, name = text.rpartition(":")
    name, at, declared = name.partition("@")
    if at and declared not in PROMISES:
        raise ValueError(f"solver spec {text!r}: the promise after '@' must be exact or heuristic, got {declared!r}")
    promise = declared or None
    if not name.isidentifier() or not where:
        raise ValueError(f"solver spec {text!r}: expected {FORMS}")
    if where == "torch":
        return Spec("torch", "torch", name, promise)
    if where.endswith(".py"):
        return Spec("file", str(Path(where).expanduser().resolve()), name, promise)
    if not all(part.isidentifier() for part in where.split(".")):
        raise ValueError(f"solver spec {text!r}: {where!r} is neither a FILE.py nor a dotted module name")
    return Spec("module", _current_module_name(where), name, promise)


def shown(name: str, cwd: Path | None = None) -> str:
    """A solver name as a reader sees it: a file spec's path and a ``<SOURCE.py``'s as ``shown_path``
    writes them, any other name (a registered name, a module spec, not a spec at all) as given."""
    spec = _parsed_or_none(name)
    if spec is None or (spec.kind != "file" and not spec.source):
        return name
    where = shown_path(spec.where, cwd) if spec.kind == "file" else spec.where
    return str(replace(spec, where=where, source=shown_path(spec.source, cwd) if spec.source else ""))


def shown_in(text: str, names: Iterable[str], cwd: Path | None = None) -> str:
    """``text`` (a message that names solvers or their files by absolute path: a benchmark's
    failure, where an exception was raised) with each file spec's path and each ``<SOURCE.py``'s
    among ``names`` shown."""
    parsed = [spec for spec in map(_parsed_or_none, names) if spec is not None]
    paths = {spec.where for spec in parsed if spec.kind == "file"} | {spec.source for spec in parsed if spec.source}
    for path in sorted(paths, key=len, reverse=True):
        text = text.replace(path, shown_path(path, cwd))
    return text


def _parsed_or_none(name: str) -> Spec | None:
    try:
        return parse(name)
    except ValueError:
        return None


def shown_path(path: str | Path, cwd: Path | None = None) -> str:
    """``path`` relative to ``cwd`` (default: the working directory), unless the absolute path is
    shorter (``/tmp/pr/knapsack.py`` rather than ``../../../tmp/pr/knapsack.py``)."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, Path.cwd() if cwd is None else cwd)
    except ValueError:
        return absolute
    return relative if len(relative) <= len(absolute) else absolute


def current_name(name: str) -> str:
    """A solver name as knapcheck writes it today: a module spec from before the namespace is
    renamed; any other name, spec or not, is returned as given."""
    try:
        spec = parse(name)
    except ValueError:
        return name
    return str(spec) if spec.kind == "module" else name


def _current_module_name(module: str) -> str:
    """``module``, or the ``knapcheck.`` module a spec from before the namespace meant by it."""
    if module.split(".")[0] not in _FORMER_TOP_LEVEL:
        return module
    try:
        moved = importlib.util.find_spec(f"knapcheck.{module}")
    except ImportError:
        return module
    return module if moved is None else f"knapcheck.{module}"


def load(spec: Spec | str) -> Solver:
    """The callable a ``torch``, ``file`` or ``module`` spec names, imported once per spec.

    ValueError (one line, naming the spec) when the file or module cannot be imported, defines no
    such name, or names something that cannot be called as ``solve(memory, runtimes, max_memory)``.
    """
    return _load((parse(spec) if isinstance(spec, str) else spec).target)


@lru_cache(maxsize=None)
def _load(spec: Spec) -> Solver:
    if spec.kind in ("torch_all", "name"):
        raise ValueError(f"{spec} names no single function to import; resolve it through knapcheck.solvers.registry")
    module = _import(spec)
    solver = getattr(module, spec.name, None)
    if solver is None:
        raise ValueError(f"{spec}: {_where(spec)} defines no {spec.name!r}")
    _require_solver(spec, solver)
    return solver


def _where(spec: Spec) -> str:
    if spec.source:
        return f"file {spec.source}"
    return f"file {spec.where}" if spec.kind == "file" else f"module {spec.module}"


def _import(spec: Spec):
    source = Path(spec.source) if spec.source else None
    for what, path in (("solver file", spec.where if spec.kind == "file" else ""), ("source file", spec.source)):
        problem = readable_problem(path) if path else ""
        if problem:
            raise ValueError(f"{spec}: {what} {path} {problem}")
    if spec.kind != "file":
        try:
            if source is not None:
                return _sibling_module(spec.module, source)
            return importlib.import_module(spec.module)
        except Exception as exc:
            hint = ""
            if isinstance(exc, ModuleNotFoundError) and f"{spec.module}.".startswith(f"{exc.name}."):
                hint = " (is the directory that holds it on PYTHONPATH?)"
            raise ValueError(f"{spec}: cannot import {spec.module}: {type(exc).__name__}: {exc}{hint}") from None
    try:
        return _import_file(Path(spec.where), source)
    except ImportError as exc:
        raise ValueError(
            f"{spec}: cannot load {spec.where}: {type(exc).__name__}: {exc} (to import it as part of its"
            " package instead, name it as package.module:NAME and set PYTHONPATH to the directory that holds"
            " the package)"
        ) from None
    except Exception as exc:
        raise ValueError(f"{spec}: cannot load {spec.where}: {type(exc).__name__}: {exc}") from None


def _read_as(name: str, source: Path) -> str:
    """The name of the sibling of module ``name`` that holds ``source``'s code (a digest of its path)."""
    return f"{name}_read_from_{hashlib.sha1(str(source).encode()).hexdigest()[:12]}"


def _sibling_module(module: str, source: Path) -> ModuleType:
    """``source``'s code as a module beside ``module`` in its package (imported first), so that its
    relative imports load what ``module``'s would."""
    package, _, leaf = module.rpartition(".")
    if package:
        importlib.import_module(package)
    return _exec_module(f"{package + '.' if package else ''}{_read_as(leaf, source)}", source)


def _exec_module(name: str, path: Path) -> ModuleType:
    """The file at ``path`` run as the module ``name`` (its parent package, if any, already in
    sys.modules), compiled from the bytes read here: never from bytecode kept beside it (a
    ``__pycache__`` of the file's directory), and nothing written there. A file knapcheck names by
    its content (a repaired source, ``knapcheck.solvers.cache.content_names``) runs only while it
    holds that content: ValueError otherwise."""
    from .cache import content_names
    from .files.reader import read_bytes

    if name in sys.modules:
        return sys.modules[name]
    source = read_bytes(path)
    if not content_names.holds_its_content(path, source):
        raise ValueError(f"{path} has changed since knapcheck wrote it: its content is not the one its name gives")
    # A .py file (parse takes no other for a file or a <SOURCE.py): its suffix gives it a loader, so a spec.
    module_spec = cast(importlib.machinery.ModuleSpec, importlib.util.spec_from_file_location(name, path))
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import_file(path: Path, source: Path | None = None) -> ModuleType:
    """The file as a module of its package tree, so that its relative imports load.

    The tree is the file's directory and each directory above it with an ``__init__.py``, as far up
    as they go unbroken (``pr/torch/_functorch/_activation_checkpointing/knapsack.py`` in a checkout
    of PyTorch: up to ``pr/torch``). Each directory becomes a package under a private name, without
    running its ``__init__.py``: a source checkout's ``torch/__init__.py`` cannot be imported, and
    the installed torch keeps its own name. ``from .helpers import x`` and ``from ..config import y``
    then load those files from the same tree; a directory without ``__init__.py`` is still the
    file's package, so its siblings load too. Imported once: a second load returns the same module.
    With ``source``, that file's code is the module, a sibling of the file's in the same tree.
    """
    top = path.parent
    while (top / "__init__.py").is_file() and (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    root = f"knapcheck_target_{hashlib.sha1(str(top).encode()).hexdigest()[:12]}"
    parts = path.parent.relative_to(top).parts
    stem = path.stem if source is None else _read_as(path.stem, source)
    name = ".".join([root, *parts, stem])
    if name in sys.modules:
        return sys.modules[name]
    before = set(sys.modules)
    try:
        parent = _package(root, top)
        for depth, part in enumerate(parts, start=1):
            child = _package(".".join([root, *parts[:depth]]), top.joinpath(*parts[:depth]))
            setattr(parent, part, child)
            parent = child
        module = _exec_module(name, path if source is None else source)
    except BaseException as exc:
        for added in set(sys.modules) - before:
            if added == root or added.startswith(root + "."):
                del sys.modules[added]
        if isinstance(exc, ImportError):
            raise type(exc)(str(exc).replace(root, top.name)) from None
        raise
    setattr(parent, stem, module)
    return module


def _package(name: str, directory: Path) -> ModuleType:
    """A package ``name`` whose submodules are the files of ``directory`` (its ``__init__.py`` not run)."""
    if name not in sys.modules:
        package_spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        package_spec.submodule_search_locations = [str(directory)]
        sys.modules[name] = importlib.util.module_from_spec(package_spec)
    return sys.modules[name]


def _require_solver(spec: Spec, solver: object) -> None:
    """A solver is called with three positional arguments; anything else is not one."""
    if not callable(solver):
        raise ValueError(f"{spec}: {spec.name} is a {type(solver).__name__}, not a function")
    try:
        signature = inspect.signature(solver)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(None, None, None)
    except TypeError:
        raise ValueError(
            f"{spec}: {spec.name}{signature} cannot be called as solve(memory, runtimes, max_memory)"
        ) from None


def torch_solver_names() -> list[str]:
    """Every knapsack solver the installed torch defines, in definition order: read from its source
    while torch is not imported (``torch_source``), else from the module."""
    if "torch" not in sys.modules and (names := torch_source.solver_names()) is not None:
        return list(names)
    module = importlib.import_module(TORCH_KNAPSACK_MODULE)
    names = [
        name
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if fn.__module__ == module.__name__ and not name.startswith("_")
    ]
    return sorted(names, key=lambda name: getattr(module, name).__code__.co_firstlineno)
