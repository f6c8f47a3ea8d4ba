"""Planted targets that take the interpreter down in every way isolation must survive."""

import ctypes
import os
import sys
import time


def segfault(memory, runtimes, max_memory):
    ctypes.string_at(0)


def exits(memory, runtimes, max_memory):
    sys.exit(3)


def hard_exit(memory, runtimes, max_memory):
    os._exit(0)


def hangs(memory, runtimes, max_memory):
    time.sleep(3600)


def allocates_without_bound(memory, runtimes, max_memory):
    chunks = []
    while True:
        chunks.append(bytearray(64 * 2**20))


def recomputes_everything(memory, runtimes, max_memory):
    return 0.0, [], list(range(len(memory)))


def spawns_a_child(memory, runtimes, max_memory):
    """Starts a process that would sleep for an hour, writes its pid to the file that
    KNAPCHECK_PLANTED_CHILD_PID names, and answers (recomputing everything)."""
    import subprocess
    from pathlib import Path

    child = subprocess.Popen(["sleep", "3600"])
    Path(os.environ["KNAPCHECK_PLANTED_CHILD_PID"]).write_text(str(child.pid))
    return 0.0, [], list(range(len(memory)))


HANG_AFTER_SECONDS = 6.0
_LOADED = time.monotonic()


def hangs_late(memory, runtimes, max_memory):
    """Exact (our full table) until its process has been up for HANG_AFTER_SECONDS; then hangs."""
    from knapcheck.solvers.full_table import full_table

    if time.monotonic() - _LOADED > HANG_AFTER_SECONDS:
        time.sleep(3600)
    return full_table(memory, runtimes, max_memory)
