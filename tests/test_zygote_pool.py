"""Workers forked by a zygote that imports torch once (where its targets use it), and fresh
interpreters where none can start."""

import os
import signal
import sys
from pathlib import Path

import psutil
import pytest

from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract.outcome import RETURNED
from knapcheck.solvers.isolation import hash_seeds, zygote_pool
from knapcheck.solvers.isolation.torch_use import uses_torch
from knapcheck.solvers.isolation.worker import WorkerPool, current_pool
from knapcheck.solvers.registry import resolve_one

PLANTED = Path(__file__).parent / "planted"
INSTANCE = Instance((0.1, 0.2), (1.0, 2.0), 0.2)
WRITES_THE_RUNNING_TEST = """
import os

def solve(memory, runtimes, max_memory):
    with open("test.txt", "w") as out:
        out.write(os.environ.get("PYTEST_CURRENT_TEST", "none"))
    return 0.0, [], list(range(len(memory)))
"""
WRITES_ITS_DIRECTORY = """
import os

def solve(memory, runtimes, max_memory):
    with open("directory.txt", "w") as out:
        out.write(os.getcwd())
    return 0.0, [], list(range(len(memory)))
"""


@pytest.fixture
def own_environment(monkeypatch, request):
    """An environment no other test's zygote has, so that each test starts its own, and no worker
    an earlier test left: a pool of its own (a worker is reused whatever zygote forked it)."""
    monkeypatch.setenv("KNAPCHECK_TEST_ZYGOTE", request.node.nodeid)
    with WorkerPool():
        yield


def worker_pid(spec: str, hash_seed: int = hash_seeds.FIRST) -> int:
    assert current_pool().call(resolve_one(spec), INSTANCE, hash_seed=hash_seed).kind == RETURNED
    pid = current_pool().worker(resolve_one(spec), hash_seed=hash_seed).pid
    assert pid is not None  # it has just answered
    return pid


def test_workers_of_one_environment_are_forked_by_one_zygote_of_this_process(own_environment):
    dp = psutil.Process(worker_pid("torch:dp_knapsack"))
    greedy = psutil.Process(worker_pid("torch:greedy_knapsack"))
    zygote = dp.parent()
    assert greedy.parent().pid == zygote.pid
    assert zygote.parent().pid == os.getpid()
    assert "zygote_server import main" in " ".join(zygote.cmdline())
    other_seed = psutil.Process(worker_pid("torch:dp_knapsack", hash_seeds.SECOND))
    assert other_seed.parent().pid not in (zygote.pid, os.getpid())


def test_where_no_zygote_starts_the_worker_is_a_fresh_interpreter(own_environment, monkeypatch):
    monkeypatch.setattr(zygote_pool, "_ZYGOTE_MAIN", "import sys; sys.exit(1)")
    worker = psutil.Process(worker_pid("torch:dp_knapsack"))
    assert worker.parent().pid == os.getpid()
    assert "worker import serve" in " ".join(worker.cmdline())


def test_a_killed_zygote_takes_its_workers_along_and_the_next_call_gets_a_new_one(own_environment):
    worker = psutil.Process(worker_pid("torch:dp_knapsack"))
    zygote = worker.parent()
    zygote.send_signal(signal.SIGKILL)
    worker.wait(timeout=15)
    current_pool().call(resolve_one("torch:dp_knapsack"), INSTANCE)
    assert psutil.Process(worker_pid("torch:dp_knapsack")).parent().pid not in (zygote.pid, os.getpid())


def test_a_forked_worker_runs_in_the_directory_of_the_call_not_of_the_zygote(own_environment, tmp_path, monkeypatch):
    worker_pid("torch:dp_knapsack")
    target = tmp_path / "target.py"
    target.write_text(WRITES_ITS_DIRECTORY)
    monkeypatch.chdir(tmp_path)
    worker_pid(f"{target}:solve")
    assert (tmp_path / "directory.txt").read_text() == str(tmp_path)


