"""A ratio between two solvers from paired measurements, with a distribution-free confidence interval.

Each sample is one paired comparison, ``log(candidate / baseline)``, of two measurements taken side
by side on the same instance (``knapcheck.measure.paired``). The ratio is the median of the paired
ratios; its interval is the sign-test interval of that median (the binomial order statistics,
``scipy.stats.quantile_test``): it assumes nothing about the shape of the noise, and a burst of load
that slows a few calls moves it little. With fewer than ``MIN_SAMPLES_FOR_CONFIDENCE`` samples no
99 % interval exists; the range of the samples is given instead, with the confidence it has.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

CONFIDENCE = 0.99
"""Per interval: a gate judges several rows at once, and at 99 % each an unchanged solver's three
time intervals all hold 1 but for about 3 % of runs."""
MIN_SAMPLES_FOR_CONFIDENCE = math.ceil(1 - math.log2(1 - CONFIDENCE))
"""The fewest samples whose extremes bound the median with CONFIDENCE (8 for 99 %: 1 - 2 / 2**8)."""


@dataclass(frozen=True)
class RatioEstimate:
    """candidate / baseline: above 1 the candidate takes longer (or needs more memory)."""

    ratio: float
    low: float
    high: float
    samples: int
    confidence: float
    """How sure the interval is to hold the true median ratio: CONFIDENCE, or less with few samples."""

    @property
    def spread(self) -> float:
        """high / low: 1.10 means the interval spans 10 %."""
        return self.high / self.low

    def describe(self) -> str:
        """``1.00x (0.97x-1.03x)``, with the confidence when it is short of CONFIDENCE."""
        shown = f"{times(self.ratio)} ({times(self.low)}-{times(self.high)}"
        if self.confidence < CONFIDENCE:
            shown += f", {self.confidence:.0%} confidence from {self.samples} samples"
        return shown + ")"

    def as_dict(self) -> dict:
        return {"ratio": self.ratio, "low": self.low, "high": self.high, "samples": self.samples,
                "confidence": self.confidence}


def estimate(log_ratios: Sequence[float]) -> RatioEstimate | None:
    """The median ratio and its interval from paired log-ratios; None without any sample."""
    values = sorted(log_ratios)
    if not values:
        return None
    if any(not math.isfinite(v) for v in values):
        raise ValueError(f"log_ratios must be finite numbers, got {values!r}")
    middle = statistics.median(values)
    if len(values) < MIN_SAMPLES_FOR_CONFIDENCE:
        low, high, confidence = values[0], values[-1], 1.0 - 2.0 ** (1 - len(values))
    else:
        from scipy.stats import quantile_test

        interval = quantile_test(values, q=middle, p=0.5).confidence_interval(CONFIDENCE)
        low, high, confidence = float(interval.low), float(interval.high), CONFIDENCE
    return RatioEstimate(math.exp(middle), math.exp(low), math.exp(high), len(values), confidence)


def times(ratio: float) -> str:
    """A ratio as ``0.012x``, ``1.00x``, ``47.3x``, ``179x`` or ``1,234x``."""
    if ratio < 0.1:
        return f"{ratio:.2g}x"
    if ratio < 10:
        return f"{ratio:.2f}x"
    return f"{ratio:.3g}x" if ratio < 999.5 else f"{ratio:,.0f}x"
