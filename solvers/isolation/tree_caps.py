"""Caps on an isolated worker's whole process tree: the memory it holds and how many tasks it runs.

The address-space limit a worker sets on itself (``RLIMIT_AS``, ``knapcheck.solvers.isolation.worker``)
caps each process, and a target that forks gets that allowance again in every child. So the tree
is capped as a whole, by one of two means:

- **cgroups v2**, where the machine offers them: when this process's own cgroup delegates the
  ``memory`` and ``pids`` controllers to its children (its ``cgroup.subtree_control`` lists both,
  and it can be written), each worker runs in a child cgroup of its own, ``knapcheck-PID-N``, with
  ``memory.max`` (what the loaded worker holds plus the limit), ``memory.swap.max`` 0,
  ``memory.oom.group`` 1 and ``pids.max`` TASK_LIMIT. The kernel enforces them on every process in
  it; when the cgroup runs out of memory the kernel kills it whole, and the call is OUT_OF_MEMORY.
  Stopping a worker kills the cgroup (``cgroup.kill``) and removes it.
- **sampling**, everywhere else (cgroups v1, no delegation, no permission): while a call runs, the
  run reads the tree (the keeper's descendants, ``knapcheck.solvers.isolation.lifetime``) every
  SAMPLE_SECONDS; when its processes together hold more than what the loaded worker held plus the
  limit (``process_memory``: the proportional share of anonymous and shared memory, so that pages
  forked children share are counted once), or number
  more than TASK_LIMIT, the tree is killed and the call is OUT_OF_MEMORY or CRASH. Between two
  samples a tree may briefly hold more (each process still stops at its own ``RLIMIT_AS``).
  A sample reads the proportional shares (``smaps_rollup``, about 3 ms of kernel time for a process
  that imported torch: the kernel walks its page tables) only when the resident counts
  (``resident_at_most``, a hundredth of that) do not already show the tree within its cap.
  ``RLIMIT_NPROC`` is not used: it counts every thread of the user, system-wide, and does not
  bind root.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

from ..contract.outcome import CRASHED, OUT_OF_MEMORY
from . import lifetime

TASK_LIMIT = 1024
"""Processes (sampling) or tasks, threads included (cgroups), one worker's tree may hold."""
SAMPLE_SECONDS = 0.1
"""How often a running call's tree is measured when there are no cgroups."""
COUNTER_SLACK = 16 * 2**20
"""How far the kernel's resident counters may lag behind the pages a process holds (they are
per-CPU counters, folded together in batches): a tree whose counts come within this of its cap is
measured exactly."""

_MIB = 2**20
_names = itertools.count()


def tree_memory(root: int) -> int:
    """Bytes the processes of ``root``'s tree hold: the sum of their ``process_memory``."""
    return sum(process_memory(pid) for pid in [root, *lifetime.descendants(root)])


