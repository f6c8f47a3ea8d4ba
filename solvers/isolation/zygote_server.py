"""The zygote: a process that imports torch once and forks a worker on each request.

A fresh worker interpreter spends 2-3 s of CPU importing torch before it answers its first call,
and a check starts one or two workers per target, a test suite hundreds. A zygote is such an
interpreter (started by ``knapcheck.solvers.isolation.zygote_pool`` with the worker's environment and hash
seed) that imports the worker's own modules, and torch at the start or before the first fork whose
target uses it (``knapcheck.solvers.isolation.torch_use``), then forks a worker per request: the child
goes on exactly as a fresh worker's ``serve`` would (its keeper, PID namespace, cgroup, address-space
cap, target loaded by its spec), in a session of its own, with the descriptors it was sent as its
socket, stdout and stderr, in the requester's working directory, and nothing else open; its
``sys.argv`` is a fresh worker's (``-c``, the process above it, the socket's descriptor, the
arguments of ``serve``).

Forking is safe here because the zygote runs no thread of its own and has run no torch operation,
so no thread pool of torch's exists yet (each worker starts its own); numpy's OpenBLAS pool, started
at import, is shut down and restarted around a fork by OpenBLAS's own handlers.

The zygote never reaps a worker until the requester asks how it ended, so a worker's process id
stays its own (a zombie, at worst) for as long as the requester may signal it. Requests and answers
are one datagram each on a SEQPACKET socket, JSON, with descriptors passed alongside:

- ``{"fork": [cgroup, spec, memory_limit], "environment": {NAME: VALUE or null}, "torch": BOOL}``
  (the worker's values of the variables its environment may differ in from the zygote's; whether
  torch is to be imported first, if it is not yet) with descriptors
  (socket, stdout, stderr, and the requester's working directory, opened, so that one since
  removed still serves): ``{"pid": PID}``;
- ``{"status": PID}``: ``{"status": null}`` while it runs, ``{"status": S}`` (``os.wait``'s status,
  the worker now reaped) once it has ended.

The zygote dies with its requester (parent-death signal) and exits when the requester closes the socket.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import signal
import socket
import sys
import traceback

from .zygote_pool import PACKET_BYTES

_PR_SET_PDEATHSIG = 1


def main(parent: str, fd: str, with_torch: str = "torch") -> None:
    """The zygote's main: tie its life to ``parent``, import (torch too, unless ``with_torch`` is
    empty), say it is ready, then serve requests."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(parent):
        os._exit(1)
    control = socket.socket(fileno=int(fd))
    _import(control, bool(with_torch))
    control.send(json.dumps({"ready": os.getpid()}).encode())
    while True:
        try:
            message, descriptors, _, _ = socket.recv_fds(control, PACKET_BYTES, 4)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        request = json.loads(message)
        if request.get("torch") and "torch" not in sys.modules:
            _import(control, True)
        answer: dict[str, int | None]
        if "fork" in request:
            answer = {"pid": _fork(control, request, descriptors)}
        else:
            answer = {"status": _status(int(request["status"]))}
        for descriptor in descriptors:
            os.close(descriptor)
        control.send(json.dumps(answer).encode())


def _import(control: socket.socket, with_torch: bool) -> None:
    """The imports every worker would otherwise repeat; where one fails, say why and exit."""
    try:
        if with_torch:
            import torch  # noqa: F401

        from . import worker  # noqa: F401
    except BaseException as exc:
        control.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
        os._exit(1)


def _status(pid: int) -> int | None:
    try:
        reaped, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return None
    return status if reaped else None


def _fork(control: socket.socket, request: dict, descriptors: list[int]) -> int:
    zygote = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        control.close()
        _become_worker(descriptors)
        for name, value in request["environment"].items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        from .worker import serve

        sys.argv = ["-c", str(zygote), "3", *request["fork"]]
        serve(*sys.argv[1:])
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _become_worker(descriptors: list[int]) -> None:
    """What starting a fresh worker gives it: a session of its own, /dev/null as stdin, the socket
    as descriptor 3, stdout and stderr where the requester sent them, nothing else open."""
    os.setsid()
    connection, stdout, stderr, directory = descriptors
    os.fchdir(directory)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.dup2(connection, 3)
    os.closerange(4, os.sysconf("SC_OPEN_MAX"))


def _exit_code(exc: SystemExit) -> int:
    """The status an interpreter exits with on this SystemExit (printing a non-integer code)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1
