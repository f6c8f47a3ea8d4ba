"""numba compiles ``expanding_core``'s two functions once per test run, in two processes side by
side (some 25 s each on a fresh clone; numba's on-disk cache after that), while xdist starts its
workers and they collect the tests; each worker waits for both before its first test, and the mark
that says the cache holds them is left (``knapcheck.solvers.cache.compiled_in_background``).
Otherwise tests would run expanding_core in plain Python while one background process compiled
both, one after the other."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from knapcheck.solvers.expanding_core import COMPILED

WAIT_SECONDS = 600
COMPILE = """
import os, sys, traceback
try:
    from knapcheck.solvers.expanding_core import compile_entry
    compile_entry(sys.argv[2])
    failure = ""
except BaseException:
    failure = traceback.format_exc()[-2000:]
with open(sys.argv[1] + ".part", "w") as out:
    out.write(failure)
os.replace(sys.argv[1] + ".part", sys.argv[1])
"""


def start(directory: Path) -> list[subprocess.Popen]:
    """Both compilations started; each writes ``directory/NAME`` when done (empty, or its traceback)."""
    return [subprocess.Popen([sys.executable, "-c", COMPILE, str(directory / name), name]) for name in COMPILED.entries]


def wait(directory: Path) -> str:
    """Once both compilations are done: what failed ("" when nothing did)."""
    give_up = time.monotonic() + WAIT_SECONDS
    done = [directory / name for name in COMPILED.entries]
    while not all(path.exists() for path in done):
        if time.monotonic() > give_up:
            return f"expanding_core did not compile within {WAIT_SECONDS} s"
        time.sleep(0.2)
    failure = "".join(f"expanding_core's {path.name} does not compile: {path.read_text()}" for path in done if path.read_text())
    if not failure:
        COMPILED.mark_ready()
    return failure
