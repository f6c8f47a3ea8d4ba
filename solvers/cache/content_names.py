"""Files knapcheck names by a digest of their content (``repaired_DIGEST.py``), and the check that
a file so named still holds that content.

A repaired source is kept so (``knapcheck.fuzz.judging.known.repaired``), and ``knapcheck.solvers.specs``
runs a file so named only from bytes that have the digest its name gives: a file edited since
knapcheck wrote and compared it is refused, never run.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..files.reader import UnreadableFile, read_bytes

PREFIX = "repaired_"
_NAMED = re.compile(rf"{PREFIX}([0-9a-f]{{16}})\.py")


def name_for(content: bytes) -> str:
    """The file name of ``content``."""
    return f"{PREFIX}{_digest(content)}.py"


def holds_its_content(path: Path, content: bytes) -> bool:
    """Whether ``content``, read from ``path``, is what the file's name says (True for any file not so named)."""
    named = _NAMED.fullmatch(path.name)
    return named is None or named.group(1) == _digest(content)


def holds(path: Path, content: bytes) -> bool:
    """Whether the regular file at ``path`` holds exactly ``content`` (read without following a
    link or blocking, no more than one byte past it)."""
    try:
        return read_bytes(path, limit=len(content), follow_symlinks=False) == content
    except UnreadableFile:
        return False


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:16]
