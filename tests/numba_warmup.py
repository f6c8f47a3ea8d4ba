"""numba compiles ``expanding_core``'s functions once per test run, in one process (about 31 s of
CPU on a fresh clone: ``compiled_solve`` calls ``compiled_select``, so the search is compiled once;
numba's on-disk cache after that), started by the controller before xdist starts its workers, at
a low priority: it takes what the tests leave of the CPU (they wait on their subprocesses a third
of the time). It holds the compilation's lock and leaves the mark
(``knapcheck.solvers.cache.compiled_in_background``), so no test waits for it: until the mark is
there, expanding_core runs in plain Python, with the same answers, and no process a test starts
begins a compilation of its own. The controller waits for it at the end and fails the run if it
failed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COMPILE = """
import os, sys, traceback
os.nice(10)
try:
    from knapcheck.solvers.expanding_core import COMPILED
    COMPILED.compile_here(again=True)
    failure = ""
except BaseException:
    failure = traceback.format_exc()[-2000:]
with open(sys.argv[1], "w") as out:
    out.write(failure)
"""
FAILURE = "failure.txt"


def start(directory: Path) -> subprocess.Popen:
    """The compilation started; it writes what failed, if anything, to ``directory/FAILURE``."""
    return subprocess.Popen([sys.executable, "-c", COMPILE, str(directory / FAILURE)])


def finish(directory: Path, compiling: subprocess.Popen) -> str:
    """Once the compilation is done: what failed ("" when nothing did)."""
    compiling.wait()
    written = directory / FAILURE
    failure = written.read_text() if written.exists() else f"the compiling process exited with {compiling.returncode}"
    return f"expanding_core does not compile: {failure}" if failure else ""
