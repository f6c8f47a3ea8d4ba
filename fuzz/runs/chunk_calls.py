"""Calling every entry on a chunk of instances: isolated workers side by side, pipelined.

A check (``knapcheck.fuzz.runs.check``) and a campaign unit (``knapcheck.fuzz.campaign.units``)
both judge instances in chunks: each isolated entry's worker gets the chunk in one pipeline
(``knapcheck.solvers.isolation.worker.Worker.call_many``) while this process asks the oracle (and,
in a check, judges the chunk before), and a chunk's size follows how long the last one took
(``next_chunk_size``).

A stop request reaches the calls themselves (``stopped``): no call starts after it, the calls under
way finish within their time limit, and an instance an entry was not called on has no outcome
(None), so that a check begun chunks ahead stops within one call's time, not eight chunks'.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Sequence

from ...oracles.result import OracleResult
from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from ...solvers.isolation.running import run_many
from ..judging.verdicts.differential import Called, call, determinism_calls

CHUNK_SECONDS = 0.5
"""About how long one chunk of instances may take (``next_chunk_size``)."""
MAX_CHUNK = 256
"""The most instances in one chunk."""


def next_chunk_size(size: int, seconds: float) -> int:
    """The next chunk's size after one of ``size`` instances took ``seconds``: doubled while
    chunks are quick, halved once one is slow, so a stop request or the end of a source's time
    is seen within about CHUNK_SECONDS, and a chunk of thousands of quick instances costs the
    workers' messages, not their round trips."""
    if seconds < CHUNK_SECONDS / 2:
        return min(MAX_CHUNK, 2 * size)
    if seconds > CHUNK_SECONDS:
        return max(1, size // 2)
    return size


class Lanes:
    """A thread for each entry, which runs the calls submitted for it in the order they came: a
    check begins several chunks ahead (``ChunkCalls``) and each worker still gets one chunk at a
    time, in order."""

    def __init__(self) -> None:
        self.threads: dict[str, ThreadPoolExecutor] = {}

    def submit(self, entry: SolverEntry, call: Callable, *args) -> Future:
        if entry.name not in self.threads:
            self.threads[entry.name] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knapcheck-call")
        return self.threads[entry.name].submit(call, *args)

    def __enter__(self) -> Lanes:
        return self

    def __exit__(self, *exc_info) -> None:
        for thread in self.threads.values():
            thread.shutdown()


class ChunkCalls:
    """The calls of one chunk, begun: isolated entries with a worker process of their own are called
    in threads from the start (``submit(entry, call, *args)``), the rest when ``finish`` is called.
    A check begins the chunks after one before it judges it, so the workers compute while this
    process judges. Once ``stopped()`` says so, no further call starts (``call_each``)."""

    def __init__(
        self, entries: Sequence[SolverEntry], chunk: Sequence[Instance], runnable: list[list[SolverEntry]],
        twice: Sequence[bool], submit: Callable[..., Future], stopped: Callable[[], bool] = lambda: False,
    ) -> None:
        workers = Counter(entry.spec for entry in entries if entry.isolate)
        parallel = [entry for entry in entries if entry.isolate and workers[entry.spec] == 1]
        names = [{entry.name for entry in here} for here in runnable]
        self.entries, self.chunk, self.twice, self.stopped = entries, chunk, twice, stopped
        self.wanted = {entry.name: [entry.name in here for here in names] for entry in entries}
        self.futures = {entry.name: submit(entry, call_each, entry, chunk, self.wanted[entry.name], twice, stopped)
                        for entry in parallel}

    def finish(
        self, alongside: Callable[[], list[OracleResult]]
    ) -> tuple[dict[str, list[Called | None]], list[OracleResult]]:
        """Every entry's outcomes on each instance of the chunk it is runnable on (None elsewhere,
        and where a stop came before its call),
        and what ``alongside`` (the oracle) returns, asked here while the workers compute; solvers
        that run in this process are then called one after the other, here."""
        beside = alongside()
        outcomes = {entry.name: call_each(entry, self.chunk, self.wanted[entry.name], self.twice, self.stopped)
                    for entry in self.entries if entry.name not in self.futures}
        outcomes.update({name: future.result() for name, future in self.futures.items()})
        return outcomes, beside


def call_all(
    entries: Sequence[SolverEntry], chunk: Sequence[Instance], runnable: list[list[SolverEntry]], twice: Sequence[bool],
    pool: ThreadPoolExecutor, alongside: Callable[[], list[OracleResult]],
) -> tuple[dict[str, list[Called | None]], list[OracleResult]]:
    """``ChunkCalls`` begun and finished at once, in the pool's threads: each thread waits on its
    own worker, and the workers compute in parallel, while ``alongside`` runs here."""
    return ChunkCalls(entries, chunk, runnable, twice, lambda entry, call, *args: pool.submit(call, *args)).finish(alongside)


def call_each(
    entry: SolverEntry, chunk: Sequence[Instance], wanted: Sequence[bool], twice: Sequence[bool],
    stopped: Callable[[], bool] = lambda: False,
) -> list[Called | None]:
    """The entry's outcomes on the wanted instances of the chunk, in order: runs of instances
    called once go to its worker together (``run_many``); an instance it is called twice on is
    called as ``call`` does, so its worker sees the calls in the order one call at a time gives.
    Once ``stopped()`` says so, no further call starts: the instances not called stay None."""
    found: list[Called | None] = [None] * len(chunk)
    plain: list[int] = []

    def flush() -> None:
        for k, outcome in zip(plain, run_many(entry, [chunk[k] for k in plain], stopped)):
            found[k] = (outcome, None, "")
        plain.clear()

    for k, instance in enumerate(chunk):
        if not wanted[k]:
            continue
        calls = determinism_calls(entry) if twice[k] else 1
        if calls == 1:
            plain.append(k)
            continue
        flush()
        if stopped():
            break
        found[k] = call(entry, instance, calls, stopped)
    flush()
    return found
