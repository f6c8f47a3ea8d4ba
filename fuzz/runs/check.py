"""The check run: every solver judged on each family's instances, each distinct failure shrunk.

Each sampled family contributes a fixed, seeded sample (the same list in every process); each
enumerated family all of its instances. The oracle answers each instance once and every solver
is judged on it. A target given a counterpart baseline carries the baseline's check of the same
instance, and its failures are told apart by their differential signature (target, verdict,
baseline verdict): OVER_BUDGET where the baseline is OPTIMAL is another finding than OVER_BUDGET
where the baseline is over budget too. Each failure is judged by cause against the baseline's
known defects, as the known-failure corpus names them (``knapcheck.fuzz.judging.known.by_cause``): on each
instance, and for each finding by a search for a reproduction outside their reach. Solvers that
promise the optimum are called twice on an evenly spaced sample of each source and on every
shrunk reproduction; answers that differ are the verdict NONDETERMINISTIC. The result is data
(``knapcheck.fuzz.judging.verdicts.differential.CheckResult``); ``reports`` renders it.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from ...oracles.optimum import optimum
from ...oracles.result import OracleResult
from ...oracles.verdict import Verdict
from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from ..corpus.known_failures import KnownFailure
from ..instances import families
from ..judging.judge import Judge
from ..judging.known.by_cause import Causes
from ..judging.known.frozen_source import changed_since, read_at_start
from ..judging.known.known import known_case
from ..judging.verdicts.comparison import Comparison
from ..judging.verdicts.differential import Check, CheckResult, Source, determinism_calls, digest
from ..judging.verdicts.gate import is_regression, pair, record
from ..judging.verdicts.shrink import complexity
from ..judging.verdicts.signature import Signature
from .chunk_calls import ChunkCalls, Lanes, next_chunk_size

CHECK_SHARE = 0.6
"""Under a time budget, the share spent checking; the rest goes to shrinking the failures found."""
SHRINK_SECONDS = 30.0
"""Without a time budget, the longest one failure is shrunk (the smallest instance so far is kept)."""
LOOKAHEAD = 8
"""Chunks whose calls are begun before the first of them is judged (``_Run.check_sources``)."""
DETERMINISM_SAMPLE = 8
"""Instances of each source on which solvers that promise the optimum are called twice."""
DETERMINISM_MAX_ITEMS = 512
"""The most items of an instance a determinism check takes: state and tie-breaks show on small
instances as on large ones, and one of 2000 items, called twice more per exact solver, cost
ilp_knapsack's gate more than the rest of its determinism check."""


def _after(deadline: float) -> bool:
    return time.monotonic() > deadline


def determinism_positions(instances: Sequence[Instance], sample: int = DETERMINISM_SAMPLE) -> frozenset[int]:
    """``sample`` positions spread evenly over a source's instances of at most DETERMINISM_MAX_ITEMS
    items (all of them, if fewer)."""
    small = [k for k, instance in enumerate(instances) if instance.n <= DETERMINISM_MAX_ITEMS]
    if len(small) <= sample:
        return frozenset(small)
    return frozenset(small[round(i * (len(small) - 1) / (sample - 1))] for i in range(sample))


def time_shares(counts: Sequence[int]) -> list[float]:
    """Each source's share of the checking time: half split evenly among the sources, half in
    proportion to their instances (a list of thousands is not cut short, nor is a family of
    forty slow instances)."""
    total = sum(counts)
    return [0.5 / len(counts) + (0.5 * count / total if total else 0.5 / len(counts)) for count in counts]


