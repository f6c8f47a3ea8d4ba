"""From a campaign's failure store to the known-failure corpus: each signature the corpus holds once.

A stored failure is added as a case unless the corpus already holds its signature: a case with the
same solver (or, for a copy of a torch function, torch's), verdict and cause
(``knapcheck.fuzz.judging.known.known``). Then it replaces that case if it is smaller and of the same solver, and is
skipped otherwise, with the reason. ``knapcheck promote`` prints what was added, replaced and skipped.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Sequence

from ...solvers.registry import ours
from ..corpus.atomic_write import write_atomically
from ..corpus.file_lock import exclusive_lock
from ..corpus.known_failures import SCHEMA_VERSION, KnownFailure, read_known_failures
from ..judging.known.known import matching_case
from ..judging.verdicts.shrink import complexity
from .store import StoredFailure


def case_of(stored: StoredFailure) -> KnownFailure:
    """The known-failure case a stored failure becomes, its id from its solver, verdict and instance."""
    text = json.dumps([stored.solver, stored.verdict, stored.instance.as_dict()], sort_keys=True)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", stored.solver.rpartition("/")[2]).strip("_")
    case_id = f"{slug}-{stored.verdict}-{hashlib.sha1(text.encode()).hexdigest()[:10]}"
    return KnownFailure(case_id, stored.solver, stored.ours, stored.verdict, stored.family, stored.origin, stored.found_at, stored.instance)


def false_claim(stored: StoredFailure) -> str:
    """Why a stored failure may not be promoted as it claims (empty when it may): a record says
    ``ours`` only for a solver registered as one of ours, since our cases must pass and run as
    trusted code."""
    if not stored.ours:
        return ""
    mine = {entry.name for entry in ours()}
    if stored.solver not in mine:
        return f"it says ours, but {stored.solver!r} is not a registered solver of ours ({', '.join(sorted(mine))})"
    return ""



@dataclass(frozen=True)
class Skipped:
    """A stored failure ``promote`` did not add, and why."""

    stored: StoredFailure
    reason: str


@dataclass
class Promotion:
    """What ``promote`` did: each failure it was given is added, replaces a case, or is skipped."""

    added: list[KnownFailure] = field(default_factory=list)
    replaced: list[tuple[KnownFailure, KnownFailure]] = field(default_factory=list)
    """(the case that was in the corpus, the smaller case of the same signature put in its place)."""
    skipped: list[Skipped] = field(default_factory=list)


def holding_case(stored: StoredFailure, cases: Sequence[KnownFailure]) -> KnownFailure | None:
    """The corpus case that already holds a stored failure's signature: the same solver (or, for a
    copy of a torch function, torch's), verdict and cause (``knapcheck.fuzz.judging.known.known``). A failure
    stored as a regression against its baseline (the baseline did not fail the same way there) is
    not torch's known defect, so only a case of its own solver can hold it."""
    if stored.baseline_verdict and stored.baseline_verdict != stored.verdict:
        cases = [case for case in cases if case.solver == stored.solver]
    return matching_case(stored.solver, stored.verdict, stored.instance, cases)


def promote(failures: Iterable[StoredFailure], corpus: Path) -> Promotion:
    """Add the failures whose signature the corpus does not hold yet as cases, smallest first.

    A failure whose signature a case already holds (``holding_case``) replaces that case when its
    instance is smaller (``knapcheck.fuzz.judging.verdicts.shrink.complexity``) and the case is of the same solver,
    keeping the case's ``why``; otherwise it is skipped, with the reason: a case is never added
    twice for one signature, and a copy's failure never replaces torch's case.

    The corpus is read, changed and rewritten (atomically) under an exclusive lock on a lock file
    beside it (``knapcheck.fuzz.corpus.file_lock``), so promotions running at the same time each add
    their cases and none is lost. ValueError naming a failure whose claim to be ours is false
    (``false_claim``), before anything is written, or when the corpus cannot be read or locked.
    """
    failures = sorted(failures, key=lambda stored: complexity(stored.instance))
    for stored in failures:
        problem = false_claim(stored)
        if problem:
            raise ValueError(f"{stored.solver} {stored.verdict}: {problem}")
    done = Promotion()
    with exclusive_lock(Path(corpus)):
        cases = list(read_known_failures(corpus, missing_ok=True).stored)  # quarantined cases stay in the file
        for stored in failures:
            case = case_of(stored)
            held = holding_case(stored, cases)
            if any(c.id == case.id for c in cases):
                done.skipped.append(Skipped(stored, f"already in the corpus as {case.id}"))
            elif held is None:
                cases.append(case)
                done.added.append(case)
            elif held.solver == stored.solver and complexity(stored.instance) < complexity(held.instance):
                smaller = replace(case, why=held.why)
                cases[cases.index(held)] = smaller
                done.replaced.append((held, smaller))
            else:
                done.skipped.append(Skipped(stored, _held_by(held, stored)))
        if done.added or done.replaced:
            document = {"schema_version": SCHEMA_VERSION, "cases": [c.as_dict() for c in cases]}
            write_atomically(Path(corpus), json.dumps(document, indent=1) + "\n")
    return done


def _held_by(held: KnownFailure, stored: StoredFailure) -> str:
    where = f"the corpus already holds its signature (solver, verdict and cause) in {held.id}"
    if held.solver != stored.solver:
        return f"{where}, {held.solver}'s case, which a copy's failure never replaces"
    return f"{where}, whose instance (n={held.instance.n}) is at least as small as this one (n={stored.instance.n})"
