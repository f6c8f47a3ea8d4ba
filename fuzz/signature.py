"""A failure's signature: what makes two failures the same defect.

Today a signature is (solver, verdict). It is a dataclass, not a tuple, so that it can grow a field
(a baseline's verdict, when a campaign runs against one) without changing any place that only
passes it along: a new field gets a default that means "not set", ``parts`` leaves a field at its
default out, and the store's group names (``knapcheck.fuzz.store.group_name``) and records built from
``parts`` stay the same for every signature that does not use the new field.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, order=True)
class Signature:
    solver: str
    verdict: str

    @classmethod
    def of(cls, check) -> "Signature":
        """A check's signature (``knapcheck.fuzz.differential.Check``)."""
        return cls(check.solver.name, check.verdict.value)

    def parts(self) -> tuple[str, ...]:
        """The fields that are set, in order: what names the signature on disk and in reports."""
        return tuple(getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.default)

    def __str__(self) -> str:
        return " ".join(self.parts())
