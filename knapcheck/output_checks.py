"""Checking, before any work, that a command can write where it was told to."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from knapcheck.usage import UsageError


def writable_directory(path: Path, option: str) -> Path:
    """Create ``path`` (and its parents) if needed and prove it writable by writing a file there.

    UsageError naming ``option`` when it is not a directory or cannot be written.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(dir=path, prefix=".knapcheck-write-check-")
        os.close(descriptor)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"{option} {path}: cannot write there ({reason})") from None
    return path
