"""Child processes that die with their parent and take their own children with them (Linux).

An isolated target runs in a child process, and the target may start processes of its own. None of
them may outlive the run, however it ends:

- ``launch`` starts the child in a process group of its own (a new session, so a Ctrl-C at the
  terminal reaches the run, which then stops its children itself);
- the child calls ``die_with_parent`` first thing: Linux sends it SIGKILL when its parent dies
  (``PR_SET_PDEATHSIG``), even by SIGKILL;
- then ``guard_group``: it forks a small watchdog into the group that, when the child dies, kills
  the whole group, grandchildren included (SIGKILL on the child spares its own children);
- the parent ends a child with ``kill_group``.

The parent-death signal follows the *thread* that started the child, not the process, so
``launch`` always starts children from one long-lived thread: a child started from a worker thread
that later exits (a thread pool's) would otherwise be killed with it. A grandchild that leaves the
group (``setsid``) escapes all this.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor

_PR_SET_PDEATHSIG = 1


def _new_launcher() -> None:
    """The launcher thread (a fork inherits the executor but not its thread: the child needs its own)."""
    global _LAUNCHER
    _LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knapcheck-launcher")


_new_launcher()
os.register_at_fork(after_in_child=_new_launcher)


def _set_parent_death_signal(signum: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def launch(command: list[str], **popen_arguments) -> subprocess.Popen:
    """Start ``command`` as the leader of a new process group, from the long-lived launcher thread."""
    return _LAUNCHER.submit(subprocess.Popen, command, start_new_session=True, **popen_arguments).result()


def die_with_parent(parent_pid: int) -> None:
    """Be killed when the parent dies; exit now if it already has (this process was orphaned)."""
    _set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent_pid:
        os._exit(1)


def guard_group() -> None:
    """Fork a watchdog that kills this process's whole group once this process has died.

    Call it early, before any thread starts: the watchdog is a fork of the caller.
    """
    leader = os.getpid()
    if os.fork() != 0:
        return
    for fd in (int(name) for name in os.listdir("/proc/self/fd")):
        if fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass
    signal.signal(signal.SIGTERM, lambda signum, frame: os.killpg(0, signal.SIGKILL))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _set_parent_death_signal(signal.SIGTERM)
    if os.getppid() != leader:
        os.killpg(0, signal.SIGKILL)
    while True:
        signal.pause()


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL a ``launch``-ed process and everything left in its group, and reap it."""
    if process.poll() is None:
        process.kill()
    process.wait()
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
