"""The parent's side of one solver's benchmark process (``knapcheck.measure.paired_child``).

``PairedProcess`` starts the process (whatever the solver is: a pull request's file runs there, never
here), waits until it has loaded its solver, has it call the solver on a row and measures the call
from outside (``knapcheck.measure.tree_meter``): the CPU time of the process tree (the wall-clock
time when the pair involves a CUDA solver, whose work is not CPU time), its peak memory and what it
retains. Its tree is capped as a correctness worker's is (``knapcheck.solvers.isolation.tree_caps``:
a cgroup, or sampling), on top of an address-space cap; a process that dies, breaks the protocol or
goes over a cap is a ``Failed`` that says so, never an exception here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from ..solvers.contract.outcome import OUT_OF_MEMORY
from ..solvers.isolation import lifetime, tree_caps
from . import tree_meter

MEMORY_LIMIT = 4 * 2**30
"""Address space the process may map beyond what it maps with its solver loaded, and what its tree
may hold beyond what it held then (no cap when the pair has a CUDA solver: CUDA reserves far more
address space than it uses)."""
_MESSAGE_LIMIT = 4096
"""The longest message the protocol has any use for, in bytes."""


@dataclass(frozen=True)
class Measured:
    """One call, as the parent measured it."""

    seconds: float
    """CPU seconds of the whole tree (wall-clock seconds when the pair has a CUDA solver)."""
    wall_seconds: float
    peak_bytes: int
    """The most the tree held during the call above what it held once loaded (what it kept from
    earlier calls included)."""
    retained_bytes: int
    """What the tree still held above that once the call was over and tidied up."""


@dataclass(frozen=True)
class Failed:
    status: str
    """``error``, ``out of memory``, ``too big`` (raised in a call), ``crash`` (the process died,
    broke the protocol or started too many processes), ``timeout`` (while loading)."""
    error: str


class PairedProcess:
    """One solver's benchmark process: ``start``, ``await_loaded``, ``call`` as often as asked, ``stop``."""

    def __init__(self, spec: str, problems: list[dict], *, output: Path | None, threads: int, wall_time: bool,
                 capped: bool) -> None:
        self.job = {"spec": spec, "rows": problems, "threads": threads,
                    "memory_limit": MEMORY_LIMIT if capped else None}
        self.output = output
        self.wall_time = wall_time
        self._cap = tree_caps.new_cap(MEMORY_LIMIT if capped else None)
        self._process: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self.meter: tree_meter.SampledMeter | tree_meter.CgroupMeter | None = None
        self._caller = 0

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-P", "-m", "knapcheck.measure.paired_child", str(os.getpid()), str(theirs.fileno()),
                   self._cap.cgroup]
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                           OMP_NUM_THREADS=str(self.job["threads"]))
        with open(self.output, "ab") if self.output is not None else open(os.devnull, "wb") as sink:
            self._process = lifetime.launch(command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            stdout=sink, stderr=sink, env=environment)
        theirs.close()
        self._conn = Connection(ours.detach())
        try:
            self._conn.send_bytes(json.dumps(self.job).encode())
        except OSError:
            pass

    def await_loaded(self, seconds: float) -> Failed | None:
        """Wait at most ``seconds`` until the solver is loaded (None), or say why it is not."""
        message = self._await("loaded", time.monotonic() + seconds, sampling=False)
        if message is None:
            self.stop()
            return Failed("timeout", f"not loaded within {seconds:g} s")
        if isinstance(message, Failed):
            return message
        assert self._process is not None
        caller = message.get("pid")
        if not isinstance(caller, int) or caller not in lifetime.descendants(self._process.pid):
            self.stop()
            return Failed("crash", f"the benchmark process sent a process id outside its tree: {caller!r:.40}")
        self._caller = caller
        self._cap.loaded(self._process.pid)
        return None

    def can_use_cgroup(self) -> bool:
        return isinstance(tree_meter.new_meter(self._cap, self.root, self._caller), tree_meter.CgroupMeter)

    def use_meter(self, method: str) -> None:
        """Measure with ``method`` (``tree_meter.CGROUP`` only where ``can_use_cgroup``), from now on."""
        if method == tree_meter.CGROUP:
            self.meter = tree_meter.CgroupMeter(self._cap.directory)  # type: ignore[union-attr]
        else:
            self.meter = tree_meter.SampledMeter(self.root, self._caller)
        self.meter.loaded()

    @property
    def root(self) -> int:
        assert self._process is not None
        return self._process.pid

    def call(self, row: int, seconds_left: float, settle: bool) -> Measured | Failed | None:
        """Call the solver on a row and measure it; None when it has not answered within ``seconds_left``.
        ``settle``: a warm-up call, after which the process freezes what its garbage collection leaves."""
        assert self.meter is not None and self._conn is not None
        deadline = time.monotonic() + seconds_left
        self.meter.before()
        start = time.monotonic()
        done = self._ask({"call": row}, "done", deadline, sampling=True)
        if not isinstance(done, dict):
            return done
        cpu = self.meter.after()
        wall = time.monotonic() - start
        idle = self._ask({"tidy": settle}, "idle", deadline, sampling=False)
        if not isinstance(idle, dict):
            return idle
        peak, retained = self.meter.settled()
        return Measured(wall if self.wall_time else cpu, wall, peak, retained)

    def _ask(self, message: dict, event: str, deadline: float, sampling: bool) -> dict | Failed | None:
        """Send ``message`` and await its answer ``event`` (``_await``); a Failed when the process is gone."""
        assert self._conn is not None
        try:
            self._conn.send_bytes(json.dumps(message).encode())
        except OSError:
            return self._died()
        return self._await(event, deadline, sampling)

    def _await(self, event: str, deadline: float, sampling: bool) -> dict | Failed | None:
        """The next message, if it is ``event``; a Failed for anything else; None at the deadline.
        While waiting, the tree is sampled (``sampling``) and held to its caps."""
        assert self._conn is not None and self._process is not None
        next_check = time.monotonic() + tree_caps.SAMPLE_SECONDS
        while True:
            now = time.monotonic()
            if now >= deadline:
                return None
            wait = min(deadline, next_check) - now
            if sampling:
                wait = min(wait, tree_meter.SAMPLE_SECONDS)
            try:
                ready = self._conn.poll(max(0.0, wait))
                data = self._conn.recv_bytes(_MESSAGE_LIMIT) if ready else None
            except (EOFError, OSError):
                return self._died()
            if data is not None:
                return self._read(data, event)
            if sampling and self.meter is not None:
                self.meter.sample()
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + tree_caps.SAMPLE_SECONDS
                over = self._cap.exceeded(self._process.pid)
                if over is not None:
                    self.stop()
                    return Failed("out of memory" if over[0] == OUT_OF_MEMORY else "crash", over[1])

    def _read(self, data: bytes, event: str) -> dict | Failed:
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("event") == "failed":
            return Failed(str(message.get("status", "error"))[:40], str(message.get("error", ""))[:500])
        if isinstance(message, dict) and message.get("event") == event:
            return message
        self.stop()
        return Failed("crash", f"the benchmark process sent {data[:80]!r} where it should have said {event!r}")

    def _died(self) -> Failed:
        assert self._process is not None
        ending = lifetime.how_it_ended(self._process, "the benchmark process")
        out_of_memory = self._cap.died()
        self.stop()
        return Failed("out of memory", out_of_memory) if out_of_memory else Failed("crash", ending)

    def stop(self) -> None:
        """End the process and whatever its solver started (``knapcheck.solvers.isolation.lifetime.stop``)."""
        conn, process = self._conn, self._process
        self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            lifetime.stop(process)
        self._cap.close()