def process_memory(pid: int) -> int:
    """What a process holds of its own: its proportional share of its anonymous and shared-memory
    pages (``Pss_Anon`` + ``Pss_Shmem``), so that pages forked children share are counted once
    and the files it maps (libraries, whose pages other processes share and whose count moves
    when they map them) not at all. Its whole proportional set size where the kernel gives no
    such split, its resident size where it gives no proportional one; 0 once it is gone."""
    try:
        fields = {}
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, value = line.partition(":")
            if name.startswith("Pss"):
                fields[name] = int(value.split()[0]) * 1024
        if "Pss_Anon" in fields:
            return fields["Pss_Anon"] + fields.get("Pss_Shmem", 0)
        if "Pss" in fields:
            return fields["Pss"]
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def resident_at_most(pid: int) -> int:
    """An upper bound on ``process_memory(pid)``, cheap to read: its resident anonymous and
    shared-memory pages (``RssAnon`` + ``RssShmem`` in /proc/PID/status), each counted whole where
    ``process_memory`` counts a share of it; ``process_memory`` itself where the kernel gives no
    such counts (a zombie, a kernel older than 4.5), 0 once the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    fields = dict(line.split(":", 1) for line in status.splitlines() if line.startswith(("RssAnon", "RssShmem")))
    try:
        return (int(fields["RssAnon"].split()[0]) + int(fields["RssShmem"].split()[0])) * 1024
    except (KeyError, ValueError, IndexError):
        return process_memory(pid)


class SampledCap:
    """The tree measured while calls run, and killed when over its caps."""

    kind = "sampled"
    cgroup = ""
    """The cgroup the worker joins: none."""

    def __init__(self, memory_limit: int | None) -> None:
        self.memory_limit = memory_limit
        self.baseline = 0

    def loaded(self, root: int) -> None:
        self.baseline = tree_memory(root)

    def exceeded(self, root: int) -> tuple[str, str] | None:
        """(Outcome kind, reason) when the tree is over a cap; None while it is within them."""
        tree = [root, *lifetime.descendants(root)]
        if len(tree) > TASK_LIMIT:
            return CRASHED, f"the target ran more than {TASK_LIMIT} processes; they were killed"
        if self.memory_limit is None:
            return None
        cap = self.baseline + self.memory_limit
        if sum(resident_at_most(pid) for pid in tree) <= cap - COUNTER_SLACK:
            return None
        held = sum(process_memory(pid) for pid in tree)
        if held > cap:
            return OUT_OF_MEMORY, (
                f"the target's {len(tree)} processes held {held / _MIB:.0f} MiB, over the cap of {cap / _MIB:.0f} MiB"
                f" ({self.memory_limit / _MIB:.0f} MiB beyond the loaded worker); they were killed"
            )
        return None

    def died(self) -> str:
        """Why the worker died, when a cap killed it; empty otherwise (sampling kills only in ``exceeded``)."""
        return ""

    def close(self) -> None:
        pass


def delegating_cgroup() -> Path | None:
    """This process's cgroup v2 directory, when it delegates memory and pids to child cgroups we may create."""
    try:
        relative = next(
            line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::")
        )
        mount = _cgroup2_mount()
    except (OSError, StopIteration):
        return None
    if mount is None:
        return None
    directory = mount / relative.lstrip("/")
    try:
        delegated = set((directory / "cgroup.subtree_control").read_text().split())
    except OSError:
        return None
    if {"memory", "pids"} <= delegated and os.access(directory, os.W_OK):
        return directory
    return None


def _cgroup2_mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (its root, as this process sees it)."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        if rest.split()[:1] == ["cgroup2"] and fields.split()[3] == "/":
            return Path(fields.split()[4])
    return None


class CgroupCap:
    """A child cgroup v2 of this process's own, holding one worker's tree."""

    kind = "cgroup"

    def __init__(self, parent: Path, memory_limit: int | None) -> None:
        self.memory_limit = memory_limit
        self.directory = parent / f"knapcheck-{os.getpid()}-{next(_names)}"
        self.directory.mkdir()
        self._write("pids.max", TASK_LIMIT)
        self._write("memory.oom.group", 1)
        if (self.directory / "memory.swap.max").exists():
            self._write("memory.swap.max", 0)
        self.cgroup = str(self.directory)

    def _write(self, name: str, value: object) -> None:
        (self.directory / name).write_text(f"{value}\n")

    def loaded(self, root: int) -> None:
        if self.memory_limit is not None:
            current = int((self.directory / "memory.current").read_text())
            self._write("memory.max", current + self.memory_limit)

    def exceeded(self, root: int) -> tuple[str, str] | None:
        """The kernel enforces the caps; a cgroup out of memory is killed whole (``died`` tells)."""
        return None

    def died(self) -> str:
        try:
            events = dict(line.split() for line in (self.directory / "memory.events").read_text().splitlines())
        except (OSError, ValueError):
            return ""
        if int(events.get("oom_kill", 0)) or int(events.get("oom_group_kill", 0)):
            limit = (self.directory / "memory.max").read_text().strip()
            return f"the target's processes reached their cgroup's memory.max ({limit} bytes) and were killed"
        return ""

    def close(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        kill = self.directory / "cgroup.kill"
        for _ in range(1000):
            try:
                pids = [int(pid) for pid in (self.directory / "cgroup.procs").read_text().split()]
            except OSError:
                return
            if not pids:
                break
            if kill.exists():
                kill.write_text("1\n")
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            time.sleep(0.01)
        try:
            self.directory.rmdir()
        except OSError:
            pass


def join(cgroup: str) -> None:
    """Move this process into ``cgroup`` (the worker does, before it forks or loads anything)."""
    Path(cgroup, "cgroup.procs").write_text(f"{os.getpid()}\n")


def new_cap(memory_limit: int | None) -> SampledCap | CgroupCap:
    """A cgroup for the next worker where the machine delegates one; sampling otherwise."""
    parent = delegating_cgroup()
    if parent is not None:
        try:
            return CgroupCap(parent, memory_limit)
        except OSError:
            pass
    return SampledCap(memory_limit)
