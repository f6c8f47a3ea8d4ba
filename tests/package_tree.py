"""The package as the tree shows it: the root is ``knapcheck`` and each folder the sub-package of its name."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["solvers", "oracles", "fuzz", "measure", "reports", "commands"]
"""The package's folders, lowest layer first (``tests/test_layering.py``); its own modules sit at the root."""


def package_paths() -> list[Path]:
    """Every module of the package as the tree holds it: the root's, then each folder's, sorted."""
    return [*sorted(ROOT.glob("*.py")), *(path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py")))]


def imported_from(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` in ``path`` names, resolved as the
    interpreter does (``from .files import reader`` in solvers/specs.py names ``knapcheck.solvers.files``)."""
    package = ["knapcheck", *path.relative_to(ROOT).parts[:-1]]
    base = package[:len(package) - node.level + 1] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))
