"""numba compiles ``expanding_core``'s two functions once per test run, in two processes side by
side (some 25 s each on a fresh clone; numba's on-disk cache after that), holding the lock a
compilation holds (``knapcheck.solvers.cache.compiled_in_background``), while xdist starts its
workers and they run their first tests. Until its mark is there, expanding_core runs in plain
Python with the same answers, and the background compilation a call would start leaves it to this
one; a test that calls the compiled code itself asks for the ``numba_compiled`` fixture, which
waits for the lock. Without this, one background process would compile both, one after the other,
at a low priority, and each such test would compile them itself."""

from __future__ import annotations

import subprocess
import sys

COMPILE = """
import fcntl, subprocess, sys
from knapcheck.solvers.expanding_core import COMPILED
ENTRY = "import sys; from knapcheck.solvers.expanding_core import compile_entry; compile_entry(sys.argv[1])"


def compile_both():
    children = [subprocess.Popen([sys.executable, "-c", ENTRY, name]) for name in COMPILED.entries]
    if any([child.wait() for child in children]):
        sys.exit("expanding_core does not compile")


if COMPILED.mark is None:
    compile_both()
else:
    with open(COMPILED.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not COMPILED.mark.exists():
            compile_both()
            COMPILED.mark_ready()
"""


def start() -> subprocess.Popen:
    """The compilation, started."""
    return subprocess.Popen([sys.executable, "-c", COMPILE])
