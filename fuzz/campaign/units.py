"""A campaign's work, in units a lost worker can give back; they run on Dask workers.

- ``FUZZ``: one sampled instance family, one seed, one time slice: Hypothesis draws instances,
  DRAWN_TOGETHER to an example, in the nightly profile (not derandomized, unbounded examples, the shared example database,
  ``hypothesis.target`` toward budget overshoot, value gap and profile magnitude); the oracle
  answers each instance once, and every target is judged on it and on its metamorphic images
  (``knapcheck.fuzz.judging.verdicts.metamorphic``: reversed, a heavier item added, a free item added,
  runtimes tripled),
  whose optima follow from its own: each image is a case. A campaign run with ``--seed``
  draws with the seeded provider (``knapcheck.fuzz.instances.seeded_draws``): the same seed, the same
  instances in any process, whatever it imported.
- ``LIST``: a slice of an enumerated family's fixed list, each instance once, in order.
- ``REPLAY``: stored failures checked again (against the baseline too, in a campaign with one).
- ``SHRINK``: one failure shrunk to a minimal instance with the same differential signature.

With baselines, every instance is also judged on each target's counterpart baseline
(``knapcheck.fuzz.judging.verdicts.gate.pair``), and a target's failure carries the baseline's check of the same
instance: its signature is (target, verdict, baseline verdict). The baselines' own failures are
counted, never sent as findings.

A unit reports through ``emit`` as it goes, in typed events (``knapcheck.fuzz.campaign.events``,
JSON text on the queue: nothing a worker sends is unpickled by the campaign), and only to the
campaign process, which alone writes the failure store: each failure the moment it is found (the put returns once the scheduler holds
it, before the next instance is drawn), verdict counts every ``FLUSH_SECONDS``. A FUZZ unit's
images of one example are called while Hypothesis draws the next and judged before it is
checked. Killing its worker loses at most the example it was on (its instances and the images of
the one before) and the counts since the last flush.

A unit's second and later attempts (the first died with its worker) run *careful*: every target
isolated, ours too, so a solver that kills the process it runs in becomes a CRASH verdict instead
of killing the next worker; and each instance is announced before it is checked, so a unit that
keeps killing workers is reported with the instance it was on. A FUZZ unit is seeded, so its
retry draws the same instances again.
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Callable, Sequence, cast

from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
from hypothesis import strategies as st

from ...oracles.optimum import optimum
from ...oracles.result import OracleResult
from ...solvers.contract import SCALE, Instance
from ...solvers.entry import SolverEntry
from ..corpus.known_failures import KnownFailure
from ..instances import families
from ..instances.seeded_draws import BACKEND
from ..judging.judge import Judge
from ..judging.known.by_cause import Causes
from ..judging.plain_check import check_from_plain, check_to_plain
from ..judging.verdicts.differential import Called, Check
from ..judging.verdicts.metamorphic import images
from ..judging.verdicts.overshoot import Overshoots
from ..judging.verdicts.signature import Signature
from ..runs.chunk_calls import call_all, next_chunk_size
from .events import Disagreement, Event, Found, Replayed, Started, Tally, Trying, encode
from .example_database import open_database
from .store import record_name

FUZZ, LIST, REPLAY, SHRINK = "fuzz", "list", "replay", "shrink"
DRAWN_TOGETHER = 16
"""Instances a FUZZ unit draws in one Hypothesis example (one when careful): Hypothesis's cost per
example, its targeting above all, is shared by them, and each isolated target gets them in one
pipeline (``knapcheck.solvers.isolation.worker.Worker.call_many``)."""
FLUSH_SECONDS = 1.0
"""How often a unit sends its verdict counts (and checks whether it is asked to stop)."""
TYPE_LIMITS_BITS = (24, 53)
"""Where float32 and float64 stop holding every integer: the profile magnitudes worth aiming at."""

NIGHTLY = settings(
    derandomize=False,
    max_examples=10**9,
    deadline=None,
    database=None,
    phases=[Phase.reuse, Phase.generate, Phase.target],
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
    verbosity=Verbosity.quiet,
)
settings.register_profile("nightly", NIGHTLY)


@dataclass(frozen=True)
class Setup:
    """What every unit of one campaign shares."""

    entries: tuple[SolverEntry, ...]
    """The targets, as they run: isolated or not, with the campaign's per-call limit."""
    deadline: float
    """``time.time()`` at which units stop starting new instances."""
    database: str | None
    """Hypothesis's example database: a directory, a ``redis://`` URL, or None (no database)."""
    events: str
    """Name of the Dask queue units report to."""
    stop: str
    """Name of the Dask event that asks units to stop early (Ctrl-C)."""
    call_limit: float
    """Seconds one isolated call may take."""
    counterparts: dict[str, str] = field(default_factory=dict)
    """Target name -> the name of its counterpart baseline (among ``entries``); empty without baselines."""
    seeded: bool = False
    """A run with a fixed seed: FUZZ units draw with the seeded provider (the same instances in any process)."""
    cases: tuple[KnownFailure, ...] = ()
    """The known-failure corpus, whose causes are the baselines' known defects: a target's failure its
    baseline does not share is judged by them (``knapcheck.fuzz.judging.known.by_cause``), as check and report do."""

    @property
    def baselines(self) -> set[str]:
        return set(self.counterparts.values())


