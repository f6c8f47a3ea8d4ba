"""Keeping what solvers print out of our own output.

Solvers print: HiGHS, under scipy's ``milp`` in torch's ``ilp_knapsack``, writes its log straight
to file descriptor 1 from C, where ``contextlib.redirect_stdout`` cannot catch it. Redirecting the
descriptors themselves catches C, Python and child processes alike (a child started while they are
redirected inherits them). ``redirect`` does it for the rest of the process (a worker process that
only runs solvers); ``captured`` for a block, putting the descriptors back afterwards.

``CappedLog`` is where isolated workers write: a pipe that a thread of this process copies to a
file, up to a number of bytes; what comes after is read and dropped, so a solver that prints
without end neither fills the disk nor blocks, and its writes never fail.
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

STDOUT, STDERR = 1, 2


def redirect(path: Path | str, descriptors: tuple[int, ...] = (STDOUT,)) -> Callable[[], None]:
    """Send ``descriptors`` (1: stdout, 2: stderr) to the end of the file ``path`` (``os.devnull``
    to drop the output; a symbolic link is never followed); returns the function that puts them back."""
    sys.stdout.flush()
    sys.stderr.flush()
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    saved = {fd: os.dup(fd) for fd in descriptors}
    try:
        for fd in descriptors:
            os.dup2(target, fd)
    finally:
        os.close(target)

    def restore() -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        saved.clear()

    return restore


@contextmanager
def captured(path: Path | str, descriptors: tuple[int, ...] = (STDOUT,)) -> Iterator[None]:
    """Within the block, ``descriptors`` write to ``path``; afterwards where they wrote before."""
    restore = redirect(path, descriptors)
    try:
        yield
    finally:
        restore()


class CappedLog:
    """A pipe whose write end (``writer``) workers inherit; a thread appends what arrives to
    ``descriptor``, which it owns and closes once every writer has closed its end.

    After ``limit`` bytes it writes a note saying the log was truncated there, and drops the rest.
    A write that fails (a full disk) stops the copying, never the writers: ``error`` says why.
    """

    def __init__(self, descriptor: int, limit: int) -> None:
        self.limit = limit
        self.written = self.dropped = 0
        self.error = ""
        self._file = descriptor
        read_end, self.writer = os.pipe()
        self._reader = read_end
        self._thread = threading.Thread(target=self._copy, name="knapcheck-solver-log", daemon=True)
        self._thread.start()

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def _copy(self) -> None:
        while chunk := os.read(self._reader, 1 << 16):
            room = self.limit - self.written
            if room > 0:
                self._append(chunk[:room])
                self.written += min(room, len(chunk))
                chunk = chunk[room:]
            if chunk:
                if not self.dropped:
                    self._append(f"\n[knapcheck: log truncated at {self.limit} bytes; what the solvers printed"
                                 " after this was dropped]\n".encode())
                self.dropped += len(chunk)
        os.close(self._reader)
        os.close(self._file)

    def _append(self, data: bytes) -> None:
        if self.error:
            return
        try:
            while data:
                data = data[os.write(self._file, data):]
        except OSError as exc:
            self.error = exc.strerror or str(exc)

    def close(self, timeout: float = 10.0) -> None:
        """Close this process's write end and wait (up to ``timeout`` s) for the copying to end: the
        workers must be stopped first. A writer that outlives them only delays the end of the copy."""
        os.close(self.writer)
        self._thread.join(timeout)