def run_check(
    entries: Iterable[SolverEntry],
    family_names: Iterable[str] | None = None,
    per_family: int = 50,
    seed_value: int = 0,
    progress: Callable[[str], None] = lambda message: None,
    time_budget: float | None = None,
    stored: Mapping[str, Sequence[Instance]] | None = None,
    baselines: Sequence[SolverEntry] = (),
    known_cases: Sequence[KnownFailure] = (),
    stop_requested: Callable[[], str] = lambda: "",
    advanced: Callable[[CheckResult, int], None] = lambda result, total: None,
    shrink_seconds: float = SHRINK_SECONDS,
) -> CheckResult:
    """Judge every entry and every baseline on each family's instances (and on ``stored``
    instances, by source name, such as the known-failure corpus), then shrink each distinct failure.

    Each entry is compared with its counterpart among ``baselines`` (``knapcheck.fuzz.judging.verdicts.gate.pair``;
    ValueError when an entry has no single one). ``known_cases``: the corpus cases that tell a
    failure without a baseline known or new (``CheckResult.known``), and whose causes are the
    baselines' known defects. With ``time_budget`` (seconds), each source gets its
    ``time_shares`` of the checking share (time one source leaves unused carries over), the
    instances it did not reach are counted in ``skipped``, and the rest of the budget is split
    evenly among the failures to shrink; without one, each failure is shrunk for at most
    ``shrink_seconds`` (0: each is kept as found, judged by cause). ``stop_requested`` (polled
    before every instance and every shrink) ends the run early once it says why ("interrupted",
    "terminated"): the instances not reached are counted in ``skipped``, the failures not yet
    shrunk are kept as found (judged on their own instance), and ``stopped_by`` says why.
    ``advanced(result, total)`` is called after every chunk of instances checked
    (``result.instances`` of ``total``; skipped ones count as done).
    """
    targets = list(entries)
    counterparts = pair(targets, baselines)
    names = {t.name for t in targets}
    entries = targets + [b for b in baselines if b.name not in names]
    sources: list[tuple[str, str, Sequence[Instance]]] = []
    for name in families.names() if family_names is None else family_names:
        family = families.get(name)
        sources.append((name, "enumerated" if family.enumerated else "sampled", family.draw(per_family, seed_value)))
    sources += [(name, "stored", list(instances)) for name, instances in (stored or {}).items()]
    read = read_at_start(targets)
    causes = Causes(baselines, known_cases, read=read, stopped=lambda: bool(stop_requested()))
    run = _Run(entries, counterparts, baselines, causes, time_budget, progress, stop_requested,
               lambda result: advanced(result, sum(len(instances) for _, _, instances in sources)))
    run.result.sources = [Source(name, kind, len(instances), digest(instances)) for name, kind, instances in sources]
    with Lanes() as lanes:
        run.check_sources(sources, lanes)
    run.shrink(seed_value, shrink_seconds)
    run.match_known(known_cases)
    run.result.interventions = {t.name: run.causes.intervention(t, b, fitted=run.fixed_causes(t.name)) for t, b in
                                ((t, counterparts[t.name]) for t in targets if t.name in counterparts)}
    run.result.sources_changed = {**run.causes.sources_changed, **changed_since(read, targets)}
    return run.result


