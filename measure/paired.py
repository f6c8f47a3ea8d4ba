"""Timing a candidate against its baseline, interleaved, each in a process of its own, until their ratio is known.

``measure_pair`` starts one process per solver (``knapcheck.measure.paired_child``, driven through
``knapcheck.measure.paired_parent``), each in a PID namespace of its own where the kernel allows it,
so that the two cannot reach each other: a candidate that rebinds torch's functions at import, or
holds memory, does so in its own process only, never in its baseline's. This process interleaves
their calls on the same instances, round after round, and measures each call from outside
(``knapcheck.measure.tree_meter``: the CPU time and the memory of the solver's whole process tree).
Because the two are measured side by side, a burst of load meets both; because each round calls
them one after the other on the same instance, twice (A B B A), every round gives two paired
samples per row, ``log(candidate / baseline)`` of the two solvers' first calls and of their second
calls, for time and for peak memory (``knapcheck.measure.ratio_interval`` turns them into a ratio
with a confidence interval). In one of the two pairs the candidate goes first, in the other the
baseline, so what one call leaves behind for the next moves half the samples each way and the
median not at all.

A row whose time interval is tight (at least ``MIN_SAMPLES`` samples, spread at most
``TIGHT_SPREAD``) is left out of the rounds that follow, and so is a row that has had its share of
the time (``time_limit`` over the rows measured) with ``MIN_SAMPLES`` samples: a dear and noisy row
(torch's sliding solver at 2 000 items takes 150 ms a call, and on a shared virtual machine the same
call's CPU time varies by a third) would otherwise take the whole limit and never tighten, while
its interval at 99 % is already there, only wider. The rounds stop when every row has left them,
after ``max_rounds`` rounds, or when ``time_limit`` runs out, whichever comes first; the warm-up
counts against the limit and the rows' shares, loading the two solvers does not (it has a limit of
its own, ``STARTUP_TIME_LIMIT``). A solver that raises, crashes its process, or keeps a
row from being measured even once within the limit ends the pair in a ``BenchFailure`` that names
it, never in an exception here. Peak memory is counted as at least ``MEMORY_FLOOR`` so that the
ratio compares the solvers' tables, not a few pages of the interpreter's own.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from ..solvers.contract import SCALE, Instance
from ..solvers.entry import SolverEntry
from ..solvers.isolation.child import STARTUP_TIME_LIMIT
from .paired_parent import Failed, Measured, PairedProcess
from .ratio_interval import CONFIDENCE, RatioEstimate, estimate
from .tree_meter import CGROUP, SAMPLED

if TYPE_CHECKING:
    from .bench import BenchRow
    from .size_rows import SizeRow

CANDIDATE = "candidate"
BASELINE = "baseline"
ROLES = (CANDIDATE, BASELINE)
WARM_UP_ROUND = -1

GATE_SIZES = ((250, 10**3), (2000, 4 * 10**3))
"""(n, C) of the rows that grow in n (``knapcheck.measure.size_rows``): a few hundred items and the
seed's scale, 2 000, each at a capacity that keeps the DP's table small."""
GATE_CAPACITY = 10**5
"""The capacity of the row that grows in C, at n = 200: the DP's cost per cell."""


def gate_rows() -> list[BenchRow | SizeRow]:
    """The rows of ``knapcheck report``'s benchmark: two sizes in n (``GATE_SIZES``), where a step
    that grows faster in n than the baseline's shows, and one large capacity (memories summing to twice
    the budget), where the DP's per-cell cost shows. Each takes torch's solvers at most about 150 ms
    (the sliding solver at n = 2 000), so the ratios settle within the default time limit. (A function,
    so that reading the defaults below does not import the row generators.)"""
    from .bench import BenchRow
    from .size_rows import SizeRow

    sizes: list[BenchRow | SizeRow] = [SizeRow(f"n={n} C={c:.0e}", n, c) for n, c in GATE_SIZES]
    c = GATE_CAPACITY
    return [*sizes, BenchRow(f"n=200 C={c:.0e}", 200, c / SCALE, total_memory=2 * c / SCALE)]


DEFAULT_TIME_LIMIT = 8.0
DEFAULT_MAX_ROUNDS = 100
PAIRS_PER_ROUND = 2
"""Paired samples a round gives each row: the two solvers' first calls, and their second calls."""
MIN_SAMPLES = 10
"""The paired samples of every row taken before the benchmark may stop early for a tight interval."""
TIGHT_SPREAD = 1.10
"""A time interval is tight when its upper end is at most 10 % above its lower end."""
DEFAULT_THREADS = 1
"""torch's intra-op threads in each solver's process: on a loaded machine a second thread waits for
the first through whole time slices, and the figures would measure the scheduler, not the solvers."""
MEMORY_FLOOR = 2**20
"""Peaks below 1 MiB count as 1 MiB: memory moves by pages the solver did not ask for."""
CPU_TIME = "cpu"
WALL_TIME = "wall"
_SHORTEST_CALL = 1e-9

