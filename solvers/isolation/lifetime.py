"""Worker processes that die with the run, and take everything their target started with them (Linux).

An isolated target runs in a worker process, and the target may start processes of its own, orphan
them, move them out of its process group and session (``setsid``), or kill the processes above it.
None of what it starts may outlive the run:

- ``launch`` starts the worker in a session of its own (a Ctrl-C at the terminal reaches the run,
  which then stops its workers itself);
- the worker's first process becomes its *keeper* (``keep_tree``): a child subreaper
  (``PR_SET_CHILD_SUBREAPER``), so that every process the target starts stays its descendant, even
  one whose parent has died or that called ``setsid``. When that one ends, or when the keeper is
  told to stop (SIGTERM, sent by ``stop`` and, through ``PR_SET_PDEATHSIG``, by the kernel when the
  run's process dies, even by SIGKILL), it kills every descendant and exits as the served process
  did (the same status, or the same signal);
- where the kernel allows it, the keeper puts the target in a PID namespace of its own
  (``unshare(CLONE_NEWPID)``; as another user than root, with a user namespace that maps only that
  user), whose first process, its *init*, starts the process that serves calls. From inside the
  namespace the keeper has no process id, so the target cannot signal it, and the init takes no
  signal from the target (the kernel ignores SIGKILL sent to a namespace's init from inside). When
  the init dies, the kernel kills every process in the namespace; the init dies with the keeper
  (its parent-death signal, SIGKILL, which the kernel delivers from outside), so whatever the
  target started ends with the worker even when the keeper itself is killed;
- the served process is killed (SIGKILL) when the process above it dies.

``descendants`` is also how the run measures a worker's whole process tree
(``knapcheck.solvers.isolation.tree_caps``). What escapes without a PID namespace: the descendants
of a keeper that is killed by SIGKILL (by the kernel's OOM killer, or by the target itself) are
orphaned to init; ``stop`` then kills what is left in the worker's process group, but not a daemon
that left it with ``setsid``. Under cgroups v2 nothing escapes (the cgroup is killed whole).

The parent-death signal follows the *thread* that started the child, not the process, so
``launch`` always starts workers from one long-lived thread: a worker started from a thread that
later exits (a thread pool's) would otherwise be killed with it.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000

STOP_GRACE = 10.0
"""Seconds a keeper may take to kill its tree and exit once told to stop, before it is killed."""


_LAUNCHER: ThreadPoolExecutor
"""The thread that starts every worker; one per process (``_new_launcher``)."""


def _new_launcher() -> None:
    """The launcher thread (a fork inherits the executor but not its thread: the child needs its own)."""
    global _LAUNCHER
    _LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knapcheck-launcher")


_new_launcher()
os.register_at_fork(after_in_child=_new_launcher)


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def launch(command: list[str], **popen_arguments) -> subprocess.Popen:
    """Start ``command`` as the leader of a new session, from the long-lived launcher thread."""
    return _LAUNCHER.submit(lambda: subprocess.Popen(command, start_new_session=True, **popen_arguments)).result()


def keep_tree(parent_pid: int) -> None:
    """Split this process into a keeper and the process that serves; returns only in the latter.

    The keeper never returns: it waits for the process below it (the served process, or the
    namespace's init), reaping whatever is orphaned to it meanwhile, kills every descendant left,
    and exits as the served process did. Call it first thing, before any thread starts; this
    process must be a child of ``parent_pid``.
    """
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent_pid:
        os._exit(1)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    namespace = new_pid_namespace()
    keeper = os.getpid()
    status_read, status_write = os.pipe()
    below = os.fork()
    if below == 0:
        os.close(status_read)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if namespace:
            if _reader_gone(status_write):
                os._exit(1)
            _init(status_write)
        else:
            os.close(status_write)
            if os.getppid() != keeper:
                os._exit(1)
        return
    os.close(status_write)
    _keep(below, status_read)


def new_pid_namespace() -> bool:
    """Put this process's next child in a new PID namespace (as its init); False where the kernel refuses.

    As root this needs nothing more; as another user it needs a user namespace too, which maps only
    this user and group to themselves (files keep their owners; the process gains no right outside)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWPID) == 0:
        return True
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWPID) != 0:
        return False
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    return True


