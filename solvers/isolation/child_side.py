"""The child's side of ``knapcheck.solvers.isolation.child``: connect back, say it is ready, read
requests, answer; and cap its own address space.

Every child (the correctness worker, the paired benchmark's process, ``bench``'s measurement) is
started as ``python -P MAIN PARENT_PID FD CGROUP ARGUMENTS...`` and calls ``connect`` first thing,
before it imports its solver or starts a thread: it joins its cgroup, splits into a keeper and the
process that serves (``knapcheck.solvers.isolation.lifetime.keep_tree``), and gets the socket to
its parent. Its first message is the handshake (``say_ready`` or ``say_not_ready``); then it reads
the parent's requests (``requests``) and answers each (``wire.send``, ``send_json``) until the
parent closes its end.
"""

from __future__ import annotations

import json
import os
import resource
import socket
from typing import Callable, Iterator, Sequence

from ..contract.answer import clipped
from . import lifetime, tree_caps, wire


def connect(argv: Sequence[str]) -> tuple[socket.socket, list[str]]:
    """From ``PARENT_PID FD CGROUP ARGUMENTS...``: join the cgroup (where there is one), split into a
    keeper and the process that serves (only the latter returns), and give the socket to the parent
    and the ARGUMENTS."""
    parent, fd, cgroup, *arguments = argv
    if cgroup:
        tree_caps.join(cgroup)
    lifetime.keep_tree(int(parent))
    return socket.socket(fileno=int(fd)), arguments


def send_json(connection: socket.socket, document: dict) -> None:
    wire.send(connection, json.dumps(document).encode())


def say_ready(connection: socket.socket) -> None:
    """The handshake of a child that has loaded its solver: its process id as the parent's /proc
    names it (this process may be in a PID namespace of its own)."""
    send_json(connection, {"ready": int(os.readlink("/proc/self"))})


def say_not_ready(connection: socket.socket, error: str) -> None:
    """The handshake of a child that cannot serve, with the reason (``clipped``)."""
    send_json(connection, {"error": clipped(error)})


def requests(connection: socket.socket) -> Iterator[bytes]:
    """The parent's messages, one at a time, until it closes its end."""
    while True:
        try:
            yield wire.receive(connection, limit=2**62, deadline=None)
        except EOFError:
            return


def serve(connection: socket.socket, answer: Callable[[socket.socket], None]) -> None:
    """``answer(connection)`` until it returns, or until the parent has left: EOF on a read, or a
    broken pipe on a write (a parent that stopped before the first answer, such as a command
    refusing its arguments), which ends the child without a word."""
    try:
        answer(connection)
    except (BrokenPipeError, ConnectionResetError):
        return


def mapped_bytes() -> int:
    """This process's address space now (VmSize)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def cap_address_space(limit: int) -> None:
    """Let this process, and every process it starts, map at most ``limit`` bytes more than it maps
    now (``RLIMIT_AS``): an allocation over it fails inside the solver instead of the machine
    running out."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = mapped_bytes() + limit
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
