"""Running a solver in a child process with a memory cap and a time limit.

A pull request's file or a solver that may need more memory than the machine has must not take the
run down with it: a segfault, ``sys.exit``, ``os._exit``, a hang or a runaway allocation becomes an
Outcome (CRASHED, TIMED_OUT, OUT_OF_MEMORY) for that one instance, and the next call goes on.

One persistent worker process per target serves call after call over a socket, so hundreds of
instances cost one interpreter start, not hundreds; a worker that died or was killed is started
again on the next call. The worker is not a fork of this process (which may hold torch's thread
pools) nor multiprocessing's spawn (which re-runs the caller's main script): it is forked by a
zygote, a fresh interpreter that imports torch (where its targets use it) and nothing else of the run's
(``knapcheck.solvers.isolation.zygote_server``), or is itself a fresh interpreter where no zygote can
start. It finds its solver again by the entry's spec (``torch:NAME``, ``FILE.py:NAME`` or
``module:NAME``; see ``knapcheck.solvers.specs``), so any entry can be isolated, one registered at
run time included.

Only plain data crosses (``knapcheck.solvers.isolation.wire``): the worker reads what its target returned
into a float and two lists of ints, or the reason it is not that (``knapcheck.solvers.contract.answer``),
and sends it as JSON; whatever the target returns or raises, nothing it made is unpickled or run
here, and a message that is too long or not an Outcome is the worker's CRASH.

Workers die with the process that started them, and take along anything their target started
(``knapcheck.solvers.isolation.lifetime``): a killed campaign leaves no worker behind, nor a target's own
children, grandchildren that called ``setsid`` included.

The memory cap is an address-space limit (``RLIMIT_AS``) that the worker sets once its target is
loaded: what it maps then (the interpreter, torch, the target; a CUDA build of torch maps gigabytes
of libraries) plus the limit. An allocation over it fails inside the target (MemoryError, or
torch's "can't allocate memory") instead of the machine running out. Every process the target
forks inherits that limit, so the whole tree is capped too: by a cgroup where the machine offers
cgroups v2, by measuring it while calls run otherwise (``knapcheck.solvers.isolation.tree_caps``). CUDA
reserves far more address space than it uses once initialised, so workers of ``device="cuda"``
entries run without a memory cap.
"""

from __future__ import annotations

import atexit
import os
import resource
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from .. import specs
from ..contract import Instance
from ..contract.answer import clipped, exception_text, in_worker
from ..contract.outcome import CRASHED, OUT_OF_MEMORY, RAISED, RETURNED, TIMED_OUT, Outcome, call_in_process
from ..entry import SolverEntry
from . import hash_seeds, lifetime, tree_caps, wire, zygote_pool
from .torch_use import uses_torch

DEFAULT_TIME_LIMIT = 60.0
"""Seconds one call may take before its worker is killed and the call is TIMED_OUT."""
DEFAULT_MEMORY_LIMIT = 2 * 2**30
"""Bytes of address space a call may map beyond what the loaded worker maps; also what the worker's
whole process tree may hold beyond what it held once loaded (``knapcheck.solvers.isolation.tree_caps``)."""
STARTUP_TIME_LIMIT = 120.0
"""Seconds a fresh worker may take to import and load its target."""
PIPELINE_BYTES = 1 << 15
"""The most bytes of instances ``Worker.call_many`` sends ahead of the worker's answers (one
instance always goes): well under a socket's buffer, so neither end ever blocks writing while the
other writes too."""

_OUT_OF_MEMORY_MESSAGES = ("can't allocate memory", "out of memory", "not enough memory", "failed to map segment")


@dataclass(frozen=True)
class Limits:
    time: float = DEFAULT_TIME_LIMIT
    memory: int | None = DEFAULT_MEMORY_LIMIT
    """None: no cap (CUDA workers)."""

    def __post_init__(self) -> None:
        if not self.time > 0:
            raise ValueError(f"time limit must be > 0 seconds, got {self.time!r}")
        if self.memory is not None and self.memory <= 0:
            raise ValueError(f"memory limit must be > 0 bytes, got {self.memory!r}")


def limits_for(entry: SolverEntry) -> Limits:
    """The entry's own limits where it sets them; no memory cap on CUDA, whose mappings dwarf its use."""
    memory = entry.memory_limit or DEFAULT_MEMORY_LIMIT
    return Limits(time=entry.time_limit or DEFAULT_TIME_LIMIT, memory=None if entry.device == "cuda" else memory)


