"""A campaign's work, in units a lost worker can give back; they run on Dask workers.

- ``FUZZ``: one instance family, one seed, one time slice: Hypothesis draws instances in the nightly
  profile (not derandomized, unbounded examples, the shared example database,
  ``hypothesis.target`` toward budget overshoot, value gap and profile magnitude); the oracle
  answers each instance once and every target is judged on it.
- ``REPLAY``: stored failures checked again.
- ``SHRINK``: one failure shrunk to a minimal instance that fails the same way.

A unit reports through ``emit`` as it goes, in typed events (``knapcheck.fuzz.campaign_events``,
JSON text on the queue: nothing a worker sends is unpickled by the campaign), and only to the
campaign process, which alone writes the failure store: each failure the moment it is found (the put returns once the scheduler holds
it, before the next instance is drawn), verdict counts every ``FLUSH_SECONDS``. Killing its worker
loses at most the instance it was on and the counts since the last flush.

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
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target

from knapcheck.fuzz import families
from knapcheck.fuzz.campaign_events import Disagreement, Event, Found, Replayed, Started, Tally, Trying, encode
from knapcheck.fuzz.differential import Check, check, size_allows
from knapcheck.fuzz.example_database import open_database
from knapcheck.fuzz.overshoot import Overshoots
from knapcheck.fuzz.plain_check import check_from_plain, check_to_plain
from knapcheck.fuzz.shrink import minimal_reproduction
from knapcheck.fuzz.signature import Signature
from knapcheck.fuzz.store import record_name
from knapcheck.oracles.optimum import optimum
from knapcheck.solvers.contract import SCALE, Instance
from knapcheck.solvers.entry import SolverEntry

FUZZ, REPLAY, SHRINK = "fuzz", "replay", "shrink"
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


@dataclass(frozen=True)
class Unit:
    id: int
    kind: str
    attempt: int = 1
    family: str = ""
    seed: int = 0
    seconds: float = 0.0
    replays: tuple[tuple[str, str, str, dict], ...] = ()
    """REPLAY: stored failures as (solver, verdict, family, instance)."""
    failure: dict | None = None
    """SHRINK: the failing check, as plain data (``knapcheck.fuzz.plain_check``)."""

    @property
    def careful(self) -> bool:
        return self.attempt > 1

    def describe(self) -> str:
        if self.kind == FUZZ:
            return f"fuzz {self.family} (seed {self.seed}, {self.seconds:.0f} s)"
        if self.kind == REPLAY:
            return f"replay of {len(self.replays)} stored failures"
        return f"shrink {self.failure['solver']} {self.failure['judgement']['verdict']}"

    @classmethod
    def shrinking(cls, unit_id: int, failure: Check) -> "Unit":
        return cls(unit_id, SHRINK, failure=check_to_plain(failure))


def isolated_entries(entries, call_limit: float) -> tuple[SolverEntry, ...]:
    """The entries, each run in its worker process under the campaign's per-call limit."""
    return tuple(replace(e, isolate=True, time_limit=call_limit) for e in entries)


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
        self.until = setup.deadline
        if unit.kind == FUZZ:
            self.until = min(setup.deadline, time.time() + unit.seconds)
        self.counts = {e.name: Counter() for e in self.entries}
        self.overshoots = Overshoots()
        self.cases = self.verified = 0
        self.flushed = time.monotonic()
        self.stopping = False
        self.emitted: dict[Signature, str] = {}

    def run(self) -> dict:
        self.emit(Started(self.unit.id, self.unit.attempt, os.getpid(), socket.gethostname()))
        {FUZZ: self.fuzz, REPLAY: self.replay, SHRINK: self.shrink}[self.unit.kind]()
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

        def examine(instance: Instance) -> None:
            if self.over():
                raise _TurnOver
            self.examine(instance, name)

        nightly = settings(NIGHTLY, database=open_database(self.setup.database))
        test = nightly(given(families.strategy(name))(examine))
        # Two of Hypothesis's internals: one database key per family, whatever the unit (so every
        # worker shares what the others saved), and this unit's seed without ``@seed``, which would
        # turn the database off.
        test.hypothesis.inner_test._hypothesis_internal_add_digest = name.encode()
        test._hypothesis_internal_use_seed = self.unit.seed
        try:
            test()
        except _TurnOver:
            pass

    def examine(self, instance: Instance, name: str) -> None:
        if self.unit.careful:
            self.emit(Trying(self.unit.id, instance))
        oracle = optimum(instance)
        done = []
        for entry in self.entries:
            if not size_allows(entry, instance):
                continue
            result = check(entry, instance, name, oracle)
            self.disagreement(result)
            done.append(result)
            self.counts[entry.name][result.verdict.value] += 1
            self.overshoots.add(entry.name, name, instance, result.judgement.memory_slack)
            if result.failed:
                self.found(result)
        self.cases += 1
        self.verified += oracle.proven
        _aim(instance, done)

    def replay(self) -> None:
        for solver, verdict, name, instance in self.unit.replays:
            if self.over():
                return
            instance = Instance.from_dict(instance)
            if self.unit.careful:
                self.emit(Trying(self.unit.id, instance))
            done = check(self.by_name[solver], instance, name)
            self.disagreement(done)
            self.counts[solver][done.verdict.value] += 1
            self.cases += 1
            self.verified += done.oracle.proven
            self.emit(Replayed(self.unit.id, verdict, done))

    def shrink(self) -> None:
        failure = check_from_plain(self.unit.failure, self.by_name)
        smaller = minimal_reproduction(failure, give_up=self.over)
        if smaller.failed and Signature.of(smaller) == Signature.of(failure) and smaller.instance != failure.instance:
            self.found(smaller, shrunk=True)


def _aim(instance: Instance, checks: list[Check]) -> None:
    """Steer Hypothesis toward what exposes defects: overshoot, value gap, magnitudes near type limits."""
    overshoot = max((c.judgement.excess or 0 for c in checks), default=0)
    slack = max((c.judgement.memory_slack or 0.0 for c in checks), default=0.0)
    target(float(overshoot) + slack * SCALE, label="budget overshoot (quantized units)")
    best = max((float(c.oracle.value) for c in checks), default=0.0)
    gap = max((max(0.0, c.judgement.gap or 0.0) for c in checks), default=0.0)
    target(gap / max(abs(best), 1.0), label="relative value gap")
    total = math.fsum(r for r in instance.runtimes if r > 0)
    if total > 0:
        bits = math.log2(total)
        target(-min(abs(bits - limit) for limit in TYPE_LIMITS_BITS), label="profile magnitude near a type limit")


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
