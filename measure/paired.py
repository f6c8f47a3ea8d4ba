"""Timing a candidate against its baseline, interleaved in one process, until their ratio is known.

``measure_pair`` starts one child process (``knapcheck.measure.paired_child``) that loads both
solvers, whatever they are (a pull request's file runs there, not here), and calls them in turn on
the same instances, round after round. Because the two are measured side by side, a burst of load
slows both; because each round compares them on the same instance, every round gives one paired
sample per row, ``log(candidate / baseline)``, for time and for peak memory
(``knapcheck.measure.ratio_interval`` turns them into a ratio with a confidence interval).

The rounds stop when every row's time interval is tight (at least ``MIN_ROUNDS`` rounds, spread at
most ``TIGHT_SPREAD``), after ``max_rounds`` rounds, or when ``time_limit`` runs out, whichever
comes first; the warm-up counts against the limit, loading the two solvers does not (it has a
limit of its own, ``STARTUP_TIME_LIMIT``). A solver that raises, crashes the process, or keeps a
row from being measured even once within the limit ends the pair in a ``BenchFailure`` that names
it, never in an exception here. Peak memory is the resident memory a
call adds (``knapcheck.measure.peak_rss``), counted as at least ``MEMORY_FLOOR`` so that the
ratio compares the solvers' tables, not a few pages of the interpreter's own.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from knapcheck.measure.paired_child import BASELINE, CANDIDATE, ROLES, WARM_UP_ROUND
from knapcheck.measure.ratio_interval import CONFIDENCE, RatioEstimate, estimate
from knapcheck.solvers.contract import SCALE, Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation import lifetime
from knapcheck.solvers.isolation.worker import STARTUP_TIME_LIMIT

if TYPE_CHECKING:
    from knapcheck.measure.bench import BenchRow

GATE_CAPACITIES = (10**3, 10**4, 10**5)


def gate_rows() -> list[BenchRow]:
    """The rows of ``knapcheck report``'s benchmark: one n, capacities a decade apart (memories summing
    to twice the budget), each a few milliseconds for torch's solvers, so that a round takes well under
    a second and the ratios settle within the default time limit. (A function, so that reading the
    defaults below does not import the row generators.)"""
    from knapcheck.measure.bench import BenchRow

    return [BenchRow(f"n=200 C={c:.0e}", 200, c / SCALE, total_memory=2 * c / SCALE) for c in GATE_CAPACITIES]


DEFAULT_TIME_LIMIT = 20.0
DEFAULT_MAX_ROUNDS = 100
MIN_ROUNDS = 10
"""The rounds run before the benchmark may stop early for a tight interval."""
TIGHT_SPREAD = 1.10
"""A time interval is tight when its upper end is at most 10 % above its lower end."""
DEFAULT_THREADS = 1
"""torch's intra-op threads in the child (see knapcheck.measure.paired_child)."""
MEMORY_FLOOR = 2**20
"""Peaks below 1 MiB count as 1 MiB: resident memory moves by pages the solver did not ask for."""
MEMORY_LIMIT = 4 * 2**30
"""Address space the child may map beyond what it maps with both solvers loaded (no cap when either
solver is a CUDA one: CUDA reserves far more address space than it uses)."""
_SHORTEST_CALL = 1e-9

STOP_TIGHT = "tight"
STOP_ROUNDS = "rounds"
STOP_TIME = "time limit"
STOP_FAILURE = "failure"


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
    """Median peak memory a call added, by role (not floored)."""
    refused: str = ""
    """Why the row was not run ('too big for NAME'); empty when it was."""


@dataclass
class PairResult:
    candidate: str
    baseline: str
    rows: list[RowComparison]
    rounds: int
    """Complete rounds: each solver timed twice on every row."""
    stopped: str
    seconds: float
    time_limit: float
    load_before: float
    """The 1-minute load average when the benchmark started, and when it ended (os.getloadavg)."""
    load_after: float
    cpus: int
    failure: BenchFailure | None = None


