"""How far each answer's saved real memory exceeds max_memory, collected by solver and family.

The contract judges the budget in quantized units, as upstream does; what a user asks for is real
memory. Every check that returned a valid partition adds its relative overshoot,
``memory_slack / max_memory`` (``knapcheck.oracles.verdict.Judgement.memory_slack``; infinite when a zero
budget is exceeded), here. Most answers do not overshoot, so those are only counted and the
positive overshoots kept, with the instance of the worst: memory stays small over a long campaign.
``Overshoots.summary`` aggregates them per (solver, family): answers, how many went over, the
median and the worst; ``knapcheck.reports.real_budget`` renders that as the table.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

from ....solvers.contract import Instance


def relative_overshoot(memory_slack: float, max_memory: float) -> float:
    if memory_slack <= 0:
        return 0.0
    return memory_slack / max_memory if max_memory > 0 else math.inf


@dataclass
class OvershootSample:
    """The overshoots of one solver on one family."""

    within: int = 0
    """Answers whose real memory fits max_memory."""
    over: array = field(default_factory=lambda: array("d"))
    """Relative overshoot of every answer that exceeds it."""
    worst: float = 0.0
    worst_instance: Instance | None = None

    @property
    def answers(self) -> int:
        return self.within + len(self.over)

    @property
    def median(self) -> float:
        """The median over every answer: the ones within the budget count as 0, so it is 0 while
        fewer than half overshoot."""
        ordered = sorted(self.over)

        def at(position: int) -> float:
            return 0.0 if position < self.within else ordered[position - self.within]

        middle = self.answers // 2
        if self.answers % 2:
            return at(middle)
        return (at(middle - 1) + at(middle)) / 2

    def add(self, overshoot: float, instance: Instance) -> None:
        if overshoot <= 0:
            self.within += 1
            return
        self.over.append(overshoot)
        if overshoot > self.worst:
            self.worst, self.worst_instance = overshoot, instance

    def merge(self, other: "OvershootSample") -> None:
        self.within += other.within
        self.over.extend(other.over)
        if other.worst > self.worst:
            self.worst, self.worst_instance = other.worst, other.worst_instance


@dataclass(frozen=True)
class OvershootSummary:
    """One (solver, family) pair's overshoots, aggregated."""

    solver: str
    family: str
    answers: int
    over: int
    median: float
    worst: float
    worst_instance: Instance | None


@dataclass
class Overshoots:
    """``OvershootSample`` per (solver, family), in the order first seen."""

    samples: dict[tuple[str, str], OvershootSample] = field(default_factory=dict)

    def add(self, solver: str, family: str, instance: Instance, memory_slack: float | None) -> None:
        """Record one check's ``Judgement.memory_slack``: None (no valid partition came back) is no answer."""
        if memory_slack is None:
            return
        sample = self.samples.setdefault((solver, family), OvershootSample())
        sample.add(relative_overshoot(memory_slack, instance.max_memory), instance)

    def merge(self, other: "Overshoots") -> None:
        for key, sample in other.samples.items():
            self.samples.setdefault(key, OvershootSample()).merge(sample)

    def summary(self) -> list[OvershootSummary]:
        """Every (solver, family) pair that was checked, solvers in the order first seen, families sorted."""
        solvers = list(dict.fromkeys(solver for solver, _ in self.samples))
        return [
            OvershootSummary(
                solver, family, sample.answers, len(sample.over), sample.median, sample.worst, sample.worst_instance
            )
            for solver in solvers
            for (name, family), sample in sorted(self.samples.items(), key=lambda item: item[0][1])
            if name == solver
        ]


def never_over(summary: list[OvershootSummary]) -> dict[str, int]:
    """The solvers none of whose answers went over max_memory, with how many answers each gave."""
    answers: dict[str, int] = {}
    overshooting: set[str] = set()
    for row in summary:
        answers[row.solver] = answers.get(row.solver, 0) + row.answers
        if row.over:
            overshooting.add(row.solver)
    return {solver: count for solver, count in answers.items() if solver not in overshooting}