@dataclass(frozen=True)
class Unit:
    id: int
    kind: str
    attempt: int = 1
    family: str = ""
    seed: int = 0
    seconds: float = 0.0
    start: int = 0
    stop: int = 0
    """LIST: the slice of the family's list to check."""
    replays: tuple[tuple[Signature, str, dict], ...] = ()
    """REPLAY: stored failures as (the signature they are stored under, family, instance)."""
    failure: dict | None = None
    """SHRINK: the failing check, as plain data (``knapcheck.fuzz.judging.plain_check``)."""

    @property
    def careful(self) -> bool:
        return self.attempt > 1

    def describe(self) -> str:
        if self.kind == FUZZ:
            return f"fuzz {self.family} (seed {self.seed}, {self.seconds:.0f} s)"
        if self.kind == LIST:
            return f"list {self.family} [{self.start}:{self.stop}]"
        if self.kind == REPLAY:
            return f"replay of {len(self.replays)} stored failures"
        failure = cast(dict, self.failure)  # a shrink unit holds its failure (``shrinking``)
        return f"shrink {failure['solver']} {failure['judgement']['verdict']}"

    @classmethod
    def shrinking(cls, unit_id: int, failure: Check) -> "Unit":
        return cls(unit_id, SHRINK, failure=check_to_plain(failure))


def isolated_entries(entries, call_limit: float) -> tuple[SolverEntry, ...]:
    """The entries, each run in its worker process under the campaign's per-call limit."""
    return tuple(replace(e, isolate=True, time_limit=call_limit) for e in entries)


_Images = tuple[list[Instance], list[list[SolverEntry]], dict[str, list[Called | None]],
                list[OracleResult]]
"""What ``call_on_images`` hands ``decide``: the chunk of images, the entries runnable on each, their outcomes, the optima."""


class _TurnOver(BaseException):
    """Ends a unit's Hypothesis run from inside the test (a BaseException, so Hypothesis lets it through)."""


