"""What a benchmarked solver's whole process tree spends on one call, read from outside it.

A solver's benchmark process (``knapcheck.measure.paired_child``) is a tree: its keeper, the init of
its PID namespace where there is one, the process that calls the solver, and whatever the solver
starts (``knapcheck.solvers.isolation.lifetime``). The parent measures that tree from outside, so
nothing the solver's code does in its own process (rebinding a clock, a meter, a module) changes
the figures:

- **CPU time**: every process of the tree, before and after the call: its CPU clock (all its
  threads, to the nanosecond, ``clock_gettime`` of the process's CPU-time clock) plus what its
  children spent once reaped (``cutime`` and ``cstime``, in clock ticks), summed over the tree.
  So work done in threads or in child processes counts, and time spent waiting for a core does not.
  Under a cgroup, the cgroup's ``cpu.stat`` ``usage_usec``, which counts every process that was in it.
- **memory**: the most the tree held during the call above what it held once the solver was loaded
  (``peak``), and what it still holds once the call is over and its process has returned its free
  heap (``retained``). What a solver keeps from one call to the next is held during every later
  call, so it counts in each call's peak. Two methods:

  - ``cgroup``, where the worker has a cgroup v2 of its own (``knapcheck.solvers.isolation.tree_caps``):
    ``memory.peak``, reset before every call through the file descriptor that reads it (Linux 6.12
    and later), and ``memory.current``;
  - ``sampled`` everywhere else: the tree's memory (``tree_caps.tree_memory``: the proportional
    share of anonymous and shared memory of every process) every ``SAMPLE_SECONDS`` while the call
    runs and once it is over, and, between samples, the calling process's own high-water mark
    of resident memory (``knapcheck.measure.peak_rss``) on top of what the tree held before the
    call. A child process that holds memory for less than a sample period may be missed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..solvers.isolation import lifetime
from ..solvers.isolation.tree_caps import CgroupCap, SampledCap, tree_memory
from .peak_rss import PeakMeter

SAMPLE_SECONDS = 0.01
"""How often a running call's tree is sampled (method ``sampled``)."""
CGROUP = "cgroup"
SAMPLED = "sampled"

_TICK = 1.0 / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds a process and its reaped children have spent; 0 once it is gone."""
    try:
        own = time.clock_gettime((~pid << 3) | 2)
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return own + (int(fields[13]) + int(fields[14])) * _TICK
    except (OSError, ValueError, IndexError):
        return 0.0


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds the processes of ``root``'s tree have spent, reaped children included."""
    return sum(process_cpu_seconds(pid) for pid in [root, *lifetime.descendants(root)])


class SampledMeter:
    """The tree read from /proc: CPU clocks, sampled memory, the calling process's own peak."""

    method = SAMPLED

    def __init__(self, root: int, caller: int) -> None:
        self.root = root
        self.caller = PeakMeter(caller)
        self.base = self.held = 0
        self._highest = 0
        self._cpu = 0.0

    def loaded(self) -> None:
        self.base = self.held = tree_memory(self.root)

    def before(self) -> None:
        self._highest = self.held
        self.caller.start()
        self._cpu = tree_cpu_seconds(self.root)

    def sample(self) -> None:
        self._highest = max(self._highest, tree_memory(self.root))

    def after(self) -> float:
        """The call's CPU seconds (read as soon as it has answered)."""
        cpu = tree_cpu_seconds(self.root) - self._cpu
        self._highest = max(self._highest, self.held + self.caller.added())
        return max(0.0, cpu)

    def settled(self) -> tuple[int, int]:
        """(peak, retained) above the loaded tree, once the calling process has tidied up."""
        self.held = tree_memory(self.root)
        return max(0, max(self._highest, self.held) - self.base), max(0, self.held - self.base)


class CgroupMeter:
    """The worker's own cgroup v2: ``memory.peak`` reset per call, ``memory.current``, ``cpu.stat``."""

    method = CGROUP

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.base = 0
        self._peak_file: int | None = None
        self._cpu = 0.0

    def _read(self, name: str) -> int:
        return int((self.directory / name).read_text().split()[0])

    def _usage_seconds(self) -> float:
        stat = dict(line.split() for line in (self.directory / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def loaded(self) -> None:
        self.base = self._read("memory.current")

    def before(self) -> None:
        self._close()
        self._peak_file = reset_peak_file(self.directory / "memory.peak")
        self._cpu = self._usage_seconds()

    def sample(self) -> None:
        pass

    def after(self) -> float:
        return max(0.0, self._usage_seconds() - self._cpu)

    def settled(self) -> tuple[int, int]:
        assert self._peak_file is not None
        peak = int(os.pread(self._peak_file, 64, 0).split()[0])
        self._close()
        current = self._read("memory.current")
        return max(0, max(peak, current) - self.base), max(0, current - self.base)

    def _close(self) -> None:
        if self._peak_file is not None:
            os.close(self._peak_file)
            self._peak_file = None


def reset_peak_file(path: Path) -> int:
    """``memory.peak`` opened and reset: later reads through this descriptor give the peak since now.
    OSError where the kernel cannot reset it (before Linux 6.12)."""
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.write(descriptor, b"reset\n")
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def new_meter(cap: SampledCap | CgroupCap, root: int, caller: int) -> SampledMeter | CgroupMeter:
    """A cgroup's meter where the worker has a cgroup whose peak can be reset; sampling otherwise."""
    if isinstance(cap, CgroupCap):
        try:
            os.close(reset_peak_file(cap.directory / "memory.peak"))
            return CgroupMeter(cap.directory)
        except OSError:
            pass
    return SampledMeter(root, caller)
