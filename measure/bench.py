"""Benchmarking solvers side by side: each measurement in its own fresh child process.

A row is a seeded, reproducible instance. For every (row, solver) pair ``run_bench`` starts
``repeats`` fresh processes (``knapcheck.measure.bench_child``, children of
``knapcheck.solvers.isolation.child`` as the correctness workers are: their whole tree capped and
stopped with them), each timing one call and measuring the peak resident memory it added. A
per-call row (``PerCallRow``) is many small problems instead, each solved ``rounds`` times in the
one process, since a fresh process per call of a few microseconds would measure nothing but the
process: its time is the median of all those calls. A child that runs past the time limit is
killed and the pair shows ``timeout``; a pair whose registry entry refuses the size
(``SolverEntry.accepts``) is not run and shows ``too big``. Once a pair fails, its remaining
repeats are skipped, so a full matrix finishes in bounded time. ``knapcheck.reports.bench_table``
shows the medians side by side, with ratios against upstream baselines measured in the same run.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO, Callable, Sequence, cast

from ..fuzz.corpus.harvest_records import harvested_record, load_harvested
from ..solvers.contract import SCALE, Instance
from ..solvers.contract.outcome import CRASHED, OUT_OF_MEMORY, TIMED_OUT
from ..solvers.isolation.child import Child, Ended, environment
from ..solvers.registry import SolverEntry

DEFAULT_TIME_LIMIT = 150.0
"""Seconds one measurement may run (the child's start-up included). A pair's remaining repeats are
skipped after a timeout, so a solver far slower than the others (upstream's sliding solver at
C = 1e7) costs one limit per row, not one per repeat."""
BASELINES = ("torch:dp_knapsack_sliding_hirschberg", "torch:dp_knapsack")
CLOCKS = {"wall": "wall-clock time", "cpu": "CPU time of the measuring process (all its threads)"}
"""What a measurement's time is: ``cpu`` leaves out the time other processes take from it on a
busy machine, and counts every thread of a solver that runs several."""
MEMORY_LIMIT = 4 * 2**30
"""Address space the measured calls may add (``RLIMIT_AS``), and what the measuring process's tree
may hold beyond what it held once its solver was loaded (no tree cap for a CUDA solver): a
runaway allocation fails there instead of swamping the machine."""
RESULT_LIMIT = 1 << 24
"""The longest answer a measuring process may send, in bytes (a per-call row's times included)."""


@dataclass(frozen=True)
class BenchRow:
    """A reproducible instance: n items whose memories sum to ``total_memory``, a budget, a seed.

    Memories are uniform draws scaled to the total; runtimes are integers drawn log-uniformly from
    1e6 to 1e12 (FLOP counts), stored as floats: exact in float64, far beyond float32's 2**24.
    A row with ``harvested`` set is that committed harvested record instead (``harvested_row``).
    """

    name: str
    n: int
    max_memory: float
    total_memory: float = 1.0
    seed: int = 0
    harvested: str = ""
    """The name of a record of the harvested corpus (``gpt24@0.3#0``) whose instance this row is."""

    rounds = 1

    @property
    def capacity(self) -> int:
        return round(self.max_memory * SCALE)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "n", "max_memory", "total_memory", "seed", "harvested")}

    def instances(self) -> list[Instance]:
        return [instance_for(self)]


def harvested_row(name: str) -> BenchRow:
    instance = harvested_record(name).instance
    return BenchRow(name, instance.n, instance.max_memory, total_memory=math.fsum(instance.memory), harvested=name)


@dataclass(frozen=True)
class HarvestedRow:
    """The ``BenchRow`` of a committed harvested record, named before it is read: the corpus is read
    when the row is first measured, not when the rows are listed (``knapcheck bench --help``)."""

    name: str
    rounds = 1

    @property
    def harvested(self) -> str:
        return self.name

    @property
    def n(self) -> int:
        return harvested_row(self.name).n

    @property
    def max_memory(self) -> float:
        return harvested_row(self.name).max_memory

    @property
    def total_memory(self) -> float:
        return harvested_row(self.name).total_memory

    @property
    def capacity(self) -> int:
        return harvested_row(self.name).capacity

    def as_dict(self) -> dict:
        return harvested_row(self.name).as_dict()

    def instances(self) -> list[Instance]:
        return [instance_for(self)]


HARVESTED_ROWS = ("gpt24@0.3#0", "resnet50@0.3#0", "bert@0.3#0", "moe@0.3#0")
"""The real-size models' knapsacks at budget 0.3, from the committed corpus (fuzz/corpus/harvested_large)."""


