"""Nightly fuzz campaigns on Dask: the campaign process hands out units and writes every finding.

The campaign process starts (or connects to) a Dask cluster (``knapcheck.fuzz.campaign_cluster``), warms its
workers up, then keeps every worker thread busy with one unit (``knapcheck.fuzz.campaign_units``): first the
replays of the failures already stored, then (family, seed, time slice) shards in turn, and a
shrinking unit for the first failure of each new signature. Units report to it through a Dask
queue; it alone writes the failure store, each finding the moment it arrives (``FailureStore``
writes atomically), and only then says so. A unit whose worker died is retried, careful, and
counted; one that keeps killing workers is given up and reported (``knapcheck.fuzz.unit_ledger``).

Time: units start no instance after the deadline; the campaign then waits for the ones still on an
instance, at most ``grace_seconds(call_limit)`` (a call in flight at the deadline may have to start
its isolated worker, then may run up to the per-call limit), and stops whatever is left.

The result is data (``CampaignResult``); ``knapcheck.reports.campaign_report`` renders it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import pickle
import secrets
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

from distributed import Event, Queue
from distributed.scheduler import KilledWorker

from knapcheck.fuzz import families
from knapcheck.fuzz.campaign_cluster import campaign_cluster, warm_up_workers
from knapcheck.fuzz.campaign_units import FUZZ, REPLAY, SHRINK, Setup, Unit, decode_check, encode_check, run_unit
from knapcheck.fuzz.differential import Check, CheckResult
from knapcheck.fuzz.overshoot import Overshoots
from knapcheck.fuzz.store import BadFile, FailureStore, Signature, StoredFailure, record_name, write_atomically
from knapcheck.fuzz.unit_ledger import LostUnit, UnitLedger
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation import DEFAULT_TIME_LIMIT, STARTUP_TIME_LIMIT

DEFAULT_CALL_LIMIT = DEFAULT_TIME_LIMIT
"""Seconds one isolated call may take (``--call-limit``)."""
MAX_SLICE_SECONDS = 20.0
MIN_SLICE_SECONDS = 1.0
"""Shards are cut so that every family gets its turns; none shorter than this starts."""
REPLAYS_PER_UNIT = 10
SHUTDOWN_SECONDS = 15.0
"""Time to collect the last reports and stop the cluster."""
STOP_WAIT_SECONDS = 5.0
"""After Ctrl-C, how long units get to send what they have before the cluster is stopped."""
POLL_SECONDS = 0.1
WORKERS_POLL_SECONDS = 1.0
UNITS_PER_THREAD = 2
"""Units in flight per worker thread: one running and the next already waiting on the worker, so a
worker does not sit idle between units while the campaign process notices and submits the next."""

NEW, KNOWN, FIXED, UNTARGETED, UNCHECKED = "new", "known", "fixed", "untargeted", "unchecked"


def grace_seconds(call_limit: float) -> float:
    """How long after ``--time`` a campaign may still run: an isolated worker's start, one call, the shutdown."""
    return STARTUP_TIME_LIMIT + call_limit + SHUTDOWN_SECONDS


@dataclass(frozen=True)
class CampaignPlan:
    entries: list[SolverEntry]
    families: list[str]
    duration: float
    store: Path
    """Where the failure store is (``knapcheck.fuzz.store``)."""
    database: str | None
    """Hypothesis's example database (``knapcheck.fuzz.example_database``); None: none (reproducible runs)."""
    jobs: int = 1
    """Workers of the local cluster (ignored with ``scheduler``)."""
    scheduler: str | None = None
    """An existing cluster's scheduler address; None: a local cluster of ``jobs`` workers."""
    seed: int | None = None
    call_limit: float = DEFAULT_CALL_LIMIT
    worker_output: Path | None = None
    """Where the local cluster's workers write their output (solver chatter); None: nowhere."""

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if not self.duration > 0:
            raise ValueError(f"duration must be > 0 seconds, got {self.duration!r}")
        if not self.call_limit > 0:
            raise ValueError(f"call_limit must be > 0 seconds, got {self.call_limit!r}")
        if not self.families:
            raise ValueError("families must name at least one instance family")
        for name in self.families:
            families.get(name)


