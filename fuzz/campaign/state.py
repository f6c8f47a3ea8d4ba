"""What a campaign has learnt so far, in three parts the campaign's loop changes through their methods only.

- ``Tallies``: verdict counts, overshoots, cases and verified cases, from the units' tally events;
- ``FindingsBook``: the failures this run saw, by signature (the smallest instance of each, the
  replays, those the store could not take, those being shrunk, oracle disagreements), and the
  summary of the store after the run (``findings``), each failing signature named as the gate
  names it (``knapcheck.fuzz.judging.verdicts.gate.status``): against a baseline a regression or a failure the
  baseline shares; without one, known (a case of the known-failure corpus has its solver, verdict and cause,
  ``knapcheck.fuzz.judging.known.known``) or new;
- ``Troubles``: what went wrong in the campaign's own machinery, never a solver's failure: workers
  lost, findings the store could not take, store maintenance it could not do, events refused, the
  scheduler lost. Any of it means the run did not go as asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..corpus.known_failures import KnownFailure
from ..judging.known.known import known_case
from ..judging.verdicts.differential import Check
from ..judging.verdicts.gate import CANDIDATE, KNOWN, NEW, REGRESSION, SHARED, VISIBLE, status
from ..judging.verdicts.overshoot import Overshoots
from ..judging.verdicts.signature import Signature
from .events import Tally
from .store import StoredFailure, record_name

FIXED, CHANGED, UNTARGETED, UNCHECKED = "fixed", "changed", "untargeted", "unchecked"
FAILING = (REGRESSION, NEW, SHARED, KNOWN)
"""The statuses of a signature that failed in this run, in the order a report lists them."""
LISTED = (*FAILING, VISIBLE)
"""The statuses a report describes finding by finding: the failing ones, then the known defects of
a baseline made visible (information, never a failure)."""
REFUSED_EVENTS_SHOWN = 20
"""Refused events are all counted; the reasons of this many are kept for the report."""


@dataclass(frozen=True)
class Finding:
    """One signature in the store after the campaign, and what this run made of it."""

    status: str
    """A signature that failed in this run (``FAILING``): against a baseline, regression or also in
    baseline; without one, known (a case of the known-failure corpus explains it) or new. Against a baseline,
    a known defect of the baseline made visible (``VISIBLE``): it failed, but fails nothing. One that did not:
    fixed (stored before, replayed and passed), changed (stored before, replayed, and it now fails
    under another signature, listed apart: the baseline, or its verdict, changed), unchecked
    (stored before, targeted, not replayed: time ran out or its unit was lost), untargeted (stored
    for a solver not in this run)."""
    stored: StoredFailure
    replayed: str | None = None
    """The verdict the stored instance got when replayed, if it was."""
    check: Check | None = None
    """A check of the smallest failing instance this run saw (failing signatures)."""
    stored_before: bool = False
    """Whether the store held this signature when the run began (False: first stored in this run)."""
    known_case: str | None = None
    """The id of the case of the known-failure corpus that explains it (known findings)."""

    @property
    def failing(self) -> bool:
        return self.status in FAILING


@dataclass
class Tallies:
    counts: dict[str, Counter]
    """Verdict counts per solver name."""
    overshoots: Overshoots = field(default_factory=Overshoots)
    cases: int = 0
    verified: int = 0

    def add(self, tally: Tally) -> None:
        for name, verdicts in tally.counts.items():
            self.counts.setdefault(name, Counter()).update(verdicts)
        self.overshoots.merge(tally.overshoots)
        self.cases += tally.cases
        self.verified += tally.verified


@dataclass
class Troubles:
    workers_lost: list[str] = field(default_factory=list)
    store_errors: list[str] = field(default_factory=list)
    """Findings the store could not take (kept in the report), and what it could not do to its files."""
    refused_events: int = 0
    refused_examples: list[str] = field(default_factory=list)
    scheduler_lost: str = ""
    """Why the campaign ended early without its scheduler; empty when it did not."""

    def refuse(self, reason: str) -> bool:
        """Count a refused event; whether its reason is one of those kept (and worth saying)."""
        self.refused_events += 1
        if len(self.refused_examples) < REFUSED_EVENTS_SHOWN:
            self.refused_examples.append(reason)
            return True
        return False

    def store_error(self, text: str) -> bool:
        """Note what the store could not do, once; whether it is new."""
        if text in self.store_errors:
            return False
        self.store_errors.append(text)
        return True

    @property
    def any(self) -> bool:
        return bool(self.workers_lost or self.store_errors or self.refused_events or self.scheduler_lost)


@dataclass
class FindingsBook:
    before: dict[Signature, StoredFailure]
    """The store's groups when the campaign began."""
    best: dict[Signature, Check] = field(default_factory=dict)
    """The smallest failing instance of each signature that failed in this run."""
    replayed: dict[Signature, Check] = field(default_factory=dict)
    unstored: dict[Signature, Check] = field(default_factory=dict)
    """Failures the store could not take: the report keeps them."""
    shrinking: set[Signature] = field(default_factory=set)
    disagreements: list[Path] = field(default_factory=list)
    stored_files: int = 0

    def saw(self, done: Check) -> Signature:
        """Note a failing check; its signature."""
        signature = Signature.of(done)
        known = self.best.get(signature)
        if known is None or record_name(done.instance) < record_name(known.instance):
            self.best[signature] = done
        return signature

    def findings(
        self, groups: dict[Signature, StoredFailure], targets: set[str], cases: Sequence[KnownFailure] = ()
    ) -> list[Finding]:
        """The store's signatures after the run (``groups``), and the failures it could not take;
        ``cases``: the known-failure corpus that tells a failure without a baseline known or new."""
        found = [self._failing(StoredFailure.of(check), check, None, False, cases)
                 for s, check in self.unstored.items() if s not in groups]
        for signature, stored in sorted(groups.items()):
            replayed = self.replayed.get(signature)
            verdict = replayed.verdict.value if replayed is not None else None
            if stored.solver not in targets:
                found.append(Finding(UNTARGETED, stored))
            elif signature in self.best:
                candidates = [c for c in (self.best[signature], replayed) if c is not None and Signature.of(c) == signature]
                exact = [c for c in candidates if c.instance == stored.instance]
                found.append(self._failing(stored, (exact or candidates)[0], verdict, signature in self.before, cases))
            elif replayed is not None:
                found.append(Finding(CHANGED if replayed.failed else FIXED, stored, verdict))
            else:
                found.append(Finding(UNCHECKED, stored))
        return found

    @staticmethod
    def _failing(stored: StoredFailure, check: Check, replayed: str | None, before: bool,
                 cases: Sequence[KnownFailure]) -> Finding:
        case = known_case(check, cases) if check.counterpart is None else None
        known = case.id if case is not None else None
        return Finding(status(check, CANDIDATE, known), stored, replayed, check, before, known)