def _pisinger_instance(family: str, n: int, data_range: int, seed: int) -> Instance:
    from ..fuzz.instances.pisinger import generate

    weights, profits, capacity = generate(family, n, data_range, seed, integral=True)
    return Instance(tuple(w / SCALE for w in weights), tuple(map(float, profits)), capacity / SCALE)


@dataclass(frozen=True)
class PisingerRow:
    """Instances of a Pisinger class at his sizes (``knapcheck.fuzz.instances.pisinger.generate``): weights in
    [1, data_range] quantized units, the middle capacity (h = 50 of 100), integer profits as
    genhard.c makes them; ``seeds`` instances, of seeds ``seed``, ``seed + 1``, ..., each solved once
    (the row's time is their median; each one's time is kept too)."""

    name: str
    family: str
    n: int
    data_range: int
    seed: int = 0
    seeds: int = 1
    rounds = 1

    @property
    def capacity(self) -> int:
        return max(round(i.max_memory * SCALE) for i in self.instances())

    def as_dict(self) -> dict:
        return {"kind": "pisinger", **{k: getattr(self, k) for k in ("name", "family", "n", "data_range", "seed", "seeds")}}

    def instances(self) -> list[Instance]:
        seeds = range(self.seed, self.seed + self.seeds)
        return [_pisinger_instance(self.family, self.n, self.data_range, seed) for seed in seeds]


@dataclass(frozen=True)
class PerCallRow:
    """Small problems timed call by call in one process: the harvested corpus (``source="harvested"``),
    or ``count`` seeds of each Pisinger class in ``source`` (comma-separated) with ``items`` items and
    R = 1000. Each problem is solved ``rounds`` times, round after round; n and C are the largest."""

    name: str
    source: str
    rounds: int
    items: int = 0
    count: int = 0

    @property
    def n(self) -> int:
        return max(i.n for i in self.instances())

    @property
    def capacity(self) -> int:
        return max(round(i.max_memory * SCALE) for i in self.instances())

    def as_dict(self) -> dict:
        return {"kind": "per_call", **{k: getattr(self, k) for k in ("name", "source", "rounds", "items", "count")}}

    def instances(self) -> list[Instance]:
        if self.source == "harvested":
            return [record.instance for record in load_harvested()]
        families = self.source.split(",")
        return [_pisinger_instance(f, self.items, 1000, seed) for f in families for seed in range(self.count)]


Row = BenchRow | HarvestedRow | PisingerRow | PerCallRow


def row_from_dict(data: dict) -> Row:
    data = dict(data)
    kind = data.pop("kind", "partitioner")
    return {"partitioner": BenchRow, "pisinger": PisingerRow, "per_call": PerCallRow}[kind](**data)


def _partitioner_rows() -> list[BenchRow]:
    return [BenchRow(f"n={n} budget={b}", n, b) for n in (100, 500, 2000) for b in (0.1, 0.5, 0.9)]


PARTITIONER_ROWS: list[BenchRow] = _partitioner_rows()
"""Partitioner scale: normalized memories, C <= 10 000."""
LARGE_ROWS: list[BenchRow] = [
    BenchRow("n=1000 C=1e6", 1000, 100.0, total_memory=200.0),
    BenchRow("n=2000 C=1e7", 2000, 1000.0, total_memory=2000.0),
]
"""Large budgets: memories summing to twice the budget."""
REAL_SIZE_ROWS: list[HarvestedRow] = [HarvestedRow(name) for name in HARVESTED_ROWS]
"""Real partitioner instances of the real-size models."""
ROWS: list[BenchRow | HarvestedRow] = PARTITIONER_ROWS + LARGE_ROWS + REAL_SIZE_ROWS
"""The fixed matrix ``knapcheck bench`` runs by default."""
PREPARE_ROW = BenchRow("prepare", 40, 0.5)
PREPARE_TIME_LIMIT = 600.0
"""Before any measurement, each solver runs once on this row, untimed and with this time limit, so
that a JIT compiler's on-disk cache (numba's, for expanding_core) is filled before the measured
processes start: they load the compiled code in their warm-up instead of compiling it there, which
could take longer than the time limit."""
CUDA_ROWS: list[BenchRow] = [BenchRow("n=2000 C=1e8", 2000, 10_000.0, total_memory=20_000.0)]
"""Rows ``knapcheck bench --device cuda`` adds: budgets only a GPU solves in seconds."""

