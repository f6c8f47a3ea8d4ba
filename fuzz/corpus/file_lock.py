"""An exclusive lock for a file that several processes read, change and rewrite (the known-failure corpus).

The lock is ``fcntl.flock`` on a lock file beside the file (``.NAME.lock``), never on the file
itself, which is replaced on every atomic write. The lock file is created once and never written,
truncated or removed (removing it would let two processes lock two different files); it holds no
data. A lock file that is not a regular file, or is a symbolic link, is refused. ``flock`` locks
between processes on one machine; on a network file system it is only as good as that system's
support for it.
"""

from __future__ import annotations

import fcntl
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (waiting for it); ValueError naming the lock file when it
    cannot be created or is not a plain file."""
    lock = lock_path(Path(path))
    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise ValueError(f"cannot lock {path}: lock file {lock}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ValueError(f"cannot lock {path}: lock file {lock} is not a regular file")
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