def test_a_worker_starts_from_a_directory_that_has_been_removed(own_environment, tmp_path, monkeypatch):
    worker_pid("torch:dp_knapsack")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    worker_pid("torch:greedy_knapsack")


def test_one_zygote_serves_every_test_and_each_worker_sees_its_own_test_s_name(own_environment, tmp_path, monkeypatch):
    target = tmp_path / "target.py"
    target.write_text(WRITES_THE_RUNNING_TEST)
    monkeypatch.chdir(tmp_path)
    zygotes_seen = set()
    for running in ("tests/a.py::first (call)", "tests/b.py::second (call)"):
        monkeypatch.setenv("PYTEST_CURRENT_TEST", running)
        zygotes_seen.add(psutil.Process(worker_pid(f"{target}:solve")).parent().pid)
        current_pool().stop()
        assert (tmp_path / "test.txt").read_text() == running
    assert len(zygotes_seen) == 1 and os.getpid() not in zygotes_seen


SAYS_WHETHER_TORCH_WAS_IMPORTED = """
import sys

def solve(memory, runtimes, max_memory):
    with open("imported.txt", "w") as out:
        out.write(str("tor" "ch" in sys.modules))
    return 0.0, [], list(range(len(memory)))
"""
IMPORTS_A_HELPER = """
from helper_of_the_target import solve
"""
HELPER_THAT_USES_IT = """
import torch

def solve(memory, runtimes, max_memory):
    return float(torch.tensor(0.0)), [], list(range(len(memory)))
"""


def test_a_target_that_does_not_name_torch_is_forked_without_it_until_one_that_does(own_environment, tmp_path, monkeypatch):
    """Importing torch costs a zygote 1.5 s of CPU: a plain-Python target does not pay it; the
    first target that uses torch has it imported in the zygote, for every worker forked after."""
    target = tmp_path / "target.py"
    target.write_text(SAYS_WHETHER_TORCH_WAS_IMPORTED)
    monkeypatch.chdir(tmp_path)
    plain = psutil.Process(worker_pid(f"{target}:solve"))
    assert (tmp_path / "imported.txt").read_text() == "False"
    with_torch = psutil.Process(worker_pid("torch:dp_knapsack"))
    assert with_torch.parent().pid == plain.parent().pid
    current_pool().stop()
    psutil.Process(worker_pid(f"{target}:solve"))
    assert (tmp_path / "imported.txt").read_text() == "True"


def test_a_target_that_uses_torch_through_a_helper_imports_it_in_its_worker(own_environment, tmp_path, monkeypatch):
    (tmp_path / "target.py").write_text(IMPORTS_A_HELPER)
    (tmp_path / "helper_of_the_target.py").write_text(HELPER_THAT_USES_IT)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert not uses_torch(f"{tmp_path / 'target.py'}:solve")
    worker_pid(f"{tmp_path / 'target.py'}:solve")


def test_the_guess_reads_the_target_s_own_source_and_imports_nothing(tmp_path, monkeypatch):
    package = tmp_path / "untouched"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "plain.py").write_text(IMPORTS_A_HELPER)
    (package / "uses.py").write_text(HELPER_THAT_USES_IT)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert not uses_torch("untouched.plain:solve") and uses_torch("untouched.uses:solve")
    namespace = tmp_path / "namespace" / "inner"
    namespace.mkdir(parents=True)
    (namespace / "plain.py").write_text(IMPORTS_A_HELPER)
    assert not uses_torch("namespace.inner.plain:solve"), "a namespace package (no __init__.py) is searched too"
    assert not uses_torch(f"{package / 'uses.py'}:solve<{package / 'plain.py'}"), "a repaired source is read, not the file"
    assert "untouched" not in sys.modules
    unreadable = tmp_path / "unreadable.py"
    unreadable.mkdir()
    for spec in ("torch:dp_knapsack", "full_table", "untouched.missing:solve", f"{unreadable}:solve", f"{tmp_path}/none.py:f"):
        assert uses_torch(spec), spec
