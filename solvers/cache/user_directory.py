"""knapcheck's directories in the user's cache (``$XDG_CACHE_HOME/knapcheck/NAME``, else
``~/.cache/knapcheck/NAME``), and what happens when one cannot be used.

Everything kept there is kept for speed only (compiled marks and their locks, repaired sources,
kept draws), so every user of the cache does without it where it fails: a directory that cannot be
made or written (a read-only file system, another user's permissions, no home directory) is not
used, and a write that fails there (a full disk) keeps nothing. The caller then compiles in its
own process, keeps a file in a temporary directory or draws again; this module says so in one
line on stderr, the first time in a process (``cannot_keep``), and never raises.

A directory is used only when it is this user's own, not a symbolic link, and writable by no one
else: what is read there could otherwise have been put there by someone else.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

_SAID: list[str] = []
"""The one line this process has said, if any."""


def private_directory(name: str) -> Path | None:
    """The directory ``name`` in knapcheck's cache, made if need be; None when no usable one exists."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:
        cannot_keep(Path("~/.cache/knapcheck"), "no home directory")
        return None
    place = base / "knapcheck" / name
    try:
        place.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(place)
    except OSError as exc:
        cannot_keep(place, exc.strerror or type(exc).__name__)
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        cannot_keep(place, "it is not a directory of this user's own that no one else may write")
        return None
    if not os.access(place, os.W_OK | os.X_OK):
        cannot_keep(place, "it cannot be written")
        return None
    return place


def keep(path: Path, text: str) -> bool:
    """Write ``text`` (UTF-8) to ``path`` in one of these directories, whole or not at all (a
    temporary file beside it, then renamed); False, and nothing left behind, where it cannot."""
    temporary = None
    try:
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        cannot_keep(path.parent, exc.strerror or type(exc).__name__)
        return False
    return True


def cannot_keep(place: Path, why: str) -> None:
    """Say, once per process, that knapcheck's cache at ``place`` is not used and why."""
    if _SAID:
        return
    _SAID.append(f"knapcheck: the cache {place} is not used ({why}); this run does without it and may be slower")
    try:
        print(_SAID[0], file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
