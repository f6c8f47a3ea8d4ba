"""Peak resident memory of one call, read from the kernel (Linux): what ``bench_child`` measures in
its own process and ``knapcheck.measure.tree_meter`` in a benchmarked solver's process, from outside.

``PeakMeter.start`` resets a process's high-water mark of resident memory to what is resident now;
``PeakMeter.added`` is how far the mark rose above that since. It sees every allocation a solver
makes (torch tensors, NumPy arrays, Python lists) at page granularity. Where the mark cannot be reset
(no ``clear_refs``), nothing is added: the mark then says nothing about one call.
``trim_heap`` returns the heap's free memory to the kernel; only a process can do it for itself.
"""

from __future__ import annotations

import ctypes
from pathlib import Path


def status_kib(field: str, pid: int | str = "self") -> int:
    """A ``kB`` field of ``/proc/PID/status`` (VmRSS, VmHWM, ...); OSError once the process is gone."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


def reset_peak(pid: int | str = "self") -> bool:
    """Reset the high-water mark of resident memory to the current RSS; False where the kernel cannot."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def trim_heap() -> None:
    """Return the heap's free memory to the kernel (glibc), so that the call pays for every page it
    needs instead of silently reusing what an earlier call left behind."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class PeakMeter:
    """``start()`` before a call, ``added()`` after it: the bytes of resident memory the call added to
    process ``pid`` at its peak (0 where the mark cannot be reset, or the process is gone)."""

    def __init__(self, pid: int | str = "self") -> None:
        self.pid = pid
        self._before_kib: int | None = None

    def start(self) -> None:
        try:
            self._before_kib = status_kib("VmRSS", self.pid) if reset_peak(self.pid) else None
        except (OSError, RuntimeError):
            self._before_kib = None

    def added(self) -> int:
        if self._before_kib is None:
            return 0
        try:
            return max(0, status_kib("VmHWM", self.pid) - self._before_kib) * 1024
        except (OSError, RuntimeError):
            return 0
