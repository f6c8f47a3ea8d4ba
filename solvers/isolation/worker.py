"""Running a solver in a child process with a memory cap and a time limit.

A pull request's file or a solver that may need more memory than the machine has must not take the
run down with it: a segfault, ``sys.exit``, ``os._exit``, a hang or a runaway allocation becomes an
Outcome (CRASHED, TIMED_OUT, OUT_OF_MEMORY) for that one instance, and the next call goes on.

One persistent worker process per target serves call after call over a socket, so hundreds of
instances cost one interpreter start, not hundreds; a worker that died or was killed is started
again on the next call. A run's workers are a ``WorkerPool``: ``with WorkerPool():`` makes it the
pool every call goes to (``knapcheck.solvers.isolation.running``) and stops its workers on the way
out; calls made outside any such block go to the process's default pool, stopped at exit.

The worker is not a fork of this process (which may hold torch's thread pools) nor
multiprocessing's spawn (which re-runs the caller's main script): it is forked by a
zygote, a fresh interpreter that imports torch (where its targets use it) and nothing else of the run's
(``knapcheck.solvers.isolation.zygote_server``), or is itself a fresh interpreter where no zygote can
start. It finds its solver again by the entry's spec (``torch:NAME``, ``FILE.py:NAME`` or
``module:NAME``; see ``knapcheck.solvers.specs``), so any entry can be isolated, one registered at
run time included.

The worker is a child of ``knapcheck.solvers.isolation.child``, started, heard and stopped as the
benchmark's processes are: its handshake says it has loaded its target, then each message to it is
an instance and each answer an Outcome. Only plain data crosses (``knapcheck.solvers.isolation.wire``):
the worker reads what its target returned into a float and two lists of ints, or the reason it is not that (``knapcheck.solvers.contract.answer``),
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
import socket
import threading
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from .. import specs
from ..contract import Instance
from ..contract.answer import exception_text, in_worker
from ..contract.outcome import CRASHED, OUT_OF_MEMORY, RAISED, Outcome, call_in_process
from ..entry import SolverEntry
from . import child_side, hash_seeds, lifetime, wire, zygote_pool
from .child import STARTUP_TIME_LIMIT, Child, Ended, environment
from .torch_use import uses_torch

DEFAULT_TIME_LIMIT = 60.0
"""Seconds one call may take before its worker is killed and the call is TIMED_OUT."""
DEFAULT_MEMORY_LIMIT = 2 * 2**30
"""Bytes of address space a call may map beyond what the loaded worker maps; also what the worker's
whole process tree may hold beyond what it held once loaded (``knapcheck.solvers.isolation.tree_caps``)."""
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


def serve(*argv: str) -> None:
    """The worker's main (``PARENT_PID FD CGROUP SPEC MEMORY_LIMIT``): connect back
    (``knapcheck.solvers.isolation.child_side.connect``: its cgroup, its keeper), so that nothing
    the target starts outlives the worker; load the target once, then answer one instance per
    message until EOF."""
    connection, (spec, memory_limit) = child_side.connect(argv)
    in_worker()
    _serve(connection, spec, int(memory_limit) if memory_limit else None)


def _serve(connection: socket.socket, spec: str, memory_limit: int | None) -> None:
    child_side.serve(connection, lambda connection: _answer(connection, spec, memory_limit))


def _answer(connection: socket.socket, spec: str, memory_limit: int | None) -> None:
    try:
        solver = specs.load(spec)
        if memory_limit is not None:
            child_side.cap_address_space(memory_limit)
    except Exception as exc:
        child_side.say_not_ready(connection, f"cannot load {spec}: {exception_text(exc)}")
        return
    child_side.say_ready(connection)
    for message in child_side.requests(connection):
        outcome = _classify(call_in_process(solver, wire.decode_instance(message)))
        try:
            answer = wire.encode_outcome(outcome)
        except Exception as exc:
            answer = wire.encode_outcome(Outcome(RAISED, error=f"the answer cannot be sent back: {exception_text(exc)}"))
        wire.send(connection, answer)


def worker_environment(hash_seed: int) -> dict[str, str]:
    """A worker's environment (``knapcheck.solvers.isolation.child.environment``) with its hash seed."""
    return environment(hash_seed=hash_seed)