def _classify(outcome: Outcome) -> Outcome:
    """torch reports a failed allocation as a RuntimeError; in a capped worker that is running out."""
    if outcome.kind == RAISED and any(m in outcome.error.lower() for m in _OUT_OF_MEMORY_MESSAGES):
        return Outcome(OUT_OF_MEMORY, error=outcome.error)
    return outcome


_WORKER_MAIN = "import sys; from knapcheck.solvers.isolation.worker import serve; serve(*sys.argv[1:])"


def serve(parent: str, fd: str, spec: str, memory_limit: str, cgroup: str) -> None:
    """The worker's main: load the target once, then answer one instance per message until EOF.

    First it joins its cgroup, if it has one (``knapcheck.solvers.isolation.tree_caps``), and splits into a
    keeper and the process that serves (``knapcheck.solvers.isolation.lifetime.keep_tree``), so that nothing the
    target starts outlives the worker.
    """
    if cgroup:
        tree_caps.join(cgroup)
    lifetime.keep_tree(int(parent))
    in_worker()
    _serve(socket.socket(fileno=int(fd)), spec, int(memory_limit) if memory_limit else None)


def mapped_bytes() -> int:
    """This process's address space now (VmSize)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def cap_address_space(limit: int) -> None:
    """Let this process map at most ``limit`` bytes more than it maps now."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = mapped_bytes() + limit
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _serve(connection: socket.socket, spec: str, memory_limit: int | None) -> None:
    """Answer until the parent closes its end: EOF on a read, or a broken pipe on a write (a parent
    that stopped before the first answer, such as a command refusing its arguments)."""
    try:
        _answer(connection, spec, memory_limit)
    except (BrokenPipeError, ConnectionResetError):
        return


def _answer(connection: socket.socket, spec: str, memory_limit: int | None) -> None:
    try:
        solver = specs.load(spec)
        if memory_limit is not None:
            cap_address_space(memory_limit)
        loaded = Outcome(RETURNED)
    except Exception as exc:
        loaded = Outcome(RAISED, error=clipped(f"cannot load {spec}: {exception_text(exc)}"))
    wire.send(connection, wire.encode_outcome(loaded))
    if loaded.kind != RETURNED:
        return
    while True:
        try:
            instance = wire.decode_instance(wire.receive(connection, limit=2**62, deadline=None))
        except EOFError:
            return
        outcome = _classify(call_in_process(solver, instance))
        try:
            message = wire.encode_outcome(outcome)
        except Exception as exc:
            message = wire.encode_outcome(Outcome(RAISED, error=f"the answer cannot be sent back: {exception_text(exc)}"))
        wire.send(connection, message)


