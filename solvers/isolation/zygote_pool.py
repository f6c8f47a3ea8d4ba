"""Workers forked from a zygote that imports torch once (``knapcheck.solvers.isolation.zygote_server``), seen
from the process that judges.

One zygote serves every worker whose environment (hash seed and ``PYTHONPATH`` included) is the
same, but for PER_CALL_VARIABLES: a check's nine targets, with their second workers for determinism,
cost two torch imports instead of eighteen, and in one pytest process the zygotes outlive the
commands that start workers. A zygote whose targets do not use torch
(``knapcheck.solvers.isolation.torch_use``) does not import it.
A zygote that cannot start (its imports fail, it does not answer within STARTUP_TIME_LIMIT, the
kernel has no SEQPACKET sockets) is not started again for that environment: ``spawn`` returns None
and the worker starts as a fresh interpreter, which is always correct, only slower. A zygote that
dies later (killed from outside) is replaced by a new one.

A worker forked by a zygote is the zygote's child, not this process's: ``ForkedProcess`` gives it
the part of ``subprocess.Popen`` that ``knapcheck.solvers.isolation.lifetime`` uses (``pid``, ``poll``,
``wait``, ``send_signal``, ``kill``), with its exit status asked of the zygote, which reaps it then
and not before, so that its process id is never another process's while this one may signal it.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Mapping, Sequence, cast

from . import lifetime

STARTUP_TIME_LIMIT = 120.0
"""Seconds a zygote may take to import torch and say it is ready."""
ANSWER_TIME_LIMIT = 30.0
"""Seconds a ready zygote may take to answer a request (a fork, or a worker's status)."""
IDLE_ZYGOTES = 4
"""Zygotes kept while no worker of theirs runs; the oldest idle one is stopped past that."""
PER_CALL_VARIABLES = ("PYTEST_CURRENT_TEST",)
"""Environment variables that change from call to call and that nothing a zygote imports reads
(pytest names the running test in one): a zygote serves every value of them, each worker getting
its own in its environment, instead of one zygote starting per test."""
PACKET_BYTES = 1 << 16
"""The longest request or answer (a spec is a path, a module or a name: well under it)."""
_POLL_SECONDS = 0.005

_ZYGOTE_MAIN = "import sys; from knapcheck.solvers.isolation.zygote_server import main; main(*sys.argv[1:])"


class ZygoteGone(Exception):
    """The zygote did not answer: it died, hung or could not start."""


class Zygote:
    """One zygote process and the socket its requests go through, one request at a time."""

    def __init__(self, environment: Mapping[str, str], with_torch: bool) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._socket = ours
        self._lock = threading.Lock()
        self.ready = False
        """Whether it has said it is ready (a zygote that never was is not started again)."""
        self.with_torch = with_torch
        """Whether it has imported torch, or was asked to."""
        self.workers: set[int] = set()
        """Process ids of its workers that have not been reaped."""
        self._process = lifetime.launch(
            [sys.executable, "-P", "-c", _ZYGOTE_MAIN, str(os.getpid()), str(theirs.fileno()),
             "torch" if with_torch else ""],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(environment),
        )
        theirs.close()

    def _answer(self, timeout: float) -> dict:
        self._socket.settimeout(timeout)
        try:
            message = self._socket.recv(PACKET_BYTES)
        except OSError as exc:
            raise ZygoteGone(str(exc)) from None
        if not message:
            raise ZygoteGone("the zygote closed its socket")
        answer = json.loads(message)
        if "error" in answer:
            raise ZygoteGone(answer["error"])
        return answer

    def _request(self, request: dict, descriptors: Sequence[int] = ()) -> dict:
        with self._lock:
            if not self.ready:
                self._answer(STARTUP_TIME_LIMIT)
                self.ready = True
            imports_torch = bool(request.get("torch")) and not self.with_torch
            try:
                socket.send_fds(self._socket, [json.dumps(request).encode()], list(descriptors))
            except OSError as exc:
                raise ZygoteGone(str(exc)) from None
            answer = self._answer(STARTUP_TIME_LIMIT if imports_torch else ANSWER_TIME_LIMIT)
            self.with_torch = self.with_torch or imports_torch
            return answer

    def fork(self, arguments: list[str], descriptors: list[int], environment: Mapping[str, str],
             with_torch: bool) -> "ForkedProcess":
        """A worker running ``serve(zygote, socket, *arguments)`` with ``descriptors`` as (socket,
        stdout, stderr), in ``environment`` (which differs from the zygote's only in
        PER_CALL_VARIABLES), forked once torch is imported if ``with_torch``."""
        directory = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        per_call = {name: environment.get(name) for name in PER_CALL_VARIABLES}
        request = {"fork": arguments, "environment": per_call, "torch": with_torch}
        try:
            pid = int(self._request(request, [*descriptors, directory])["pid"])
        finally:
            os.close(directory)
        self.workers.add(pid)
        return ForkedProcess(pid, self)

    def status(self, pid: int) -> int | None:
        """``os.wait``'s status of an ended worker (now reaped), or None while it runs."""
        status = self._request({"status": pid})["status"]
        if status is not None:
            self.workers.discard(pid)
        return status

    def stop(self) -> None:
        self._socket.close()
        lifetime.stop(self._process)


class ForkedProcess:
    """A worker forked by a zygote, as much of ``subprocess.Popen`` as the run uses."""

    def __init__(self, pid: int, zygote: Zygote) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._zygote = zygote

    def poll(self) -> int | None:
        if self.returncode is None and not lifetime.alive(self.pid):
            try:
                status = self._zygote.status(self.pid)
            except ZygoteGone:
                status = None
                if not lifetime.alive(self.pid):
                    self.returncode = -signal.SIGKILL
            if status is not None:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (returncode := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", cast(float, timeout))  # a deadline comes with a timeout
            time.sleep(_POLL_SECONDS)
        return returncode

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_ZYGOTES: dict[tuple, Zygote] = {}
_REFUSED: set[tuple] = set()
_LOCK = threading.Lock()


def _key(environment: Mapping[str, str]) -> tuple:
    return tuple(sorted((name, value) for name, value in environment.items() if name not in PER_CALL_VARIABLES))


def prepare(environment: Mapping[str, str], with_torch: bool) -> None:
    """Start the zygote of ``environment`` if there is none, without waiting for it; with torch
    imported at its start if ``with_torch`` (a target it will serve uses torch)."""
    _zygote(environment, with_torch)


def _zygote(environment: Mapping[str, str], with_torch: bool) -> Zygote | None:
    key = _key(environment)
    with _LOCK:
        if key in _REFUSED:
            return None
        if key not in _ZYGOTES:
            idle = [k for k, zygote in _ZYGOTES.items() if not zygote.workers]
            if len(idle) >= IDLE_ZYGOTES:
                _ZYGOTES.pop(idle[0]).stop()
            try:
                _ZYGOTES[key] = Zygote(environment, with_torch)
            except OSError:
                _REFUSED.add(key)
                return None
        return _ZYGOTES[key]


def spawn(environment: Mapping[str, str], arguments: list[str], descriptors: list[int],
          with_torch: bool) -> ForkedProcess | None:
    """A worker forked by the zygote of ``environment`` (by a new one, where the last has died), with
    torch imported first if ``with_torch``; None where that environment's zygote cannot start or
    fork, and the worker must be a fresh interpreter."""
    for _ in range(2):
        zygote = _zygote(environment, with_torch)
        if zygote is None:
            return None
        try:
            return zygote.fork(arguments, descriptors, environment, with_torch)
        except ZygoteGone:
            _drop(environment, zygote)
    return None


def _drop(environment: Mapping[str, str], zygote: Zygote) -> None:
    """Forget a zygote that did not answer; never start one again for an environment whose first did not start."""
    key = _key(environment)
    with _LOCK:
        if not zygote.ready:
            _REFUSED.add(key)
        if _ZYGOTES.get(key) is zygote:
            del _ZYGOTES[key]
    zygote.stop()


def stop_zygotes() -> None:
    """End every zygote (also done at exit; a zygote also dies with this process)."""
    with _LOCK:
        zygotes = list(_ZYGOTES.values())
        _ZYGOTES.clear()
    for zygote in zygotes:
        zygote.stop()


atexit.register(stop_zygotes)