class Worker:
    """One child process serving one target; started on first use and after every death.

    A target that cannot be loaded (it raises, exits or hangs on import) is not retried: every
    call gets the same Outcome. While a call runs, the worker's process tree is held to its caps
    (``knapcheck.solvers.isolation.tree_caps``).
    """

    def __init__(self, spec: str, limits: Limits, hash_seed: int = hash_seeds.FIRST, output: int | None = None) -> None:
        self.spec = spec
        self.limits = limits
        self.hash_seed = hash_seed
        self.output = output
        """The descriptor its stdout and stderr go to (None: this process's)."""
        self.uses_torch = uses_torch(spec)
        """Whether its zygote should import torch before forking it (a guess from the target's source)."""
        self._child: Child | None = None
        self._load_error: Outcome | None = None
        self._loading = False

    @property
    def pid(self) -> int | None:
        """The process id of the worker while it runs (that of its keeper)."""
        return self._child.pid if self._child is not None else None

    def _launch(self) -> None:
        memory = "" if self.limits.memory is None else str(self.limits.memory)
        self._child = Child.launch(["-c", _WORKER_MAIN], [self.spec, memory], memory_limit=self.limits.memory,
                                   variables=worker_environment(self.hash_seed), output=self.output, who="the worker",
                                   fork=self._fork)

    def _fork(self, variables: Mapping[str, str], arguments: list[str], descriptors: list[int]) -> lifetime.Process | None:
        """The worker forked by its zygote (``knapcheck.solvers.isolation.zygote_pool``); None where none can fork it."""
        return zygote_pool.spawn(variables, arguments, descriptors, self.uses_torch)

    def _await_loaded(self) -> None:
        assert self._child is not None
        ready = self._child.await_ready(STARTUP_TIME_LIMIT)
        if isinstance(ready, Ended) or ready.pid is None:
            kind, error = (ready.kind, ready.error) if isinstance(ready, Ended) else (RAISED, ready.error)
            self.stop()
            self._load_error = Outcome(kind, error=f"while loading the target: {error}")

    def _receive(self, timeout: float, n: int) -> Outcome:
        """The Outcome of the call on ``n`` items the worker answers next."""
        assert self._child is not None
        message = self._child.receive(wire.outcome_limit(n), timeout)
        if isinstance(message, Ended):
            self.stop()
            return Outcome(message.kind, error=message.error)
        try:
            return wire.decode_outcome(message, n)
        except wire.MessageRefused as exc:
            self.stop()
            return Outcome(CRASHED, error=f"the worker's message was refused: {exc}")

    def start(self) -> None:
        """Launch the worker if it is not running, without waiting for it to load its target."""
        if self._load_error is None and self._child is None:
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
        assert self._child is not None
        try:
            self._child.send(wire.encode_instance(instance))
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
                assert self._child is not None
                try:
                    self._child.send(messages[sent])
                except OSError:
                    break
                in_flight += len(messages[sent])
                sent += 1
            if sent == len(outcomes):
                return outcomes if stopped() else [*outcomes, self.call(instances[sent])]
            outcomes.append(self._receive(self.limits.time, instances[len(outcomes)].n))
            in_flight -= len(messages[len(outcomes) - 1])
            if self._child is None:
                return outcomes
            if stopped():
                if sent > len(outcomes):
                    self.stop()
                return outcomes
        return outcomes

    def stop(self) -> None:
        """End the worker and whatever the target started (``knapcheck.solvers.isolation.child.Child.stop``)."""
        child, self._child = self._child, None
        if child is not None:
            child.stop()


