"""Nightly fuzz campaigns on Dask: the campaign process hands out units and writes every finding.

The campaign process starts (or connects to) a Dask cluster (``knapcheck.fuzz.campaign.cluster``), warms its
workers up, then keeps every worker thread busy with one unit (``knapcheck.fuzz.campaign.units``): first the
replays of the failures already stored, then the lists of the enumerated families named with
``--families`` (each instance once), then (family, seed, time slice) shards of the sampled
families in turn, and a shrinking unit for the first failure of each new signature. Given
baselines, each target is judged against its counterpart (``knapcheck.fuzz.judging.verdicts.gate.pair``) on every
instance, and its failures are told apart by their differential signature (target, verdict,
baseline verdict); the gate (``knapcheck.fuzz.judging.verdicts.gate.decide``) decides the run's outcome, as it
does for `check` and `report`. Units report to it through a Dask queue; it alone writes the
failure store, each finding the moment it arrives (``FailureStore``
writes atomically), and only then says so. A unit whose worker died is retried, careful, and
counted; one that keeps killing workers is given up and reported (``knapcheck.fuzz.campaign.unit_ledger``).

Time: units start no instance after the deadline; the campaign then waits for the ones still on an
instance, at most ``grace_seconds(call_limit)`` (a call in flight at the deadline may have to start
its isolated worker, then may run up to the per-call limit), and stops whatever is left.

Every fault has one place where it is handled:

- an item on the queue that is not a well-formed event of a unit the campaign submitted
  (``knapcheck.fuzz.campaign.events``): ``_refuse`` counts and reports it; nothing acts on it;
- a finding the store cannot take: ``_record`` keeps it for the report; maintenance the store
  cannot do (a read-only directory): ``_store_errors`` says it;
- a unit whose worker died: ``_unit_failed`` (retried through the ledger);
- a worker that vanished: ``_poll_workers``;
- the scheduler gone (an external one killed): ``_scheduler_lost`` ends the loop; the report is
  written, marked incomplete;
- Ctrl-C: ``_stop``; what the stop itself ends is not counted as lost.

The state the campaign builds up is ``knapcheck.fuzz.campaign.state``'s; the result is data
(``CampaignResult``); ``knapcheck.reports.campaign_report`` renders it.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import secrets
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, cast

from distributed import Event, Future, Queue
from distributed.scheduler import KilledWorker

from ...oracles.verdict import Verdict
from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from ...solvers.isolation.worker import DEFAULT_TIME_LIMIT, STARTUP_TIME_LIMIT
from ..corpus.atomic_write import write_atomically
from ..corpus.known_failures import KnownFailure
from ..instances import families
from ..judging.verdicts.differential import Check, CheckResult, instance_id
from ..judging.verdicts.gate import Decision, decide, pair
from ..judging.verdicts.signature import Signature
from .cluster import TlsFiles, campaign_cluster, warm_up_workers
from .events import Disagreement, Found, MalformedEvent, Replayed, Started, Tally, Trying, decode
from .state import Finding, FindingsBook, Tallies, Troubles
from .store import BadFile, FailureStore
from .unit_ledger import LostUnit, UnitLedger
from .units import FUZZ, LIST, REPLAY, Setup, Unit, run_unit

DEFAULT_CALL_LIMIT = DEFAULT_TIME_LIMIT
"""Seconds one isolated call may take (``--call-limit``)."""
MAX_SLICE_SECONDS = 20.0
MIN_SLICE_SECONDS = 1.0
"""Shards are cut so that every family gets its turns; none shorter than this starts."""
REPLAYS_PER_UNIT = 10
LISTED_PER_UNIT = 500
"""Instances of an enumerated family's list per LIST unit."""
SHUTDOWN_SECONDS = 15.0
"""Time to collect the last reports and stop the cluster."""
STOP_WAIT_SECONDS = 5.0
"""After Ctrl-C, how long units get to send what they have before the cluster is stopped."""
POLL_SECONDS = 0.1
WORKERS_POLL_SECONDS = 1.0
UNITS_PER_THREAD = 2
"""Units in flight per worker thread: one running and the next already waiting on the worker, so a
worker does not sit idle between units while the campaign process notices and submits the next."""
SCHEDULER_LOST_SECONDS = 10.0
"""How long the client may fail to reach an external scheduler before the campaign ends without it."""
DASK_GONE = (OSError, TimeoutError, asyncio.CancelledError)
"""What Dask raises when the scheduler has gone (a closed comm is an OSError)."""


