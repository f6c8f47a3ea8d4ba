"""numba compiles ``expanding_core``'s functions once per test run, in one process (about 31 s of
CPU on a fresh clone: ``compiled_solve`` calls ``compiled_select``, so the search is compiled once;
numba's on-disk cache after that), while xdist starts its workers and they collect the tests; each
worker waits for it before its first test, and the mark that says the cache holds them is left
(``knapcheck.solvers.cache.compiled_in_background``). Otherwise tests would run expanding_core in
plain Python while a background process compiled it at a low priority."""

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
    from knapcheck.solvers.expanding_core import COMPILED
    for name in COMPILED.entries:
        COMPILED.compile_entry(name)
    failure = ""
except BaseException:
    failure = traceback.format_exc()[-2000:]
with open(sys.argv[1] + ".part", "w") as out:
    out.write(failure)
os.replace(sys.argv[1] + ".part", sys.argv[1])
"""
DONE = "compiled"


def start(directory: Path) -> list[subprocess.Popen]:
    """The compilation started; it writes ``directory/DONE`` when done (empty, or its traceback)."""
    return [subprocess.Popen([sys.executable, "-c", COMPILE, str(directory / DONE)])]


def wait(directory: Path) -> str:
    """Once the compilation is done: what failed ("" when nothing did)."""
    give_up = time.monotonic() + WAIT_SECONDS
    done = directory / DONE
    while not done.exists():
        if time.monotonic() > give_up:
            return f"expanding_core did not compile within {WAIT_SECONDS} s"
        time.sleep(0.2)
    failure = done.read_text()
    if failure:
        return f"expanding_core does not compile: {failure}"
    COMPILED.mark_ready()
    return ""
