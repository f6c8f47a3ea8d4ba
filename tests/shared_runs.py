"""A whole command's run that the tests of a module share, once for all xdist workers.

A module-scoped fixture runs once per worker that runs any of its tests, and xdist spreads a
module's tests over every worker: a gate of a dozen copies ran twice. ``run_once`` runs it in the
first worker to ask, under a lock, into a directory every worker of this pytest run sees; the
others wait for it and read what it wrote.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

from filelock import FileLock


def shared_directory(tmp_path_factory) -> Path:
    """This pytest run's directory common to its xdist workers (its own base without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def run_once(tmp_path_factory, name: str, run: Callable[[Path], None]) -> Path:
    """``run(directory)`` once in this pytest run, whichever worker asks first; the directory."""
    directory = shared_directory(tmp_path_factory) / name
    done = directory / ".done"
    with FileLock(f"{directory}.lock"):
        if not done.exists():
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir()
            run(directory)
            done.write_text("")
    return directory
