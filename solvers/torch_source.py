"""The installed torch's knapsack solvers and version, read from its source without importing torch.

Naming ``torch:dp_knapsack`` needs the names of torch's solvers and its version, and importing torch
for them costs a process about 2 s: a command or a pytest run that only hands torch's solvers to
worker processes never needs torch itself. ``importlib.util.find_spec`` finds the package importing
would load, on the same ``sys.path``, without running it.

A fast path that fails safe: each function answers ``None`` wherever the source cannot settle the
question exactly as the imported module would (a decorated or conditional definition, a name bound
twice, no such file), and the caller then imports torch. Each file is read once per process, as a
module is imported once: every ``torch:NAME`` entry asks again.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import lru_cache
from pathlib import Path

from .files.reader import UnreadableFile, read_text

KNAPSACK_FILE = Path("_functorch", "_activation_checkpointing", "knapsack.py")


def _torch_file(relative: Path) -> Path | None:
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.has_location:
        return None
    path = Path(spec.origin).parent / relative
    return path if path.exists() else None


def _source(relative: Path) -> str | None:
    path = _torch_file(relative)
    if path is None:
        return None
    try:
        return read_text(path, what="torch's source")
    except UnreadableFile:
        return None


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _plain(node: ast.stmt) -> bool:
    """A top-level statement that runs no code of its own (no call, condition or loop): an import, a
    definition, a docstring, or a name bound to a value computed without a call."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        names_only = all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store))
                         for target in _assigned(node) for n in ast.walk(target))
        calls = node.value is not None and any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(node.value))
        return names_only and not calls
    return False


def _assigned(node: ast.stmt) -> list[ast.expr]:
    """What an assignment binds (its targets); nothing for any other statement."""
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target] if isinstance(node, ast.AnnAssign) else []


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return [name.id for target in _assigned(node) for name in ast.walk(target) if isinstance(name, ast.Name)]


@lru_cache(maxsize=None)
def solver_names() -> list[str] | None:
    """The public functions the installed torch's knapsack.py defines, in definition order; None
    where it cannot be read."""
    source = _source(KNAPSACK_FILE)
    return None if source is None else functions_defined(source)


@lru_cache(maxsize=None)
def version() -> str | None:
    """``torch.__version__`` as the installed torch's torch/version.py sets it; None where it cannot be read."""
    source = _source(Path("version.py"))
    return None if source is None else version_set(source)


def functions_defined(source: str) -> list[str] | None:
    """The public functions a module of this source defines, in definition order, as importing it
    and listing its own functions would give them; None where the source cannot say for certain."""
    tree = _parsed(source)
    if tree is None or not all(_plain(node) for node in tree.body):
        return None
    bound = [name for node in tree.body for name in _bound_names(node)]
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    if any(node.decorator_list or bound.count(node.name) > 1 for node in functions):
        return None
    return [node.name for node in functions if not node.name.startswith("_")]


def version_set(source: str) -> str | None:
    """The string this source assigns to ``__version__``; None where it is not one plain string."""
    tree = _parsed(source)
    if tree is None:
        return None
    found = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
             and [getattr(target, "id", None) for target in node.targets] == ["__version__"]
             and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    assigned = [node for node in ast.walk(tree) if isinstance(node, ast.stmt) and "__version__" in _bound_names(node)]
    return found[0] if len(found) == len(assigned) == 1 else None
