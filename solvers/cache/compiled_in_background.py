"""Whether numba's on-disk cache holds a solver's compiled functions, and their compilation in a
background process while it does not.

numba compiles a function on its first call (expanding_core's two take about 31 s of CPU together on a
2-core machine) and keeps it in its cache after that. A check judges a solver beside oracles that cost far
more than its plain-Python path does, so no process waits for the compiler: until the cache holds
every function (``ready``), the solver runs the same code in plain Python, and one process in the
background, started by the first call that finds the cache cold (unless another process holds the
lock and compiles them already), compiles them at a low priority
(``compile_all``) and leaves a mark in knapcheck's cache (``user_directory``). The solver promises
that both paths give the same answer, so that a call's answer does not depend on which one it took.

The mark names what numba's cache is keyed to: numba's and Python's versions, the interpreter,
``NUMBA_CACHE_DIR``, and the path, size and modification time of the sources. It is a hint: where
numba's cache was emptied since, the first compiled call compiles in its own process, as it does
wherever numba keeps nothing (``cached`` False: a source changed). Where no mark can be kept (no
usable cache directory, a lock that cannot be opened, a mark that cannot be written), each process
that calls the solver starts a background compilation of its own and runs the plain path until
that process has ended having compiled them: it costs compilations, never a call's answer or an
error. A process that times solvers calls ``compile_where_loaded`` before its first call, so that
it never times the plain path.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager, suppress
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .user_directory import cannot_keep, keep, private_directory

LOOK_SECONDS = 0.5
"""How often a process that found the cache cold looks for the mark again."""
LEFT_TO_ANOTHER = 3
"""The background process's exit status where another process holds the lock (0: compiled)."""


class CompiledInBackground:
    """A solver's numba functions: ``entries`` by name, each compiled by calling ``compile_entry(name)``;
    ``background`` is the Python source the background process runs (it calls ``compile_all`` on
    the same object, imported by its module)."""

    def __init__(self, name: str, sources: Sequence[str], cached: bool, entries: Sequence[str],
                 compile_entry: Callable[[str], None], background: str) -> None:
        self.name = name
        self.sources = tuple(sources)
        self.cached = cached
        self.entries = tuple(entries)
        self.compile_entry = compile_entry
        self.background = background
        self._ready = False
        self._started: subprocess.Popen | None = None
        self._next_look = 0.0
        _LOADED.append(self)

    @cached_property
    def mark(self) -> Path | None:
        """The mark's path for this interpreter, numba and sources; None where none can be kept."""
        import numba

        place = private_directory("compiled") if self.cached else None
        if place is None:
            return None
        sources = []
        for path in self.sources:
            info = os.stat(path)
            sources.append([path, info.st_size, info.st_mtime_ns])
        key = [numba.__version__, sys.version, sys.executable, os.environ.get("NUMBA_CACHE_DIR", ""), sources]
        return place / f"{self.name}-{hashlib.sha256(json.dumps(key).encode()).hexdigest()[:24]}"

    @property
    def lock(self) -> Path:
        """The lock a process holds while it compiles (only where a mark can be kept)."""
        assert self.mark is not None
        return self.mark.with_name(f".{self.mark.name}.lock")

    def ready(self) -> bool:
        """Whether the solver may call its compiled functions without compiling them here: True once
        the mark is there, once this process's own background compilation has ended having compiled
        them (where no mark can be kept, or none could be written), or where numba keeps nothing.
        The first call that finds no mark starts the background compilation, unless another process
        is compiling them; later calls look again at most every LOOK_SECONDS."""
        if self._ready:
            return True
        now = time.monotonic()
        if now < self._next_look:
            return False
        self._next_look = now + LOOK_SECONDS
        if not self.cached or (self.mark is not None and self.mark.exists()):
            self._ready = True
        elif self._started is None:
            if not self._compiling_elsewhere():
                self._start()
        elif self._started.poll() == 0:
            self._ready = True
        return self._ready

    def _start(self) -> None:
        """The background compilation started (or, where no process can be started, left for a later look)."""
        try:
            self._started = subprocess.Popen([sys.executable, "-P", "-c", self.background], stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             start_new_session=True)
        except OSError:
            self._started = None

    def _compiling_elsewhere(self) -> bool:
        """Whether another process holds the lock: it compiles them and leaves the mark, so this
        one need not start a background process only to see the lock taken."""
        if self.mark is None:
            return False
        with self._locked(wait=False) as held:
            return held is False

    @contextmanager
    def _locked(self, wait: bool) -> Iterator[bool | None]:
        """The lock held while the block runs: True; False where another process holds it and
        ``wait`` is not asked; None where no lock can be had (the cache failed, which is said once):
        the block runs without it."""
        try:
            lock = open(self.lock, "a")
        except OSError as exc:
            cannot_keep(self.lock.parent, exc.strerror or type(exc).__name__)
            yield None
            return
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            except OSError as exc:
                cannot_keep(self.lock.parent, exc.strerror or type(exc).__name__)
                yield None
                return
            yield True

    def mark_ready(self) -> None:
        """Leave the mark: numba's cache holds every function now (where a mark can be kept)."""
        if self.mark is not None:
            keep(self.mark, "compiled\n")

    def compile_here(self, wait: bool = True, again: bool = False) -> bool:
        """Compile every function in this process unless the mark is there, or, where another
        process holds the lock, wait for it and take its work (without ``wait``: leave it to that
        process, and return False); from then on the solver calls them. ``again``: compile them even
        where the mark is there, taking it away meanwhile (a mark is a hint: numba's cache under it
        may have been emptied since, by ``git clean`` say). Where no mark can be kept, or no lock
        had, they are compiled here every time (numba's cache, where it holds them, makes that a load)."""
        if self.mark is None:
            self._compile()
        elif again or not self.mark.exists():
            with self._locked(wait) as held:
                if held is False:
                    return False
                if again:
                    with suppress(OSError):
                        self.mark.unlink(missing_ok=True)
                if again or not self.mark.exists():
                    self._compile()
                    self.mark_ready()
        self._ready = True
        return True

    def _compile(self) -> None:
        for name in self.entries:
            self.compile_entry(name)

    def compile_all(self) -> None:
        """The background process: compile every function at a low priority and leave the mark;
        exit with LEFT_TO_ANOTHER where another process is compiling them, so that the process that
        started this one knows they are not compiled yet."""
        _low_priority()
        if not self.compile_here(wait=False):
            raise SystemExit(LEFT_TO_ANOTHER)


def _low_priority() -> None:
    """Nice 10, for this process and, where the kernel groups processes by session (autogroup), for
    its session's group too: the background process starts a session of its own, and a nice value
    counts only within a group, so alone it would still take half the CPU from the check that
    started it."""
    os.nice(10)
    if os.getsid(0) != os.getpid():
        return  # not its own session: the group is that of the processes around it
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write("10")
    except OSError:
        pass


_LOADED: list[CompiledInBackground] = []
"""Every one this process has made (each solver module that uses numba makes one)."""


def compile_where_loaded() -> None:
    """``compile_here`` for each solver this process has loaded: a process that times solvers calls
    it once they are loaded, so that it never times a plain path."""
    for compiled in _LOADED:
        compiled.compile_here()
