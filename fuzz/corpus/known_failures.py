"""The known-failure corpus: stored campaign failures promoted to permanent cases the test suite runs.

The corpus is one JSON file shipped inside the package (``KNOWN_FAILURES``), so an installed
knapcheck checks it from any directory. Each case names the solver, the verdict it once got, the
family that found it and the instance. ``tests/test_known_failures.py`` checks every case against its
solver: our own solvers must now pass; an upstream solver's case is a strict expected failure
(design: upstream defects never make our suite red, and a fix upstream shows up as an unexpected
pass to promote away). ``knapcheck.fuzz.campaign.promotion`` adds a campaign's findings to it.

No corpus file is trusted: besides its schema, a case that names a cause its solver cannot have
(``knapcheck.fuzz.corpus.cause_owners``) is quarantined: kept in the file, left out of the cases
every check uses, and named in one line (``KnownFailureCorpus.notes``) by the command that read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ...oracles.verdict import Verdict
from ...solvers.contract import Instance
from .cause_owners import untrusted
from .reader import UnreadableFile, read_json
from .schema import INSTANCE, boolean, list_of, obj, one_of, string

SCHEMA_VERSION = 1
KNOWN_FAILURES = Path(__file__).parent / "known_failures.json"


@dataclass(frozen=True)
class KnownFailure:
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
    cause: str = ""
    """The name of the known defect the case shows (``knapcheck.fuzz.judging.known.defects.CAUSES``), once
    someone has read the case: what tells a candidate's failure that this defect explains from a new one."""

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
            **({"cause": self.cause} if self.cause else {}),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "KnownFailure":
        """A case ``CASE`` accepts; ValueError when its instance breaks the contract."""
        known = {name: data[name] for name in ("id", "solver", "ours", "verdict", "family", "origin", "found_at")}
        return cls(**known, instance=Instance.from_dict(data["instance"]), why=data.get("why", ""),
                   cause=data.get("cause", ""))


CASE = obj(
    {
        "id": string,
        "solver": string,
        "ours": boolean,
        "verdict": one_of(*(v.value for v in Verdict)),
        "family": string,
        "origin": string,
        "found_at": string,
        "instance": INSTANCE,
    },
    {"why": string, "cause": string},
)
CORPUS = obj({"schema_version": one_of(SCHEMA_VERSION), "cases": list_of(CASE)})
"""The corpus file; keys neither names are allowed and ignored (a newer knapcheck may add some)."""
WHAT = "known-failure corpus"


@dataclass(frozen=True)
class Quarantined:
    """A case the corpus holds whose cause cannot be trusted (``knapcheck.fuzz.corpus.cause_owners``)."""

    case: KnownFailure
    why: str


@dataclass(frozen=True)
class KnownFailureCorpus:
    """A corpus file read: every case it holds, and those whose cause cannot be trusted."""

    path: Path
    stored: tuple[KnownFailure, ...]
    """Every case, as the file holds them (what a promotion writes back)."""
    cases: tuple[KnownFailure, ...]
    """The cases that can be trusted: every one but the quarantined, in the file's order."""
    quarantined: tuple[Quarantined, ...]

    def notes(self) -> list[str]:
        """One line for each quarantined case, naming the file, the case and why."""
        return [f"{WHAT} {self.path}: case {q.case.id!r} quarantined (not used): {q.why}" for q in self.quarantined]


def read_known_failures(path: Path = KNOWN_FAILURES, *, missing_ok: bool = False) -> KnownFailureCorpus:
    """The corpus's cases, each case whose cause its solver cannot have quarantined. ValueError
    (``UnreadableFile``), naming the file, when it is missing (unless ``missing_ok``: then it is an
    empty corpus), not a regular file, too large, not JSON, of another schema, or holds a malformed case."""
    path = Path(path)
    try:
        data = cast(dict[str, Any], read_json(path, CORPUS, what=WHAT))  # CORPUS is an object's schema
    except UnreadableFile as exc:
        if missing_ok and exc.reason == "does not exist":
            return KnownFailureCorpus(path, (), (), ())
        raise
    loaded = []
    for index, case in enumerate(data["cases"]):
        try:
            loaded.append(KnownFailure.from_dict(case))
        except ValueError as exc:
            raise UnreadableFile(WHAT, path, f"cases[{index}] is malformed: {exc}") from None
    whys = [untrusted(case.cause, case.solver) for case in loaded]
    return KnownFailureCorpus(path, tuple(loaded), tuple(case for case, why in zip(loaded, whys) if not why),
                            tuple(Quarantined(case, why) for case, why in zip(loaded, whys) if why))


def load_known_failures(path: Path = KNOWN_FAILURES, *, missing_ok: bool = False) -> list[KnownFailure]:
    """The corpus's cases that can be trusted (``read_known_failures``: its ``notes`` say which
    were left out). ValueError as ``read_known_failures``."""
    return list(read_known_failures(path, missing_ok=missing_ok).cases)
