"""Files written so that a crash at any moment leaves the old one or the new one, never a part.

Every file knapcheck keeps for later (a campaign's failure records, the known-failure corpus, kept
draws, repaired sources) is written this way: a hidden temporary file beside it, fsync,
``os.replace``, fsync of the directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` so that a crash at any moment leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
