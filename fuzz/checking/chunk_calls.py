"""Calling every entry on a chunk of instances: isolated workers side by side, pipelined.

A check (``knapcheck.fuzz.checking.check``) and a campaign unit (``knapcheck.fuzz.campaign.units``)
both judge instances in chunks: each isolated entry's worker gets the chunk in one pipeline
(``knapcheck.solvers.isolation.worker.Worker.call_many``) while this process asks the oracle, and
a chunk's size follows how long the last one took (``next_chunk_size``).
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

from knapcheck.fuzz.checking.differential import call, determinism_calls
from knapcheck.oracles.result import OracleResult
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation.outcome import Outcome
from knapcheck.solvers.isolation.running import run_many

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


def call_all(
    entries: list[SolverEntry], chunk: Sequence[Instance], runnable: list[list[SolverEntry]], twice: Sequence[bool],
    pool: ThreadPoolExecutor, alongside: Callable[[], list[OracleResult]],
) -> tuple[dict[str, list[tuple[Outcome, Outcome | None, str] | None]], list[OracleResult]]:
    """Every entry's outcomes on each instance of the chunk it is runnable on (None elsewhere),
    and what ``alongside`` (the oracle) returns. Isolated entries with a worker process of their
    own are called side by side (each thread waits on its own worker, and the workers compute in
    parallel, while ``alongside`` runs here); solvers that run in this process are called one
    after the other, here."""
    workers = Counter(entry.spec for entry in entries if entry.isolate)
    parallel = [entry for entry in entries if entry.isolate and workers[entry.spec] == 1]
    names = [{entry.name for entry in here} for here in runnable]
    wanted = {entry.name: [entry.name in here for here in names] for entry in entries}
    futures = {entry.name: pool.submit(call_each, entry, chunk, wanted[entry.name], twice) for entry in parallel}
    beside = alongside()
    outcomes = {entry.name: call_each(entry, chunk, wanted[entry.name], twice) for entry in entries
                if entry.name not in futures}
    outcomes.update({name: future.result() for name, future in futures.items()})
    return outcomes, beside


def call_each(
    entry: SolverEntry, chunk: Sequence[Instance], wanted: Sequence[bool], twice: Sequence[bool]
) -> list[tuple[Outcome, Outcome | None, str] | None]:
    """The entry's outcomes on the wanted instances of the chunk, in order: runs of instances
    called once go to its worker together (``run_many``); an instance it is called twice on is
    called as ``call`` does, so its worker sees the calls in the order one call at a time gives."""
    found: list[tuple[Outcome, Outcome | None, str] | None] = [None] * len(chunk)
    plain: list[int] = []

    def flush() -> None:
        for k, outcome in zip(plain, run_many(entry, [chunk[k] for k in plain])):
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
        found[k] = call(entry, instance, calls)
    flush()
    return found