STOP_TIGHT = "tight"
STOP_SHARES = "shares"
STOP_ROUNDS = "rounds"
STOP_TIME = "time limit"
STOP_FAILURE = "failure"
STOP_ASKED = "asked to stop"


@dataclass(frozen=True)
class BenchFailure:
    """Why a pair could not be compared: whose fault (``role``, '' when neither's), what, where."""

    role: str
    solver: str
    status: str
    """``error``, ``out of memory``, ``too big`` (raised in a call), ``crash`` (the process died,
    or answered nonsense), ``timeout``."""
    row: str
    error: str

    def describe(self) -> str:
        where = f" on {self.row}" if self.row else ""
        who = f"{self.solver} ({self.role})" if self.role else "the benchmark process"
        return f"{who}: {self.status}{where}: {self.error}"


def block_order(rows: Sequence[int], round_index: int) -> list[tuple[int, str]]:
    """The calls of one round on ``rows``: for each row A B B A, the candidate first in even rounds,
    so that whatever one call leaves behind for the next (caches, the machine's state) favours neither."""
    first, second = (CANDIDATE, BASELINE) if round_index % 2 == 0 else (BASELINE, CANDIDATE)
    return [(row, role) for row in rows for role in (first, second, second, first)]


def warm_up_order(rows: int) -> list[tuple[int, str]]:
    """The calls before the rounds: each solver once on every row."""
    return [(row, role) for row in range(rows) for role in ROLES]


@dataclass
class RowComparison:
    row: str
    n: int
    capacity: int
    time: RatioEstimate | None = None
    memory: RatioEstimate | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    """Median seconds per call, by role, over the timed rounds."""
    peak_bytes: dict[str, float] = field(default_factory=dict)
    """Median peak memory of a call, by role (not floored)."""
    refused: str = ""
    """Why the row was not run ('too big for NAME'); empty when it was."""
    retained_bytes: dict[str, float] = field(default_factory=dict)
    """Median memory still held after a call, by role."""
    grows_in: str = ""
    """``n`` for a row of the ladder in n (``knapcheck.measure.size_rows``), compared with the
    ladder's other rows; empty for any other row."""


@dataclass
class PairResult:
    candidate: str
    baseline: str
    rows: list[RowComparison]
    rounds: int
    """Rounds run (each solver timed twice on each row measured): a row whose interval is tight is
    left out of the rounds after it, so some rows may have fewer (each row's ``samples``)."""
    stopped: str
    seconds: float
    time_limit: float
    load_before: float
    """The 1-minute load average when the benchmark started, and when it ended (os.getloadavg)."""
    load_after: float
    cpus: int
    failure: BenchFailure | None = None
    time_measure: str = CPU_TIME
    """``cpu``: the CPU time of each solver's process tree; ``wall``: wall-clock time (a CUDA pair)."""
    memory_measure: str = SAMPLED
    """How the trees' memory was read: ``cgroup`` (memory.peak) or ``sampled`` (knapcheck.measure.tree_meter)."""


Call = Callable[[str, int, float, bool], Measured | Failed | None]
"""Call ``role``'s solver on a row, waiting at most that many seconds (``settle``: a warm-up call):
its measurement, why it failed, or None when it did not answer in time."""


