"""The parent's side of one solver's benchmark process (``knapcheck.measure.paired_child``).

``PairedProcess`` starts the process (whatever the solver is: a pull request's file runs there, never
here), waits until it has loaded its solver, has it call the solver on a row and measures the call
from outside (``knapcheck.measure.tree_meter``): the CPU time of the process tree (the wall-clock
time when the pair involves a CUDA solver, whose work is not CPU time), its peak memory and what it
retains. The process is a child of ``knapcheck.solvers.isolation.child``, as a correctness worker
is: started, heard and stopped the same way, its tree capped the same way
(``knapcheck.solvers.isolation.tree_caps``: a cgroup, or sampling), on top of an address-space cap;
a process that dies, breaks the protocol or goes over a cap is a ``Failed`` that says so, never an
exception here.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..solvers.contract.outcome import CRASHED, OUT_OF_MEMORY, TIMED_OUT
from ..solvers.isolation.child import Child, Ended, environment
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


_STATUSES = {CRASHED: "crash", OUT_OF_MEMORY: "out of memory", TIMED_OUT: "timeout"}
"""A ``Failed``'s status for each way a child ends (``knapcheck.solvers.isolation.child.Ended``)."""


class PairedProcess:
    """One solver's benchmark process: ``start``, ``await_loaded``, ``call`` as often as asked, ``stop``."""

    def __init__(self, spec: str, problems: list[dict], *, output: Path | None, threads: int, wall_time: bool,
                 capped: bool) -> None:
        self.memory_limit = MEMORY_LIMIT if capped else None
        self.threads = threads
        self.job = {"spec": spec, "rows": problems, "threads": threads, "memory_limit": self.memory_limit}
        self.output = output
        self.wall_time = wall_time
        self._child: Child | None = None
        self.meter: tree_meter.SampledMeter | tree_meter.CgroupMeter | None = None
        self._caller = 0

    def start(self) -> None:
        """Start the process and send it its job (``knapcheck.measure.paired_child``)."""
        with open(self.output, "ab") if self.output is not None else open(os.devnull, "wb") as sink:
            self._child = Child.launch(["-m", "knapcheck.measure.paired_child"], [], memory_limit=self.memory_limit,
                                       variables=environment(threads=self.threads), output=sink.fileno(),
                                       who="the benchmark process")
        try:
            self._child.send(json.dumps(self.job).encode())
        except OSError:
            pass

    def await_loaded(self, seconds: float) -> Failed | None:
        """Wait at most ``seconds`` until the solver is loaded (None), or say why it is not."""
        assert self._child is not None
        ready = self._child.await_ready(seconds)
        if isinstance(ready, Ended):
            return Failed("timeout", f"not loaded within {seconds:g} s") if ready.kind == TIMED_OUT else _failed(ready)
        if ready.pid is None:
            return Failed("error", ready.error)
        self._caller = ready.pid
        return None

    def can_use_cgroup(self) -> bool:
        assert self._child is not None
        return isinstance(tree_meter.new_meter(self._child.cap, self.root, self._caller), tree_meter.CgroupMeter)

    def use_meter(self, method: str) -> None:
        """Measure with ``method`` (``tree_meter.CGROUP`` only where ``can_use_cgroup``), from now on."""
        assert self._child is not None
        if method == tree_meter.CGROUP:
            self.meter = tree_meter.CgroupMeter(self._child.cap.directory)  # type: ignore[union-attr]
        else:
            self.meter = tree_meter.SampledMeter(self.root, self._caller)
        self.meter.loaded()

    @property
    def root(self) -> int:
        assert self._child is not None
        return self._child.pid

    def call(self, row: int, seconds_left: float, settle: bool) -> Measured | Failed | None:
        """Call the solver on a row and measure it; None when it has not answered within ``seconds_left``.
        ``settle``: a warm-up call, after which the process freezes what its garbage collection leaves."""
        assert self.meter is not None
        deadline = time.monotonic() + seconds_left
        self.meter.before()
        start = time.monotonic()
        done = self._ask({"call": row}, "done", seconds_left, self.meter.sample)
        if not isinstance(done, dict):
            return done
        cpu = self.meter.after()
        wall = time.monotonic() - start
        idle = self._ask({"tidy": settle}, "idle", deadline - time.monotonic(), None)
        if not isinstance(idle, dict):
            return idle
        peak, retained = self.meter.settled()
        return Measured(wall if self.wall_time else cpu, wall, peak, retained)

    def _ask(self, message: dict, event: str, seconds: float, sample: Callable[[], None] | None) -> dict | Failed | None:
        """Send ``message`` and await its answer ``event`` for ``seconds`` (None past them), the tree
        sampled meanwhile (``sample``, every ``tree_meter.SAMPLE_SECONDS``) and held to its caps; a
        Failed for any other answer, or when the process is gone."""
        assert self._child is not None
        try:
            self._child.send(json.dumps(message).encode())
        except OSError:
            pass  # the process is gone: receiving says how it ended
        reply = self._child.receive(_MESSAGE_LIMIT, seconds, tick=sample, tick_seconds=tree_meter.SAMPLE_SECONDS)
        if isinstance(reply, Ended):
            return None if reply.kind == TIMED_OUT else _failed(reply)
        return self._read(reply, event)

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

    def stop(self) -> None:
        """End the process and whatever its solver started (``knapcheck.solvers.isolation.child.Child.stop``)."""
        if self._child is not None:
            self._child.stop()


def _failed(ended: Ended) -> Failed:
    return Failed(_STATUSES[ended.kind], ended.error)
