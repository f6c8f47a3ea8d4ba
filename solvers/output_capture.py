"""Keeping what solvers print out of our own output.

Solvers print: HiGHS, under scipy's ``milp`` in torch's ``ilp_knapsack``, writes its log straight
to file descriptor 1 from C, where ``contextlib.redirect_stdout`` cannot catch it. Redirecting the
descriptors themselves catches C, Python and child processes alike (a child started while they are
redirected inherits them). ``redirect`` does it for the rest of the process (a worker process that
only runs solvers); ``captured`` for a block, putting the descriptors back afterwards.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

STDOUT, STDERR = 1, 2


def redirect(path: Path | str, descriptors: tuple[int, ...] = (STDOUT,)) -> Callable[[], None]:
    """Send ``descriptors`` (1: stdout, 2: stderr) to the end of the file ``path`` (``os.devnull``
    to drop the output); returns the function that puts them back."""
    sys.stdout.flush()
    sys.stderr.flush()
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
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