class Recording:
    """Every call measured so far, by (row, round) and role, and the seconds each solver took in all."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.calls: dict[tuple[int, int], dict[str, list[Measured]]] = {}
        self.spent = {role: 0.0 for role in ROLES}
        """Wall-clock seconds each solver's calls took, warm-up and a call cut short included."""
        self.row_spent = [0.0] * rows
        """Wall-clock seconds the two solvers' calls on each row took, warm-up included."""

    def add(self, role: str, row: int, round_index: int, measured: Measured) -> None:
        self.calls.setdefault((row, round_index), {r: [] for r in ROLES})[role].append(measured)

    def _blocks(self, row: int) -> list[dict[str, list[Measured]]]:
        """The row's complete rounds: each solver called twice."""
        blocks = [calls for (r, k), calls in sorted(self.calls.items()) if r == row and k >= 0]
        return [b for b in blocks if all(len(b[role]) == 2 for role in ROLES)]

    def samples(self, row: int) -> tuple[list[float], list[float]]:
        """The row's paired log-ratios (candidate / baseline), ``PAIRS_PER_ROUND`` per complete round
        (the solvers' first calls, then their second calls): time, memory."""
        times, memories = [], []
        for block in self._blocks(row):
            for pair in range(PAIRS_PER_ROUND):
                times.append(_log_ratio(block, pair, "seconds", _SHORTEST_CALL))
                memories.append(_log_ratio(block, pair, "peak_bytes", MEMORY_FLOOR))
        return times, memories

    def medians(self, row: int, name: str) -> dict[str, float]:
        """The median of one figure of a Measured (``seconds``, ``peak_bytes``, ...) by role, over the rounds."""
        values = {role: [getattr(call, name) for b in self._blocks(row) for call in b[role]] for role in ROLES}
        return {role: statistics.median(v) for role, v in values.items() if v}

    def complete_rounds(self) -> int:
        """The rounds that measured every row."""
        return min((len(self._blocks(row)) for row in range(self.rows)), default=0)

    def rounds_run(self) -> int:
        """The rounds that measured some row: a row is measured until its interval is tight."""
        return max((len(self._blocks(row)) for row in range(self.rows)), default=0)

    def row_tight(self, row: int) -> bool:
        """Whether the row's time interval is tight: MIN_SAMPLES samples or more, its 99 % interval
        spanning at most TIGHT_SPREAD."""
        times = self.samples(row)[0]
        if len(times) < MIN_SAMPLES:
            return False
        found = estimate(times)
        return found is not None and found.confidence >= CONFIDENCE and found.spread <= TIGHT_SPREAD

    def had_share(self, row: int, share: float) -> bool:
        """Whether the row's calls have taken ``share`` seconds and given MIN_SAMPLES samples."""
        return self.row_spent[row] >= share and len(self.samples(row)[0]) >= MIN_SAMPLES


def _log_ratio(block: dict[str, list[Measured]], pair: int, name: str, floor: float) -> float:
    """log(candidate / baseline) of one figure of the two solvers' ``pair``-th calls of a round."""
    def log(role: str) -> float:
        return math.log(max(getattr(block[role][pair], name), floor))

    return log(CANDIDATE) - log(BASELINE)


def drive(call: Call, recording: Recording, time_limit: float, max_rounds: int,
          clock: Callable[[], float] = time.monotonic,
          stop_requested: Callable[[], object] = lambda: "") -> tuple[str, dict | None]:
    """Make the calls into ``recording``, the warm-up and then round after round (``block_order``),
    each round on the rows whose interval is not tight yet and that have not had their share of
    ``time_limit`` (the limit over the rows), until the rounds are done: why they stopped, and the
    failure (role, status, error; row as an index) when a solver could not be measured.
    ``stop_requested`` (polled before every call) ends the rounds early, keeping what was measured."""
    deadline = clock() + time_limit
    share = time_limit / max(recording.rows, 1)
    untight = list(range(recording.rows))
    for round_index in [WARM_UP_ROUND, *range(max_rounds)]:
        order = warm_up_order(recording.rows) if round_index == WARM_UP_ROUND else block_order(untight, round_index)
        for row, role in order:
            if stop_requested():
                return STOP_ASKED, None
            start = clock()
            if start >= deadline:
                return _out_of_time(recording, time_limit, None)
            reply = call(role, row, deadline - start, round_index == WARM_UP_ROUND)
            took = clock() - start
            recording.spent[role] += took
            recording.row_spent[row] += took
            if reply is None:
                return _out_of_time(recording, time_limit, row)
            if isinstance(reply, Failed):
                return STOP_FAILURE, {"role": role, "status": reply.status, "error": reply.error, "row": row}
            recording.add(role, row, round_index, reply)
        if round_index != WARM_UP_ROUND:
            untight = [row for row in untight if not (recording.row_tight(row) or recording.had_share(row, share))]
            if not untight:
                tight = all(recording.row_tight(row) for row in range(recording.rows))
                return (STOP_TIGHT if tight else STOP_SHARES), None
    return STOP_ROUNDS, None


def _out_of_time(recording: Recording, time_limit: float, row: int | None) -> tuple[str, dict | None]:
    """Out of time, the rounds simply stop, unless a row has no sample yet: then the solver whose
    calls took longer is the one too slow for the limit."""
    if recording.complete_rounds() > 0:
        return STOP_TIME, None
    role = max(ROLES, key=lambda name: recording.spent[name])
    error = (f"the time limit ({time_limit:g} s) ran out before every row was measured once; the candidate's"
             f" calls took {recording.spent[CANDIDATE]:.3g} s in all, the baseline's {recording.spent[BASELINE]:.3g} s")
    return STOP_FAILURE, {"role": role, "status": "timeout", "error": error, "row": row}


