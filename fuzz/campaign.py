"""Nightly fuzz campaigns: worker processes run the differential check over every family.

Each worker first replays its share of the stored failures, then takes the families in turn, a
time slice each, drawing instances with Hypothesis in the nightly profile (not derandomized, a
huge ``max_examples``, a persistent example database, ``hypothesis.target`` toward budget
overshoot, value gap and profile magnitude). The oracle answers each instance once and every
target solver is judged on it. A failure goes to the ``FailureStore`` before anything else
happens, then the first of each signature is shrunk and the smaller instance stored too.

Workers are forked processes of this campaign (so a solver registered in this process is theirs
too); they report counts and stored failures to the parent through a queue, and die with it. The
parent returns a ``CampaignResult``; ``reports.campaign_report`` renders it.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import queue as queues
import signal
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings, target
from hypothesis.database import DirectoryBasedExampleDatabase

from fuzz.differential import Check, CheckResult, check, size_allows
from fuzz.shrink import minimal_reproduction
from fuzz.store import FailureStore, Signature, StoredFailure, write_atomically
from fuzz.families import strategy
from oracles.optimum import optimum
from oracles.verdict import Judgement, Verdict
from solvers.contract import SCALE, Instance
from solvers.registry import SolverEntry

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

MAX_SLICE_SECONDS = 60.0
"""Longest turn one family gets before the worker moves on to the next."""
FLUSH_SECONDS = 0.5
"""How often a worker sends its counts to the parent."""
GRACE_SECONDS = 30.0
"""How long past the deadline the parent waits for a worker to finish shrinking."""
TYPE_LIMITS_BITS = (24, 53)
"""Where float32 and float64 stop holding every integer: the profile magnitudes worth aiming at."""

NEW, KNOWN, FIXED, UNTARGETED = "new", "known", "fixed", "untargeted"


class _TurnOver(BaseException):
    """Ends a family's turn from inside a Hypothesis test (a BaseException, so Hypothesis lets it through)."""


@dataclass(frozen=True)
class Progress:
    elapsed: float
    remaining: float
    cases: int
    verified: int
    counts: dict[str, Counter]

    @property
    def rate(self) -> float:
        return self.cases / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True)
class Finding:
    """One signature in the store after the campaign, and what this run made of it."""

    status: str
    """new (first seen in this run), known (stored before, failed again), fixed (stored before,
    targeted, never failed this run), untargeted (stored before for a solver not in this run)."""
    stored: StoredFailure
    replayed: str | None = None
    """The verdict the stored instance got when replayed at the start, if it was."""
    check: Check | None = None
    """The stored instance checked once more at the end (new and known findings)."""


@dataclass
class CampaignResult:
    tally: CheckResult
    """Verdict counts per solver over every case of the run (instances = cases)."""
    families: list[str]
    jobs: int
    duration: float
    elapsed: float
    verified: int
    findings: list[Finding] = field(default_factory=list)
    oracle_disagreements: list[Path] = field(default_factory=list)
    lost_workers: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.tally.instances / self.elapsed if self.elapsed > 0 else 0.0

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.status in (NEW, KNOWN)]

    def our_failures(self) -> list[Finding]:
        return [f for f in self.failing() if f.stored.ours]


