"""The regression corpus: stored campaign failures promoted to permanent cases the test suite runs.

The corpus is one JSON file shipped inside the package (``REGRESSION_CORPUS``), so an installed
knapcheck checks it from any directory. Each case names the solver, the verdict it once got, the
family that found it and the instance. ``tests/test_regressions.py`` checks every case against its
solver: our own solvers must now pass; an upstream solver's case is a strict expected failure
(design: upstream defects never make our suite red, and a fix upstream shows up as an unexpected
pass to promote away).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from knapcheck.fuzz.differential import Check, check
from knapcheck.fuzz.store import StoredFailure, write_atomically
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one

SCHEMA_VERSION = 1
REGRESSION_CORPUS = Path(__file__).parent / "corpus" / "regressions.json"


@dataclass(frozen=True)
class RegressionCase:
    id: str
    solver: str
    ours: bool
    verdict: str
    """The verdict the solver got when the case was found."""
    family: str
    origin: str
    found_at: str
    instance: Instance
    why: str = ""
    """The cause, once someone has read the case (shown as the xfail reason of upstream cases)."""

    @classmethod
    def of(cls, stored: StoredFailure) -> "RegressionCase":
        text = json.dumps([stored.solver, stored.verdict, stored.instance.as_dict()], sort_keys=True)
        slug = re.sub(r"[^A-Za-z0-9]+", "_", stored.solver.rpartition("/")[2]).strip("_")
        case_id = f"{slug}-{stored.verdict}-{hashlib.sha1(text.encode()).hexdigest()[:10]}"
        return cls(case_id, stored.solver, stored.ours, stored.verdict, stored.family, stored.origin, stored.found_at, stored.instance)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "solver": self.solver,
            "ours": self.ours,
            "verdict": self.verdict,
            "family": self.family,
            "origin": self.origin,
            "found_at": self.found_at,
            "instance": self.instance.as_dict(),
            **({"why": self.why} if self.why else {}),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "RegressionCase":
        fields = dict(data)
        fields["instance"] = Instance.from_dict(data["instance"])
        return cls(**fields)


def load_regression_corpus(path: Path = REGRESSION_CORPUS, *, missing_ok: bool = False) -> list[RegressionCase]:
    """The corpus's cases. ValueError, naming the file, when it is missing (unless ``missing_ok``:
    then it is an empty corpus), not JSON, of another schema, or holds a malformed case."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        if missing_ok:
            return []
        raise ValueError(f"regression corpus {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"regression corpus {path} cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"regression corpus {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        found = data.get("schema_version") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"regression corpus {path}: schema_version {found!r}, expected {SCHEMA_VERSION}")
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise ValueError(f"regression corpus {path}: 'cases' must be a list")
    loaded = []
    for index, case in enumerate(cases):
        try:
            loaded.append(RegressionCase.from_dict(case))
        except (TypeError, ValueError, KeyError) as exc:
            raise ValueError(f"regression corpus {path}: cases[{index}] is malformed: {exc}") from None
    return loaded


def promote(failures: Iterable[StoredFailure], corpus: Path) -> list[RegressionCase]:
    """Add the failures not yet in the corpus as cases (the file is rewritten atomically); return them."""
    cases = load_regression_corpus(corpus, missing_ok=True)
    known = {case.id for case in cases}
    added = []
    for stored in failures:
        case = RegressionCase.of(stored)
        if case.id not in known:
            known.add(case.id)
            added.append(case)
    if added:
        document = {"schema_version": SCHEMA_VERSION, "cases": [c.as_dict() for c in cases + added]}
        write_atomically(Path(corpus), json.dumps(document, indent=1) + "\n")
    return added


def replay(case: RegressionCase) -> Check:
    """The case's solver checked on the case's instance. ValueError if the solver cannot be found."""
    return check(resolve_one(case.solver), case.instance, case.family)
