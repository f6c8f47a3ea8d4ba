"""Files no reader may trust, made for real (a FIFO, a link to /dev/zero), and a way to run a command on them
that cannot hang the test run or eat the machine's memory."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from campaigns import environment

COMMAND_SECONDS = 60
"""A command that has not ended by then hangs (a FIFO waited on)."""
ADDRESS_SPACE = 4 * 2**30
"""A command reading /dev/zero without limit runs into this instead of into the machine's memory."""

INSTANCE = {"memory": [0.0003, 0.0002], "runtimes": [1.0, 2.0], "max_memory": 0.0004}


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def knapcheck(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    """`knapcheck ARGUMENTS` as a user runs it, from ``cwd``; AssertionError if it hangs."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "knapcheck", *arguments], cwd=cwd, env=environment(), capture_output=True, text=True,
            timeout=COMMAND_SECONDS, preexec_fn=_bounded,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"knapcheck {' '.join(arguments)} still running after {COMMAND_SECONDS} s: it hangs") from None


def python(code: str, *, cwd: Path) -> subprocess.CompletedProcess:
    """Python code in a child, bounded like ``knapcheck``."""
    try:
        return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=environment(), capture_output=True, text=True,
                              timeout=COMMAND_SECONDS, preexec_fn=_bounded)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running after {COMMAND_SECONDS} s: it hangs") from None


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def link_to_dev_zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def deep(path: Path, levels: int = 100_000) -> Path:
    path.write_text("[" * levels + "]" * levels)
    return path


SPECIAL = {"a FIFO": fifo, "a link to /dev/zero": link_to_dev_zero, "nested 100000 deep": deep}
"""Each makes a file at a path; what the reader must say comes from ``SAYS``."""
SAYS = {"a FIFO": "FIFO", "a link to /dev/zero": "character device", "nested 100000 deep": "nested more than"}