@dataclass(frozen=True)
class _Job:
    index: int
    entries: list[SolverEntry]
    families: list[str]
    deadline: float
    turn: float
    db: Path
    replay: list[StoredFailure]
    seed: int | None
    parent: int


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when the campaign process dies, however it dies."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _Worker:
    def __init__(self, job: _Job, events) -> None:
        self.job = job
        self.events = events
        self.store = FailureStore(job.db)
        self.shrunk: set[Signature] = set()
        self.counts = {e.name: Counter() for e in job.entries}
        self.cases = 0
        self.verified = 0
        self.flushed = time.monotonic()
        self.settings = settings(NIGHTLY, database=DirectoryBasedExampleDatabase(job.db / "hypothesis"))

    def run(self) -> None:
        self.replay()
        rotation = self.job.families[self.job.index % len(self.job.families) :]
        rotation += self.job.families[: self.job.index % len(self.job.families)]
        turn = 0
        while not self.over():
            for name in rotation:
                if self.over():
                    break
                self.fuzz(name, min(self.job.deadline, time.monotonic() + self.job.turn), turn)
            turn += 1
        self.flush()

    def over(self) -> bool:
        return time.monotonic() >= self.job.deadline or os.getppid() != self.job.parent

    def replay(self) -> None:
        by_name = {e.name: e for e in self.job.entries}
        for stored in self.job.replay:
            done = check(by_name[stored.solver], stored.instance, stored.family)
            if done.oracle_disagreement:
                self.disagreement(done)
            self.counts[done.solver.name][done.verdict.value] += 1
            self.cases += 1
            self.verified += done.oracle.proven
            self.events.put(("replayed", stored.solver, stored.verdict, done.verdict.value))
            if done.failed:
                self.found(done)

    def fuzz(self, name: str, until: float, turn: int) -> None:
        def examine(instance: Instance) -> None:
            if time.monotonic() >= until or self.over():
                raise _TurnOver
            self.examine(instance, name)

        test = settings(self.settings)(given(strategy(name))(examine))
        test.hypothesis.inner_test._hypothesis_internal_add_digest = name.encode()
        if self.job.seed is not None:
            test = seed(_digest(f"{self.job.seed}/{self.job.index}/{turn}/{name}"))(test)
        try:
            test()
        except _TurnOver:
            pass

    def examine(self, instance: Instance, name: str) -> None:
        oracle = optimum(instance)
        done = []
        for entry in self.job.entries:
            if not size_allows(entry, instance):
                continue
            result = check(entry, instance, name, oracle)
            if result.oracle_disagreement:
                self.disagreement(result)
            done.append(result)
            self.counts[entry.name][result.verdict.value] += 1
            if result.failed:
                self.found(result)
        self.cases += 1
        self.verified += oracle.proven
        _aim(instance, done)
        if time.monotonic() - self.flushed >= FLUSH_SECONDS:
            self.flush()

    def found(self, failure: Check) -> None:
        """Store first; only then tell the parent, and shrink the first of each signature."""
        path = self.store.record(failure)
        if path is not None:
            self.events.put(("stored", failure.solver.name, failure.verdict.value, failure.family, failure.instance.n, str(path)))
        if failure.signature in self.shrunk:
            return
        self.shrunk.add(failure.signature)
        smaller = minimal_reproduction(failure, give_up=self.over)
        if smaller.failed and smaller.signature == failure.signature:
            self.found(smaller)

    def disagreement(self, found: Check) -> None:
        path = self.job.db / "oracle-disagreements" / f"{_digest(repr(found.instance)):x}.json"
        message = found.oracle_disagreement
        record = {"family": found.family, "solver": found.solver.name, "message": message, "instance": found.instance.as_dict()}
        write_atomically(path, json.dumps(record, indent=1))
        self.events.put(("disagreement", str(path), message))

    def flush(self) -> None:
        counts = {name: dict(c) for name, c in self.counts.items() if c}
        self.events.put(("tally", counts, self.cases, self.verified))
        self.counts = {e.name: Counter() for e in self.job.entries}
        self.cases = self.verified = 0
        self.flushed = time.monotonic()