@dataclass(frozen=True)
class Progress:
    elapsed: float
    remaining: float
    cases: int
    verified: int
    counts: dict[str, Counter]
    workers: int
    stored: int
    """Failure files written so far."""
    troubles: int
    """Units retried or lost, and workers lost, so far."""

    @property
    def rate(self) -> float:
        return self.cases / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True)
class Finding:
    """One signature in the store after the campaign, and what this run made of it."""

    status: str
    """new (first stored in this run), known (stored before, failed again), fixed (stored before,
    replayed and passed, never failed this run), unchecked (stored before, targeted, not replayed:
    time ran out or its unit was lost), untargeted (stored for a solver not in this run)."""
    stored: StoredFailure
    replayed: str | None = None
    """The verdict the stored instance got when replayed, if it was."""
    check: Check | None = None
    """A check of the smallest failing instance this run saw (new and known findings)."""


@dataclass
class CampaignResult:
    tally: CheckResult
    """Verdict counts per solver over every case of the run (instances = cases)."""
    families: list[str]
    cluster: str
    duration: float
    elapsed: float
    verified: int
    seed: int
    call_limit: float
    grace: float
    findings: list[Finding] = field(default_factory=list)
    oracle_disagreements: list[Path] = field(default_factory=list)
    workers_lost: list[str] = field(default_factory=list)
    units_retried: list[LostUnit] = field(default_factory=list)
    units_lost: list[LostUnit] = field(default_factory=list)
    store_errors: list[str] = field(default_factory=list)
    bad_files: list[BadFile] = field(default_factory=list)
    interrupted: bool = False

    @property
    def rate(self) -> float:
        return self.tally.instances / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def verified_rate(self) -> float:
        return self.verified / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def as_asked(self) -> bool:
        """Nothing lost: no worker, no unit, no finding the store could not take."""
        return not (self.workers_lost or self.units_retried or self.units_lost or self.store_errors)

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.status in (NEW, KNOWN)]

    def our_failures(self) -> list[Finding]:
        return [f for f in self.failing() if f.stored.ours]


def campaign_entries(entries: list[SolverEntry], call_limit: float) -> tuple[SolverEntry, ...]:
    """Targets as a campaign runs them: ours in the worker process, everything else isolated under
    the per-call limit."""
    return tuple(
        replace(e, isolate=True, time_limit=call_limit) if e.isolate or not e.ours else e for e in entries
    )


def _digest(text: str) -> int:
    """A stable 63-bit number for a text (Python's own str hash changes from process to process)."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big") >> 1


def slice_seconds(duration: float, threads: int, families: list[str]) -> float:
    """How long a shard runs: enough turns for every family across the campaign's worker threads."""
    share = duration * threads / len(families)
    return max(MIN_SLICE_SECONDS, min(MAX_SLICE_SECONDS, duration, share))


def shard(unit_id: int, index: int, campaign_seed: int, families: list[str], seconds: float) -> Unit:
    """The campaign's ``index``-th (family, seed, time slice) shard: families in turn, a seed each."""
    return Unit(unit_id, FUZZ, family=families[index % len(families)], seed=_digest(f"{campaign_seed}/{index}"), seconds=seconds)