PISINGER_CLASSES = (
    "pisinger_uncorrelated",
    "pisinger_weakly_correlated",
    "pisinger_strongly_correlated",
    "pisinger_inverse_strongly_correlated",
    "pisinger_almost_strongly_correlated",
    "pisinger_subset_sum",
    "pisinger_spanner_weakly_correlated",
    "pisinger_multiple_strongly_correlated",
    "pisinger_profit_ceiling",
    "pisinger_circle",
)
"""The classic classes and the hard ones of "Where are the hard knapsack problems?" (spanner,
mstr, pceil, circle; one spanner class stands for the three)."""
PISINGER_ROWS: list[PisingerRow] = [
    PisingerRow(f"{family.removeprefix('pisinger_')} n={n} R={r}", family, n, r)
    for n, r in ((1000, 1000), (10_000, 10_000))
    for family in PISINGER_CLASSES
]
EVERY_PISINGER_CLASS = (
    *PISINGER_CLASSES[:6],
    "pisinger_even_odd",
    "pisinger_similar_weights",
    "pisinger_spanner_uncorrelated",
    "pisinger_spanner_weakly_correlated",
    "pisinger_spanner_strongly_correlated",
    *PISINGER_CLASSES[7:],
)
"""Every class ``knapcheck.fuzz.instances.pisinger.ITEMS`` names, in its order, named here so that listing the
rows (``knapcheck bench --help``) imports no generator."""
CLASS_SIZES = (50, 200, 1000, 10_000)
CLASS_RANGES = (1000, 10_000, 1_000_000)
CLASS_SEEDS = 5
"""Instances per row of the pisinger-classes group: a cell's geometric mean is over these, not one
instance's noise."""
CLASS_ROWS: list[PisingerRow] = [
    PisingerRow(f"{family.removeprefix('pisinger_')} n={n} R={r}", family, n, r, seeds=CLASS_SEEDS)
    for family in EVERY_PISINGER_CLASS
    for n in CLASS_SIZES
    for r in CLASS_RANGES
]
"""Every class ``knapcheck.fuzz.instances.pisinger`` generates, at each of Pisinger's sizes and data ranges:
the rows the expanding-core search is held to (no class far slower than the uncorrelated one)."""
SMALL_CLASSES = "pisinger_uncorrelated,pisinger_weakly_correlated,pisinger_strongly_correlated,pisinger_subset_sum"
SMALL_ROWS: list[PerCallRow] = [
    PerCallRow("harvested corpus", "harvested", rounds=200),
    *(PerCallRow(f"small n={n}", SMALL_CLASSES, rounds, n, count=5) for n, rounds in ((10, 200), (20, 100), (50, 20))),
]
"""Problems of the partitioner's size, per call: real ones, and Pisinger's classic classes (5 seeds each)."""
TINY_SIZES = (10, 20, 30)
TINY_ROWS: list[PerCallRow] = [
    SMALL_ROWS[0],
    *(PerCallRow(f"tiny n={n}", SMALL_CLASSES, 50, n, count=5) for n in TINY_SIZES),
]
"""Problems of at most 30 items, per call, where a call's fixed costs are most of its time: the
harvested corpus, and 5 instances of each of the small rows' classes at each of ``TINY_SIZES`` items
(R = 1000). (Not every class: OR-Tools' branch and bound, the baseline these rows are for, takes
20 ms to 0.1 s a call on even-odd and spanner instances of 20 items, and minutes on some of 30.)"""
ROW_GROUPS: dict[str, list] = {
    "partitioner": PARTITIONER_ROWS,
    "large": LARGE_ROWS,
    "real-size": REAL_SIZE_ROWS,
    "pisinger": PISINGER_ROWS,
    "pisinger-classes": CLASS_ROWS,
    "small": SMALL_ROWS,
    "tiny": TINY_ROWS,
}
"""Names ``knapcheck bench --rows`` takes for a group of rows."""
GROUP_SUMMARIES: dict[str, str] = {
    "pisinger-classes": f"{len(CLASS_ROWS)} rows \"CLASS n=N R=R\" of {CLASS_SEEDS} instances each:"
    f" CLASS each of the {len(EVERY_PISINGER_CLASS)} Pisinger classes"
    f" (the pisinger_ families without that prefix), N in {', '.join(map(str, CLASS_SIZES))},"
    f" R in {', '.join(map(str, CLASS_RANGES))}",
}
"""How ``knapcheck bench --help`` lists a group too large to name row by row."""


def instance_for(row: dict | BenchRow | HarvestedRow) -> Instance:
    row = BenchRow(**row) if isinstance(row, dict) else row
    if row.harvested:
        return harvested_record(row.harvested).instance
    row = cast(BenchRow, row)  # a HarvestedRow names its record: it returned above
    rng = random.Random(f"{row.seed}:{row.n}:{row.max_memory}:{row.total_memory}")
    raw = [rng.random() for _ in range(row.n)]
    memory = tuple(row.total_memory * r / sum(raw) for r in raw)
    runtimes = tuple(float(round(10 ** rng.uniform(6, 12))) for _ in range(row.n))
    return Instance(memory, runtimes, row.max_memory)


