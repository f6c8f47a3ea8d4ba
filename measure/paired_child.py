"""One solver's process in the paired benchmark (``knapcheck.measure.paired``): it loads the solver
and calls it when told to, and measures nothing itself.

Run as ``python -m knapcheck.measure.paired_child PARENT_PID FD [CGROUP]``. It joins CGROUP when
given, and splits into a keeper and the process that serves (``knapcheck.solvers.isolation.lifetime``:
in a PID namespace of its own where the kernel allows it), so that the candidate and the baseline
run in processes that cannot reach each other: a candidate that rebinds torch's functions, fills
memory or starts processes does so in its own tree only.

Messages are JSON on the socket FD. The parent sends the job (the solver's spec, the rows'
instances, an address-space cap and torch's thread count: torch is set to it once the solver is
loaded, if the solver imported it, and starts with it otherwise, through ``OMP_NUM_THREADS``); the process answers ``loaded`` (with its
process id as the parent's /proc names it) or ``failed``. Then, for every call, the parent sends
``{"call": ROW}`` and the process calls the solver on fresh copies of that row's lists, with the
garbage collector off, and answers ``done`` (or ``failed`` when the solver raised); the parent reads
the figures (``knapcheck.measure.tree_meter``) and sends ``{"tidy": SETTLE}``: the process collects
its garbage (and after the warm-up, ``SETTLE``, freezes what survives, as the benchmark always
did), returns its free heap to the kernel (``malloc_trim``) and answers ``idle``. It ends at EOF.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from multiprocessing.connection import Connection
from typing import Callable, Sequence

from ..solvers import specs
from ..solvers.cache.compiled_in_background import compile_where_loaded
from ..solvers.contract import ProblemTooLarge
from ..solvers.isolation import lifetime, tree_caps
from ..solvers.isolation.worker import cap_address_space
from .peak_rss import trim_heap

Problem = tuple[Sequence[float], Sequence[float], float]


def failure_status(exc: Exception) -> str:
    """How a solver's exception is reported: a refusal of the size, running out of memory, or an error."""
    if isinstance(exc, ProblemTooLarge):
        return "too big"
    message = str(exc).lower()
    allocation = isinstance(exc, RuntimeError) and ("allocate" in message or "out of memory" in message)
    if isinstance(exc, MemoryError) or allocation:
        return "out of memory"
    return "error"


def failed(exc: Exception) -> dict:
    return {"event": "failed", "status": failure_status(exc), "error": f"{type(exc).__name__}: {exc}"[:500]}


def call(solver: Callable, problem: Problem, synchronize: Callable[[], None]) -> None:
    """One call on fresh copies of the lists, with the garbage collector off."""
    memory, runtimes, budget = list(problem[0]), list(problem[1]), problem[2]
    gc.disable()
    try:
        solver(memory, runtimes, budget)
        synchronize()
    finally:
        gc.enable()


def tidy(settle: bool) -> None:
    """Collect, after the warm-up freeze what survives, and return the free heap to the kernel."""
    gc.collect()
    if settle:
        gc.freeze()
    trim_heap()


def serve_calls(solver: Callable, problems: Sequence[Problem], receive: Callable[[], dict],
                send: Callable[[dict], None], synchronize: Callable[[], None] = lambda: None) -> None:
    """Answer the parent's calls and tidies until EOF, or until the solver raises."""
    while True:
        try:
            message = receive()
        except EOFError:
            return
        if "call" in message:
            try:
                call(solver, problems[message["call"]], synchronize)
            except Exception as exc:
                send(failed(exc))
                return
            send({"event": "done"})
        else:
            tidy(bool(message.get("tidy")))
            send({"event": "idle"})


def serve(conn: Connection) -> None:
    def send(message: dict) -> None:
        conn.send_bytes(json.dumps(message).encode())

    def receive() -> dict:
        return json.loads(conn.recv_bytes())

    job = receive()
    try:
        solver = specs.load(job["spec"])
    except Exception as exc:
        send({"event": "failed", "status": "error", "error": str(exc)[:500]})
        return
    compile_where_loaded()
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(job["threads"])
    problems = [(row["memory"], row["runtimes"], row["max_memory"]) for row in job["rows"]]
    if job["memory_limit"] is not None:
        cap_address_space(job["memory_limit"])
    tidy(settle=False)
    send({"event": "loaded", "pid": int(os.readlink("/proc/self"))})

    def synchronize() -> None:
        """A solver that used CUDA has its kernels finished before it answers."""
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.synchronize()

    serve_calls(solver, problems, receive, send, synchronize)


def main(argv: list[str]) -> int:
    parent, fd = int(argv[0]), int(argv[1])
    if len(argv) > 2 and argv[2]:
        tree_caps.join(argv[2])
    lifetime.keep_tree(parent)
    serve(Connection(fd))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
