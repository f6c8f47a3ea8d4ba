"""A target against its baseline, instance by instance: what is shared, what regressed, what was
fixed, and where both are right but save different sets (information, never a failure).

PyTorch's own tests assert specific saved sets, so a candidate that changes only the tie-break
among optimal selections passes the contract yet is worth a line in a review: ``selection_changes``
counts the instances where both answers are valid (optimal, or valid for a heuristic) and the
saved sets differ, and keeps the first as an example.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from knapcheck.solvers.contract import Instance


@dataclass(frozen=True)
class SelectionChange:
    instance: Instance
    saved: tuple[int, ...]
    """What the target saved."""
    baseline_saved: tuple[int, ...]
    value: float
    baseline_value: float


@dataclass
class Comparison:
    baseline: str
    instances: int = 0
    """Instances both were run on."""
    same_verdict: int = 0
    regressed: Counter = field(default_factory=Counter)
    """(target verdict, baseline verdict) -> instances where the target fails and the baseline does not fail that way."""
    shared: Counter = field(default_factory=Counter)
    """Target verdict -> instances where both fail with that verdict."""
    fixed: Counter = field(default_factory=Counter)
    """Baseline verdict -> instances where the baseline fails and the target passes."""
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
