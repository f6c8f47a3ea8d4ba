"""SIGINT and SIGTERM: a run that is told to stop writes what it has, and says why.

``check``, ``report`` and ``fuzz`` run under ``stop_requests``: the first SIGINT (Ctrl-C) or SIGTERM
(a supervisor, a CI job's timeout, ``kill``) asks the run to stop; no call starts after it, even
one of the chunks a check begins ahead (``knapcheck.fuzz.runs.chunk_calls``), the calls under
way finish within their time limit, and the run writes a partial report that says "interrupted" or
"terminated", with every finding judged so far, and exits 130 or 143 (128 plus the signal's
number, as shells report it). A second signal stops it at once, without a report,
unless it comes within ``REPEAT_SECONDS`` of the first: ``timeout`` sends its SIGTERM to the
command and then to the command's whole process group, which includes the command again.
Every other command stops at once on either signal, with one line and the same exit statuses
(``knapcheck.commands.cli``), running its clean-up on the way (workers, temporary files) as Ctrl-C always did.
"""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from . import exit_status

REPEAT_SECONDS = 1.0
"""A signal this soon after the first is the same request, not a second one."""
REASONS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}
"""The word a partial report and the command's last line use for each signal."""
STATUSES = {"interrupted": exit_status.INTERRUPTED, "terminated": exit_status.TERMINATED}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt (so that the same clean-up runs)."""


def raise_terminated(signum, frame) -> None:
    """A SIGTERM handler: stop at once, as Ctrl-C does."""
    raise Terminated


def stopped_by(interrupt: KeyboardInterrupt) -> str:
    """``terminated`` for SIGTERM, ``interrupted`` for Ctrl-C."""
    return REASONS[signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT]


class StopRequest:
    """The signal handler of a run that stops when asked: ``reason`` is empty until a first signal."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.reason = ""
        self.clock = clock
        self._first = 0.0

    def __call__(self, signum, frame) -> None:
        if not self.reason:
            self.reason, self._first = REASONS[signum], self.clock()
        elif self.clock() - self._first >= REPEAT_SECONDS:
            raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    def requested(self) -> str:
        """Why the run was asked to stop ("interrupted", "terminated"); empty while it was not."""
        return self.reason

    @property
    def exit_status(self) -> int:
        return STATUSES[self.reason]


@contextmanager
def stop_requests() -> Iterator[StopRequest]:
    """SIGINT and SIGTERM handled by a StopRequest while the block runs (from the main thread)."""
    request = StopRequest()
    previous = {signum: signal.signal(signum, request) for signum in REASONS}
    try:
        yield request
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