class WorkerPool:
    """The workers of a run: one per target, limits and hash seed, started side by side
    (``start``), stopped together (``stop``).

    ``with WorkerPool() as pool:`` makes it the pool that calls go to (``current_pool``) within the
    block, and stops its workers, with whatever their targets started, on the way out. A pool is
    used from several threads at once (a check calls each target's worker from a thread of its own).
    """

    def __init__(self) -> None:
        self._workers: dict[tuple[str, Limits, int], Worker] = {}
        self._lock = threading.Lock()
        self.output: int | None = None
        """The file descriptor its workers send their stdout and stderr to (None: where this process's go)."""

    def worker(self, entry: SolverEntry, limits: Limits | None = None, hash_seed: int = hash_seeds.FIRST) -> Worker:
        """The entry's worker with these limits (by default the entry's) and hash seed, made on first use."""
        limits = limits or limits_for(entry)
        key = (entry.spec, limits, hash_seed)
        with self._lock:
            if key not in self._workers:
                self._workers[key] = Worker(entry.spec, limits, hash_seed, self.output)
            return self._workers[key]

    def call(self, entry: SolverEntry, instance: Instance, limits: Limits | None = None,
             hash_seed: int = hash_seeds.FIRST) -> Outcome:
        """Call an entry's solver on an instance in its worker (the one whose PYTHONHASHSEED is ``hash_seed``)."""
        return self.worker(entry, limits, hash_seed).call(instance)

    def call_many(self, entry: SolverEntry, instances: Sequence[Instance], limits: Limits | None = None,
                  stopped: Callable[[], bool] = lambda: False) -> list[Outcome]:
        """``call`` on each instance in turn, pipelined (``Worker.call_many``), until ``stopped()``."""
        return self.worker(entry, limits).call_many(instances, stopped)

    def start(self, entries: Sequence[SolverEntry], *, second_for_exact: bool = False) -> dict[str, Outcome]:
        """Start the isolated entries' workers side by side, ahead of their first calls (so that a
        time budget is not spent importing torch once per target, one after the other). With
        ``second_for_exact``, each exact target's second worker, the one a determinism check calls
        (``hash_seeds.SECOND``), is started too, without waiting for it.

        Returns, by solver name, the Outcome of each target that could not be loaded.
        """
        workers = {entry.name: self.worker(entry) for entry in entries if entry.isolate}
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
                    self.worker(entry, None, hash_seeds.SECOND).start()
        failed = {name: worker.ready() for name, worker in workers.items()}
        return {name: outcome for name, outcome in failed.items() if outcome is not None}

    def send_output_to(self, descriptor: int | None) -> None:
        """Workers write their stdout and stderr to ``descriptor`` (None: they share this process's),
        so that what solvers print (HiGHS writes its log to file descriptor 1 from C) never mixes
        with a command's results. Running workers are stopped when the destination changes; they
        start again on their next call, writing to the new one."""
        if descriptor != self.output:
            self.stop()
            self.output = descriptor

    def stop(self) -> None:
        """End every worker of the pool; the next call starts its worker again."""
        with self._lock:
            workers = list(self._workers.values())
            self._workers.clear()
        for worker in workers:
            worker.stop()

    def __enter__(self) -> WorkerPool:
        _ENTERED.append(self)
        return self

    def __exit__(self, *exception: object) -> None:
        _ENTERED.remove(self)
        self.stop()


_ENTERED: list[WorkerPool] = []
"""The pools whose ``with`` block is running, innermost last."""
_DEFAULT = WorkerPool()
"""Where calls made outside any ``with WorkerPool()`` go (a test calling a solver, ``knapcheck.testing``)."""
atexit.register(_DEFAULT.stop)


def current_pool() -> WorkerPool:
    """The pool calls go to now: the innermost one entered (in any thread), else the default pool,
    whose workers are stopped at exit."""
    return _ENTERED[-1] if _ENTERED else _DEFAULT


def send_worker_output_to(descriptor: int | None) -> None:
    """The current pool's workers write their stdout and stderr to ``descriptor`` (``WorkerPool.send_output_to``)."""
    current_pool().send_output_to(descriptor)
