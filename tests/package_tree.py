"""The package as the tree shows it: the root is ``knapcheck`` and each folder the sub-package of its name."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_from(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` in ``path`` names, resolved as the
    interpreter does (``from .files import reader`` in solvers/specs.py names ``knapcheck.solvers.files``)."""
    package = ["knapcheck", *path.relative_to(ROOT).parts[:-1]]
    base = package[:len(package) - node.level + 1] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))
