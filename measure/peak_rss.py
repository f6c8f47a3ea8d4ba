"""Peak resident memory of one call, read from the kernel (Linux): what ``bench_child`` and
``paired_child`` measure.

``PeakMeter.start`` returns the heap's free memory to the kernel and resets the process's
high-water mark of resident memory to what is resident now; ``PeakMeter.added`` is how far the
high-water mark rose above that since. It sees every allocation a solver makes (torch tensors,
NumPy arrays, Python lists) at page granularity. Where the mark cannot be reset (no
``/proc/self/clear_refs``), the process's lifetime peak stands in for it, which is only right for
the first call of a fresh process.
"""

from __future__ import annotations

import ctypes
import resource
from pathlib import Path


def status_kib(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status`` (VmRSS, VmHWM, ...)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak() -> bool:
    """Reset the high-water mark of resident memory to the current RSS; False where the kernel cannot."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
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
    """``start()`` before a call, ``added()`` after it: the bytes of resident memory the call added at its peak."""

    def __init__(self) -> None:
        self._before_kib = 0
        self._fresh = False

    def start(self) -> None:
        trim_heap()
        self._fresh = reset_peak()
        self._before_kib = status_kib("VmRSS") if self._fresh else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def added(self) -> int:
        peak = status_kib("VmHWM") if self._fresh else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return max(0, peak - self._before_kib) * 1024
