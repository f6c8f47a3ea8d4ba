"""Whether numba's on-disk cache holds expanding_core's two compiled functions, and their
compilation in a background process while it does not.

numba compiles ``compiled_solve`` and ``compiled_select`` on their first call, some 25 s each on a
2-core machine, and keeps them in its cache after that. A check judges expanding_core beside
oracles that cost far more than its plain-Python search does (a few milliseconds on 2 000 items),
so no process waits for the compiler: until the cache holds both functions (``ready``),
expanding_core runs the same search in plain Python, and one process in the background, started
by the first call that finds the cache cold, compiles them at a low priority (``compile_all``) and
leaves a mark in knapcheck's cache (``knapcheck.user_cache``). The two paths give the same answer
on every instance (``tests/test_compilation.py``), so a call's answer does not depend on which
one it took.

The mark names what numba's cache is keyed to: numba's and Python's versions, the interpreter,
``NUMBA_CACHE_DIR``, and the path, size and modification time of the two source files. It is a
hint: where numba's cache was emptied since, the first compiled call compiles in its own process,
as it does wherever no mark can be kept (no usable cache directory) or numba keeps nothing (a
source changed: ``expanding_core.CACHED``). A process that times a solver compiles them before its
first call (``compile_where_loaded``), so that it never times the plain path.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from knapcheck.user_cache import private_directory

ENTRIES = {"compiled_solve": 1.0, "compiled_select": 0.5}
"""The two compiled functions, and a runtime that makes expanding_core call each one (an integer
runtime is solved by ``compiled_solve``, a fraction goes on to ``compiled_select``)."""
LOOK_SECONDS = 0.5
"""How often a process that found the cache cold looks for the mark again."""
_COMPILE_ALL = "from knapcheck.solvers.compilation import compile_all; compile_all()"

_ready = False
_started = False
_next_look = 0.0


@lru_cache(maxsize=1)
def mark() -> Path | None:
    """The mark's path for this interpreter, numba and sources; None where none can be kept."""
    import numba

    from knapcheck.solvers import expanding_core
    from knapcheck.solvers.core import search

    if not expanding_core.CACHED:
        return None
    place = private_directory("compiled")
    if place is None:
        return None
    sources = []
    for module in (expanding_core, search):
        info = os.stat(module.__file__)
        sources.append([module.__file__, info.st_size, info.st_mtime_ns])
    key = [numba.__version__, sys.version, sys.executable, os.environ.get("NUMBA_CACHE_DIR", ""), sources]
    return place / f"expanding_core-{hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]}"


def ready() -> bool:
    """Whether expanding_core may call its compiled functions without compiling them here: True
    once the mark is there (or where none can be kept). The first call that finds it missing
    starts the background compilation; later ones look again at most every LOOK_SECONDS."""
    global _ready, _started, _next_look
    if _ready:
        return True
    now = time.monotonic()
    if now < _next_look:
        return False
    _next_look = now + LOOK_SECONDS
    path = mark()
    if path is None or path.exists():
        _ready = True
        return True
    if not _started:
        _started = True
        subprocess.Popen([sys.executable, "-c", _COMPILE_ALL], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    return False


def compile_entry(name: str) -> None:
    """Compile one of ENTRIES in this process (or load it from numba's cache), as expanding_core calls it."""
    from knapcheck.solvers.contract import SCALE
    from knapcheck.solvers.expanding_core import solve

    solve([0.1], [ENTRIES[name]], 0.1, SCALE, compiled=True)


def mark_ready() -> None:
    """Leave the mark: numba's cache holds both functions now."""
    path = mark()
    if path is not None:
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text("compiled\n")
        os.replace(partial, path)


def compile_here() -> None:
    """Compile both functions in this process unless the mark is there; from then on expanding_core
    calls them (a process that times solvers calls this before its first call)."""
    global _ready
    path = mark()
    if path is not None and not path.exists():
        for name in ENTRIES:
            compile_entry(name)
        mark_ready()
    _ready = True


def compile_where_loaded() -> None:
    """``compile_here`` in a process that has imported expanding_core: a process that times a
    solver calls it once the solver is loaded, so that the plain path is never what it times."""
    if "knapcheck.solvers.expanding_core" in sys.modules:
        compile_here()


def compile_all() -> None:
    """The background process: compile both functions at a low priority and leave the mark, unless
    another process is compiling them (it holds the lock) or the mark is there already."""
    os.nice(10)
    path = mark()
    if path is None:
        return
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        compile_here()