def grace_seconds(call_limit: float) -> float:
    """How long after ``--time`` a campaign may still run: an isolated worker's start, one call, the shutdown."""
    return STARTUP_TIME_LIMIT + call_limit + SHUTDOWN_SECONDS


@dataclass(frozen=True)
class CampaignPlan:
    entries: list[SolverEntry]
    families: list[str]
    duration: float
    store: Path
    """Where the failure store is (``knapcheck.fuzz.campaign.store``)."""
    database: str | None
    """Hypothesis's example database (``knapcheck.fuzz.campaign.example_database``); None: none (reproducible runs)."""
    jobs: int = 1
    """Workers of the local cluster (ignored with ``scheduler``)."""
    scheduler: str | None = None
    """An existing cluster's scheduler address; None: a local cluster of ``jobs`` workers."""
    seed: int | None = None
    call_limit: float = DEFAULT_CALL_LIMIT
    worker_output: Path | None = None
    """Where the local cluster's workers write their output (solver chatter); None: nowhere."""
    tls: TlsFiles = TlsFiles()
    """Certificates for a ``tls://`` scheduler (none given: the Dask configuration's)."""
    baselines: tuple[SolverEntry, ...] = ()
    """What the targets are judged against, instance by instance (``knapcheck.fuzz.judging.verdicts.gate.pair``);
    baselines no target is paired with are not run."""
    corpus_cases: tuple[KnownFailure, ...] = ()
    """The known-failure corpus that tells a failure without a baseline known or new."""

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
        pair(self.entries, self.baselines)

    @property
    def sampled(self) -> list[str]:
        """The families drawn from in time slices."""
        return [name for name in self.families if not families.get(name).enumerated]

    @property
    def listed(self) -> list[str]:
        """The enumerated families, checked in full, each instance once."""
        return [name for name in self.families if families.get(name).enumerated]


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
    """Stopped early when asked (a partial result); ``stopped_by`` says by what."""
    stopped_by: str = "interrupted"
    """Why it was asked to stop: "interrupted" (Ctrl-C) or "terminated" (SIGTERM)."""
    refused_events: int = 0
    """Items on the campaign's queue that were not well-formed events: counted, never acted on."""
    refused_examples: list[str] = field(default_factory=list)
    scheduler_lost: str = ""
    """Why the campaign ended without its scheduler (an external one that died); empty when it did not."""
    counterparts: dict[str, str] = field(default_factory=dict)
    """Target name -> the baseline it was judged against; empty without baselines."""
    gated: list[str] = field(default_factory=list)
    """The solvers whose failures fail the run: every target against a baseline, else ours."""

    @property
    def rate(self) -> float:
        return self.tally.instances / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def verified_rate(self) -> float:
        return self.verified / self.elapsed if self.elapsed > 0 else 0.0

    def problems(self) -> list[str]:
        """What went wrong in the campaign's own machinery, a few words each; empty when nothing did.
        (An interrupted run is partial, which ``interrupted`` says; it is no problem of the machinery.)"""
        counted = [
            (len(self.workers_lost), "worker lost", "workers lost"),
            (len(self.units_retried), "unit retried", "units retried"),
            (len(self.units_lost), "unit lost", "units lost"),
            (len(self.store_errors), "thing the failure store could not take or do", "things the failure store could not take or do"),
            (self.refused_events, "item on the queue refused", "items on the queue refused"),
        ]
        found = ["the scheduler was lost"] if self.scheduler_lost else []
        if not self.tally.instances and not self.interrupted:
            found.append("no case was judged")
        return found + [f"{count} {one if count == 1 else many}" for count, one, many in counted if count]

    @property
    def as_asked(self) -> bool:
        """Nothing lost or refused (no worker, no unit, no finding the store could not take, no
        event, not the scheduler), and at least one case judged."""
        return not self.problems()

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.failing]

    def gate(self) -> Decision:
        """The one gate rule on the run's failing signatures (``knapcheck.fuzz.judging.verdicts.gate.decide``)."""
        checks = [f.check for f in self.failing() if f.check is not None]
        return decide(checks, self.gated, len(self.oracle_disagreements), baseline=bool(self.counterparts))

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


