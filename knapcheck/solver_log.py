"""Where solvers' own output goes while a command runs: a log file, never the command's stdout.

Every solver that is not ours runs in a worker process (``knapcheck.solvers.isolation.worker``); its stdout and
stderr (torch's ``ilp_knapsack`` lets HiGHS print its log from C) go to the log, through a pipe
that this process copies to the file, up to LOG_LIMIT bytes (then a note says the log was
truncated there, and the rest is dropped).

The log never costs the user a file: an existing regular file is appended to, never emptied, and
never removed; a path that is not a regular file (a directory, a device, a FIFO) is refused in
one line, except ``/dev/null``, which drops the output. A file the log creates is removed at the
end if it stayed empty; otherwise the command names it on stderr.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from knapcheck.usage import UsageError

LOG_LIMIT = 32 * 2**20
"""Bytes of solver output one command keeps."""


def default_path(command: str) -> Path:
    """A log path of its own in the temporary directory (not created yet: ``solver_log`` creates it)."""
    return Path(tempfile.gettempdir()) / f"knapcheck-{command}-{os.getpid()}-{os.urandom(4).hex()}-solvers.log"


def _is_devnull(status: os.stat_result) -> bool:
    null = os.stat(os.devnull)
    return (status.st_dev, status.st_ino) == (null.st_dev, null.st_ino)


def _open(path: Path) -> tuple[int, bool]:
    """The log opened for appending, and whether this call created it; UsageError if it is not a file."""
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), True
    except FileExistsError:
        pass
    except OSError as exc:
        raise UsageError(f"--solver-log {path}: cannot create it ({exc.strerror or exc})") from None
    try:
        status = os.stat(path)
    except OSError as exc:
        raise UsageError(f"--solver-log {path}: cannot read it ({exc.strerror or exc})") from None
    if not (stat.S_ISREG(status.st_mode) or _is_devnull(status)):
        raise UsageError(f"--solver-log {path}: not a regular file (expected a file to append to, or {os.devnull})")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(f"--solver-log {path}: cannot append to it ({exc.strerror or exc})") from None
    opened = os.fstat(descriptor)
    if (opened.st_dev, opened.st_ino) != (status.st_dev, status.st_ino):
        os.close(descriptor)
        raise UsageError(f"--solver-log {path}: it changed while being opened")
    return descriptor, False


@contextmanager
def solver_log(path: Path, command: str, limit: int = LOG_LIMIT) -> Iterator[Path]:
    """Within the block, workers write their output to ``path`` (appended to); afterwards the workers
    are stopped, so that the log is complete, and the log is named on stderr or, if this call
    created it and it stayed empty, removed."""
    from knapcheck.solvers.isolation.output_capture import CappedLog
    from knapcheck.solvers.isolation.worker import send_worker_output_to

    path = Path(path)
    descriptor, created = _open(path)
    discarded = _is_devnull(os.fstat(descriptor))
    log = CappedLog(descriptor, limit)
    send_worker_output_to(log.writer)
    try:
        yield path
    finally:
        send_worker_output_to(None)
        log.close()
        if not discarded:
            _report(path, command, log, created)


def _report(path: Path, command: str, log, created: bool) -> None:
    if log.error:
        print(f"knapcheck {command}: could not write the solver log {path}: {log.error}", file=sys.stderr)
    if log.written:
        truncated = f" (truncated at {log.limit} bytes; {log.dropped} more were dropped)" if log.truncated else ""
        print(f"knapcheck {command}: what the solvers printed is in {path}{truncated}", file=sys.stderr)
    elif created:
        try:
            if path.stat().st_size == 0:
                path.unlink()
        except OSError:
            pass
