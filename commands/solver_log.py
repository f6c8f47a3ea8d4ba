"""Where solvers' own output goes while a command runs: a log file, never the command's stdout.

Every solver that is not ours runs in a worker process (``knapcheck.solvers.isolation.worker``); its stdout and
stderr (torch's ``ilp_knapsack`` lets HiGHS print its log from C) go to the log, through a pipe
that this process copies to the file, up to LOG_LIMIT bytes (then a note says the log was
truncated there, and the rest is dropped).

The log never costs the user a file: an existing regular file is appended to, never emptied, and
never removed; a path that is not a regular file (a directory, a device, a FIFO) or that is a
symbolic link is refused in one line, except ``/dev/null``, which drops the output. A file the
log creates is removed at the end if it stayed empty; otherwise the command names it on stderr.
The pytest plugin keeps one such log per pytest run (``capped_worker_output``, ``open_log``).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .usage import UsageError

if TYPE_CHECKING:
    from ..solvers.isolation.output_capture import CappedLog

LOG_LIMIT = 32 * 2**20
"""Bytes of solver output one command (or one pytest run) keeps."""


def default_path(command: str) -> Path:
    """A log path of its own in the temporary directory (not created yet: ``solver_log`` creates it)."""
    return Path(tempfile.gettempdir()) / f"knapcheck-{command}-{os.getpid()}-{os.urandom(4).hex()}-solvers.log"


def _is_devnull(status: os.stat_result) -> bool:
    null = os.stat(os.devnull)
    return (status.st_dev, status.st_ino) == (null.st_dev, null.st_ino)


def open_log(path: Path, option: str = "--solver-log") -> tuple[int, bool]:
    """The log opened for appending, and whether this call created it; UsageError naming ``option``
    if it is not a regular file (``/dev/null`` aside) or is a symbolic link, which is never followed."""
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), True
    except FileExistsError:
        pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot create it ({exc.strerror or exc})") from None
    try:
        status = os.lstat(path)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(status.st_mode):
        raise UsageError(f"{option} {path}: is a symbolic link; knapcheck writes through none (name the file itself)")
    if not (stat.S_ISREG(status.st_mode) or _is_devnull(status)):
        raise UsageError(f"{option} {path}: not a regular file (expected a file to append to, or {os.devnull})")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot append to it ({exc.strerror or exc})") from None
    opened = os.fstat(descriptor)
    if (opened.st_dev, opened.st_ino) != (status.st_dev, status.st_ino):
        os.close(descriptor)
        raise UsageError(f"{option} {path}: it changed while being opened")
    return descriptor, False


@contextmanager
def capped_worker_output(descriptor: int, limit: int = LOG_LIMIT) -> Iterator[CappedLog]:
    """Within the block, workers write their stdout and stderr to ``descriptor`` (which the log
    then owns), at most ``limit`` bytes of it; afterwards the workers are stopped, so that the copy
    is complete, and the log is closed."""
    from ..solvers.isolation.output_capture import CappedLog
    from ..solvers.isolation.worker import send_worker_output_to

    log = CappedLog(descriptor, limit)
    send_worker_output_to(log.writer)
    try:
        yield log
    finally:
        send_worker_output_to(None)
        log.close()


@contextmanager
def solver_log(path: Path, command: str, limit: int = LOG_LIMIT) -> Iterator[Path]:
    """Within the block, workers write their output to ``path`` (appended to); afterwards the workers
    are stopped, so that the log is complete, and the log is named on stderr or, if this call
    created it and it stayed empty, removed."""
    path = Path(path)
    descriptor, created = open_log(path)
    discarded = _is_devnull(os.fstat(descriptor))
    try:
        with capped_worker_output(descriptor, limit) as log:
            yield path
    finally:
        if not discarded:
            _report(path, command, log, created)


def _report(path: Path, command: str, log: CappedLog, created: bool) -> None:
    if log.error:
        print(f"knapcheck {command}: could not write the solver log {path}: {log.error}", file=sys.stderr)
    if log.written:
        truncated = f" (truncated at {log.limit} bytes; {log.dropped} more were dropped)" if log.truncated else ""
        print(f"knapcheck {command}: what the solvers printed is in {path}{truncated}", file=sys.stderr)
    elif created:
        remove_if_empty(path)


def remove_if_empty(path: Path) -> None:
    """Remove the log at ``path`` if nothing was written to it (it is left alone if that cannot be told)."""
    try:
        if os.lstat(path).st_size == 0:
            os.unlink(path)
    except OSError:
        pass
