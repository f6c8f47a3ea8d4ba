"""Planted targets that take the interpreter down in every way isolation must survive."""

import ctypes
import os
import signal
import sys
import time


def host_pid() -> int:
    """This process's id as the run sees it: a worker may run in a PID namespace of its own, where
    ``os.getpid()`` is another number (the /proc it reads is the run's)."""
    return int(os.readlink("/proc/self"))


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

    record = Path(os.environ["KNAPCHECK_PLANTED_CHILD_PID"])
    subprocess.Popen([sys.executable, "-c", f"import os, time; open({str(record)!r}, 'w').write(os.readlink('/proc/self'));"
                      " time.sleep(3600)"])
    while not record.exists() or not record.read_text():
        time.sleep(0.01)
    return 0.0, [], list(range(len(memory)))


HANG_AFTER_SECONDS = 6.0
_LOADED = time.monotonic()


def hangs_late(memory, runtimes, max_memory):
    """Exact (our full table) until its process has been up for HANG_AFTER_SECONDS; then hangs."""
    from knapcheck.solvers.full_table import full_table

    if time.monotonic() - _LOADED > HANG_AFTER_SECONDS:
        time.sleep(3600)
    return full_table(memory, runtimes, max_memory)


def _pids_directory():
    from pathlib import Path

    return Path(os.environ["KNAPCHECK_PLANTED_PIDS"])


def _fork_holding(megabytes: int) -> int:
    """Fork a child that records its pid (a file named by it), then holds ``megabytes`` of memory
    it has written to, says so in that file, and sleeps."""
    pid = os.fork()
    if pid == 0:
        try:
            record = _pids_directory() / str(host_pid())
            record.write_text("")
            held = bytearray(b"\x01") * (megabytes * 2**20)
            record.write_text(str(len(held)))
            time.sleep(3600)
        finally:
            os._exit(0)
    return pid


CHILDREN = 3
HOLD_SECONDS = 8.0


def children_hold_memory(memory, runtimes, max_memory):
    """Forks CHILDREN children that each hold KNAPCHECK_PLANTED_CHILD_MIB MiB, and answers
    (recomputing everything) HOLD_SECONDS after they all hold it."""
    megabytes = int(os.environ["KNAPCHECK_PLANTED_CHILD_MIB"])
    for _ in range(CHILDREN):
        _fork_holding(megabytes)
    while len([record for record in _pids_directory().iterdir() if record.read_text()]) < CHILDREN:
        time.sleep(0.01)
    time.sleep(HOLD_SECONDS)
    return 0.0, [], list(range(len(memory)))


def setsid_grandchild(memory, runtimes, max_memory):
    """Double-forks a grandchild into a session of its own (a daemon: its parent exits at once)
    that sleeps for an hour after writing its pid to KNAPCHECK_PLANTED_CHILD_PID; then answers."""
    from pathlib import Path

    record = Path(os.environ["KNAPCHECK_PLANTED_CHILD_PID"])
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            record.write_text(str(host_pid()))
            time.sleep(3600)
        os._exit(0)
    os.waitpid(child, 0)
    while not record.exists() or not record.read_text():
        time.sleep(0.01)
    return 0.0, [], list(range(len(memory)))


def forks_many(memory, runtimes, max_memory):
    """Forks KNAPCHECK_PLANTED_FORKS children that record their pids and sleep; answers after HOLD_SECONDS."""
    for _ in range(int(os.environ["KNAPCHECK_PLANTED_FORKS"])):
        _fork_holding(0)
    time.sleep(HOLD_SECONDS)
    return 0.0, [], list(range(len(memory)))


def kills_its_keeper(memory, runtimes, max_memory):
    """Starts a setsid daemon, as ``setsid_grandchild`` does, then sends SIGINT, SIGTERM and SIGKILL
    to every process it can find above itself up to its worker's first process: its parent, and the
    parent /proc names (the same process, unless the worker runs in a PID namespace); then answers."""
    setsid_grandchild(memory, runtimes, max_memory)
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    for pid in {os.getppid(), int(status["PPid"])} - {0}:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, signum)
            except OSError:
                pass
    time.sleep(0.5)
    return 0.0, [], list(range(len(memory)))


def late(memory, runtimes, max_memory):
    """Exact (our full table), a tenth of a second late on every call: a run that takes a while."""
    from knapcheck.solvers.full_table import full_table

    time.sleep(0.1)
    return full_table(memory, runtimes, max_memory)


def dies_on_three_items(memory, runtimes, max_memory):
    """Exact (our full table), except on three items, where it segfaults, and on four, where it hangs."""
    from knapcheck.solvers.full_table import full_table

    if len(memory) == 3:
        ctypes.string_at(0)
    if len(memory) == 4:
        time.sleep(3600)
    return full_table(memory, runtimes, max_memory)
