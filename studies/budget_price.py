"""What the budget-safe rounding costs, and how fast its solver runs: ``python studies/budget_price.py``.

On every harvested instance (toy and real-size models) and every partitioner bench row, side by
side in this process:

- the quantized optimum V (upstream's rounding, solved exactly by ``sliding_hirschberg``) and how
  far its saved real memory exceeds max_memory (what the safe rounding buys);
- the runtime the safe rounding gives up against it, (V - V_safe) / V (negative where a finer
  scale saves more than upstream's rounding lets the quantized optimum save);
- the time of the budget-safe call over ``sliding_hirschberg``'s (median of ``--repeats``
  alternating calls each).

``--scales`` measures the safe rounding at several scales (the registered ``budget_safe`` uses
``knapcheck.solvers.contract.SAFE_SCALE``), which is how that scale was chosen.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Sequence

from knapcheck.fuzz.corpus.harvest_records import CORPUS_DIR, LARGE_CORPUS_DIR, load_harvested
from knapcheck.fuzz.judging.verdicts.overshoot import relative_overshoot
from knapcheck.measure.bench import ROWS, instance_for
from knapcheck.oracles.verdict import real_memory_slack
from knapcheck.reports.real_budget import percent
from knapcheck.solvers.contract import SAFE_SCALE, SCALE, Instance, quantize_budget_safe
from knapcheck.solvers.sliding_hirschberg import sliding_hirschberg


@dataclass(frozen=True)
class Source:
    group: str
    name: str
    instance: Instance


@dataclass(frozen=True)
class Price:
    source: Source
    scale: int
    loss: float
    """(V - V_safe) / V; 0 when V is 0."""
    overshoot: float
    """The quantized optimum's real overshoot, relative to max_memory."""
    safe_seconds: float
    exact_seconds: float


def sources() -> list[Source]:
    """The harvested corpora (toy, then real-size models) and the partitioner rows of the bench."""
    found = [Source("harvested", r.name, r.instance) for r in load_harvested(CORPUS_DIR)]
    found += [Source("harvested_large", r.name, r.instance) for r in load_harvested(LARGE_CORPUS_DIR)]
    found += [Source("bench rows", row.name, instance_for(row)) for row in ROWS if row.capacity <= SCALE and not row.harvested]
    return found


def _median_seconds(solve: Callable[[], object], others: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median times of two calls, alternated so that load drifts hit both alike."""
    mine: list[float] = []
    theirs: list[float] = []
    for _ in range(repeats):
        for call, times in ((solve, mine), (others, theirs)):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
    return statistics.median(mine), statistics.median(theirs)


def price(source: Source, scale: int, repeats: int) -> Price:
    instance = source.instance
    memory, runtimes, budget = instance.memory, instance.runtimes, instance.max_memory
    safe = partial(sliding_hirschberg, memory, runtimes, budget, scale=scale, quantization=quantize_budget_safe)
    exact = partial(sliding_hirschberg, memory, runtimes, budget)
    best, saved, _ = exact()
    kept, _, _ = safe()
    safe_seconds, exact_seconds = _median_seconds(safe, exact, repeats)
    return Price(
        source,
        scale,
        (best - kept) / best if best > 0 else 0.0,
        relative_overshoot(real_memory_slack(instance, saved), budget),
        safe_seconds,
        exact_seconds,
    )


def render(prices: Sequence[Price]) -> str:
    """One row per group and scale: overshoot bought off, loss and time ratio (median and worst)."""
    header = [
        "instances",
        "scale",
        "count",
        "optimum over budget",
        "worst overshoot",
        "median loss",
        "worst loss",
        "worst loss on",
        "median time ratio",
        "worst time ratio",
        "slowest safe call",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    keys = list(dict.fromkeys((p.source.group, p.scale) for p in prices))
    for group, scale in keys:
        chosen = [p for p in prices if (p.source.group, p.scale) == (group, scale)]
        worst = max(chosen, key=lambda p: p.loss)
        ratios = [p.safe_seconds / p.exact_seconds for p in chosen]
        over = sum(p.overshoot > 0 for p in chosen)
        cells = [
            group,
            f"{scale:g}",
            str(len(chosen)),
            f"{over} of {len(chosen)}",
            percent(max(p.overshoot for p in chosen)),
            percent(statistics.median(p.loss for p in chosen)),
            percent(worst.loss),
            worst.source.name,
            f"{statistics.median(ratios):.2f}x",
            f"{max(ratios):.2f}x",
            f"{1000 * max(p.safe_seconds for p in chosen):.3g} ms",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "loss = (V - V_safe) / V, V the quantized optimum (upstream's rounding, exact); time ratio = the"
        " budget-safe call's median time over sliding_hirschberg's on the same instance.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python studies/budget_price.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scales", default=str(SAFE_SCALE), help=f"comma-separated scales of the safe rounding (default: {SAFE_SCALE})"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per solver and instance (default: 5)")
    args = parser.parse_args(argv)
    try:
        scales = [int(float(part)) for part in args.scales.split(",")]
    except ValueError:
        parser.exit(2, f"--scales: expected comma-separated numbers, got {args.scales!r}\n")
    if any(scale < 1 for scale in scales) or args.repeats < 1:
        parser.exit(2, "--scales and --repeats must be at least 1\n")
    prices = []
    for scale in scales:
        for source in sources():
            prices.append(price(source, scale, args.repeats))
        print(f"scale {scale:g}: {len(prices)} instances measured", file=sys.stderr, flush=True)
    print(render(prices))
    return 0


if __name__ == "__main__":
    sys.exit(main())
