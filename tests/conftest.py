"""Hypothesis profiles: CI's built-in `ci` profile under CI=true, a deadline-free `dev` one otherwise.

Solver timings vary with load (and `pytest -n auto` shares two cores), so no profile has a deadline.
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

from knapcheck.solvers.isolation.child import INTRA_OP_THREADS

os.environ.setdefault("KNAPCHECK_DRAW_CACHE", "off")
"""Every test draws its instances (commands it runs inherit this): a kept draw would hide a draw
that differs between processes. tests/test_draw_cache.py turns it on where it is the subject."""

os.environ.setdefault("OMP_NUM_THREADS", INTRA_OP_THREADS)
if "torch" in sys.modules:
    sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
"""One intra-op thread for torch in every process of the suite, as knapcheck's commands give their
own (``knapcheck.solvers.isolation.child.INTRA_OP_THREADS``): xdist runs a process per core, and
each runs solvers in process and starts workers, commands and exported files that run torch."""

os.environ.pop("GITHUB_STEP_SUMMARY", None)
"""No report a test runs appends to the job summary of a GitHub Actions run the suite runs in;
tests/test_report_gate.py sets it where it is the subject."""

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
"""Bytecode is kept, whatever the environment says: the suite starts hundreds of interpreters
(xdist's workers, the commands, solver workers, pytest runs with the plug-in), and each would
otherwise compile knapcheck's modules from source again, and each pytest run rewrite their asserts
again (0.8 s a run with the plug-in). It goes to the __pycache__ folders git ignores."""

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

WARMUP = pytest.StashKey[tuple]()
"""The controller's numba warm-up: its directory and the compiling process (``numba_warmup``)."""


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """The controller (or a run without xdist) starts numba's compilation (``numba_warmup``): no
    test waits for it."""
    if hasattr(session.config, "workerinput"):
        return
    import tempfile
    from pathlib import Path

    import numba_warmup

    directory = Path(tempfile.mkdtemp(prefix="knapcheck-numba-"))
    session.config.stash[WARMUP] = directory, numba_warmup.start(directory)


def pytest_sessionfinish(session):
    """The controller waits for numba's compilation; the run fails if it failed."""
    if WARMUP in session.config.stash:
        import shutil

        import numba_warmup

        directory, compiling = session.config.stash[WARMUP]
        failure = numba_warmup.finish(directory, compiling)
        shutil.rmtree(directory, ignore_errors=True)
        if failure:
            session.config.get_terminal_writer().line(failure, red=True)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def numba_compiled():
    """For tests that call expanding_core's compiled functions themselves: they wait for the run's
    compilation (``numba_warmup``, which holds its lock) instead of compiling them again here."""
    from knapcheck.solvers.expanding_core import COMPILED

    COMPILED.compile_here()


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