class UnitRun:
    """One attempt at one unit, in this process."""

    def __init__(self, setup: Setup, unit: Unit, emit: Callable[[Event], None], stop_requested: Callable[[], bool]) -> None:
        self.setup = setup
        self.unit = unit
        self.emit = emit
        self.stop_requested = stop_requested
        self.entries = isolated_entries(setup.entries, setup.call_limit) if unit.careful else setup.entries
        self.by_name = {e.name: e for e in self.entries}
        self.counterparts = {solver: self.by_name[baseline] for solver, baseline in setup.counterparts.items()}
        self.causes = Causes(list(dict.fromkeys(self.counterparts.values())), setup.cases)
        self.judge = Judge(self.counterparts, self.causes)
        self.until = setup.deadline
        if unit.kind == FUZZ:
            self.until = min(setup.deadline, time.time() + unit.seconds)
        self.counts: dict[str, Counter[str]] = {e.name: Counter() for e in self.entries}
        self.overshoots = Overshoots()
        self.cases = self.verified = 0
        self.flushed = time.monotonic()
        self.stopping = False
        self.emitted: dict[Signature, str] = {}
        self.images: Future[_Images] | None = None
        """A FUZZ unit's last example's images, called in the background (``call_on_images``)."""

    def run(self) -> dict:
        self.emit(Started(self.unit.id, self.unit.attempt, os.getpid(), socket.gethostname()))
        with (ThreadPoolExecutor(max_workers=max(1, len(self.entries)), thread_name_prefix="knapcheck-call") as self.pool,
              ThreadPoolExecutor(max_workers=1, thread_name_prefix="knapcheck-images") as self.background):
            {FUZZ: self.fuzz, LIST: self.listed, REPLAY: self.replay, SHRINK: self.shrink}[self.unit.kind]()
        self.flush()
        return {"unit": self.unit.id, "attempt": self.unit.attempt}

    def over(self) -> bool:
        """Whether to stop; called between instances, it also sends the counts when they are due."""
        if time.monotonic() - self.flushed >= FLUSH_SECONDS:
            self.flush()
        return self.stopping or time.time() >= self.until

    def flush(self) -> None:
        counts = {name: dict(c) for name, c in self.counts.items() if c}
        if counts or self.cases:
            self.emit(Tally(self.unit.id, counts, self.cases, self.verified, self.overshoots))
        self.counts = {e.name: Counter() for e in self.entries}
        self.overshoots = Overshoots()
        self.cases = self.verified = 0
        self.flushed = time.monotonic()
        self.stopping = self.stopping or self.stop_requested()

    def found(self, failure: Check, shrunk: bool = False) -> None:
        """Send a failure at once, unless this unit already sent one of that signature at least as small."""
        name = record_name(failure.instance)
        signature = Signature.of(failure)
        sent = self.emitted.get(signature)
        if sent is not None and sent <= name:
            return
        self.emitted[signature] = name
        self.emit(Found(self.unit.id, failure, shrunk))

    def disagreement(self, done: Check) -> None:
        """Send an oracle finding: the check showed the oracle, not the solver, wrong."""
        if done.oracle_disagreement:
            self.emit(Disagreement(self.unit.id, done.family, done.solver.name, done.oracle_disagreement, done.instance))

    def fuzz(self) -> None:
        name = self.unit.family

        def examine(instances: list[Instance]) -> None:
            if self.over():
                raise _TurnOver
            if self.unit.careful:
                cases = [case for instance in instances for case in _with_images(instance)]
                _aim(instances, self.examine_all([i for i, _ in cases], name, [get for _, get in cases]))
                return
            self.judge_images()
            checks = self.examine_all(instances, name)
            if not self.over():
                self.images = self.background.submit(self.call_on_images, instances)
            _aim(instances, checks)

        nightly = settings(NIGHTLY, database=open_database(self.setup.database))
        if self.setup.seeded:
            nightly = settings(nightly, backend=BACKEND)
        size = 1 if self.unit.careful else DRAWN_TOGETHER
        test = nightly(given(st.lists(families.strategy(name), min_size=size, max_size=size))(examine))
        # Two of Hypothesis's internals: one database key per family, whatever the unit (so every
        # worker shares what the others saved), and this unit's seed without ``@seed``, which would
        # turn the database off.
        test.hypothesis.inner_test._hypothesis_internal_add_digest = name.encode()  # type: ignore[attr-defined]  # set by @given, untyped
        test._hypothesis_internal_use_seed = self.unit.seed  # type: ignore[attr-defined]  # read by Hypothesis, untyped
        try:
            test()
        except _TurnOver:
            pass
        finally:
            self.judge_images()

    def call_on_images(self, instances: list[Instance]) -> _Images:
        """Every target and baseline on the instances' metamorphic images, in the background while
        Hypothesis draws the next example (``judge_images`` judges them): the chunk, the entries
        runnable on each image, their outcomes and the images' optima."""
        cases = [case for instance in instances for case in _with_images(instance)[1:]]
        chunk = [image for image, _ in cases]
        runnable = [self.judge.runnable(self.entries, image) for image in chunk]
        outcomes, oracles = call_all(self.entries, chunk, runnable, [False] * len(chunk), self.pool,
                                     lambda: [get() for _, get in cases])
        return chunk, runnable, outcomes, oracles

    def judge_images(self) -> None:
        """Judge the images called in the background, if any are (the first thing a FUZZ unit does
        before its next example, and the last before it ends)."""
        if self.images is not None:
            images, self.images = self.images, None
            self.decide(*images.result(), self.unit.family)

    def listed(self) -> None:
        name = self.unit.family
        listing = cast(Callable[[], Sequence[Instance]], families.get(name).listing)  # a LIST unit's family has a listing
        self.examine_all(list(listing()[self.unit.start : self.unit.stop]), name)

    def examine_all(self, instances: list[Instance], name: str,
                    optima: list[Callable[[], OracleResult]] | None = None) -> list[Check]:
        """Every target and baseline on the instances, in chunks (``next_chunk_size``), until the
        unit is over; the checks made. ``optima``: how to get each instance's optimum where it
        follows from another's (a metamorphic image's); the oracle is asked otherwise."""
        checks: list[Check] = []
        position, size = 0, 1
        while position < len(instances) and not (position and self.over()):
            chunk = instances[position : position + size]
            began = time.monotonic()
            of_chunk = None if optima is None else optima[position : position + size]
            checks += self.examine(chunk, name, of_chunk)
            position += len(chunk)
            size = 1 if self.unit.careful else next_chunk_size(size, time.monotonic() - began)
        return checks

    def examine(self, chunk: list[Instance], name: str, optima: list[Callable[[], OracleResult]] | None = None) -> list[Check]:
        """Every target and baseline on each instance of the chunk (each isolated target's calls
        sent to its worker together, one Outcome each, while the oracle answers here); each
        target's failure sent with its baseline's check of the same instance, instance by
        instance. A careful unit checks one instance at a time, announced first."""
        if self.unit.careful:
            for instance in chunk:
                self.emit(Trying(self.unit.id, instance))
        runnable = [self.judge.runnable(self.entries, instance) for instance in chunk]
        getters: list[Callable[[], OracleResult]] = optima or [partial(optimum, instance) for instance in chunk]
        outcomes, oracles = call_all(self.entries, chunk, runnable, [False] * len(chunk), self.pool,
                                     lambda: [get() for get in getters])
        return self.decide(chunk, runnable, outcomes, oracles, name)

    def decide(self, chunk: list[Instance], runnable: list[list[SolverEntry]], outcomes: dict, oracles: list[OracleResult],
               name: str) -> list[Check]:
        """Each instance's checks, counted, and the targets' failures sent, instance by instance."""
        checks: list[Check] = []
        baselines = self.setup.baselines
        for k, instance in enumerate(chunk):
            oracle = oracles[k]
            done = self.judge.outcomes(instance, name, oracle, [(entry, outcomes[entry.name][k]) for entry in runnable[k]])
            for result in done.values():
                self.disagreement(result)
                self.counts[result.solver.name][result.verdict.value] += 1
                self.overshoots.add(result.solver.name, name, instance, result.judgement.memory_slack)
            for solver, result in done.items():
                if result.failed and solver not in baselines:
                    self.found(result)
            self.cases += 1
            self.verified += oracle.proven
            checks += done.values()
        return checks

    def replay(self) -> None:
        for stored, name, plain in self.unit.replays:
            if self.over():
                return
            instance = Instance.from_dict(plain)
            if self.unit.careful:
                self.emit(Trying(self.unit.id, instance))
            solver = stored.solver
            done = self.judge.called(self.by_name[solver], instance, name)
            self.disagreement(done)
            self.counts[solver][done.verdict.value] += 1
            if done.baseline is not None:
                self.disagreement(done.baseline)
                self.counts[done.baseline.solver.name][done.baseline.verdict.value] += 1
            self.cases += 1
            self.verified += done.oracle.proven
            self.emit(Replayed(self.unit.id, stored, done))

    def shrink(self) -> None:
        """The failure shrunk keeping its signature, known defects included: a regression stays one."""
        failure = check_from_plain(self.unit.failure, self.by_name)
        wanted = Signature.of(failure)
        smaller = self.causes.shrunk_keeping_causes(failure, self.over)
        if smaller.failed and Signature.of(smaller) == wanted and smaller.instance != failure.instance:
            self.found(smaller, shrunk=True)


