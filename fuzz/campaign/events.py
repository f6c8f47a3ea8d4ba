"""What a campaign's units report, as typed events that travel as JSON text.

One dataclass per kind of event, each with its schema. A unit emits events; ``encode`` turns one
into JSON text for the campaign's Dask queue; the campaign process reads each item it takes from
the queue with ``decode``, which accepts only text (never a pickled object), parses it by the rules
every knapcheck file is read by (``knapcheck.fuzz.corpus.reader``: size, nesting, numbers), checks it
against its kind's schema and rebuilds it from the campaign's own solver entries. Anything else
(an unknown kind, a missing or mistyped field, a solver the campaign does not target, a value that
is not text) is a ``MalformedEvent``: the campaign counts and reports it, and never acts on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Union, cast

from ...oracles.verdict import Verdict
from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from ..corpus.reader import MAX_BYTES, InvalidJson, parse_json
from ..corpus.schema import INSTANCE, SchemaError, boolean, checked_later, mapping_of, natural, obj, one_of, string
from ..judging.plain_check import check_from_plain, check_to_plain, overshoots_from_plain, overshoots_to_plain
from ..judging.verdicts.differential import NOT_RUN, Check
from ..judging.verdicts.overshoot import Overshoots
from ..judging.verdicts.signature import Signature

VERDICT = one_of(*(v.value for v in Verdict))
Entries = dict[str, SolverEntry]


class MalformedEvent(ValueError):
    """An item on the campaign's queue that is not a well-formed event; the message says why."""


def _instance(data: dict, where: str) -> Instance:
    try:
        return Instance.from_dict(data)
    except ValueError as exc:
        raise SchemaError(f"{where} is malformed: {exc}") from None


@dataclass(frozen=True)
class Started:
    """A unit's attempt began on a worker."""

    KIND: ClassVar[str] = "started"
    SCHEMA: ClassVar = obj({"unit": natural, "attempt": natural, "pid": natural, "host": string})
    unit: int
    attempt: int
    pid: int
    host: str

    def to_plain(self) -> dict:
        return {"unit": self.unit, "attempt": self.attempt, "pid": self.pid, "host": self.host}

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Started":
        return cls(data["unit"], data["attempt"], data["pid"], data["host"])


@dataclass(frozen=True)
class Trying:
    """A careful attempt is about to check this instance (so a unit that kills its worker is reported with it)."""

    KIND: ClassVar[str] = "trying"
    SCHEMA: ClassVar = obj({"unit": natural, "instance": INSTANCE})
    unit: int
    instance: Instance

    def to_plain(self) -> dict:
        return {"unit": self.unit, "instance": self.instance.as_dict()}

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Trying":
        return cls(data["unit"], _instance(data["instance"], "instance"))


@dataclass(frozen=True)
class Tally:
    """Verdict counts and overshoots since the unit's last tally."""

    KIND: ClassVar[str] = "tally"
    SCHEMA: ClassVar = obj({"unit": natural, "counts": mapping_of(string, mapping_of(VERDICT, natural)), "cases": natural,
                            "verified": natural, "overshoots": checked_later})
    unit: int
    counts: dict[str, dict[str, int]]
    cases: int
    verified: int
    overshoots: Overshoots

    def to_plain(self) -> dict:
        return {"unit": self.unit, "counts": self.counts, "cases": self.cases, "verified": self.verified,
                "overshoots": overshoots_to_plain(self.overshoots)}

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Tally":
        for name in data["counts"]:
            if name not in entries:
                raise SchemaError(f"counts is malformed: {name[:80]!r} is not a target of this campaign")
        return cls(data["unit"], data["counts"], data["cases"], data["verified"], overshoots_from_plain(data["overshoots"], entries))


