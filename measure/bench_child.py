"""One benchmark measurement in a fresh process: ``knapcheck.measure.bench.measure_once``'s child.

Started through ``knapcheck.solvers.isolation.child`` as every child that runs a solver is, it
connects back (``knapcheck.solvers.isolation.child_side.connect``: its cgroup, its keeper), reads
its job (the solver, the row, the clock, the address-space cap) and loads the solver; its handshake
says it is ready, or why it cannot load the solver. The process loads the solver (and with it torch, if the solver uses it: one that does not, such as
expanding_core, runs without it), has numba compile what the solver uses
(``knapcheck.solvers.cache.compiled_in_background``), builds the row's instance and warms the
solver up on a tiny instance; then it resets the kernel's peak-RSS mark to the current RSS and calls the solver once.
Its one answer is a JSON object: the time of the call (wall-clock, or with ``"clock": "cpu"`` in the spec
the process's CPU time), and the peak resident memory above the RSS just before the call (the
interpreter, torch, the solver's code and its input excluded). On CUDA it also reports the peak of torch's CUDA allocator. A per-call row's problems
are each solved ``rounds`` times, round after round, every call timed on its own: the time is
their median (and each problem's median over its rounds is reported too), the value the first
round's total, the peak the highest over all calls.
"""

from __future__ import annotations

import gc
import json
import math
import resource
import socket
import statistics
import sys
import time
import traceback
from typing import Callable

from ..solvers.cache.compiled_in_background import compile_where_loaded
from ..solvers.contract import ProblemTooLarge
from ..solvers.isolation import child_side
from .peak_rss import reset_peak, status_kib, trim_heap

_WARM_UP_MEMORY = [(i * 371 % 997 + 13) / 10_000 for i in range(40)]
WARM_UP = (
    (_WARM_UP_MEMORY, [float((i * 53 % 89 + 1) * 10**9 + i) for i in range(40)], 0.5),
    *(
        (_WARM_UP_MEMORY, [round(m * 10_000) * float(unit) for m in _WARM_UP_MEMORY], 0.5)
        for unit in (1, 10**3, 10**8, 10**12)
    ),
)
"""Small instances that run the DP and the split paths of every solver, so that torch's lazy
initialization (and the library code it pages in) is not measured as the row's time or memory.
The first has FLOP-scale runtimes like the rows'. In the others every item is equally efficient,
so no bound decides any item and our DP gets all 40, as upstream's does; their totals (about 2e4,
2e7, 2e12 and 2e16) take our profiles through each dtype a row may need (int16, int32, float64,
int64: the bound test can leave a row's DP a total that fits a narrow one), while upstream's
float32 kernels run in all of them."""


def load(spec: dict) -> Callable:
    """The spec's solver, loaded, with what numba compiles for it compiled."""
    from ..solvers.registry import resolve

    (entry,) = resolve(spec["solver"])
    solver = entry.load()
    compile_where_loaded()
    return solver


def measure(spec: dict) -> dict:
    return measure_loaded(spec, load(spec))


def measure_loaded(spec: dict, solver: Callable) -> dict:
    """The measurement of ``solver``, loaded; with ``"memory_limit"`` in the spec, the calls may
    add that many bytes of address space (``child_side.cap_address_space``): a runaway allocation
    fails here instead of swamping the machine."""
    from .bench import row_from_dict

    row = row_from_dict(spec["row"])
    clock = time.process_time if spec.get("clock") == "cpu" else time.perf_counter
    problems = [(list(i.memory), list(i.runtimes), i.max_memory) for i in row.instances()]
    for warm_up in WARM_UP:
        solver(*warm_up)
    # Whatever its registry entry says (a module:NAME spec says cpu), a solver that used CUDA in its
    # warm-up has its kernels synchronized before the clock stops and its device peak reported.
    torch = sys.modules.get("torch")
    cuda = torch.cuda if torch is not None and torch.cuda.is_initialized() else None
    calls = [0.0] * (row.rounds * len(problems))
    values = [0.0] * len(problems)
    gc.collect()
    trim_heap()
    if cuda:
        cuda.synchronize()
        cuda.reset_peak_memory_stats()
    if spec.get("memory_limit") is not None:
        child_side.cap_address_space(spec["memory_limit"])
    fresh_peak = reset_peak()
    before = status_kib("VmRSS") if fresh_peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    call = 0
    for _ in range(row.rounds):
        for k, problem in enumerate(problems):
            start = clock()
            value, _, _ = solver(*problem)
            if cuda:
                cuda.synchronize()
            calls[call] = clock() - start
            values[k] = value
            call += 1
    seconds = statistics.median(calls)
    problem_seconds = [statistics.median(calls[k :: len(problems)]) for k in range(len(problems))]
    value = math.fsum(values)
    peak = status_kib("VmHWM") if fresh_peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {
        "status": "ok",
        "seconds": seconds,
        "problem_seconds": problem_seconds,
        "peak_bytes": max(0, peak - before) * 1024,
        "value": float(value),
    }
    if cuda:
        result["cuda_peak_bytes"] = cuda.max_memory_allocated()
    return result


def result_of(exc: Exception) -> dict:
    """How a measurement that raised is reported: a refusal of the size, running out of memory, or an error."""
    if isinstance(exc, ProblemTooLarge):
        return {"status": "too big", "error": f"{type(exc).__name__}: {exc}"}
    if isinstance(exc, MemoryError):
        return {"status": "out of memory", "error": f"{type(exc).__name__}: {exc}"}
    if isinstance(exc, RuntimeError):
        oom = "allocate" in str(exc) or "out of memory" in str(exc)
        return {"status": "out of memory" if oom else "error", "error": f"{type(exc).__name__}: {exc}"}
    return {"status": "error", "error": "".join(traceback.format_exception_only(type(exc), exc)).strip()}


def serve(connection: socket.socket) -> None:
    """Read the job, load its solver, say so, and answer with the measurement."""
    for message in child_side.requests(connection):
        spec = json.loads(message)
        break
    else:
        return
    try:
        solver = load(spec)
    except Exception as exc:
        child_side.say_not_ready(connection, result_of(exc)["error"])
        return
    child_side.say_ready(connection)
    try:
        result = measure_loaded(spec, solver)
    except Exception as exc:
        result = result_of(exc)
    child_side.send_json(connection, result)


def main(argv: list[str]) -> int:
    connection, _ = child_side.connect(argv)
    child_side.serve(connection, serve)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