class Recording:
    """What the child has reported so far: every call's seconds and peak, by (row, round) and role."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.calls: dict[tuple[int, int], dict[str, list[tuple[float, int]]]] = {}
        self.spent = {role: 0.0 for role in ROLES}
        """Seconds each solver's calls took, warm-up included."""
        self.in_flight: tuple[str, int | None, int] | None = None
        """(role, row, round) of the call under way; row None while the solver loads."""
        self.in_flight_since = 0.0
        self.loaded = False
        self.finished = False
        self.failed: dict | None = None

    def record(self, message: object, now: float) -> None:
        """Apply one message; ValueError when it is not one the protocol allows at this point."""
        if not isinstance(message, dict):
            raise ValueError(f"expected a message, got {message!r:.80}")
        event = message.get("event")
        if event == "loading":
            self._start(message.get("role"), None, WARM_UP_ROUND, now)
        elif event == "loaded":
            self.loaded, self.in_flight = True, None
        elif event == "call":
            row, round_index = message.get("row"), message.get("round")
            placed = _whole(row) and 0 <= row < self.rows and _whole(round_index) and round_index >= WARM_UP_ROUND
            if not self.loaded or not placed:
                raise ValueError(f"a call out of place: {message!r:.120}")
            self._start(message.get("role"), row, round_index, now)
        elif event == "done":
            self._done(message.get("seconds"), message.get("peak_bytes"), now)
        elif event == "failed":
            self.failed = {"role": message.get("role") if message.get("role") in ROLES else "",
                           "status": str(message.get("status", "error")), "error": str(message.get("error", ""))[:500]}
        elif event == "finished":
            self.finished = True
        else:
            raise ValueError(f"an unknown message: {message!r:.120}")

    def _start(self, role: object, row: int | None, round_index: int, now: float) -> None:
        if role not in ROLES or self.in_flight is not None and row is not None:
            raise ValueError(f"a call of {role!r} out of place")
        self.in_flight, self.in_flight_since = (role, row, round_index), now

    def _done(self, seconds: object, peak: object, now: float) -> None:
        if self.in_flight is None or self.in_flight[1] is None:
            raise ValueError("a result without a call")
        measured = isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0
        if not measured or not _whole(peak) or peak < 0:
            raise ValueError(f"a result that is no measurement: seconds={seconds!r:.40}, peak_bytes={peak!r:.40}")
        role, row, round_index = self.in_flight
        self.in_flight = None
        self.spent[role] += seconds
        self.calls.setdefault((row, round_index), {r: [] for r in ROLES})[role].append((float(seconds), int(peak)))

    def elapsed(self, now: float) -> dict[str, float]:
        """``spent``, with the call under way counted up to now."""
        spent = dict(self.spent)
        if self.in_flight is not None and self.in_flight[1] is not None:
            spent[self.in_flight[0]] += now - self.in_flight_since
        return spent

    def _blocks(self, row: int) -> list[dict[str, list[tuple[float, int]]]]:
        """The row's complete rounds: each solver called twice."""
        blocks = [calls for (r, k), calls in sorted(self.calls.items()) if r == row and k >= 0]
        return [b for b in blocks if all(len(b[role]) == 2 for role in ROLES)]

    def samples(self, row: int) -> tuple[list[float], list[float]]:
        """The row's paired log-ratios (candidate / baseline), one per complete round: time, memory."""
        times, memories = [], []
        for block in self._blocks(row):
            times.append(_mean_log(block, 0, _SHORTEST_CALL))
            memories.append(_mean_log(block, 1, MEMORY_FLOOR))
        return times, memories

    def medians(self, row: int, index: int) -> dict[str, float]:
        values = {role: [call[index] for b in self._blocks(row) for call in b[role]] for role in ROLES}
        return {role: statistics.median(v) for role, v in values.items() if v}

    def complete_rounds(self) -> int:
        return min((len(self._blocks(row)) for row in range(self.rows)), default=0)

    def just_completed_a_round(self) -> bool:
        """Whether the last result completed a round (the last row's second call of each solver)."""
        last = self.calls.get((self.rows - 1, self._last_round()), {})
        return self.in_flight is None and bool(last) and all(len(last[role]) == 2 for role in ROLES)

    def _last_round(self) -> int:
        return max((k for (_, k) in self.calls), default=WARM_UP_ROUND)

    def tight(self) -> bool:
        if self.complete_rounds() < MIN_ROUNDS:
            return False
        estimates = [estimate(self.samples(row)[0]) for row in range(self.rows)]
        return all(e is not None and e.confidence >= CONFIDENCE and e.spread <= TIGHT_SPREAD for e in estimates)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mean_log(block: dict[str, list[tuple[float, int]]], index: int, floor: float) -> float:
    def mean_log(calls: list[tuple[float, int]]) -> float:
        return statistics.fmean(math.log(max(call[index], floor)) for call in calls)

    return mean_log(block[CANDIDATE]) - mean_log(block[BASELINE])


Receive = Callable[[float], object]
"""The next message from the child, waiting at most that many seconds: None when none came in time.
Raises EOFError (with what became of the process) once the child is gone."""


def drive(receive: Receive, recording: Recording, time_limit: float,
          clock: Callable[[], float] = time.monotonic) -> tuple[str, dict | None]:
    """Read the child's messages into ``recording`` until the rounds are done: why they stopped, and
    the failure (role, status, error; row as an index) when a solver could not be measured."""
    deadline = None
    load_deadline = clock() + STARTUP_TIME_LIMIT
    while True:
        now = clock()
        until = load_deadline if deadline is None else deadline
        try:
            message = receive(max(0.0, until - now)) if now < until else None
        except EOFError as exc:
            return STOP_FAILURE, _blame(recording, "crash", str(exc))
        now = clock()
        if message is None:
            if deadline is None:
                return STOP_FAILURE, _blame(recording, "timeout", f"not loaded within {STARTUP_TIME_LIMIT:g} s")
            return _out_of_time(recording, time_limit, now)
        try:
            recording.record(message, now)
        except ValueError as exc:
            return STOP_FAILURE, _blame(recording, "crash", f"the benchmark process sent {exc}")
        if recording.failed is not None:
            row = recording.in_flight[1] if recording.in_flight else None
            return STOP_FAILURE, {**recording.failed, "row": row}
        if recording.loaded and deadline is None:
            deadline = now + time_limit
        if recording.finished:
            return STOP_ROUNDS, None
        if recording.just_completed_a_round() and recording.tight():
            return STOP_TIGHT, None


