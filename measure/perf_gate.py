"""The performance rule of ``knapcheck report``: a limit fails only where the whole interval is past it.

``--max-slowdown X`` fails the gate where a candidate's time ratio against its baseline (candidate /
baseline, ``knapcheck.measure.paired``) has its *lower* end above X on some row: the candidate is
more than X times slower with confidence, not merely in one noisy median. ``--max-memory X`` does the
same with the peak-memory ratio. An interval that straddles X passes. A candidate that could not be
measured at all (it crashed, raised, ran out of memory or of time in the benchmark) fails a gate that
has either limit: the limit asked for a measurement the candidate did not allow. A baseline that
could not be measured leaves nothing to compare: information, never a failure. Without limits,
performance is information only.

The rows grow in n (``knapcheck.measure.size_rows``) as well as in capacity, and the rule holds on
each, so a candidate fails on its worst size: a step quadratic in n that is 1.0x at a few hundred
items and 5x at 2 000 fails there. ``growth`` sets the candidate's growth in n beside the baseline's
(how many times each one's time grows from the smallest size to the largest), and a failure on a
larger size says what the ratio was at the smallest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .paired import BASELINE, CANDIDATE, PairResult, RowComparison
from .ratio_interval import times


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


@dataclass(frozen=True)
class Growth:
    """The ladder in n of one pair: its smallest and its largest size, both measured."""

    small: RowComparison
    large: RowComparison

    def factor(self, role: str) -> float:
        """How many times ``role``'s median time grows from the smallest size to the largest."""
        return self.large.seconds[role] / self.small.seconds[role]

    def describe(self) -> str:
        """``from n=250 to n=2000 the baseline's time grows 9.8x, the candidate's 41x (time ratio 2.20x, then 9.19x)``."""
        assert self.small.time is not None and self.large.time is not None
        return (f"from n={self.small.n} to n={self.large.n} the baseline's time grows {times(self.factor(BASELINE))},"
                f" the candidate's {times(self.factor(CANDIDATE))} (time ratio {times(self.small.time.ratio)},"
                f" then {times(self.large.time.ratio)})")

    def as_dict(self) -> dict:
        return {"from_n": self.small.n, "to_n": self.large.n, "from_row": self.small.row, "to_row": self.large.row,
                "baseline_factor": self.factor(BASELINE), "candidate_factor": self.factor(CANDIDATE)}


def growth(result: PairResult) -> Growth | None:
    """The pair's ladder in n (its rows with ``grows_in == "n"`` that were timed), smallest and largest
    size; None with fewer than two such sizes."""
    ladder = sorted((row for row in result.rows if row.grows_in == "n" and row.time is not None
                     and all(row.seconds.get(role) for role in (CANDIDATE, BASELINE))), key=lambda row: row.n)
    if len(ladder) < 2 or ladder[0].n == ladder[-1].n:
        return None
    return Growth(ladder[0], ladder[-1])


def worst(result: PairResult, measure: str) -> RowComparison | None:
    """The row whose ``measure`` (``time`` or ``memory``) interval lies furthest up: its low end highest."""
    measured = [row for row in result.rows if getattr(row, measure) is not None]
    return max(measured, key=lambda row: getattr(row, measure).low, default=None)


def _at_smallest_size(result: PairResult, row: RowComparison, measure: str) -> str:
    """``; 1.02x at n=250``: the ratio at the ladder's smallest size, on a failure at a larger one."""
    ladder = growth(result)
    if ladder is None or row.grows_in != "n" or row.n == ladder.small.n:
        return ""
    estimate = getattr(ladder.small, measure)
    return "" if estimate is None else f"; {times(estimate.ratio)} at n={ladder.small.n}"


def performance_failures(results: Sequence[PairResult], limits: PerformanceLimits) -> list[str]:
    """Why the gate fails on performance, one sentence each; empty when it does not."""
    failures = []
    for result in results:
        for row in result.rows:
            checks = (("time", "time", "--max-slowdown", limits.max_slowdown, row.time),
                      ("peak memory", "memory", "--max-memory", limits.max_memory, row.memory))
            for what, measure, option, limit, estimate in checks:
                if limit is not None and estimate is not None and estimate.low > limit:
                    failures.append(f"{result.candidate} against {result.baseline} on {row.row}: {what}"
                                    f" {estimate.describe()}, the whole interval past {option} {limit:g}"
                                    f"{_at_smallest_size(result, row, measure)}")
        if limits.set and result.failure is not None and result.failure.role == CANDIDATE:
            failures.append(f"{result.candidate} against {result.baseline}: not measured"
                            f" ({result.failure.describe()}), so no limit can be shown to hold")
    return failures
