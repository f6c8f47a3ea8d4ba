"""The one way knapcheck reads a file it did not just write: no file is trusted.

Every file a user names (a target's or a source's Python file, a file to repair, an instance file, a
corpus, a trace log) and every file knapcheck keeps between runs is read here, or checked here
before something else reads it (a target's import):

- regular files only: the file is opened without blocking and checked after it is open (``fstat``),
  so a FIFO is refused instead of waited on, and a device (a symbolic link to ``/dev/zero``) is
  refused instead of read without end; where a symbolic link has no business (inside the store),
  the link itself is refused;
- at most ``MAX_BYTES`` bytes, however the file grows while it is read.

Whatever is wrong is one ``UnreadableFile`` naming the file and the reason: a command turns it into
one line and exit status 2. ``knapcheck.fuzz.corpus.reader`` builds the JSON reader on it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

MAX_BYTES = 64 * 2**20
"""No file knapcheck reads comes near this (torch's knapsack.py is 12 KB); anything bigger is refused unread."""
_READ_CHUNK = 2**20


class UnreadableFile(ValueError):
    """A file that cannot be taken as what it claims to be; the message is one line naming it."""

    def __init__(self, what: str, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{what} {path}: {reason}" if what else f"{path}: {reason}")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _open(path: Path | str, what: str, limit: int | None, follow_symlinks: bool) -> int:
    """A descriptor of the regular file ``path``, opened without blocking, of at most ``limit``
    bytes (None: any size); UnreadableFile otherwise."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile(what, path, "does not exist") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise UnreadableFile(what, path, "is a symbolic link; only regular files are read here") from None
        raise UnreadableFile(what, path, f"cannot be opened ({exc.strerror or exc})") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(what, path, f"is {_kind(status.st_mode)}, not a regular file; refused unread")
        if limit is not None and status.st_size > limit:
            raise UnreadableFile(what, path, f"holds {status.st_size} bytes, more than the {limit} knapcheck reads")
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_bytes(path: Path | str, *, what: str = "", limit: int = MAX_BYTES, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; UnreadableFile otherwise.

    FileNotFoundError is reported as ``UnreadableFile`` too, with the reason "does not exist".
    """
    descriptor = _open(path, what, limit, follow_symlinks)
    try:
        chunks: list[bytes] = []
        total = 0
        while True:
            try:
                chunk = os.read(descriptor, min(_READ_CHUNK, limit + 1 - total))
            except OSError as exc:
                raise UnreadableFile(what, path, f"cannot be read ({exc.strerror or exc})") from None
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            chunks.append(chunk)
            if total > limit:
                raise UnreadableFile(what, path, f"grew past the {limit} bytes knapcheck reads")
    finally:
        os.close(descriptor)


def read_text(path: Path | str, *, what: str = "", limit: int = MAX_BYTES) -> str:
    """The regular file ``path`` as UTF-8 text (a Python source); UnreadableFile otherwise."""
    data = read_bytes(path, what=what, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(what, path, f"is not UTF-8 text (byte {exc.start})") from None


def open_stream(path: Path | str, *, what: str = "") -> BinaryIO:
    """The regular file ``path`` opened for reading as a stream, of any size (a trace log, read a
    line at a time by a reader that caps each line); UnreadableFile otherwise."""
    return os.fdopen(_open(path, what, None, True), "rb")


def readable_problem(path: Path | str, limit: int | None = MAX_BYTES) -> str:
    """Why ``path`` cannot be read as a regular file of at most ``limit`` bytes (empty when it can),
    without reading it: the check before something else reads the file (Python's import of a target)."""
    try:
        os.close(_open(path, "", limit, True))
    except UnreadableFile as exc:
        return exc.reason
    return ""


def regular_file_problem(path: Path | str) -> str:
    """Why ``path`` cannot be read as a regular file, whatever its size (empty when it can), without reading it."""
    return readable_problem(path, None).removesuffix("; refused unread")
