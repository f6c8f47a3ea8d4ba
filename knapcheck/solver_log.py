"""Where solvers' own output goes while a command runs: a log file, never the command's stdout.

Every solver that is not ours runs in a worker process (``knapcheck.solvers.isolation``); its stdout and
stderr (torch's ``ilp_knapsack`` lets HiGHS print its log from C) go to the log. A log left empty
is removed; otherwise the command names it on stderr at the end.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def default_path(command: str) -> Path:
    return Path(tempfile.gettempdir()) / f"knapcheck-{command}-{os.getpid()}-solvers.log"


@contextmanager
def solver_log(path: Path, command: str) -> Iterator[Path]:
    """Within the block, workers write their output to ``path`` (emptied first); afterwards the
    workers are stopped, so that the log is complete, and the log is named or, if empty, removed."""
    from knapcheck.solvers.isolation import send_worker_output_to

    path = Path(path)
    path.write_bytes(b"")
    send_worker_output_to(path)
    try:
        yield path
    finally:
        send_worker_output_to(None)
        if path.is_file() and path.stat().st_size:
            print(f"knapcheck {command}: what the solvers printed is in {path}", file=sys.stderr)
        else:
            path.unlink(missing_ok=True)