def _reader_gone(descriptor: int) -> bool:
    """Whether the read end of this pipe's write end is closed (its only reader, the keeper, died)."""
    poller = select.poll()
    poller.register(descriptor, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def _init(status_write: int) -> None:
    """Be the PID namespace's init: start the served process (returns in it) and reap every orphan
    until it ends; then tell the keeper how it ended and exit, which ends the namespace.

    The init has no signal handler (Python's for SIGINT is taken off: SIGINT is ignored): the
    kernel drops every signal sent to it from inside the namespace, so the target cannot kill it;
    from outside, the keeper's SIGKILL (and the parent-death signal) still reach it. Its session is
    its own, so a target that signals its process group reaches no process outside the namespace."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    served = os.fork()
    if served == 0:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.close(status_write)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    _close_descriptors(keep=status_write)
    while True:
        pid, status = os.wait()
        if pid == served:
            break
    os.write(status_write, str(status).encode())
    os._exit(0)


def _keep(below: int, status_read: int) -> None:
    _close_descriptors(keep=status_read)

    def stop(signum, frame) -> None:
        _kill(below)
        kill_descendants()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pid, status = os.wait()
        if pid == below:
            break
    kill_descendants()
    told = os.read(status_read, 64)
    _exit_as(int(told) if told.strip().isdigit() else status)


def _close_descriptors(keep: int) -> None:
    """Close every descriptor above 2 but ``keep`` (the keeper and the init hold no socket of the worker's)."""
    for fd in _open_descriptors():
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _open_descriptors() -> list[int]:
    return [int(name) for name in os.listdir("/proc/self/fd")]


def _exit_as(status: int) -> None:
    """Exit with the status ``os.wait`` gave, or die of the same signal (without a core dump)."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(status))


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_CHILDREN_FILES = Path(f"/proc/self/task/{os.getpid()}/children").exists()
"""Whether the kernel lists each task's children (CONFIG_PROC_CHILDREN); else /proc is scanned."""


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc); empty once it is gone."""
    if not _CHILDREN_FILES:
        return [child for child, parent in _parents().items() if parent == pid]
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    found = []
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc/PID/stat."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return parents


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: its children, theirs, and so on."""
    found, frontier = [], [pid]
    while frontier:
        below = [child for parent in frontier for child in children(parent)]
        found += below
        frontier = below
    return found


def alive(pid: int) -> bool:
    """Running, or at least not yet a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def kill_descendants() -> None:
    """SIGKILL every descendant of this process until none is left, and reap them.

    Round after round: a process forked while its parent was being killed is found in the next.
    Orphans come to this process (a subreaper), so once all are dead, waiting reaps them all.
    """
    while True:
        living = [pid for pid in descendants(os.getpid()) if alive(pid)]
        if not living:
            break
        for pid in living:
            _kill(pid)
        _reap(block=False)
        time.sleep(0.001)
    _reap(block=True)


def _reap(block: bool) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class Process(Protocol):
    """What ``how_it_ended`` and ``stop`` use of a worker: a ``subprocess.Popen`` or a zygote's
    ``ForkedProcess`` (``knapcheck.solvers.isolation.zygote_pool``)."""

    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, signum: int) -> None: ...

    def kill(self) -> None: ...


def how_it_ended(process: Process, who: str) -> str:
    """How a worker that stopped answering ended, said of ``who`` ("the worker"), once it has exited
    (waited for up to 5 s). ``process`` may also be a worker a zygote forked
    (``knapcheck.solvers.isolation.zygote_pool.ForkedProcess``), as in ``stop``."""
    try:
        exitcode = process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return f"{who} stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"{who} was killed by {name}"
    return f"{who} exited with status {exitcode}"


def stop(process: Process) -> None:
    """End a ``launch``-ed worker and its whole tree, and reap it.

    The keeper is asked (SIGTERM) and kills the tree itself; if it has not exited within
    STOP_GRACE seconds it is killed, and so is what is left in its process group.
    """
    if process.poll() is None:
        try:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