class Worker:
    """One child process serving one target; started on first use and after every death.

    A target that cannot be loaded (it raises, exits or hangs on import) is not retried: every
    call gets the same Outcome. While a call runs, the worker's process tree is held to its caps
    (``knapcheck.solvers.isolation.tree_caps``).
    """

    def __init__(self, spec: str, limits: Limits, hash_seed: int = hash_seeds.FIRST) -> None:
        self.spec = spec
        self.limits = limits
        self.hash_seed = hash_seed
        self.uses_torch = uses_torch(spec)
        """Whether its zygote should import torch before forking it (a guess from the target's source)."""
        self._process: subprocess.Popen | zygote_pool.ForkedProcess | None = None
        self._connection: socket.socket | None = None
        self._cap: tree_caps.SampledCap | tree_caps.CgroupCap | None = None
        self._load_error: Outcome | None = None
        self._loading = False

    def _launch(self) -> None:
        ours, theirs = socket.socketpair()
        self._cap = tree_caps.new_cap(self.limits.memory)
        memory = "" if self.limits.memory is None else str(self.limits.memory)
        arguments = [self.spec, memory, self._cap.cgroup]
        environment = worker_environment(self.hash_seed)
        output = [1, 2] if _worker_output is None else [_worker_output, _worker_output]
        descriptors = [theirs.fileno(), *output]
        self._process = zygote_pool.spawn(environment, arguments, descriptors, self.uses_torch) or lifetime.launch(
            [sys.executable, "-P", "-c", _WORKER_MAIN, str(os.getpid()), str(theirs.fileno()), *arguments],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=_worker_output,
            stderr=_worker_output, env=environment,
        )
        theirs.close()
        self._connection = ours

    def _await_loaded(self) -> None:
        loaded = self._receive(STARTUP_TIME_LIMIT, None)
        if loaded.kind != RETURNED:
            self.stop()
            self._load_error = Outcome(loaded.kind, error=f"while loading the target: {loaded.error}")
        else:
            assert self._cap is not None and self._process is not None
            self._cap.loaded(self._process.pid)

    def _receive(self, timeout: float, n: int | None) -> Outcome:
        """The worker's next message: the Outcome of a call on ``n`` items (None: of loading the target)."""
        assert self._connection is not None and self._process is not None and self._cap is not None
        deadline = time.monotonic() + timeout
        while not wire.wait_readable(self._connection, min(tree_caps.SAMPLE_SECONDS, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                self.stop()
                return Outcome(TIMED_OUT, error=f"no answer within {timeout:g} s; the worker was killed")
            over = self._cap.exceeded(self._process.pid)
            if over is not None:
                self.stop()
                return Outcome(over[0], error=over[1])
        limit = wire.outcome_limit(0 if n is None else n)
        try:
            return wire.decode_outcome(wire.receive(self._connection, limit, deadline), n)
        except TimeoutError:
            self.stop()
            return Outcome(TIMED_OUT, error=f"no complete answer within {timeout:g} s; the worker was killed")
        except wire.MessageRefused as exc:
            self.stop()
            return Outcome(CRASHED, error=f"the worker's message was refused: {exc}")
        except (EOFError, OSError):
            return self._died()

    def _died(self) -> Outcome:
        assert self._process is not None and self._cap is not None
        ending = lifetime.how_it_ended(self._process, "the worker")
        out_of_memory = self._cap.died()
        self.stop()
        if out_of_memory:
            return Outcome(OUT_OF_MEMORY, error=out_of_memory)
        return Outcome(CRASHED, error=ending)

    def start(self) -> None:
        """Launch the worker if it is not running, without waiting for it to load its target."""
        if self._load_error is None and self._process is None:
            self._launch()
            self._loading = True

    def ready(self) -> Outcome | None:
        """Start the worker and wait until it has loaded; the Outcome every call gets if it cannot load."""
        self.start()
        if self._loading:
            self._loading = False
            self._await_loaded()
        return self._load_error

    def call(self, instance: Instance, retry: bool = True) -> Outcome:
        failed = self.ready()
        if failed is not None:
            return failed
        assert self._connection is not None
        try:
            wire.send(self._connection, wire.encode_instance(instance))
        except OSError:
            self.stop()
            if retry:
                return self.call(instance, retry=False)
            return Outcome(CRASHED, error="the worker died before it could be sent the instance, twice")
        return self._receive(self.limits.time, instance.n)

    def call_many(self, instances: Sequence[Instance], stopped: Callable[[], bool] = lambda: False) -> list[Outcome]:
        """One Outcome per instance, in order, each what ``call`` would give it: the instances go
        to the worker ahead of its answers (up to PIPELINE_BYTES), so the worker does not wait for
        the judge between calls, nor the judge for the worker. The worker still takes them one
        message at a time; each call has its own time limit, counted from the answer before it
        (when the worker took it up). A call that ends the worker (a crash, a time-out, a cap) is
        that call's Outcome, as it is the first call without an answer, and the instances after
        it go to a fresh worker.

        Once ``stopped()`` says so (a stop request), no further call starts: the Outcomes end with
        the call under way, which finishes within its time limit, and a worker that still holds
        instances sent ahead is stopped, so that it starts none of them."""
        outcomes: list[Outcome] = []
        while len(outcomes) < len(instances) and not stopped():
            outcomes += self._pipelined(instances[len(outcomes):], stopped)
        return outcomes

    def _pipelined(self, instances: Sequence[Instance], stopped: Callable[[], bool]) -> list[Outcome]:
        """The Outcomes of the first instances, up to the first that ends the worker or the first
        answer after ``stopped()`` (all, if neither comes)."""
        failed = self.ready()
        if failed is not None:
            return [failed] * len(instances)
        messages = [wire.encode_instance(instance) for instance in instances]
        outcomes: list[Outcome] = []
        sent = in_flight = 0
        while len(outcomes) < len(instances):
            while sent < len(messages) and (sent == len(outcomes) or in_flight + len(messages[sent]) <= PIPELINE_BYTES):
                if stopped():
                    break
                assert self._connection is not None
                try:
                    wire.send(self._connection, messages[sent])
                except OSError:
                    break
                in_flight += len(messages[sent])
                sent += 1
            if sent == len(outcomes):
                return outcomes if stopped() else [*outcomes, self.call(instances[sent])]
            outcomes.append(self._receive(self.limits.time, instances[len(outcomes)].n))
            in_flight -= len(messages[len(outcomes) - 1])
            if self._process is None:
                return outcomes
            if stopped():
                if sent > len(outcomes):
                    self.stop()
                return outcomes
        return outcomes

    def stop(self) -> None:
        """End the worker and whatever the target started (``knapcheck.solvers.isolation.lifetime.stop``)."""
        process, connection, cap = self._process, self._connection, self._cap
        self._process = self._connection = self._cap = None
        if connection is not None:
            connection.close()
        if process is not None:
            lifetime.stop(process)
        if cap is not None:
            cap.close()


_WORKERS: dict[tuple[str, Limits, int], Worker] = {}
_worker_output: int | None = None
"""The file descriptor workers send their stdout and stderr to (None: where this process's go)."""


def send_worker_output_to(descriptor: int | None) -> None:
    """Workers write their stdout and stderr to ``descriptor`` (None: they share this process's), so
    what solvers print (HiGHS writes its log to file descriptor 1 from C) never mixes with a
    command's results. Running workers are stopped when the destination changes; they start again
    on their next call, writing to the new one."""
    global _worker_output
    if descriptor != _worker_output:
        stop_workers()
        _worker_output = descriptor


INTRA_OP_THREADS = "1"
"""torch's intra-op threads (``OMP_NUM_THREADS``) in each worker, and in a command's own process
(``knapcheck.commands.cli``), unless the user's environment sets them. A check runs a worker per target
beside the process that judges: with two threads each they were several times more threads than
cores, and an operation's threads waited for one another through whole time slices (the README's
main job on 2 cores: 68 s with torch's default of one thread per core, 55 s with one).
Thread counts change no answer of an exact solver; each report records its workers'."""


def worker_environment(hash_seed: int) -> dict[str, str]:
    """A worker's environment: this process's (with ``INTRA_OP_THREADS`` where it sets none), with
    its import path and the worker's hash seed.

    The import path is this process's ``sys.path`` and nothing more: workers and zygotes run as
    ``python -P``, so the working directory is not put first on their path as ``python -c`` would
    (from the root of a PyTorch checkout, a worker would import the checkout's unbuilt ``torch/``);
    it is on it only where this process has it (``python -m knapcheck`` run from there)."""
    return {"OMP_NUM_THREADS": INTRA_OP_THREADS, **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "PYTHONHASHSEED": str(hash_seed)}


def _worker(entry: SolverEntry, limits: Limits | None, hash_seed: int = hash_seeds.FIRST) -> Worker:
    limits = limits or limits_for(entry)
    key = (entry.spec, limits, hash_seed)
    if key not in _WORKERS:
        _WORKERS[key] = Worker(entry.spec, limits, hash_seed)
    return _WORKERS[key]


def call_isolated(entry: SolverEntry, instance: Instance, limits: Limits | None = None,
                  hash_seed: int = hash_seeds.FIRST) -> Outcome:
    """Call an entry's solver on an instance in its worker process (the one whose PYTHONHASHSEED is ``hash_seed``)."""
    return _worker(entry, limits, hash_seed).call(instance)


def call_isolated_many(entry: SolverEntry, instances: Sequence[Instance], limits: Limits | None = None,
                       stopped: Callable[[], bool] = lambda: False) -> list[Outcome]:
    """``call_isolated`` on each instance in turn, pipelined (``Worker.call_many``), until ``stopped()``."""
    return _worker(entry, limits).call_many(instances, stopped)


def start_workers(entries: list[SolverEntry], *, second_for_exact: bool = False) -> dict[str, Outcome]:
    """Start the targets' workers side by side, ahead of their first calls (so that a time budget
    is not spent importing torch once per target, one after the other). With ``second_for_exact``,
    each exact target's second worker, the one a determinism check calls (``hash_seeds.SECOND``), is
    started too, without waiting for it.

    Returns, by solver name, the Outcome of each target that could not be loaded.
    """
    workers = {entry.name: _worker(entry, None) for entry in entries if entry.isolate}
    with_torch = any(worker.uses_torch for worker in workers.values())
    if workers:
        zygote_pool.prepare(worker_environment(hash_seeds.FIRST), with_torch)
    if second_for_exact and any(entry.isolate and entry.exact for entry in entries):
        zygote_pool.prepare(worker_environment(hash_seeds.SECOND), with_torch)
    for worker in workers.values():
        worker.start()
    if second_for_exact:
        for entry in entries:
            if entry.isolate and entry.exact:
                _worker(entry, None, hash_seeds.SECOND).start()
    failed = {name: worker.ready() for name, worker in workers.items()}
    return {name: outcome for name, outcome in failed.items() if outcome is not None}


def stop_workers() -> None:
    """End every worker (also done at exit)."""
    for worker in _WORKERS.values():
        worker.stop()
    _WORKERS.clear()


atexit.register(stop_workers)
