"""The parent's side of every child process that runs a solver: one launcher, one protocol.

The correctness workers (``knapcheck.solvers.isolation.worker``), the paired benchmark's processes
(``knapcheck.measure.paired_parent``) and ``bench``'s fresh-process measurements
(``knapcheck.measure.bench``) all start, hear and stop their children here; the children answer
through ``knapcheck.solvers.isolation.child_side``:

- **start**: ``Child.launch`` makes a socket pair and starts ``python -P`` (``-c CODE`` or ``-m
  MODULE``) with ``PARENT_PID FD CGROUP ARGUMENTS...`` through ``lifetime.launch`` (a session of
  its own, from the launcher thread), in ``environment()``, its stdout and stderr on one
  descriptor; or, for the correctness worker only, as a fork of a zygote (``fork``). The child
  joins its cgroup and splits into a keeper and the process that serves (``child_side.connect``),
  so that whatever it starts dies with it;
- **messages**: ``knapcheck.solvers.isolation.wire``'s framing (8 bytes of length, then the bytes),
  each one refused unread when it announces more than the parent allows (``receive``'s ``limit``);
- **handshake**: the child's first message says it is ready (with its process id as this
  process's /proc names it) or why it is not (``await_ready``); the tree's memory cap counts from
  what the tree holds then (``tree_caps``);
- **waiting**: ``receive`` waits for a message until a deadline, holding the tree to its caps
  meanwhile; a child that does not answer in time, goes over a cap, sends a message that is refused
  or dies is an ``Ended`` that says which (the child is then stopped), never an exception here;
- **stop**: ``stop`` ends the child and its whole tree (``lifetime.stop``) and removes its cgroup.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Mapping

from ..contract.outcome import CRASHED, OUT_OF_MEMORY, TIMED_OUT
from . import lifetime, tree_caps, wire

STARTUP_TIME_LIMIT = 120.0
"""Seconds a fresh child may take to import and load its solver before it says it is ready."""
HANDSHAKE_LIMIT = wire.outcome_limit(0)
"""The longest handshake: a process id, or a reason ``clipped`` as any text an Outcome carries."""
INTRA_OP_THREADS = "1"
"""torch's intra-op threads (``OMP_NUM_THREADS``) in each child, and in a command's own process
(``knapcheck.commands.cli``), unless the user's environment sets them. A check runs a worker per target
beside the process that judges: with two threads each they were several times more threads than
cores, and an operation's threads waited for one another through whole time slices (the README's
main job on 2 cores: 68 s with torch's default of one thread per core, 55 s with one).
Thread counts change no answer of an exact solver; each report records its workers'."""

Fork = Callable[[Mapping[str, str], list[str], list[int]], "lifetime.Process | None"]
"""Another way to start the child (a zygote's fork): given its environment, its arguments after the
socket's descriptor (``CGROUP ARGUMENTS...``) and its descriptors (socket, stdout, stderr); None
where it cannot, and the child is then a fresh interpreter."""