def _listing(name: str) -> Callable[[], Sequence[Instance]]:
    """An enumerated family's listing (every name listing_units is given is one's)."""
    return cast(Callable[[], Sequence[Instance]], families.get(name).listing)


def listing_units(first_id: int, names: list[str]) -> list[Unit]:
    """The enumerated families' lists, in slices of LISTED_PER_UNIT instances, ids from ``first_id``."""
    slices = [(name, start) for name in names
              for start in range(0, len(_listing(name)()), LISTED_PER_UNIT)]
    return [Unit(first_id + index, LIST, family=name, start=start, stop=start + LISTED_PER_UNIT)
            for index, (name, start) in enumerate(slices)]


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
        pairs = pair(plan.entries, plan.baselines)
        self.counterparts = {target: baseline.name for target, baseline in pairs.items()}
        paired = [b for b in plan.baselines if b.name in self.counterparts.values()]
        self.targets = [e.name for e in plan.entries]
        self.entries = campaign_entries(plan.entries + paired, plan.call_limit)
        self.by_name = {e.name: e for e in self.entries}
        self.store = FailureStore(plan.store)
        self.ledger = UnitLedger()
        self.tallies = Tallies({e.name: Counter() for e in self.entries})
        self.troubles = Troubles()
        self.book: FindingsBook
        self.pending: deque[Unit] = deque()
        self.futures: dict[int, tuple[Unit, Future]] = {}
        self.next_id = 0
        self.stopping_since: float | None = None
        self.stopped_by = "interrupted"
        self.unreachable_since: float | None = None
        self.exhausted = False
        """No sampled family, and every list, replay and shrink handed out: the work ends before the time."""
        # Each handler takes the events of its key's type.
        self.handlers: dict[type, Callable[[Any], None]] = {Started: self._on_started, Trying: self._on_trying, Tally: self.tallies.add,
                         Found: self._on_found, Replayed: self._on_replayed, Disagreement: self._on_disagreement}

    def _unit_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def run(self) -> CampaignResult:
        plan = self.plan
        workers = "1 worker" if plan.jobs == 1 else f"{plan.jobs} workers"
        cluster = f"scheduler {plan.scheduler}" if plan.scheduler else f"local cluster of {workers}"
        in_worker = any(not e.isolate for e in self.entries)
        self.start = time.monotonic()
        with campaign_cluster(plan.jobs, plan.scheduler, plan.worker_output, with_torch=in_worker, tls=plan.tls) as client:
            self._replays_first()
            warm_up_workers(client, self.entries)
            self.workers = client.nthreads()
            name = f"knapcheck-{uuid.uuid4().hex}"
            self.events = Queue(f"{name}-events", client=client)
            self.stop_event = Event(f"{name}-stop", client=client)
            self.start = time.monotonic()
            self.setup = Setup(self.entries, time.time() + plan.duration, plan.database, self.events.name,
                               self.stop_event.name, plan.call_limit, self.counterparts, seeded=plan.seed is not None,
                               cases=plan.corpus_cases if self.counterparts else ())
            self.say(f"fuzzing for {plan.duration:g} s on the {cluster} ({sum(self.workers.values())} worker threads;"
                     f" grace after the deadline: up to {grace_seconds(plan.call_limit):g} s)")
            self._loop(client)
        elapsed = time.monotonic() - self.start
        self.store.prune()
        self._store_errors()
        return self._result(cluster, elapsed)

    def _replays_first(self) -> None:
        """Read the store (setting aside what cannot be trusted) and queue its targeted failures' replays."""
        self.store.prune()
        self.book = FindingsBook(self.store.groups())
        for bad in self.store.bad_files:
            where = f"-> {bad.moved_to}" if bad.moved_to else "(left in place: the store cannot be changed)"
            self.say(f"unreadable file in the failure store set aside: {bad.path} {where} ({bad.reason})")
        self._store_errors()
        targeted = [s for s in self.book.before.values() if s.solver in self.targets]
        self.say(f"replaying {len(targeted)} stored failures first ({len(self.book.before) - len(targeted)} stored for other solvers)")
        replays = [(s.signature, s.family, s.instance.as_dict()) for s in targeted]
        for start in range(0, len(replays), REPLAYS_PER_UNIT):
            self.pending.append(Unit(self._unit_id(), REPLAY, replays=tuple(replays[start : start + REPLAYS_PER_UNIT])))
        listed = listing_units(self.next_id + 1, self.plan.listed)
        self.next_id += len(listed)
        self.pending.extend(listed)

    def _result(self, cluster: str, elapsed: float) -> CampaignResult:
        findings = self.book.findings(self.store.groups(), set(self.targets), self.plan.corpus_cases)
        tally = CheckResult(
            solvers=list(self.entries),
            counts=self.tallies.counts,
            findings=[f.check for f in findings if f.check is not None],
            overshoots=self.tallies.overshoots,
            instances=self.tallies.cases,
        )
        plan = self.plan
        return CampaignResult(
            tally=tally,
            families=list(plan.families),
            cluster=cluster,
            duration=plan.duration,
            elapsed=elapsed,
            verified=self.tallies.verified,
            seed=self.seed,
            call_limit=plan.call_limit,
            grace=grace_seconds(plan.call_limit),
            findings=findings,
            oracle_disagreements=self.book.disagreements,
            workers_lost=self.troubles.workers_lost,
            units_retried=self.ledger.retried,
            units_lost=self.ledger.lost,
            store_errors=self.troubles.store_errors,
            bad_files=list(self.store.bad_files),
            interrupted=self.stopping_since is not None,
            stopped_by=self.stopped_by,
            refused_events=self.troubles.refused_events,
            refused_examples=self.troubles.refused_examples,
            scheduler_lost=self.troubles.scheduler_lost,
            counterparts=dict(self.counterparts),
            gated=[name for name in self.targets if self.counterparts or self.by_name[name].ours],
        )

    def _shards(self) -> Iterator[Unit]:
        """The sampled families' shards, in turn, without end (none without a sampled family)."""
        sampled = self.plan.sampled
        if not sampled:
            return
        seconds = slice_seconds(self.plan.duration, max(1, sum(self.workers.values())), sampled)
        for index in itertools.count():
            yield shard(self._unit_id(), index, self.seed, sampled, seconds)

    def _loop(self, client) -> None:
        shards = self._shards()
        deadline = self.start + self.plan.duration
        cutoff = deadline + grace_seconds(self.plan.call_limit)
        shown = polled = time.monotonic()
        while True:
            now = time.monotonic()
            if self._scheduler_answers(client, now):
                try:
                    self._drain()
                    self._collect()
                    reason = self.stop_requested() if self.stopping_since is None else None
                    if reason:
                        self._stop(now, reason if isinstance(reason, str) else "interrupted")
                    if now - polled >= WORKERS_POLL_SECONDS:
                        polled = now
                        self._poll_workers(client)
                    self._fill(client, shards, now, deadline)
                except DASK_GONE as exc:
                    self._scheduler_lost(f"{type(exc).__name__}: {exc}")
            if self.troubles.scheduler_lost:
                break
            if not self.futures and (now >= deadline or self.stopping_since is not None or self.exhausted):
                break
            if self._overdue(now, deadline, cutoff):
                break
            if now - shown >= self.progress_every:
                shown = now
                self.on_progress(self._progress(now, deadline))
            time.sleep(POLL_SECONDS)
        if not self.troubles.scheduler_lost:
            try:
                self._drain()
            except DASK_GONE as exc:
                self._scheduler_lost(f"{type(exc).__name__}: {exc}")
        self.on_progress(self._progress(time.monotonic(), deadline))

    def _scheduler_answers(self, client, now: float) -> bool:
        """Whether to talk to the scheduler this turn: not while the client is reconnecting (a call
        would wait out Dask's connect timeout); past ``SCHEDULER_LOST_SECONDS`` of that, it is lost."""
        if client.status == "running":
            self.unreachable_since = None
            return True
        if self.unreachable_since is None:
            self.unreachable_since = now
        elif now - self.unreachable_since > SCHEDULER_LOST_SECONDS:
            self._scheduler_lost(f"no answer for {SCHEDULER_LOST_SECONDS:g} s (the client is {client.status})")
        return False

    def _scheduler_lost(self, why: str) -> None:
        where = self.plan.scheduler or "of the local cluster"
        self.troubles.scheduler_lost = f"the Dask scheduler {where} was lost after {time.monotonic() - self.start:.0f} s: {why}"
        self.say(f"{self.troubles.scheduler_lost}; ending the campaign with what it has (report marked incomplete)")

    def _stop(self, now: float, reason: str) -> None:
        """Ctrl-C or SIGTERM: units are asked to stop and send what they have; the loop then ends."""
        self.stopping_since = now
        self.stopped_by = reason
        self.stop_event.set()
        self.say(f"stopping: {reason}")

    def _fill(self, client, shards: Iterator[Unit], now: float, deadline: float) -> None:
        threads = sum(self.workers.values())
        while self.stopping_since is None and len(self.futures) < max(1, threads) * UNITS_PER_THREAD:
            unit: Unit | None
            if self.pending and now < deadline:
                unit = self.pending.popleft()
            elif deadline - now >= MIN_SLICE_SECONDS and not self.exhausted:
                unit = next(shards, None)
                if unit is None:
                    self.exhausted = True
                    self.say("no sampled family to draw from: the campaign ends once its lists, replays and shrinks are done")
                    return
            else:
                return
            self.ledger.submitted(unit)
            key = f"{self.events.name}-{unit.id}-{uuid.uuid4().hex[:8]}"
            self.futures[unit.id] = unit, client.submit(run_unit, self.setup, unit, key=key, pure=False)

    def _collect(self) -> None:
        """Take the units that ended: a retry for one whose worker died, a line for one that failed."""
        for unit_id, (unit, future) in list(self.futures.items()):
            if future.status == "pending":
                continue
            del self.futures[unit_id]
            if future.status == "error":
                retry = self._unit_failed(unit, future.exception())
                if retry is not None:
                    self.pending.appendleft(retry)
            elif future.status != "finished":
                self.ledger.give_up(unit_id, f"the scheduler reports it {future.status}")
                self.say(f"{unit.describe()}: the scheduler reports it {future.status}")

    def _overdue(self, now: float, deadline: float, cutoff: float) -> bool:
        """Whether to stop waiting: past the grace after the deadline (units still running are given
        up), or past the time units get to send what they have after Ctrl-C (not counted as lost)."""
        late = self.stopping_since is not None and now - self.stopping_since > STOP_WAIT_SECONDS
        if not (now > cutoff or late):
            return False
        for unit_id, (unit, future) in self.futures.items():
            future.cancel()
            if not late:
                self.ledger.give_up(unit_id, f"still running {cutoff - deadline:.0f} s after the deadline: stopped")
                self.say(f"a unit was still running {cutoff - deadline:.0f} s after the deadline: stopped")
        return True

    def _progress(self, now: float, deadline: float) -> Progress:
        troubles = len(self.ledger.retried) + len(self.ledger.lost) + len(self.troubles.workers_lost)
        return Progress(now - self.start, max(0.0, deadline - now), self.tallies.cases, self.tallies.verified,
                        self.tallies.counts, len(self.workers), self.book.stored_files, troubles)

    def _poll_workers(self, client) -> None:
        current = client.nthreads()
        for address in sorted(set(self.workers) - set(current)):
            self.troubles.workers_lost.append(address)
            self.say(f"worker {address} is gone")
        self.workers = current

    def _unit_failed(self, unit: Unit, error: BaseException) -> Unit | None:
        """What to submit again after a unit raised: its retry when its worker died under it (not
        once the campaign is stopping: then it is lost, and said so)."""
        if not isinstance(error, KilledWorker):
            self.ledger.give_up(unit.id, f"raised {type(error).__name__}: {error}")
            self.say(f"{unit.describe()} failed: {type(error).__name__}: {error}")
            return None
        if self.stopping_since is not None:
            self.ledger.give_up(unit.id, "its worker died while the campaign was stopping; not retried")
            self.say(f"{unit.describe()}: its worker died while the campaign was stopping")
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
        for item in self.events.get(batch=True):
            try:
                event = decode(item, self.by_name)
            except MalformedEvent as exc:
                self._refuse(str(exc))
                continue
            if not self.ledger.knows(event.unit):
                self._refuse(f"a {event.KIND} event of unit {event.unit}, which this campaign never submitted")
                continue
            self.handlers[type(event)](event)

    def _refuse(self, reason: str) -> None:
        if self.troubles.refuse(reason):
            self.say(f"REFUSED an item on the campaign's queue (counted, not acted on): {reason}")

    def _on_started(self, event: Started) -> None:
        self.ledger.started(event.unit, event.attempt)

    def _on_trying(self, event: Trying) -> None:
        self.ledger.trying(event.unit, event.instance.as_dict())

    def _on_found(self, event: Found) -> None:
        self._record(event.check, shrunk=event.shrunk)

    def _on_replayed(self, event: Replayed) -> None:
        done = event.check
        self.book.replayed[event.stored] = done
        now = str(Signature.of(done)) if done.failed else f"passes ({done.verdict.value})"
        self.say(f"replayed {event.stored}: now {now}")
        if done.failed:
            self._record(done, shrunk=False)

    def _on_disagreement(self, event: Disagreement) -> None:
        instance = event.instance.as_dict()
        path = self.store.root / "oracle-disagreements" / f"{_digest(json.dumps(instance)):x}.json"
        record = {"family": event.family, "solver": event.solver, "message": event.message,
                  "instance": {"id": instance_id(event.instance), **instance}}
        try:
            write_atomically(path, json.dumps(record, indent=1))
        except OSError as exc:
            self.troubles.store_error(f"{path}: {exc}")
            self.say(f"ORACLE DISAGREEMENT, CANNOT STORE it at {path} ({exc}): {json.dumps(record)}")
            return
        self.book.disagreements.append(path)
        self.say(f"ORACLE DISAGREEMENT stored at {path}: {event.message}")

    def _store_errors(self) -> None:
        """Say, once each, what the store could not do to its files (a read-only directory)."""
        for error in self.store.errors:
            if self.troubles.store_error(error):
                self.say(f"{error} (the report is written all the same)")

    def _record(self, done: Check, shrunk: bool) -> None:
        signature = self.book.saw(done)
        try:
            path = self.store.record(done)
        except OSError as exc:
            self.book.unstored[signature] = self.book.best[signature]
            self.troubles.store_error(f"{signature}: {exc}")
            self.say(f"CANNOT STORE {signature}: {exc} (kept in the report)")
            path = None
        self._store_errors()
        if path is not None:
            self.book.stored_files += 1
            first = ", a signature new to the store" if signature not in self.book.before else ""
            self.say(f"stored {signature} (family {done.family}, n={done.instance.n}{first}) -> {path}")
        entry = self.by_name[done.solver.name]
        if done.verdict is Verdict.CRASH and not entry.isolate:
            self.by_name[entry.name] = replace(entry, isolate=True, time_limit=self.plan.call_limit)
            self.entries = tuple(self.by_name.values())
            self.setup = replace(self.setup, entries=self.entries)
            self.say(f"{entry.name} crashed its worker process: isolated from now on")
        if not shrunk and signature not in self.book.shrinking and done.verdict is not Verdict.TIMEOUT:
            # The first failure of each signature in this run, a replayed one included: a failure
            # found too late to be shrunk in its run is shrunk in the next.
            self.book.shrinking.add(signature)
            self.pending.appendleft(Unit.shrinking(self._unit_id(), done))

def run_campaign(
    plan: CampaignPlan,
    *,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    on_message: Callable[[str], None] = lambda message: None,
    stop_requested: Callable[[], bool | str] = lambda: False,
    progress_every: float = 1.0,
) -> CampaignResult:
    """Run a campaign; ``stop_requested`` (polled) ends it early with a partial result: what it
    returns says why ("interrupted" by Ctrl-C, "terminated" by SIGTERM; ``True``: interrupted).

    CampaignCannotStart (``knapcheck.fuzz.campaign.cluster``, one line) when the scheduler cannot be reached
    or a target cannot be loaded.
    """
    return _Campaign(plan, on_progress, on_message, stop_requested, progress_every).run()