def _digest(text: str) -> int:
    """A stable 64-bit number for a text (Python's own str hash changes from process to process)."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")


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


def _work(job: _Job, events) -> None:
    _die_with_parent()
    try:
        _Worker(job, events).run()
    except BaseException:
        events.put(("lost", job.index, traceback.format_exc()))
        raise
    finally:
        events.put(("done", job.index))


def run_campaign(
    entries: list[SolverEntry],
    families: list[str],
    duration: float,
    jobs: int,
    db: Path,
    *,
    seed_value: int | None = None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    on_message: Callable[[str], None] = lambda message: None,
    progress_every: float = 1.0,
) -> CampaignResult:
    """Fuzz ``entries`` over ``families`` for ``duration`` seconds in ``jobs`` processes."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if not families:
        raise ValueError("families must name at least one instance family")
    for name in families:
        strategy(name)
    store = FailureStore(db)
    store.prune()
    before = store.groups()
    names = {e.name for e in entries}
    replay = [s for s in before.values() if s.solver in names]
    on_message(f"replaying {len(replay)} stored failures first ({len(before) - len(replay)} stored for other solvers)")

    start = time.monotonic()
    deadline = start + duration
    turn = max(1.0, min(MAX_SLICE_SECONDS, duration / len(families)))
    context = multiprocessing.get_context("fork")
    events = context.Queue()
    workers = []
    for index in range(jobs):
        job = _Job(index, entries, families, deadline, turn, Path(db), replay[index::jobs], seed_value, os.getpid())
        worker = context.Process(target=_work, args=(job, events), name=f"knapcheck-fuzz-{index}")
        worker.start()
        workers.append(worker)

    counts = {e.name: Counter() for e in entries}
    cases = verified = 0
    replayed: dict[Signature, str] = {}
    disagreements: list[Path] = []
    lost: list[str] = []
    running = set(range(jobs))
    shown = start

    def handle(event: tuple) -> None:
        nonlocal cases, verified
        kind = event[0]
        if kind == "tally":
            for name, verdicts in event[1].items():
                counts[name].update(verdicts)
            cases += event[2]
            verified += event[3]
        elif kind == "stored":
            _, solver, verdict, family_name, n, path = event
            new = (solver, verdict) not in before
            on_message(f"stored {solver} {verdict} (family {family_name}, n={n}){' NEW' if new else ''} -> {path}")
        elif kind == "replayed":
            _, solver, verdict, now = event
            replayed[(solver, verdict)] = now
            on_message(f"replayed {solver} {verdict}: now {now}")
        elif kind == "disagreement":
            disagreements.append(Path(event[1]))
            on_message(f"ORACLE DISAGREEMENT stored at {event[1]}: {event[2]}")
        elif kind == "lost":
            lost.append(f"worker {event[1]}:\n{event[2]}")
            on_message(f"worker {event[1]} failed:\n{event[2]}")
        elif kind == "done":
            running.discard(event[1])

    while running:
        try:
            handle(events.get(timeout=0.2))
        except queues.Empty:
            pass
        now = time.monotonic()
        if now - shown >= progress_every:
            shown = now
            on_progress(Progress(now - start, max(0.0, deadline - now), cases, verified, counts))
        for index, worker in enumerate(workers):
            if index in running and not worker.is_alive() and worker.exitcode != 0:
                running.discard(index)
                lost.append(f"worker {index} died with exit code {worker.exitcode}")
                on_message(lost[-1])
        if now > deadline + GRACE_SECONDS:
            for index in sorted(running):
                workers[index].terminate()
                on_message(f"worker {index} still busy {GRACE_SECONDS:.0f} s after the deadline: stopped")
            running.clear()
    for worker in workers:
        worker.join()
    while True:
        try:
            handle(events.get_nowait())
        except queues.Empty:
            break
    elapsed = time.monotonic() - start

    store.prune()
    by_name = {e.name: e for e in entries}
    failing_now = {
        (name, verdict)
        for name, verdicts in counts.items()
        for verdict, count in verdicts.items()
        if count and Judgement(Verdict(verdict)).failed(by_name[name].exact)
    }
    findings = []
    for signature, stored in sorted(store.groups().items()):
        entry = by_name.get(stored.solver)
        if entry is None:
            findings.append(Finding(UNTARGETED, stored))
        elif signature in failing_now:
            status = KNOWN if signature in before else NEW
            findings.append(Finding(status, stored, replayed.get(signature), check(entry, stored.instance, stored.family)))
        else:
            findings.append(Finding(FIXED, stored, replayed.get(signature)))
    tally = CheckResult(list(entries), counts, [f.check for f in findings if f.check is not None], cases)
    return CampaignResult(tally, list(families), jobs, duration, elapsed, verified, findings, disagreements, lost)
