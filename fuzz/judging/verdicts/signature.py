"""A failure's signature in the campaign's store: what makes two failures the same defect.

A signature is (solver, verdict) and, in a campaign run against a baseline, the baseline's verdict
on the same instance (``knapcheck.fuzz.judging.verdicts.differential.Check.baseline_verdict``: NOT_RUN when the
baseline does not take that size). OVER_BUDGET where the baseline is OPTIMAL (a regression) is
another signature than OVER_BUDGET where the baseline is over budget too, so the store keeps a
smallest instance of each and never prunes one in favour of the other.

It is a dataclass, not a tuple, so that a field can be added without changing any place that only
passes it along: a field gets a default that means "not set", ``parts`` leaves a field at its
default out, and the store's group names (``knapcheck.fuzz.campaign.store.group_name``) and records built from
``parts`` stay the same for every signature that does not use it (those without a baseline).
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, order=True)
class Signature:
    solver: str
    verdict: str
    baseline: str = ""
    """The counterpart baseline's verdict on the same instance; empty without a baseline."""
    known: str = ""
    """Against a baseline, the known defects of the baseline that explain the failure, by name,
    comma-separated (``knapcheck.fuzz.judging.known.by_cause``); empty for a regression, a shared failure
    and without a baseline. A regression and a known defect made visible with one verdict are then
    two signatures, and the store never prunes the regression for a smaller known one."""

    @classmethod
    def of(cls, check) -> "Signature":
        """A check's signature (``knapcheck.fuzz.judging.verdicts.differential.Check``), its baseline's verdict
        and the known defects that explain it included: the one place a signature is computed from a check."""
        known = ",".join(check.causes) if check.counterpart is not None else ""
        return cls(check.solver.name, check.verdict.value, check.baseline_verdict or "", known)

    def parts(self) -> tuple[str, ...]:
        """The fields that are set, in order: what names the signature on disk and in reports."""
        return tuple(getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.default)

    def as_json(self) -> list[str | None]:
        """[solver, verdict, baseline verdict] as check and report JSON write it (``schema_version``
        2): the baseline's verdict null without a baseline."""
        return [self.solver, self.verdict, self.baseline or None]

    def __str__(self) -> str:
        text = f"{self.solver} {self.verdict}"
        if self.baseline:
            text += f" where the baseline is {self.baseline}"
        return text + (f" (known defect of the baseline: {self.known})" if self.known else "")
