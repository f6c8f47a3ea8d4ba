"""Isolation: a target that segfaults, exits, hangs or allocates without bound becomes a verdict."""

import json
import os
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract import outcome as outcomes
from knapcheck.solvers.contract.outcome import CRASHED, OUT_OF_MEMORY, RAISED, RETURNED, TIMED_OUT
from knapcheck.solvers.isolation import worker, zygote_pool
from knapcheck.solvers.isolation.worker import Limits, WorkerPool
from knapcheck.solvers.registry import resolve

PLANTED = Path(__file__).parent / "planted"
INSTANCE = Instance((0.1, 0.2), (1.0, 2.0), 0.2)


def planted(name: str, file: str = "misbehaving.py"):
    (entry,) = resolve(f"{PLANTED / file}:{name}")
    return entry


@pytest.fixture
def pool():
    """The test's workers, stopped with whatever their targets started at its end."""
    with WorkerPool() as pool:
        yield pool


def test_file_specs_are_isolated():
    assert planted("segfault").isolate


@pytest.mark.parametrize(
    "name, kind, words",
    [
        ("segfault", CRASHED, "SIGSEGV"),
        ("exits", CRASHED, "status 3"),
        ("hard_exit", CRASHED, "status 0"),
    ],
)
def test_a_dying_target_becomes_an_outcome_and_the_worker_comes_back(name, kind, words, pool):
    entry = planted(name)
    outcome = pool.call(entry, INSTANCE)
    assert outcome.kind == kind
    assert words in outcome.error
    assert pool.call(entry, INSTANCE).kind == kind
    assert tuple(pool.call(planted("recomputes_everything"), INSTANCE).answer) == (0.0, [], [0, 1])


def test_a_hang_is_timed_out_and_the_next_call_starts_a_fresh_worker(pool):
    entry = planted("hangs")
    first = pool.call(entry, INSTANCE, Limits(time=1.0))
    assert first.kind == TIMED_OUT
    assert pool.call(entry, INSTANCE, Limits(time=1.0)).kind == TIMED_OUT


def test_pipelined_calls_isolate_the_instance_that_crashed_or_hung(pool):
    entry = planted("dies_on_three_items")
    sizes = [2, 3, 1, 4, 2]
    instances = [Instance((0.0001,) * n, tuple(float(k + 1) for k in range(n)), 0.0002) for n in sizes]
    outcomes = pool.call_many(entry, instances, Limits(time=1.0))
    assert [o.kind for o in outcomes] == [RETURNED, CRASHED, RETURNED, TIMED_OUT, RETURNED]
    assert "SIGSEGV" in outcomes[1].error
    full_table = resolve("full_table")[0]
    for instance, outcome in zip(instances, outcomes):
        if outcome.returned:
            assert outcome.answer == check(full_table, instance).outcome.answer


def test_a_runaway_allocation_hits_the_memory_cap(pool):
    outcome = pool.call(planted("allocates_without_bound"), INSTANCE, Limits(time=60, memory=2**30))
    assert outcome.kind == OUT_OF_MEMORY


def test_torch_refusing_an_allocation_is_out_of_memory(pool):
    outcome = pool.call(planted("allocates_a_terabyte", "torch_allocation.py"), INSTANCE)
    assert outcome.kind == OUT_OF_MEMORY
    assert "can't allocate memory" in outcome.error


def test_entry_limits_reach_the_worker():
    entry = replace(planted("hangs"), time_limit=0.5)
    assert check(entry, INSTANCE).verdict is Verdict.TIMEOUT


def test_one_worker_serves_many_calls_with_the_same_answers_as_in_process(pool):
    entry = resolve("full_table")[0]
    isolated = replace(entry, isolate=True)
    instances = [Instance((0.0001 * k, 0.0002, 0.0003), (1.0, 2.0, float(k)), 0.0004) for k in range(30)]
    for instance in instances:
        assert check(isolated, instance).outcome.answer == check(entry, instance).outcome.answer
    pipelined = pool.call_many(isolated, instances)
    assert [o.answer for o in pipelined] == [check(entry, instance).outcome.answer for instance in instances]


@pytest.mark.parametrize("given, solver, expected", [(None, "torch_threads", 1.0), ("3", "omp_num_threads", 3.0)],
                         ids=["default", "the user's"])
def test_a_worker_runs_torch_on_one_thread_unless_the_user_says_otherwise(given, solver, expected, monkeypatch, pool):
    """A check runs a worker per target side by side: with a thread per core each, they outnumber the
    cores. (torch itself may give fewer threads than asked: the user's setting is read as given.)"""
    if given is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", given)
    outcome = pool.call(planted(solver, "intra_op_threads.py"), INSTANCE)
    assert outcome.kind == RETURNED and outcome.answer[0] == expected, outcome


def test_a_target_that_cannot_load_is_reported_on_every_call(tmp_path, pool):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no such dependency')\ndef solve(m, r, c): pass\n")
    (entry,) = resolve(f"{broken}:solve")
    for _ in range(2):
        outcome = pool.call(entry, INSTANCE)
        assert outcome.kind == RAISED
        assert "no such dependency" in outcome.error



REPORTS_ITS_MODULES = """
import os
import sys

def solve(memory, runtimes, max_memory):
    with open(os.environ["KNAPCHECK_PLANTED_MODULES"], "w") as out:
        out.write(" ".join(sorted(name for name in sys.modules if name.split(".")[0] == "knapcheck")))
    return 0.0, [], list(range(len(memory)))
"""


