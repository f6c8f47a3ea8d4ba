"""One solver's process in the paired benchmark (``knapcheck.measure.paired``): it loads the solver
and calls it when told to, and measures nothing itself.

Started by ``knapcheck.measure.paired_parent`` through ``knapcheck.solvers.isolation.child``, as
``python -m knapcheck.measure.paired_child PARENT_PID FD CGROUP``, it connects back as every such
child does (``knapcheck.solvers.isolation.child_side.connect``): it joins its cgroup and splits into
a keeper and the process that serves (``knapcheck.solvers.isolation.lifetime``: in a PID namespace
of its own where the kernel allows it), so that the candidate and the baseline run in processes
that cannot reach each other: a candidate that rebinds torch's functions, fills memory or starts
processes does so in its own tree only.

Messages are JSON in ``knapcheck.solvers.isolation.wire``'s framing. The parent sends the job (the
solver's spec, the rows' instances, an address-space cap and torch's thread count: torch is set to
it once the solver is loaded, if the solver imported it, and starts with it otherwise, through
``OMP_NUM_THREADS``); the process's handshake says it is ready (``child_side.say_ready``, with its
process id as the parent's /proc names it) or why it cannot load the solver. Then, for every call, the parent sends
``{"call": ROW}`` and the process calls the solver on fresh copies of that row's lists, with the
garbage collector off, and answers ``done`` (or ``failed`` when the solver raised); the parent reads
the figures (``knapcheck.measure.tree_meter``) and sends ``{"tidy": SETTLE}``: the process collects
its garbage (and after the warm-up, ``SETTLE``, freezes what survives, as the benchmark always
did), returns its free heap to the kernel (``malloc_trim``) and answers ``idle``. It ends at EOF.
"""

from __future__ import annotations

import gc
import json
import socket
import sys
from typing import Callable, Sequence

from ..solvers import specs
from ..solvers.cache.compiled_in_background import compile_where_loaded
from ..solvers.contract import ProblemTooLarge
from ..solvers.isolation import child_side
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


def serve(connection: socket.socket) -> None:
    requests = child_side.requests(connection)

    def send(message: dict) -> None:
        child_side.send_json(connection, message)

    def receive() -> dict:
        for message in requests:
            return json.loads(message)
        raise EOFError("the parent closed the connection")

    try:
        job = receive()
    except EOFError:
        return
    try:
        solver = specs.load(job["spec"])
    except Exception as exc:
        child_side.say_not_ready(connection, str(exc)[:500])
        return
    compile_where_loaded()
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(job["threads"])
    problems = [(row["memory"], row["runtimes"], row["max_memory"]) for row in job["rows"]]
    if job["memory_limit"] is not None:
        child_side.cap_address_space(job["memory_limit"])
    tidy(settle=False)
    child_side.say_ready(connection)

    def synchronize() -> None:
        """A solver that used CUDA has its kernels finished before it answers."""
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.synchronize()

    serve_calls(solver, problems, receive, send, synchronize)


def main(argv: list[str]) -> int:
    connection, _ = child_side.connect(argv)
    child_side.serve(connection, serve)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