@contextmanager
def paired_processes(entries: dict[str, SolverEntry], problems: list[dict], output: Path | None,
                  threads: int) -> Iterator[dict[str, PairedProcess]]:
    """One started process per role; all stopped, with whatever they started, on the way out."""
    cuda = any(entry.device == "cuda" for entry in entries.values())
    workers = {role: PairedProcess(entry.spec, problems, output=output, threads=threads, wall_time=cuda, capped=not cuda)
               for role, entry in entries.items()}
    try:
        for worker in workers.values():
            worker.start()
        yield workers
    finally:
        for worker in workers.values():
            worker.stop()


def load(workers: dict[str, PairedProcess]) -> dict | None:
    """Wait until every solver is loaded and give both the same kind of meter; the first failure otherwise."""
    deadline = time.monotonic() + STARTUP_TIME_LIMIT
    for role, worker in workers.items():
        failed = worker.await_loaded(max(0.0, deadline - time.monotonic()))
        if failed is not None:
            return {"role": role, "status": failed.status, "error": failed.error, "row": None}
    method = CGROUP if all(worker.can_use_cgroup() for worker in workers.values()) else SAMPLED
    for worker in workers.values():
        worker.use_meter(method)
    return None


def _problem(instance: Instance) -> dict:
    return {"memory": list(instance.memory), "runtimes": list(instance.runtimes), "max_memory": instance.max_memory}


def measure_pair(
    candidate: SolverEntry,
    baseline: SolverEntry,
    rows: Sequence[BenchRow | SizeRow] | None = None,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    output: Path | None = None,
    threads: int = DEFAULT_THREADS,
    stop_requested: Callable[[], object] = lambda: "",
) -> PairResult:
    """Candidate against baseline on ``rows`` (default: ``gate_rows()``): each row's time and memory
    ratio with its interval. ``stop_requested``: see ``drive``."""
    rows = gate_rows() if rows is None else rows
    if not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds!r}")
    comparisons = [RowComparison(row.name, row.n, row.capacity, grows_in=getattr(row, "grows_in", ""))
                   for row in rows]
    measured = []
    for comparison, row in zip(comparisons, rows):
        refusing = [e.name for e in (candidate, baseline) if not e.accepts(row.n, row.capacity)]
        if refusing:
            comparison.refused = "too big for " + ", ".join(refusing)
        else:
            measured.append((comparison, row))
    names = {CANDIDATE: candidate.name, BASELINE: baseline.name}
    load_before, start = os.getloadavg()[0], time.monotonic()
    recording = Recording(len(measured))
    stopped, failure, memory_measure = STOP_ROUNDS, None, SAMPLED
    time_measure = WALL_TIME if "cuda" in (candidate.device, baseline.device) else CPU_TIME
    if measured:
        problems = [_problem(row.instances()[0]) for _, row in measured]
        with paired_processes({CANDIDATE: candidate, BASELINE: baseline}, problems, output, threads) as workers:
            failure = load(workers)
            if failure is not None:
                stopped = STOP_FAILURE
            else:
                memory_measure = workers[CANDIDATE].meter.method  # type: ignore[union-attr]

                def call(role: str, row: int, seconds_left: float, settle: bool) -> Measured | Failed | None:
                    return workers[role].call(row, seconds_left, settle)

                stopped, failure = drive(call, recording, time_limit, max_rounds, stop_requested=stop_requested)
    for index, (comparison, _) in enumerate(measured):
        times, memories = recording.samples(index)
        comparison.time, comparison.memory = estimate(times), estimate(memories)
        comparison.seconds = recording.medians(index, "seconds")
        comparison.peak_bytes = recording.medians(index, "peak_bytes")
        comparison.retained_bytes = recording.medians(index, "retained_bytes")
    why_not = None
    if failure is not None:
        where = "" if failure["row"] is None else measured[failure["row"]][0].row
        role = failure["role"]
        why_not = BenchFailure(role, names.get(role, ""), failure["status"], where, failure["error"])
    return PairResult(candidate.name, baseline.name, comparisons, recording.rounds_run(), stopped,
                      time.monotonic() - start, time_limit, load_before, os.getloadavg()[0], os.cpu_count() or 1,
                      why_not, time_measure, memory_measure)
