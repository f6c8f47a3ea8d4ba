"""Checking, before any work, that a command can write where it was told to."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from knapcheck.usage import UsageError


def _probe(directory: Path) -> None:
    """Prove ``directory`` writable by creating and removing a file in it."""
    descriptor, probe = tempfile.mkstemp(dir=directory, prefix=".knapcheck-write-check-")
    os.close(descriptor)
    os.unlink(probe)


def writable_directory(path: Path, option: str) -> Path:
    """Create ``path`` (and its parents) if needed and prove it writable by writing a file there.

    UsageError naming ``option`` when it is not a directory or cannot be written.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        _probe(path)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    return path


def writable_file(path: Path, option: str) -> Path:
    """Prove that the file ``path`` can be written (its directory is created if needed), without
    touching an existing file; UsageError naming ``option``."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory, expected a file")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file is not writable")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _probe(path.parent)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    return path