@pytest.mark.parametrize("forked", [True, False], ids=["forked by a zygote", "a fresh interpreter"])
def test_a_worker_process_imports_only_the_sandbox_and_the_solvers(forked, tmp_path, monkeypatch, request, pool):
    """No module of the judge, the oracles, fuzz, measure or the commands is in a worker: what a
    target can reach in its process, and what each worker pays to start, is the solvers' package."""
    target = tmp_path / "target.py"
    target.write_text(REPORTS_ITS_MODULES)
    monkeypatch.setenv("KNAPCHECK_PLANTED_MODULES", str(tmp_path / "modules"))
    if not forked:
        monkeypatch.setenv("KNAPCHECK_TEST_ZYGOTE", request.node.nodeid)
        monkeypatch.setattr(zygote_pool, "_ZYGOTE_MAIN", "import sys; sys.exit(1)")
    (entry,) = resolve(f"{target}:solve")
    assert pool.call(entry, INSTANCE).kind == RETURNED
    modules = (tmp_path / "modules").read_text().split()
    assert "knapcheck.solvers.isolation.worker" in modules
    assert [name for name in modules if name.split(".")[:2] not in (["knapcheck"], ["knapcheck", "solvers"])] == []


TOO_BIG_FOR_THE_TABLE = Instance((0.0001, 0.0002), (1.0, 2.0), 1e5)
"""Capacity 1e9: full_table's entry declares it does not accept it (max_cells), and its table would
need over 2 GiB, so full_table refuses with ProblemTooLarge before allocating."""


@pytest.mark.parametrize("isolate", [False, True], ids=["in process", "isolated"])
def test_a_documented_refusal_is_no_defect_above_the_declared_size_and_rejected_below(isolate):
    entry = replace(resolve("full_table")[0], isolate=isolate)
    declined = check(entry, TOO_BIG_FOR_THE_TABLE)
    assert declined.outcome.kind == outcomes.REFUSED and "ProblemTooLarge" in declined.outcome.error
    assert declined.verdict is Verdict.UNVERIFIED and not declined.failed
    promising_more = replace(entry, name="full_table_without_limits", max_cells=None, max_capacity=None)
    rejected = check(promising_more, TOO_BIG_FOR_THE_TABLE)
    assert rejected.verdict is Verdict.REJECTED and rejected.failed
    assert "refused a size its entry accepts (n=2, C=1000000000)" in rejected.judgement.detail


def test_changing_the_given_lists_is_caught_in_a_worker_too():
    entry = replace(resolve("planted.wrong_answers:zeroes_the_runtimes_it_was_given")[0], isolate=True)
    done = check(entry, INSTANCE)
    assert done.verdict.value == "MUTATED_INPUT" and done.failed
    assert done.judgement.detail == "the solver changed the lists it was given: runtimes[0] went from 1.0 to 0.0"


def _gone(pid: int) -> bool:
    """Dead (or a zombie nobody has reaped yet) within a few seconds."""
    try:
        process = psutil.Process(pid)
        process.wait(timeout=15)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return process.status() == psutil.STATUS_ZOMBIE
    return True


def test_what_a_target_starts_dies_with_its_worker(tmp_path, monkeypatch, pool):
    monkeypatch.setenv("KNAPCHECK_PLANTED_CHILD_PID", str(tmp_path / "child"))
    assert pool.call(planted("spawns_a_child"), INSTANCE).kind == RETURNED
    child = int((tmp_path / "child").read_text())
    assert psutil.pid_exists(child)
    pool.stop()
    assert _gone(child)


def test_knapcheck_solve_leaves_nothing_running(tmp_path):
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(INSTANCE.as_dict()))
    environment = dict(os.environ, KNAPCHECK_PLANTED_CHILD_PID=str(tmp_path / "child"))
    solve = [sys.executable, "-m", "knapcheck", "solve", f"{PLANTED / 'misbehaving.py'}:spawns_a_child", str(instance)]
    subprocess.run(solve, env=environment, check=False, capture_output=True, timeout=300)
    assert _gone(int((tmp_path / "child").read_text()))


_PARENT = """
import sys
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.isolation.worker import WorkerPool
from knapcheck.solvers.registry import resolve_one
with WorkerPool() as pool:
    entry = resolve_one(sys.argv[1])
    pool.call(entry, Instance((0.1,), (1.0,), 0.2))
    print(pool.worker(entry).pid, flush=True)
    sys.stdin.read()
"""


def test_a_killed_parent_takes_its_isolated_workers_and_their_children_along(tmp_path):
    environment = dict(os.environ, KNAPCHECK_PLANTED_CHILD_PID=str(tmp_path / "child"))
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, f"{PLANTED / 'misbehaving.py'}:spawns_a_child"],
        env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    worker = int(parent.stdout.readline())
    child = int((tmp_path / "child").read_text())
    parent.kill()
    parent.wait()
    assert _gone(worker) and _gone(child)


def test_a_worker_whose_parent_left_before_its_first_answer_ends_without_a_word(capfd):
    """A command that refuses its arguments closes the workers it started: their tracebacks of a
    broken pipe filled the solver log and made the refusal two lines."""
    ours, theirs = socket.socketpair()
    ours.close()
    worker._serve(theirs, "knapcheck.solvers.full_table:full_table", None)
    assert capfd.readouterr() == ("", "")
