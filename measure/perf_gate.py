"""The performance rule of ``knapcheck report``: a limit fails only where the whole interval is past it.

``--max-slowdown X`` fails the gate where a candidate's time ratio against its baseline (candidate /
baseline, ``knapcheck.measure.paired``) has its *lower* end above X on some row: the candidate is
more than X times slower with confidence, not merely in one noisy median. ``--max-memory X`` does the
same with the peak-memory ratio. An interval that straddles X passes. A candidate that could not be
measured at all (it crashed, raised, ran out of memory or of time in the benchmark) fails a gate that
has either limit: the limit asked for a measurement the candidate did not allow. A baseline that
could not be measured leaves nothing to compare: information, never a failure. Without limits,
performance is information only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from knapcheck.measure.paired import CANDIDATE, PairResult


@dataclass(frozen=True)
class PerformanceLimits:
    max_slowdown: float | None = None
    """Fail where the candidate takes more than this many times the baseline's time, with confidence."""
    max_memory: float | None = None
    """Fail where the candidate needs more than this many times the baseline's peak memory, with confidence."""

    def __post_init__(self) -> None:
        for name in ("max_slowdown", "max_memory"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value) or value <= 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")

    @property
    def set(self) -> bool:
        return self.max_slowdown is not None or self.max_memory is not None


def performance_failures(results: Sequence[PairResult], limits: PerformanceLimits) -> list[str]:
    """Why the gate fails on performance, one sentence each; empty when it does not."""
    failures = []
    for result in results:
        for row in result.rows:
            checks = (("time", "--max-slowdown", limits.max_slowdown, row.time),
                      ("peak memory", "--max-memory", limits.max_memory, row.memory))
            for what, option, limit, estimate in checks:
                if limit is not None and estimate is not None and estimate.low > limit:
                    failures.append(f"{result.candidate} against {result.baseline} on {row.row}: {what}"
                                    f" {estimate.describe()}, the whole interval past {option} {limit:g}")
        if limits.set and result.failure is not None and result.failure.role == CANDIDATE:
            failures.append(f"{result.candidate} against {result.baseline}: not measured"
                            f" ({result.failure.describe()}), so no limit can be shown to hold")
    return failures
