"""A target against its baseline, instance by instance: what is shared, what regressed, what a
known defect of the baseline explains, what was fixed (and the defects behind it), and, where both
are right, whether they save different sets or less runtime (information, never a failure unless
asked for).

PyTorch's own tests assert specific saved sets, so a candidate that changes only the tie-break
among optimal selections passes the contract yet is worth a line in a review: ``selection_changes``
counts the instances where both answers are valid (optimal, or valid for a heuristic) and the
saved sets differ, and keeps the first as an example. A heuristic made worse stays valid, so
``quality`` counts the instances where the target saves less runtime than its baseline, and by how
much.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from ....solvers.contract import Instance


@dataclass(frozen=True)
class SelectionChange:
    instance: Instance
    saved: tuple[int, ...]
    """What the target saved."""
    baseline_saved: tuple[int, ...]
    value: float
    baseline_value: float


@dataclass(frozen=True)
class QualityLoss:
    instance: Instance
    value: float
    """What the target's saved items are worth."""
    baseline_value: float
    loss: float
    """The runtime the target saves less, relative to the larger of the two saved totals (in size)."""


def relative_loss(value: Fraction, baseline_value: Fraction) -> float:
    """How much less the target saves than its baseline, relative to the larger saved total in size
    (for a baseline that saves b > 0 and a target that saves c >= 0: (b - c) / b); 0 when it saves
    as much or more."""
    if value >= baseline_value:
        return 0.0
    return float((baseline_value - value) / max(abs(value), abs(baseline_value)))


@dataclass
class Quality:
    """Where both answers are valid: how often, and how much, the target saves less runtime."""

    compared: int = 0
    more: int = 0
    """Instances where the target saves more runtime than its baseline."""
    losses: list[float] = field(default_factory=list)
    """The relative loss on each instance where the target saves less."""
    worst: QualityLoss | None = None

    def add(self, instance: Instance, value: Fraction, baseline_value: Fraction) -> None:
        self.compared += 1
        self.more += value > baseline_value
        loss = relative_loss(value, baseline_value)
        if not loss:
            return
        self.losses.append(loss)
        if self.worst is None or loss > self.worst.loss:
            self.worst = QualityLoss(instance, float(value), float(baseline_value), loss)

    @property
    def less(self) -> int:
        return len(self.losses)

    @property
    def median(self) -> float:
        return statistics.median(self.losses) if self.losses else 0.0


@dataclass
class Comparison:
    baseline: str
    instances: int = 0
    """Instances both were run on."""
    same_verdict: int = 0
    regressed: Counter = field(default_factory=Counter)
    """(target verdict, baseline verdict) -> instances where the target fails, the baseline does not
    fail that way, and no known defect of the baseline explains the failure."""
    visible: Counter = field(default_factory=Counter)
    """(target verdict, baseline verdict, causes) -> instances where the target fails, the baseline
    does not fail that way, and known defects of the baseline (``causes``) explain the failure."""
    shared: Counter = field(default_factory=Counter)
    """Target verdict -> instances where both fail with that verdict."""
    fixed: Counter = field(default_factory=Counter)
    """Baseline verdict -> instances where the baseline fails and the target passes."""
    fixed_causes: Counter = field(default_factory=Counter)
    """(baseline verdict, causes) -> the same instances, by the baseline's known defects that may
    have made it fail there (no cause: none of its catalogued defects)."""
    quality: Quality = field(default_factory=Quality)
    both_valid: int = 0
    selection_changes: int = 0
    example: SelectionChange | None = None
    """The first instance where both are valid and the saved sets differ."""

    def add_selection(self, instance: Instance, saved: tuple[int, ...] | None, baseline_saved: tuple[int, ...] | None,
                      value: float, baseline_value: float) -> None:
        """Both answers are valid: count a different saved set (None: an answer that could not be read)."""
        self.both_valid += 1
        if saved is None or baseline_saved is None or saved == baseline_saved:
            return
        self.selection_changes += 1
        if self.example is None:
            self.example = SelectionChange(instance, saved, baseline_saved, value, baseline_value)