def environment(*, hash_seed: int | None = None, threads: int | None = None) -> dict[str, str]:
    """A child's environment: this process's (with ``INTRA_OP_THREADS`` where it sets none), with
    its import path, and ``threads`` and ``hash_seed`` where given.

    The import path is this process's ``sys.path`` and nothing more: children run as ``python
    -P``, so the working directory is not put first on their path as ``python -c`` would (from the
    root of a PyTorch checkout, a child would import the checkout's unbuilt ``torch/``); it is on
    it only where this process has it (``python -m knapcheck`` run from there)."""
    variables = {"OMP_NUM_THREADS": INTRA_OP_THREADS, **os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    if threads is not None:
        variables["OMP_NUM_THREADS"] = str(threads)
    if hash_seed is not None:
        variables["PYTHONHASHSEED"] = str(hash_seed)
    return variables


@dataclass(frozen=True)
class Ended:
    """Why a child gave no message: TIMED_OUT, OUT_OF_MEMORY or CRASHED (an Outcome's kinds), and
    how, in words. The child has been stopped."""

    kind: str
    error: str


@dataclass(frozen=True)
class Handshake:
    """The child's handshake: its process id once ready, or why it is not (``pid`` None)."""

    pid: int | None
    error: str = ""


class Child:
    """One child process, the socket to it and the cap on its tree, from ``launch`` to ``stop``."""

    def __init__(self, process: lifetime.Process, connection: socket.socket, cap: tree_caps.SampledCap | tree_caps.CgroupCap,
                 who: str) -> None:
        self.process = process
        self.connection: socket.socket | None = connection
        self.cap = cap
        self.who = who
        """The child in an error's words: "the worker", "the benchmark process"."""

    @classmethod
    def launch(cls, main: list[str], arguments: list[str], *, memory_limit: int | None, variables: Mapping[str, str],
               output: int | None = None, who: str, fork: Fork | None = None) -> Child:
        """Start ``python -P MAIN PARENT_PID FD CGROUP ARGUMENTS...`` (``main``: ``["-c", CODE]`` or
        ``["-m", MODULE]``) in ``variables``, its stdout and stderr to ``output`` (None: this
        process's), its tree capped at ``memory_limit`` bytes beyond what it holds once ready (None:
        processes only)."""
        cap = tree_caps.new_cap(memory_limit)
        ours, theirs = socket.socketpair()
        try:
            after_fd = [cap.cgroup, *arguments]
            outputs = [1, 2] if output is None else [output, output]
            process = fork(variables, after_fd, [theirs.fileno(), *outputs]) if fork is not None else None
            if process is None:
                process = lifetime.launch(
                    [sys.executable, "-P", *main, str(os.getpid()), str(theirs.fileno()), *after_fd],
                    pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                    env=dict(variables),
                )
        except BaseException:
            ours.close()
            cap.close()
            raise
        finally:
            theirs.close()
        return cls(process, ours, cap, who)

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, payload: bytes) -> None:
        """One message to the child; OSError when it is gone."""
        if self.connection is None:
            raise BrokenPipeError("the child was stopped")
        wire.send(self.connection, payload)

    def receive(self, limit: int, seconds: float, *, tick: Callable[[], None] | None = None,
                tick_seconds: float = tree_caps.SAMPLE_SECONDS) -> bytes | Ended:
        """The child's next message of at most ``limit`` bytes, complete within ``seconds``; while
        waiting, the tree is held to its caps every ``tree_caps.SAMPLE_SECONDS`` and ``tick`` (a
        meter's sample) is called every ``tick_seconds``."""
        assert self.connection is not None
        deadline = time.monotonic() + seconds
        next_check = time.monotonic() + tree_caps.SAMPLE_SECONDS
        while True:
            now = time.monotonic()
            if now >= deadline:
                return self._end(TIMED_OUT, f"no answer within {seconds:g} s; {self.who} was killed")
            wait = min(deadline, next_check) - now
            if tick is not None:
                wait = min(wait, tick_seconds)
            if wire.wait_readable(self.connection, wait):
                break
            if tick is not None:
                tick()
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + tree_caps.SAMPLE_SECONDS
                over = self.cap.exceeded(self.pid)
                if over is not None:
                    return self._end(*over)
        try:
            return wire.receive(self.connection, limit, deadline)
        except TimeoutError:
            return self._end(TIMED_OUT, f"no complete answer within {seconds:g} s; {self.who} was killed")
        except wire.MessageRefused as exc:
            return self._end(CRASHED, f"{self.who}'s message was refused: {exc}")
        except (EOFError, OSError):
            return self._died()

    def await_ready(self, seconds: float = STARTUP_TIME_LIMIT) -> Handshake | Ended:
        """The child's handshake, within ``seconds``; once it is ready, its tree's memory cap counts
        from what the tree holds now. A child that is not ready is stopped."""
        message = self.receive(HANDSHAKE_LIMIT, seconds)
        if isinstance(message, Ended):
            return message
        try:
            document = json.loads(message)
        except ValueError:
            document = None
        if isinstance(document, dict) and set(document) == {"error"} and isinstance(document["error"], str):
            self.stop()
            return Handshake(None, document["error"])
        pid = document.get("ready") if isinstance(document, dict) and set(document) == {"ready"} else None
        if type(pid) is not int or pid not in [self.pid, *lifetime.descendants(self.pid)]:
            return self._end(CRASHED, f"{self.who} sent {message[:80]!r} where it should have said it was ready")
        self.cap.loaded(self.pid)
        return Handshake(pid)

    def _end(self, kind: str, error: str) -> Ended:
        self.stop()
        return Ended(kind, error)

    def _died(self) -> Ended:
        ending = lifetime.how_it_ended(self.process, self.who)
        out_of_memory = self.cap.died()
        self.stop()
        return Ended(OUT_OF_MEMORY, out_of_memory) if out_of_memory else Ended(CRASHED, ending)

    def stop(self) -> None:
        """End the child and whatever it started (``knapcheck.solvers.isolation.lifetime.stop``), and
        remove its cgroup; once only."""
        connection, self.connection = self.connection, None
        if connection is None:
            return
        connection.close()
        lifetime.stop(self.process)
        self.cap.close()
