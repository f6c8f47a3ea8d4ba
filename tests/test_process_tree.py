"""A target's whole process tree is capped and ends with the run: forked children, setsid grandchildren.

The per-process address-space limit is given again to every child a target forks; the tree is
capped as a whole (by a cgroup where the machine offers cgroups v2, by measuring it otherwise), and
a grandchild that moved to a session of its own is still the worker's descendant, killed with it.
Each test runs under every cap this machine offers.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract.outcome import CRASHED, OUT_OF_MEMORY, RETURNED
from knapcheck.solvers.isolation import lifetime, tree_caps
from knapcheck.solvers.isolation.worker import Limits, WorkerPool, current_pool
from knapcheck.solvers.registry import resolve_one

PLANTED = Path(__file__).parent / "planted"
MISBEHAVING = PLANTED / "misbehaving.py"
INSTANCE = Instance((0.1, 0.2), (1.0, 2.0), 0.2)
MIB = 2**20

CAPS = [pytest.param("sampled", id="sampled")]
if tree_caps.delegating_cgroup() is not None:
    CAPS.append(pytest.param("cgroup", id="cgroup"))


@pytest.fixture(params=CAPS)
def cap(request, monkeypatch):
    """Which cap the workers started in the test get."""
    if request.param == "sampled":
        monkeypatch.setattr(tree_caps, "delegating_cgroup", lambda: None)
    with WorkerPool():
        yield request.param


def _gone(pid: int) -> bool:
    try:
        process = psutil.Process(pid)
        process.wait(timeout=15)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return process.status() == psutil.STATUS_ZOMBIE
    return True


def test_memory_held_by_forked_children_counts_against_the_cap(cap, tmp_path, monkeypatch):
    """Three children of 160 MiB each, every one within its own address-space limit of 256 MiB more,
    hold 480 MiB together: over the tree's cap of 256 MiB, so they are killed and the call is OUT_OF_MEMORY."""
    monkeypatch.setenv("KNAPCHECK_PLANTED_PIDS", str(tmp_path))
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_MIB", "160")
    outcome = current_pool().call(resolve_one(f"{MISBEHAVING}:children_hold_memory"), INSTANCE, Limits(time=60, memory=256 * MIB))
    assert outcome.kind == OUT_OF_MEMORY, outcome
    children = [int(p.name) for p in tmp_path.iterdir()]
    assert children and all(_gone(pid) for pid in children)


def test_children_within_the_cap_are_left_alone(cap, tmp_path, monkeypatch):
    monkeypatch.setenv("KNAPCHECK_PLANTED_PIDS", str(tmp_path))
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_MIB", "16")
    outcome = current_pool().call(resolve_one(f"{MISBEHAVING}:children_hold_memory"), INSTANCE, Limits(time=60, memory=256 * MIB))
    assert outcome.kind == RETURNED, outcome


def test_a_setsid_grandchild_dies_with_its_worker(cap, tmp_path, monkeypatch):
    record = tmp_path / "grandchild"
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_PID", str(record))
    assert current_pool().call(resolve_one(f"{MISBEHAVING}:setsid_grandchild"), INSTANCE).kind == RETURNED
    grandchild = psutil.Process(int(record.read_text()))
    assert grandchild.is_running() and os.getsid(grandchild.pid) != os.getsid(0)
    current_pool().stop()
    assert _gone(grandchild.pid)


def _pid_namespaces() -> bool:
    """Whether a worker's keeper gets a PID namespace for its target on this machine."""
    probe = "import sys; from knapcheck.solvers.isolation.lifetime import new_pid_namespace; sys.exit(not new_pid_namespace())"
    return subprocess.run([sys.executable, "-c", probe]).returncode == 0


PID_NAMESPACES = _pid_namespaces()


def test_a_target_that_kills_its_keeper_leaves_no_setsid_daemon(cap, tmp_path, monkeypatch):
    """The target signals every process above it that it can name; in a PID namespace none of them
    dies (the call answers), and its daemon still ends with the worker."""
    if cap == "sampled" and not PID_NAMESPACES:
        pytest.skip("no PID namespace and no cgroup here: a target can kill its keeper and orphan its tree")
    record = tmp_path / "grandchild"
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_PID", str(record))
    outcome = current_pool().call(resolve_one(f"{MISBEHAVING}:kills_its_keeper"), INSTANCE)
    daemon = int(record.read_text())
    if PID_NAMESPACES:
        assert outcome.kind == RETURNED, outcome
    current_pool().stop()
    assert _gone(daemon)


