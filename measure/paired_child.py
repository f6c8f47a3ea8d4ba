"""The process where a candidate and its baseline are timed side by side (``knapcheck.measure.paired``).

Run as ``python -m knapcheck.measure.paired_child PARENT_PID FD``. The parent sends one message on
the socket FD, the job: both solvers' specs, the rows' instances, a memory cap, a number of rounds
and torch's thread count. The child answers one message per event: ``loading`` (which solver) and
``loaded``; for every call a ``call`` (which solver, which row, which round) before it and a
``done`` (seconds, peak bytes) after it; ``finished`` once every round has run, or ``failed`` when
a solver raised. Messages are JSON. A target that dies takes the process with it, and the parent
knows from the last ``call`` whose call it was.

Both solvers live in this one process, so they are measured under the same load, with the same
torch, the same threads and the same caches. Each is first called once on every row (round -1, the
warm-up: torch's lazy initialization and first-call costs stay out of the figures). Then each round
times both on every row in the order A B B A, the solver that goes first alternating from round to
round (``block_order``): whatever a call leaves behind for the next one (caches, the allocator's
free lists) favours each solver equally within a round. torch runs on ``threads`` intra-op threads
(one by default: on a loaded machine a second thread waits for the first through whole time
slices, and the figures would measure the scheduler, not the solvers). Before every call the heap is trimmed and
the peak-RSS mark reset (``knapcheck.measure.peak_rss``); the call is timed with the garbage
collector off, on fresh copies of the instance's lists.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from multiprocessing.connection import Connection
from typing import Callable, Sequence

from knapcheck.measure.peak_rss import PeakMeter
from knapcheck.solvers import specs
from knapcheck.solvers.contract import ProblemTooLarge
from knapcheck.solvers.isolation import lifetime
from knapcheck.solvers.isolation.worker import cap_address_space

CANDIDATE = "candidate"
BASELINE = "baseline"
ROLES = (CANDIDATE, BASELINE)
WARM_UP_ROUND = -1

Problem = tuple[Sequence[float], Sequence[float], float]
Send = Callable[[dict], None]


def block_order(rows: int, round_index: int) -> list[tuple[int, str]]:
    """The calls of one round: for each row A B B A, the candidate first in even rounds."""
    first, second = (CANDIDATE, BASELINE) if round_index % 2 == 0 else (BASELINE, CANDIDATE)
    return [(row, role) for row in range(rows) for role in (first, second, second, first)]


def failure_status(exc: Exception) -> str:
    """How a solver's exception is reported: a refusal of the size, running out of memory, or an error."""
    if isinstance(exc, ProblemTooLarge):
        return "too big"
    message = str(exc).lower()
    allocation = isinstance(exc, RuntimeError) and ("allocate" in message or "out of memory" in message)
    if isinstance(exc, MemoryError) or allocation:
        return "out of memory"
    return "error"


def timed_call(solver: Callable, problem: Problem, clock: Callable[[], float], meter: PeakMeter,
               synchronize: Callable[[], None]) -> tuple[float, int]:
    memory, runtimes, budget = list(problem[0]), list(problem[1]), problem[2]
    meter.start()
    gc.disable()
    try:
        start = clock()
        solver(memory, runtimes, budget)
        synchronize()
        seconds = clock() - start
    finally:
        gc.enable()
    return seconds, meter.added()


def run_rounds(solvers: dict[str, Callable], problems: Sequence[Problem], rounds: int, send: Send, *,
               clock: Callable[[], float] = time.perf_counter, meter: PeakMeter | None = None,
               synchronize: Callable[[], None] = lambda: None) -> None:
    """The warm-up, then ``rounds`` rounds of ``block_order``, every call announced and reported."""
    meter = meter or PeakMeter()

    def call(round_index: int, row: int, role: str) -> bool:
        send({"event": "call", "role": role, "row": row, "round": round_index})
        try:
            seconds, peak = timed_call(solvers[role], problems[row], clock, meter, synchronize)
        except Exception as exc:
            send({"event": "failed", "role": role, "row": row, "status": failure_status(exc),
                  "error": f"{type(exc).__name__}: {exc}"[:500]})
            return False
        send({"event": "done", "seconds": seconds, "peak_bytes": peak})
        return True

    for row in range(len(problems)):
        for role in ROLES:
            if not call(WARM_UP_ROUND, row, role):
                return
    gc.collect()
    gc.freeze()
    for round_index in range(rounds):
        for row, role in block_order(len(problems), round_index):
            if not call(round_index, row, role):
                return
    send({"event": "finished"})


def serve(conn: Connection) -> None:
    def send(message: dict) -> None:
        conn.send_bytes(json.dumps(message).encode())

    job = json.loads(conn.recv_bytes())
    solvers = {}
    for role in ROLES:
        send({"event": "loading", "role": role})
        try:
            solvers[role] = specs.load(job["specs"][role])
        except Exception as exc:
            send({"event": "failed", "role": role, "row": None, "status": "error", "error": str(exc)[:500]})
            return
    import torch

    torch.set_num_threads(job["threads"])
    problems = [(row["memory"], row["runtimes"], row["max_memory"]) for row in job["rows"]]
    if job["memory_limit"] is not None:
        cap_address_space(job["memory_limit"])
    send({"event": "loaded"})
    def synchronize() -> None:
        """A solver that used CUDA has its kernels finished before the clock stops."""
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()

    run_rounds(solvers, problems, job["rounds"], send, synchronize=synchronize)


def main(argv: list[str]) -> int:
    parent, fd = int(argv[0]), int(argv[1])
    lifetime.keep_tree(parent)
    serve(Connection(fd))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
