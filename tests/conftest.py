"""Hypothesis profiles: CI's built-in `ci` profile under CI=true, a deadline-free `dev` one otherwise.

Solver timings vary with load (and `pytest -n auto` shares two cores), so no profile has a deadline.
"""

import os

import pytest

from hypothesis import HealthCheck, settings

os.environ.setdefault("KNAPCHECK_DRAW_CACHE", "off")
"""Every test draws its instances (commands it runs inherit this): a kept draw would hide a draw
that differs between processes. tests/test_draw_cache.py turns it on where it is the subject."""

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


NUMBA_ENTRIES = {"integer runtimes (compiled_solve)": "1.0", "other runtimes (compiled_select)": "0.5"}
"""expanding_core's two compiled functions, and a runtime that takes each one."""


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """numba compiles ``expanding_core``'s two functions here, side by side in two processes (some
    25 s each on a fresh clone; numba's on-disk cache after that), before xdist starts its
    workers: otherwise every worker, and every command a test runs before the cache is written,
    compiles them again."""
    if hasattr(session.config, "workerinput"):
        return
    import subprocess
    import sys

    compiling = {
        what: subprocess.Popen([sys.executable, "-c", "from knapcheck.solvers.expanding_core import expanding_core;"
                                f" expanding_core([0.1], [{runtime}], 0.1)"], stderr=subprocess.PIPE, text=True)
        for what, runtime in NUMBA_ENTRIES.items()
    }
    for what, process in compiling.items():
        _, errors = process.communicate()
        if process.returncode != 0:
            raise pytest.UsageError(f"expanding_core's {what} does not compile: {errors.strip()[-2000:]}")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``gpu`` need a CUDA device: without one they are skipped, saying so."""
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device (torch.cuda.is_available() is False); run scripts/gpu_check.sh on a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def read_only():
    """Make a directory really read-only, for root too: a read-only bind mount where the test runs as
    root (permission bits do not stop root), its mode bits otherwise. Undone after the test."""
    import subprocess

    undo = []

    def make(path):
        path = str(path)
        if os.geteuid() != 0:
            for root, directories, files in os.walk(path):
                for name in [root, *(os.path.join(root, d) for d in directories)]:
                    mode = os.stat(name).st_mode
                    os.chmod(name, mode & ~0o222)
                    undo.append(lambda name=name, mode=mode: os.chmod(name, mode))
            return
        bound = subprocess.run(["mount", "--bind", path, path], capture_output=True)
        if bound.returncode != 0:
            pytest.skip(f"cannot make {path} read-only as root: mount --bind failed ({bound.stderr.decode().strip()})")
        undo.append(lambda: subprocess.run(["umount", path], check=True))
        subprocess.run(["mount", "-o", "remount,ro,bind", path], check=True)

    yield make
    for step in reversed(undo):
        step()