@dataclass(frozen=True)
class Found:
    """A failure, sent the moment it is found (``shrunk``: by a shrinking unit). Against a baseline
    the check carries the baseline's check of the same instance (``knapcheck.fuzz.judging.plain_check``)."""

    KIND: ClassVar[str] = "finding"
    SCHEMA: ClassVar = obj({"unit": natural, "check": checked_later, "shrunk": boolean})
    unit: int
    check: Check
    shrunk: bool

    def to_plain(self) -> dict:
        return {"unit": self.unit, "check": check_to_plain(self.check), "shrunk": self.shrunk}

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Found":
        return cls(data["unit"], check_from_plain(data["check"], entries), data["shrunk"])


@dataclass(frozen=True)
class Replayed:
    """A stored failure checked again: ``stored`` is the signature it was stored under (its
    baseline verdict empty when it was stored without a baseline)."""

    KIND: ClassVar[str] = "replayed"
    SCHEMA: ClassVar = obj({"unit": natural, "verdict": VERDICT, "check": checked_later},
                           {"baseline_verdict": one_of(*(v.value for v in Verdict), NOT_RUN), "known": string})
    unit: int
    stored: Signature
    check: Check

    def to_plain(self) -> dict:
        plain = {"unit": self.unit, "verdict": self.stored.verdict, "check": check_to_plain(self.check)}
        plain |= {"baseline_verdict": self.stored.baseline} if self.stored.baseline else {}
        return plain | ({"known": self.stored.known} if self.stored.known else {})

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Replayed":
        done = check_from_plain(data["check"], entries)
        stored = Signature(done.solver.name, data["verdict"], data.get("baseline_verdict", ""), data.get("known", ""))
        return cls(data["unit"], stored, done)


@dataclass(frozen=True)
class Disagreement:
    """A check showed the oracle, not the solver, wrong on an instance (an oracle finding)."""

    KIND: ClassVar[str] = "disagreement"
    SCHEMA: ClassVar = obj({"unit": natural, "family": string, "solver": string, "message": string, "instance": INSTANCE})
    unit: int
    family: str
    solver: str
    message: str
    instance: Instance

    def to_plain(self) -> dict:
        return {"unit": self.unit, "family": self.family, "solver": self.solver, "message": self.message,
                "instance": self.instance.as_dict()}

    @classmethod
    def from_plain(cls, data: dict, entries: Entries) -> "Disagreement":
        if data["solver"] not in entries:
            raise SchemaError("solver is malformed: not a target of this campaign")
        return cls(data["unit"], data["family"], data["solver"], data["message"], _instance(data["instance"], "instance"))


Event = Union[Started, Trying, Tally, Found, Replayed, Disagreement]
KINDS: dict[str, type[Event]] = {kind.KIND: kind for kind in (Started, Trying, Tally, Found, Replayed, Disagreement)}
ENVELOPE = obj({"kind": string})


def encode(event: Event) -> str:
    """An event as the JSON text a unit puts on the queue."""
    return json.dumps({"kind": event.KIND, **event.to_plain()}, allow_nan=False)


def decode(item: object, entries: Entries) -> Event:
    """The event an item taken from the queue holds; MalformedEvent saying why it is not one."""
    if not isinstance(item, str):
        raise MalformedEvent(f"not JSON text but a {type(item).__name__}")
    if len(item) > MAX_BYTES:
        raise MalformedEvent(f"{len(item)} characters, more than the {MAX_BYTES} an event may have")
    try:
        data = cast(dict[str, Any], parse_json(item, ENVELOPE))  # ENVELOPE is an object's schema
    except InvalidJson as exc:
        raise MalformedEvent(str(exc)) from None
    kind = KINDS.get(data["kind"])
    if kind is None:
        raise MalformedEvent(f"unknown kind {data['kind'][:40]!r}")
    try:
        kind.SCHEMA(data, "")
        return kind.from_plain(data, entries)
    except (ValueError, TypeError, KeyError, ArithmeticError) as exc:
        raise MalformedEvent(f"{kind.KIND} event: {exc}") from None