class _Run:
    """One run_check: the entries, their pairing, the tally and the smallest failure of each signature."""

    def __init__(
        self,
        entries: list[SolverEntry],
        counterparts: dict[str, SolverEntry],
        baselines: Sequence[SolverEntry],
        causes: Causes,
        time_budget: float | None,
        progress: Callable[[str], None],
        stop_requested: Callable[[], str],
        advanced: Callable[[CheckResult], None],
    ) -> None:
        self.entries = entries
        self.advanced = advanced
        self.stop_requested = stop_requested
        self.counterparts = counterparts
        self.causes = causes
        self.judge = Judge(counterparts, causes)
        self.time_budget = time_budget
        self.progress = progress
        self.start = time.monotonic()
        self.result = CheckResult(entries, counterparts={t: b.name for t, b in counterparts.items()},
                                  baselines=[b.name for b in baselines])
        self.result.comparisons = {target: Comparison(baseline.name) for target, baseline in counterparts.items()}
        self.smallest: dict[Signature, Check] = {}
        """The smallest failing check of each differential signature seen."""
        self.smallest_regression: dict[Signature, Check] = {}
        """The smallest of each signature that no known defect of the baseline explains."""

    def check_sources(self, sources: list[tuple[str, str, Sequence[Instance]]], lanes: Lanes) -> None:
        """Every source's instances in order, in chunks (``next_chunk_size``), each source stopped at
        its share of the time budget. The calls of up to LOOKAHEAD chunks are begun before the
        first of them is judged, so the workers compute while this process judges, and a source
        whose instances are slow for one worker overlaps the next ones. A stop request reaches
        those calls: none starts after it (``knapcheck.fuzz.runs.chunk_calls``), and the
        chunks begun but not judged by then are counted in ``skipped``."""
        shares = time_shares([len(instances) for _, _, instances in sources])
        begun: deque[_ChunkRun] = deque()
        for index, (name, _, instances) in enumerate(sources):
            if self._stopping():
                self.result.skipped += len(instances)
                continue
            self.progress(f"{name}: {len(instances)} instances")
            stop = None
            if self.time_budget is not None:
                stop = self.start + CHECK_SHARE * self.time_budget * sum(shares[: index + 1])
            twice = determinism_positions(instances)
            position, size = 0, 1
            while position < len(instances) and not self._cut_short(name, len(instances), position, stop):
                chunk = instances[position : position + size]
                begun.append(self.begin_chunk(name, chunk, [position + k in twice for k in range(len(chunk))], lanes))
                position += len(chunk)
                if len(begun) >= LOOKAHEAD:
                    size = next_chunk_size(size, self.judge_first(begun))
        while begun:
            self.judge_first(begun)

    def judge_first(self, begun: deque[_ChunkRun]) -> float:
        """The first chunk begun, finished and judged; the seconds that took. A chunk finished once
        a stop was asked for is not judged (judging may call a repaired candidate): its instances
        are counted in ``skipped``."""
        began = time.monotonic()
        called = begun.popleft().finish()
        if self._stopping():
            self.result.skipped += len(called.calls.chunk)
        else:
            self.tally(self.judge_chunk(called))
        return time.monotonic() - began

    def _cut_short(self, name: str, count: int, position: int, stop: float | None) -> bool:
        """Whether a stop request or the end of the source's time ends it at ``position``: the
        instances not reached are then counted in ``skipped``."""
        if self._stopping():
            self.result.skipped += count - position
            return True
        if stop is not None and time.monotonic() > stop:
            self.result.skipped += count - position
            self.progress(f"{name}: time is up after {position} instances")
            return True
        return False

    def begin_chunk(self, family: str, chunk: Sequence[Instance], twice: Sequence[bool], lanes: Lanes) -> _ChunkRun:
        """Every entry's calls on the chunk of ``family``, begun (``ChunkCalls``)."""
        runnable = [self.judge.runnable(self.entries, instance) for instance in chunk]
        calls = ChunkCalls(self.entries, chunk, runnable, twice, lanes.submit, lambda: bool(self.stop_requested()))
        return _ChunkRun(family, runnable, calls)

    def tally(self, checks: list[Check]) -> None:
        """The chunk's failures kept, the smallest of each signature."""
        for done in checks:
            if done.failed:
                _keep_smallest(self.smallest, done)
            if is_regression(done):
                _keep_smallest(self.smallest_regression, done)
        self.advanced(self.result)

    def judge_chunk(self, called: _ChunkRun) -> list[Check]:
        """Every entry on each instance of the finished chunk, tallied instance by instance, in
        order; targets carry their baseline's check."""
        result = self.result
        checks: list[Check] = []
        family = called.family
        for k, instance in enumerate(called.calls.chunk):
            result.instances += 1
            runnable = called.runnable[k]
            done = self.judge.outcomes(instance, family, called.oracles[k],
                                       [(entry, called.outcomes[entry.name][k]) for entry in runnable])
            for entry in runnable:
                checked = done[entry.name]
                result.repeated[entry.name] += called.calls.twice[k] and determinism_calls(entry) > 1
                result.counts[entry.name][checked.verdict.value] += 1
                if checked.oracle_disagreement:
                    result.oracle_findings.append(checked)
                result.overshoots.add(entry.name, family, instance, checked.judgement.memory_slack)
                if entry.name in self.counterparts:
                    record(result.comparisons[entry.name], checked)
            checks += done.values()
        return checks

    def shrink(self, seed_value: int, shrink_seconds: float) -> None:
        """Each distinct failure judged by cause and shrunk within its time, then called twice on its
        shrunk instance. Two signatures whose reproductions meet on one signature and status are one
        finding, the smaller."""
        failures = sorted(self.smallest.items())
        findings: dict[tuple[Signature, bool], Check] = {}
        for index, (signature, failure) in enumerate(failures):
            if self._stopping():
                _keep_smallest(findings, failure, (signature, is_regression(failure)))
                continue
            self.progress(f"shrinking {' '.join(signature.parts())}")
            now = time.monotonic()
            seconds = shrink_seconds
            if self.time_budget is not None:
                seconds = max(0.0, self.start + self.time_budget - now) / (len(failures) - index)
            deadline = now + seconds
            shrunk = self.causes.reproduce(failure, self.smallest_regression.get(signature),
                                           lambda: _after(deadline) or self._stopping(), seed_value)
            _keep_smallest(findings, shrunk, (shrunk.differential_signature, is_regression(shrunk)))
            flaky = self.called_twice(shrunk)
            if flaky is not None and flaky.differential_signature not in self.smallest:
                self.smallest[flaky.differential_signature] = flaky
                findings[flaky.differential_signature, True] = flaky
        self.result.findings.extend(findings.values())

    def called_twice(self, finding: Check) -> Check | None:
        """The finding's solver called twice on its shrunk instance, if it promises the optimum and
        the two answers differ: a NONDETERMINISTIC finding of its own."""
        if finding.verdict is Verdict.NONDETERMINISTIC or determinism_calls(finding.solver) < 2:
            return None
        again = self.judge.called(finding.solver, finding.instance, finding.family, calls=2)
        return again if again.verdict is Verdict.NONDETERMINISTIC else None

    def _stopping(self) -> bool:
        """Whether the run was asked to stop (said once, in the progress)."""
        if not self.result.stopped_by:
            self.result.stopped_by = self.stop_requested()
            if self.result.stopped_by:
                self.progress(f"stopping: {self.result.stopped_by}; what ran so far is reported")
        return bool(self.result.stopped_by)

    def fixed_causes(self, target: str) -> set[str]:
        """The known defects whose failures of the baseline the target passes: whether their repairs
        fit decides whether those fixes are by chance."""
        comparison = self.result.comparisons.get(target)
        return set() if comparison is None else {cause for (_, causes) in comparison.fixed_causes for cause in causes}

    def match_known(self, cases: Sequence[KnownFailure]) -> None:
        """The corpus case that explains each finding without a baseline, if one does."""
        for finding in self.result.findings:
            case = known_case(finding, cases) if finding.counterpart is None else None
            if case is not None:
                self.result.known[finding.differential_signature] = case.id


@dataclass
class _ChunkRun:
    """One chunk of a source (``family``): what may run on each instance, its calls begun, and once
    ``finish`` has waited for them (asking the oracle meanwhile), their outcomes and the oracle's answers."""

    family: str
    runnable: list[list[SolverEntry]]
    calls: ChunkCalls
    outcomes: dict[str, list] = field(default_factory=dict)
    oracles: list[OracleResult] = field(default_factory=list)

    def finish(self) -> _ChunkRun:
        self.outcomes, self.oracles = self.calls.finish(lambda: [optimum(i) for i in self.calls.chunk])
        return self


def _keep_smallest(smallest: dict, done: Check, key=None) -> None:
    """Keep ``done`` under ``key`` (its differential signature) unless a smaller instance is there."""
    key = done.differential_signature if key is None else key
    kept = smallest.get(key)
    if kept is None or complexity(done.instance) < complexity(kept.instance):
        smallest[key] = done