def _with_images(instance: Instance) -> list[tuple[Instance, Callable[[], OracleResult]]]:
    """The drawn instance and its metamorphic images, each with how to get its optimum: the
    oracle's answer on the drawn instance (asked once: ``optimum`` remembers it), or what follows
    from it."""
    return [(instance, lambda: optimum(instance)),
            *((image.instance, lambda image=image: image.optimum_from(optimum(instance))) for image in images(instance))]


def _aim(instances: list[Instance], checks: list[Check]) -> None:
    """Steer Hypothesis toward what exposes defects: overshoot, value gap, magnitudes near type
    limits (the most any of the instances drawn together shows)."""
    overshoot = max((c.judgement.excess or 0 for c in checks), default=0)
    slack = max((c.judgement.memory_slack or 0.0 for c in checks), default=0.0)
    target(float(overshoot) + slack * SCALE, label="budget overshoot (quantized units)")
    best = max((float(c.oracle.value) for c in checks), default=0.0)
    gap = max((max(0.0, c.judgement.gap or 0.0) for c in checks), default=0.0)
    target(gap / max(abs(best), 1.0), label="relative value gap")
    nearest = [-min(abs(math.log2(total) - limit) for limit in TYPE_LIMITS_BITS)
               for total in (math.fsum(r for r in instance.runtimes if r > 0) for instance in instances) if total > 0]
    if nearest:
        target(max(nearest), label="profile magnitude near a type limit")


@lru_cache(maxsize=None)
def _queue(name: str):
    from distributed import Queue, get_client

    return Queue(name, client=get_client())


@lru_cache(maxsize=None)
def _event(name: str):
    from distributed import Event, get_client

    return Event(name, client=get_client())


def run_unit(setup: Setup, unit: Unit) -> dict:
    """The Dask task: one attempt at ``unit``, reporting to the campaign's queue as JSON text."""
    queue = _queue(setup.events)
    return UnitRun(setup, unit, lambda event: queue.put(encode(event)), _event(setup.stop).is_set).run()