@dataclass
class Cell:
    """The measurements of one solver on one row."""

    solver: str
    row: str
    seconds: list[float] = field(default_factory=list)
    peak_bytes: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    problem_seconds: list[list[float]] = field(default_factory=list)
    """Per repeat, each of the row's problems' own time (its median over the row's rounds)."""
    failure: str = ""
    """Why the solver could not run the row (empty when every repeat ran)."""

    @property
    def ran(self) -> bool:
        return not self.failure and bool(self.seconds)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_peak(self) -> float:
        return statistics.median(self.peak_bytes)


@dataclass
class BenchResult:
    rows: list[Row]
    solvers: list[str]
    repeats: int
    time_limit: float
    cells: dict[tuple[str, str], Cell]
    clock: str = "wall"

    def cell(self, solver: str, row: Row) -> Cell:
        return self.cells[(solver, row.name)]


def measure_once(entry: SolverEntry, row: Row, time_limit: float, clock: str = "wall") -> dict:
    """One fresh child process, one call: a dict with status and, when ok, seconds (on ``clock``,
    one of ``CLOCKS``) and peak_bytes. The time limit is always wall-clock time, the child's
    start-up included."""
    deadline = time.monotonic() + time_limit
    job = {"solver": entry.name, "row": row.as_dict(), "clock": clock, "memory_limit": MEMORY_LIMIT}
    with tempfile.TemporaryFile() as output:
        child = Child.launch(["-m", "knapcheck.measure.bench_child"], [], variables=environment(), output=output.fileno(),
                             memory_limit=None if entry.device == "cuda" else MEMORY_LIMIT, who="the measuring process")
        try:
            try:
                child.send(json.dumps(job).encode())
            except OSError:
                pass  # the child is gone: awaiting its handshake says how it ended
            ready = child.await_ready(time_limit)
            if not isinstance(ready, Ended) and ready.pid is None:
                return {"status": "error", "error": ready.error}
            answer = ready if isinstance(ready, Ended) else child.receive(RESULT_LIMIT, deadline - time.monotonic())
            if isinstance(answer, Ended):
                return _ended(answer, child, output, time_limit)
        finally:
            child.stop()
    try:
        result = json.loads(answer)
    except ValueError:
        result = None
    if not isinstance(result, dict) or not isinstance(result.get("status"), str):
        return {"status": "crash", "error": f"the measuring process sent {answer[:80]!r} where it should have sent its result"}
    return result


def _ended(ended: Ended, child: Child, output: IO[bytes], time_limit: float) -> dict:
    """What a measurement that gave no result says: a timeout, the tree over its memory cap, or
    the process killed by a signal or ended otherwise, with what it printed last."""
    if ended.kind == TIMED_OUT:
        return {"status": f"timeout > {time_limit:g} s"}
    output.seek(0)
    printed = output.read().decode(errors="replace").strip()[-500:]
    if ended.kind == OUT_OF_MEMORY:
        return {"status": "out of memory", "error": ended.error}
    returncode = child.process.poll()
    killed = ended.kind == CRASHED and returncode is not None and returncode < 0
    return {"status": "killed" if killed else "crash", "error": printed or ended.error}


def run_bench(
    entries: Sequence[SolverEntry],
    rows: Sequence[Row] = ROWS,
    repeats: int = 3,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    clock: str = "wall",
    progress: Callable[[str], None] | None = None,
) -> BenchResult:
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    for entry in entries:
        measure_once(entry, PREPARE_ROW, PREPARE_TIME_LIMIT)
    cells: dict[tuple[str, str], Cell] = {}
    for row in rows:
        for entry in entries:
            cell = cells[(entry.name, row.name)] = Cell(entry.name, row.name)
            if not entry.accepts(row.n, row.capacity):
                cell.failure = "too big"
            for attempt in range(repeats if not cell.failure else 0):
                result = measure_once(entry, row, time_limit, clock)
                if result["status"] != "ok":
                    cell.failure = result["status"]
                    break
                cell.seconds.append(result["seconds"])
                cell.problem_seconds.append(result["problem_seconds"])
                cell.peak_bytes.append(result["peak_bytes"])
                cell.values.append(result["value"])
            if progress:
                shown = cell.failure or f"{cell.median_seconds:.3g} s"
                progress(f"{row.name}: {entry.name}: {shown}")
    return BenchResult(list(rows), [e.name for e in entries], repeats, time_limit, cells, clock)