def _blame(recording: Recording, status: str, error: str) -> dict:
    """A failure of the call under way (or of loading) is its solver's; between calls, nobody's."""
    role, row = (recording.in_flight[0], recording.in_flight[1]) if recording.in_flight else ("", None)
    return {"role": role, "status": status, "error": error, "row": row}


def _out_of_time(recording: Recording, time_limit: float, now: float) -> tuple[str, dict | None]:
    """Out of time, the rounds simply stop, unless a row has no sample yet: then the solver whose
    calls took longer is the one too slow for the limit."""
    if recording.complete_rounds() > 0:
        return STOP_TIME, None
    spent = recording.elapsed(now)
    role = max(ROLES, key=spent.get)
    row = recording.in_flight[1] if recording.in_flight else None
    error = (f"the time limit ({time_limit:g} s) ran out before every row was measured once; the candidate's"
             f" calls took {spent[CANDIDATE]:.3g} s in all, the baseline's {spent[BASELINE]:.3g} s")
    return STOP_FAILURE, {"role": role, "status": "timeout", "error": error, "row": row}


def _ended(exitcode: int | None) -> str:
    if exitcode is None:
        return "the benchmark process stopped answering"
    if exitcode < 0:
        try:
            return f"the benchmark process was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"the benchmark process was killed by signal {-exitcode}"
    return f"the benchmark process exited with status {exitcode}"


@contextmanager
def child_process(job: dict, output: Path | None) -> Iterator[Receive]:
    """The child, started with ``job``; what its solvers print goes to ``output`` (appended), else nowhere."""
    ours, theirs = socket.socketpair()
    command = [sys.executable, "-m", "knapcheck.measure.paired_child", str(os.getpid()), str(theirs.fileno())]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with open(output, "ab") if output is not None else open(os.devnull, "wb") as sink:
        process = lifetime.launch(command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=sink,
                                  stderr=sink, env=environment)
    theirs.close()
    conn = Connection(ours.detach())

    def receive(timeout: float) -> object:
        try:
            if not conn.poll(timeout):
                return None
            data = conn.recv_bytes()
        except (EOFError, OSError):
            try:
                exitcode = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                exitcode = None
            raise EOFError(_ended(exitcode)) from None
        try:
            return json.loads(data)
        except ValueError:
            return data[:80]

    try:
        try:
            conn.send_bytes(json.dumps(job).encode())
        except OSError:
            pass
        yield receive
    finally:
        conn.close()
        lifetime.stop(process)


def _problem(instance: Instance) -> dict:
    return {"memory": list(instance.memory), "runtimes": list(instance.runtimes), "max_memory": instance.max_memory}


def measure_pair(
    candidate: SolverEntry,
    baseline: SolverEntry,
    rows: Sequence[BenchRow] | None = None,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    output: Path | None = None,
    threads: int = DEFAULT_THREADS,
) -> PairResult:
    """Candidate against baseline on ``rows`` (default: ``gate_rows()``): each row's time and memory
    ratio with its interval."""
    rows = gate_rows() if rows is None else rows
    if not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds!r}")
    comparisons = [RowComparison(row.name, row.n, row.capacity) for row in rows]
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
    stopped, failure = STOP_ROUNDS, None
    if measured:
        cuda = "cuda" in (candidate.device, baseline.device)
        job = {"specs": {CANDIDATE: candidate.spec, BASELINE: baseline.spec}, "rounds": max_rounds,
               "memory_limit": None if cuda else MEMORY_LIMIT, "threads": threads,
               "rows": [_problem(row.instances()[0]) for _, row in measured]}
        with child_process(job, output) as receive:
            stopped, failure = drive(receive, recording, time_limit)
    for index, (comparison, _) in enumerate(measured):
        times, memories = recording.samples(index)
        comparison.time, comparison.memory = estimate(times), estimate(memories)
        comparison.seconds, comparison.peak_bytes = recording.medians(index, 0), recording.medians(index, 1)
    if failure is not None:
        row = "" if failure["row"] is None else measured[failure["row"]][0].row
        role = failure["role"]
        failure = BenchFailure(role, names.get(role, ""), failure["status"], row, failure["error"])
    return PairResult(candidate.name, baseline.name, comparisons, recording.complete_rounds(), stopped,
                      time.monotonic() - start, time_limit, load_before, os.getloadavg()[0], os.cpu_count() or 1,
                      failure)
