"""Whether a target will use torch, guessed from its spec without loading it.

A zygote imports torch (1.5 s of CPU here) before it forks the first worker whose target uses it,
once for all of them; a target that does not is forked without it, so that checking a plain-Python
file, or a campaign on one, does not pay that import. The guess only decides where torch is first
imported, never what a worker runs: a target guessed not to use torch that does (through a helper
module that imports it) imports it in its own worker while it loads, as a fresh interpreter would.

The guess reads the target's own file, by the one reader of a user's file
(``knapcheck.solvers.files.reader``: a FIFO or a file too big is refused unread, never waited on):
``torch:NAME`` uses torch; a file, or a module found on the import path, whose source does not
contain the word ``torch`` does not; anything that cannot be read is taken to use it (and its
worker then says why it cannot load it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import specs
from ..files.reader import UnreadableFile, read_bytes


def uses_torch(spec_text: str) -> bool:
    try:
        spec = specs.parse(spec_text)
    except ValueError:
        return True
    path: Path | None
    if spec.kind == "file":
        path = Path(spec.source or spec.where)
    elif spec.kind == "module" and spec.module.partition(".")[0] != "torch":
        path = Path(spec.source) if spec.source else _module_file(spec.module)
    else:
        return True
    if path is None:
        return True
    try:
        return b"torch" in read_bytes(path)
    except UnreadableFile:
        return True


def _module_file(module: str) -> Path | None:
    """The source file of a dotted module in the directories of ``sys.path``, found without
    importing its packages (None where it is not found so: in a zip file, say)."""
    *packages, leaf = module.split(".")
    directories = [Path(entry or ".") for entry in sys.path]
    try:
        for package in packages:
            directories = [directory / package for directory in directories if (directory / package).is_dir()]
        for directory in directories:
            for candidate in (directory / f"{leaf}.py", directory / leaf / "__init__.py"):
                if candidate.is_file():
                    return candidate
    except OSError:
        return None
    return None
