"""The regression corpus: stored campaign failures promoted to permanent cases the test suite runs.

The corpus is one JSON file shipped inside the package (``REGRESSION_CORPUS``), so an installed
knapcheck checks it from any directory. Each case names the solver, the verdict it once got, the
family that found it and the instance. ``tests/test_regressions.py`` checks every case against its
solver: our own solvers must now pass; an upstream solver's case is a strict expected failure
(design: upstream defects never make our suite red, and a fix upstream shows up as an unexpected
pass to promote away). ``knapcheck.fuzz.campaign.promotion`` adds a campaign's findings to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from knapcheck.fuzz.corpus.reader import UnreadableFile, read_json
from knapcheck.fuzz.corpus.schema import INSTANCE, boolean, list_of, obj, one_of, string
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance

SCHEMA_VERSION = 1
REGRESSION_CORPUS = Path(__file__).parent / "regressions.json"


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
    cause: str = ""
    """The name of the known defect the case shows (``knapcheck.fuzz.checking.defects.CAUSES``), once
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
    def from_dict(cls, data: dict) -> "RegressionCase":
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
WHAT = "regression corpus"


def load_regression_corpus(path: Path = REGRESSION_CORPUS, *, missing_ok: bool = False) -> list[RegressionCase]:
    """The corpus's cases. ValueError (``UnreadableFile``), naming the file, when it is missing
    (unless ``missing_ok``: then it is an empty corpus), not a regular file, too large, not JSON, of
    another schema, or holds a malformed case."""
    path = Path(path)
    try:
        data = read_json(path, CORPUS, what=WHAT)
    except UnreadableFile as exc:
        if missing_ok and exc.reason == "does not exist":
            return []
        raise
    loaded = []
    for index, case in enumerate(data["cases"]):
        try:
            loaded.append(RegressionCase.from_dict(case))
        except ValueError as exc:
            raise UnreadableFile(WHAT, path, f"cases[{index}] is malformed: {exc}") from None
    return loaded
