"""knapcheck's directories in the user's cache: ``$XDG_CACHE_HOME/knapcheck/NAME``, else
``~/.cache/knapcheck/NAME``, used only when they are this user's own.

A directory that is a symbolic link, someone else's or writable by others is not used: what is
read there could then have been put there by someone else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def private_directory(name: str) -> Path | None:
    """The directory ``name`` in knapcheck's cache, made if need be; None when no usable one exists."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    place = base / "knapcheck" / name
    try:
        place.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(place)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return place
