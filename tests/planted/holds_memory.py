"""Planted solvers whose memory a per-call peak of the calling process does not see: one keeps a
workspace from its first call on, one computes in a forked child. Each holds
KNAPCHECK_PLANTED_MIB MiB (written to, so resident) and answers as our full table does."""

import json
import os
import time

from knapcheck.solvers.full_table import full_table

CHILD_HOLDS_SECONDS = 0.5
"""How long the forked child holds its memory: many sample periods of the benchmark's meter."""
_WORKSPACE: list[bytearray] = []


def _held() -> bytearray:
    return bytearray(b"\x01") * (int(os.environ["KNAPCHECK_PLANTED_MIB"]) * 2**20)


def keeps_a_workspace(memory, runtimes, max_memory):
    """Allocates its workspace on the first call and keeps it for every later one."""
    if not _WORKSPACE:
        _WORKSPACE.append(_held())
    return full_table(memory, runtimes, max_memory)


def computes_in_a_forked_child(memory, runtimes, max_memory):
    """Forks a child that holds the memory while it solves, and reads the answer from a pipe."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            held = _held()
            value, saved, recomputable = full_table(memory, runtimes, max_memory)
            time.sleep(CHILD_HOLDS_SECONDS)
            os.write(write, json.dumps([value, list(saved), list(recomputable), len(held)]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        value, saved, recomputable, _ = json.loads(answer.read())
    os.waitpid(child, 0)
    return value, saved, recomputable