@pytest.mark.skipif(not PID_NAMESPACES, reason="no PID namespace here: a keeper killed by SIGKILL orphans its tree")
def test_a_keeper_killed_by_sigkill_still_takes_a_setsid_daemon_along(tmp_path, monkeypatch):
    """As the kernel's OOM killer would: the namespace's init dies with the keeper, and the namespace with it."""
    record = tmp_path / "grandchild"
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_PID", str(record))
    entry = resolve_one(f"{MISBEHAVING}:setsid_grandchild")
    assert current_pool().call(entry, INSTANCE).kind == RETURNED
    pid = current_pool().worker(entry).pid
    assert pid is not None  # it has just answered
    os.kill(pid, signal.SIGKILL)
    try:
        assert _gone(int(record.read_text()))
    finally:
        current_pool().stop()


def test_too_many_processes_are_killed(cap, tmp_path, monkeypatch):
    monkeypatch.setattr(tree_caps, "TASK_LIMIT", 8)
    monkeypatch.setenv("KNAPCHECK_PLANTED_PIDS", str(tmp_path))
    monkeypatch.setenv("KNAPCHECK_PLANTED_FORKS", "12")
    outcome = current_pool().call(resolve_one(f"{MISBEHAVING}:forks_many"), INSTANCE, Limits(time=60, memory=256 * MIB))
    assert outcome.kind == CRASHED and "more than 8 processes" in outcome.error, outcome
    assert all(_gone(int(p.name)) for p in tmp_path.iterdir())


def test_a_killed_run_takes_a_setsid_grandchild_along(tmp_path):
    """SIGKILL on the run itself: the keeper is told by the kernel (its parent-death signal) and kills its tree."""
    record = tmp_path / "grandchild"
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; from knapcheck.solvers.contract import Instance;"
         " from knapcheck.solvers.isolation.worker import current_pool; from knapcheck.solvers.registry import resolve_one;"
         " current_pool().call(resolve_one(sys.argv[1]), Instance((0.1,), (1.0,), 0.2)); print('answered', flush=True);"
         " sys.stdin.read()", f"{MISBEHAVING}:setsid_grandchild"],
        env=dict(os.environ, KNAPCHECK_PLANTED_CHILD_PID=str(record)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout.readline() == "answered\n"
    grandchild = int(record.read_text())
    assert psutil.pid_exists(grandchild)
    parent.kill()
    parent.wait()
    assert _gone(grandchild)


def test_knapcheck_solve_leaves_no_setsid_grandchild(tmp_path):
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(INSTANCE.as_dict()))
    record = tmp_path / "grandchild"
    run = subprocess.run(
        [sys.executable, "-m", "knapcheck", "solve", f"{MISBEHAVING}:setsid_grandchild", str(instance)],
        cwd=tmp_path, env=dict(os.environ, KNAPCHECK_PLANTED_CHILD_PID=str(record)), capture_output=True, text=True,
        timeout=300,
    )
    assert "verdict:      SUBOPTIMAL" in run.stdout, run.stderr
    assert _gone(int(record.read_text()))


def test_the_keeper_exits_as_the_process_it_served_did():
    """A worker killed by a signal is reported by that signal, though its keeper is what the run started."""
    outcome = current_pool().call(resolve_one(f"{MISBEHAVING}:segfault"), INSTANCE)
    assert outcome.kind == CRASHED and "SIGSEGV" in outcome.error


@pytest.mark.parametrize("children_files", [True, False], ids=["children files", "scanning /proc"])
def test_descendants_are_found_through_every_generation(children_files, monkeypatch):
    monkeypatch.setattr(lifetime, "_CHILDREN_FILES", children_files and lifetime._CHILDREN_FILES)
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    try:
        # This process may have workers of earlier tests as descendants too: look for the shell's.
        for _ in range(500):
            found = set(lifetime.descendants(os.getpid()))
            sleeps = {child.pid for child in psutil.Process(shell.pid).children()}
            if len(sleeps) == 2 and sleeps <= found:
                break
        assert shell.pid in found and len(sleeps) == 2 and sleeps <= found
    finally:
        for pid in lifetime.descendants(shell.pid):
            os.kill(pid, 9)
        shell.kill()
        shell.wait()


def test_the_resident_counts_bound_what_a_process_holds():
    """A forked child shares its parent's pages: its proportional share is below its resident count."""
    held = bytearray(64 * MIB)
    child = os.fork()
    if child == 0:
        signal.pause()
    try:
        for pid in (os.getpid(), child):
            assert tree_caps.resident_at_most(pid) >= tree_caps.process_memory(pid) > 0
        assert tree_caps.resident_at_most(child) > 1.5 * tree_caps.process_memory(child)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    del held


def test_a_tree_well_within_its_cap_is_measured_from_its_resident_counts_only(monkeypatch):
    """The proportional shares cost the kernel a walk of the page tables: not read while the counts suffice."""
    cap = tree_caps.SampledCap(memory_limit=2**40)
    with subprocess.Popen(["sleep", "30"]) as sleeper:
        try:
            cap.loaded(sleeper.pid)
            monkeypatch.setattr(tree_caps, "process_memory", lambda pid: pytest.fail("read the proportional shares"))
            assert cap.exceeded(sleeper.pid) is None
        finally:
            sleeper.kill()