class _Campaign:
    def __init__(self, plan: CampaignPlan, on_progress, on_message, stop_requested, progress_every: float) -> None:
        self.plan = plan
        self.on_progress = on_progress
        self.say = on_message
        self.stop_requested = stop_requested
        self.progress_every = progress_every
        self.seed = plan.seed if plan.seed is not None else secrets.randbits(63)
        self.entries = campaign_entries(plan.entries, plan.call_limit)
        self.by_name = {e.name: e for e in self.entries}
        self.store = FailureStore(plan.store)
        self.ledger = UnitLedger()
        self.counts = {e.name: Counter() for e in self.entries}
        self.overshoots = Overshoots()
        self.cases = self.verified = self.stored_files = 0
        self.pending: deque[Unit] = deque()
        self.next_id = 0
        self.shrinking: set[Signature] = set()
        self.failing: set[Signature] = set()
        self.best: dict[Signature, Check] = {}
        self.replayed: dict[Signature, Check] = {}
        self.unstored: dict[Signature, Check] = {}
        self.disagreements: list[Path] = []
        self.store_errors: list[str] = []
        self.workers_lost: list[str] = []
        self.interrupted = False

    def _unit(self, kind: str, **fields) -> Unit:
        self.next_id += 1
        return Unit(self.next_id, kind, **fields)

    def run(self) -> CampaignResult:
        self.store.prune()
        self.before = self.store.groups()
        for bad in self.store.bad_files:
            self.say(f"unreadable file in the failure store set aside: {bad.path} -> {bad.moved_to} ({bad.reason})")
        targeted = [s for s in self.before.values() if s.solver in self.by_name]
        self.say(f"replaying {len(targeted)} stored failures first ({len(self.before) - len(targeted)} stored for other solvers)")
        replays = [(s.solver, s.verdict, s.family, s.instance.as_dict()) for s in targeted]
        for start in range(0, len(replays), REPLAYS_PER_UNIT):
            self.pending.append(self._unit(REPLAY, replays=tuple(replays[start : start + REPLAYS_PER_UNIT])))
        plan = self.plan
        workers = "1 worker" if plan.jobs == 1 else f"{plan.jobs} workers"
        cluster = f"scheduler {plan.scheduler}" if plan.scheduler else f"local cluster of {workers}"
        in_worker = any(not e.isolate for e in self.entries)
        with campaign_cluster(plan.jobs, plan.scheduler, plan.worker_output, with_torch=in_worker) as client:
            warm_up_workers(client, self.entries)
            self.workers = client.nthreads()
            name = f"knapcheck-{uuid.uuid4().hex}"
            self.events = Queue(f"{name}-events", client=client)
            self.stop_event = Event(f"{name}-stop", client=client)
            self.start = time.monotonic()
            self.setup = Setup(self.entries, time.time() + plan.duration, plan.database, self.events.name,
                               self.stop_event.name, plan.call_limit)
            self.say(f"fuzzing for {plan.duration:g} s on the {cluster} ({sum(self.workers.values())} worker threads)")
            self._loop(client)
        elapsed = time.monotonic() - self.start
        self.store.prune()
        findings = self._findings()
        tally = CheckResult(
            solvers=list(self.entries),
            counts=self.counts,
            findings=[f.check for f in findings if f.check is not None],
            overshoots=self.overshoots,
            instances=self.cases,
        )
        return CampaignResult(
            tally=tally,
            families=list(plan.families),
            cluster=cluster,
            duration=plan.duration,
            elapsed=elapsed,
            verified=self.verified,
            seed=self.seed,
            call_limit=plan.call_limit,
            grace=grace_seconds(plan.call_limit),
            findings=findings,
            oracle_disagreements=self.disagreements,
            workers_lost=self.workers_lost,
            units_retried=self.ledger.retried,
            units_lost=self.ledger.lost,
            store_errors=self.store_errors,
            bad_files=list(self.store.bad_files),
            interrupted=self.interrupted,
        )

    def _shards(self) -> Iterator[Unit]:
        seconds = slice_seconds(self.plan.duration, max(1, sum(self.workers.values())), self.plan.families)
        for index in itertools.count():
            self.next_id += 1
            yield shard(self.next_id, index, self.seed, self.plan.families, seconds)

    def _loop(self, client) -> None:
        futures: dict[int, tuple[Unit, object]] = {}
        shards = self._shards()
        deadline = self.start + self.plan.duration
        cutoff = deadline + grace_seconds(self.plan.call_limit)
        shown = polled = time.monotonic()
        stopping_since = None

        def submit(unit: Unit) -> None:
            self.ledger.submitted(unit)
            key = f"{self.events.name}-{unit.id}-{uuid.uuid4().hex[:8]}"
            futures[unit.id] = unit, client.submit(run_unit, self.setup, unit, key=key, pure=False)

        while True:
            now = time.monotonic()
            self._drain()
            for unit_id, (unit, future) in list(futures.items()):
                if future.status == "pending":
                    continue
                del futures[unit_id]
                if future.status == "error":
                    retry = self._failed(unit, future.exception())
                    if retry is not None:
                        self.pending.appendleft(retry)
                elif future.status != "finished":
                    self.ledger.give_up(unit_id, f"the scheduler reports it {future.status}")
                    self.say(f"{unit.describe()}: the scheduler reports it {future.status}")
            if stopping_since is None and self.stop_requested():
                stopping_since = now
                self.interrupted = True
                self.stop_event.set()
                self.say("stopping: interrupted")
            if now - polled >= WORKERS_POLL_SECONDS:
                polled = now
                self._poll_workers(client)
            threads = sum(self.workers.values())
            while stopping_since is None and len(futures) < max(1, threads) * UNITS_PER_THREAD:
                if self.pending and now < deadline:
                    submit(self.pending.popleft())
                elif deadline - now >= MIN_SLICE_SECONDS:
                    submit(next(shards))
                else:
                    break
            if not futures and (now >= deadline or stopping_since is not None):
                break
            late = stopping_since is not None and now - stopping_since > STOP_WAIT_SECONDS
            if now > cutoff or late:
                for unit_id, (unit, future) in futures.items():
                    future.cancel()
                    if not late:
                        self.ledger.give_up(unit_id, f"still running {cutoff - deadline:.0f} s after the deadline: stopped")
                        self.say(f"a unit was still running {cutoff - deadline:.0f} s after the deadline: stopped")
                break
            if now - shown >= self.progress_every:
                shown = now
                self.on_progress(self._progress(now, deadline))
            time.sleep(POLL_SECONDS)
        self._drain()
        self.on_progress(self._progress(time.monotonic(), deadline))

    def _progress(self, now: float, deadline: float) -> Progress:
        troubles = len(self.ledger.retried) + len(self.ledger.lost) + len(self.workers_lost)
        return Progress(now - self.start, max(0.0, deadline - now), self.cases, self.verified, self.counts,
                        len(self.workers), self.stored_files, troubles)

    def _poll_workers(self, client) -> None:
        current = client.nthreads()
        for address in sorted(set(self.workers) - set(current)):
            self.workers_lost.append(address)
            self.say(f"worker {address} is gone")
        self.workers = current

    def _failed(self, unit: Unit, error: BaseException) -> Unit | None:
        """What to submit again after a unit raised: its retry when its worker died under it."""
        if not isinstance(error, KilledWorker):
            self.ledger.give_up(unit.id, f"raised {type(error).__name__}: {error}")
            self.say(f"{unit.describe()} failed: {type(error).__name__}: {error}")
            return None
        retry = self.ledger.killed_worker(unit.id)
        if retry is None:
            lost = self.ledger.lost[-1]
            where = f"; it was on {json.dumps(lost.instance)}" if lost.instance else ""
            self.say(f"given up: {lost.unit}: {lost.reason}{where}")
        elif retry.attempt > unit.attempt:
            self.say(f"{unit.describe()}: its worker died; retrying it (attempt {retry.attempt}, careful)")
        return retry

    def _drain(self) -> None:
        for event in self.events.get(batch=True):
            getattr(self, f"_on_{event['kind']}")(event)

    def _on_started(self, event: dict) -> None:
        self.ledger.started(event["unit"], event["attempt"])

    def _on_trying(self, event: dict) -> None:
        self.ledger.trying(event["unit"], event["instance"])

    def _on_tally(self, event: dict) -> None:
        for name, verdicts in event["counts"].items():
            self.counts[name].update(verdicts)
        self.overshoots.merge(pickle.loads(event["overshoots"]))
        self.cases += event["cases"]
        self.verified += event["verified"]

    def _on_finding(self, event: dict) -> None:
        self._record(decode_check(event["check"]), shrunk=event["shrunk"])

    def _on_replayed(self, event: dict) -> None:
        done = decode_check(event["check"])
        self.replayed[done.solver.name, event["verdict"]] = done
        self.say(f"replayed {done.solver.name} {event['verdict']}: now {done.verdict.value}")
        if done.failed:
            self._record(done, shrunk=False)

    def _on_disagreement(self, event: dict) -> None:
        path = self.store.root / "oracle-disagreements" / f"{_digest(json.dumps(event['instance'])):x}.json"
        record = {k: event[k] for k in ("family", "solver", "message", "instance")}
        try:
            write_atomically(path, json.dumps(record, indent=1))
        except OSError as exc:
            self.store_errors.append(f"{path}: {exc}")
            self.say(f"ORACLE DISAGREEMENT, CANNOT STORE it at {path} ({exc}): {json.dumps(record)}")
            return
        self.disagreements.append(path)
        self.say(f"ORACLE DISAGREEMENT stored at {path}: {event['message']}")

    def _record(self, done: Check, shrunk: bool) -> None:
        signature = done.signature
        self.failing.add(signature)
        known = self.best.get(signature)
        if known is None or record_name(done.instance) < record_name(known.instance):
            self.best[signature] = done
        try:
            path = self.store.record(done)
        except OSError as exc:
            self.unstored[signature] = self.best[signature]
            self.store_errors.append(f"{signature[0]} {signature[1]}: {exc}")
            self.say(f"CANNOT STORE {signature[0]} {signature[1]}: {exc} (kept in the report)")
            path = None
        if path is not None:
            self.stored_files += 1
            new = " NEW" if signature not in self.before else ""
            self.say(f"stored {done.solver.name} {done.verdict.value} (family {done.family}, n={done.instance.n}){new} -> {path}")
        entry = self.by_name[done.solver.name]
        if done.verdict is Verdict.CRASH and not entry.isolate:
            self.by_name[entry.name] = replace(entry, isolate=True, time_limit=self.plan.call_limit)
            self.entries = tuple(self.by_name.values())
            self.setup = replace(self.setup, entries=self.entries)
            self.say(f"{entry.name} crashed its worker process: isolated from now on")
        if not shrunk and signature not in self.shrinking and done.verdict is not Verdict.TIMEOUT:
            # The first failure of each signature in this run, a replayed one included: a failure
            # found too late to be shrunk in its run is shrunk in the next.
            self.shrinking.add(signature)
            self.pending.appendleft(self._unit(SHRINK, failure=encode_check(done)))

    def _findings(self) -> list[Finding]:
        findings = []
        groups = self.store.groups()
        for signature, check in self.unstored.items():
            if signature not in groups:
                findings.append(Finding(NEW, StoredFailure.of(check), None, check))
        for signature, stored in sorted(groups.items()):
            replayed = self.replayed.get(signature)
            verdict = replayed.verdict.value if replayed is not None else None
            if stored.solver not in self.by_name:
                findings.append(Finding(UNTARGETED, stored))
            elif signature in self.failing:
                candidates = [c for c in (self.best.get(signature), replayed) if c is not None]
                exact = [c for c in candidates if c.instance == stored.instance]
                status = KNOWN if signature in self.before else NEW
                findings.append(Finding(status, stored, verdict, (exact or candidates)[0]))
            elif replayed is not None:
                findings.append(Finding(FIXED, stored, verdict))
            else:
                findings.append(Finding(UNCHECKED, stored))
        return findings


def run_campaign(
    plan: CampaignPlan,
    *,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    on_message: Callable[[str], None] = lambda message: None,
    stop_requested: Callable[[], bool] = lambda: False,
    progress_every: float = 1.0,
) -> CampaignResult:
    """Run a campaign; ``stop_requested`` (polled) ends it early with a partial result (Ctrl-C).

    CampaignCannotStart (``knapcheck.fuzz.campaign_cluster``, one line) when the scheduler cannot be reached
    or a target cannot be loaded.
    """
    return _Campaign(plan, on_progress, on_message, stop_requested, progress_every).run()
