"""The summary `knapcheck harvest --trace` prints for each log: torch's answers judged, and ours beside them.

A few lines per log: how many knapsacks from how many compiles, how many of torch's answers were
optimal, the worst runtime an answer left on the table (absolute, in the runtime estimator's unit,
and relative to the optimum), the worst real-memory overshoot (relative to max_memory), the same for
``expanding_core`` and ``budget_safe``, then one line per knapsack torch did not answer optimally.
"""

from __future__ import annotations

from collections import Counter
from typing import cast

from ..fuzz.corpus.harvest_records import TraceOrigin
from ..fuzz.harvest.logged_answers import COMPARED, JudgedKnapsack, TraceVerdicts
from ..oracles.verdict import Verdict
from .real_budget import percent
from .words import counted

LISTED = 10
"""How many of the knapsacks torch did not answer optimally are listed; the rest are counted."""


def _span(values: list) -> str:
    low, high = min(values), max(values)
    return f"{low:g}" if low == high else f"{low:g} to {high:g}"


def _verdicts(verdicts: list[Verdict]) -> str:
    counts = Counter(verdicts)
    others = ", ".join(f"{count} {verdict}" for verdict, count in sorted(counts.items()) if verdict is not Verdict.OPTIMAL)
    return f"{counts[Verdict.OPTIMAL]} of {len(verdicts)} OPTIMAL" + (f", {others}" if others else "")


def _origin(knapsack: JudgedKnapsack) -> TraceOrigin:
    """Where the log holds the knapsack: each record of a TraceVerdicts was read from it."""
    return cast(TraceOrigin, knapsack.record.trace)


def _label(knapsack: JudgedKnapsack) -> str:
    """A knapsack within its log's summary: its call number, as in its record's name (``MODEL@BUDGET#CALL``)."""
    return f"#{knapsack.record.call}"


def _overshoot(verdicts: TraceVerdicts, solver: str | None) -> str:
    worst, where = verdicts.worst(lambda k: (k.torch if solver is None else k.compared[solver]).overshoot)
    if where is None:
        return "real memory never over max_memory"
    return f"worst real overshoot {percent(worst)} of max_memory ({_label(where)})"


def _against_torch(verdicts: TraceVerdicts, solver: str) -> str:
    torch_total = sum(k.torch.value or 0.0 for k in verdicts.knapsacks)
    total = sum(k.compared[solver].value or 0.0 for k in verdicts.knapsacks)
    if total == torch_total:
        return "saves as much runtime as torch's answers"
    if torch_total <= 0:
        return f"saves {total:.6g} runtime in all, where torch's answers save {torch_total:.6g}"
    return f"saves {percent(abs(total - torch_total) / torch_total)} {'more' if total > torch_total else 'less'} runtime than torch's answers"


def header(verdicts: TraceVerdicts) -> str:
    harvest = verdicts.harvest
    records = harvest.records
    compiles = verdicts.compiles
    shown = ", ".join(compiles[:5]) + (", ..." if len(compiles) > 5 else "")
    origins = [cast(TraceOrigin, r.trace) for r in records]  # read from the log: each has its trace
    regions = sum(1 for origin in origins if origin.region is not None)
    parts = [
        f"{harvest.path.name} (torch {harvest.torch_version}): {counted(len(records), 'knapsack')}"
        f" from {counted(len(compiles), 'compile')} ({shown})",
        f"n = {_span([r.instance.n for r in records])}",
        f"budget {_span([r.budget for r in records])}",
    ]
    if regions:
        parts.append(f"{regions} under a per-region budget")
    cached = sum(1 for origin in origins if origin.from_cache)
    if cached:
        parts.append(f"{cached} replayed from the AOTAutograd cache (solved by an earlier run)")
    return ", ".join(parts)


def torch_line(verdicts: TraceVerdicts) -> str:
    gap, where = verdicts.worst(lambda k: k.gap)
    if where is None:
        gap_text = "no runtime left on the table"
    else:
        relative = gap / where.optimum if where.optimum > 0 else 0.0
        gap_text = f"at worst {gap:.6g} runtime left on the table ({percent(relative)} of the optimum, {_label(where)})"
    verdict_text = _verdicts([k.torch.verdict for k in verdicts.knapsacks])
    return f"torch's answers: {verdict_text}; {gap_text}; {_overshoot(verdicts, None)}"


def compared_line(verdicts: TraceVerdicts, solver: str) -> str:
    parts = [_verdicts([k.compared[solver].verdict for k in verdicts.knapsacks]), _overshoot(verdicts, solver)]
    shortfall, where = verdicts.worst(lambda k: k.shortfall(solver))
    if where is not None:
        parts.append(f"saves at worst {percent(shortfall)} less runtime than the optimum ({_label(where)})")
    parts.append(_against_torch(verdicts, solver))
    return f"{solver}: " + "; ".join(parts)


def not_optimal_lines(verdicts: TraceVerdicts) -> list[str]:
    failing = [k for k in verdicts.knapsacks if k.torch.verdict is not Verdict.OPTIMAL]
    lines = [
        f"{_label(k)} (compile {_origin(k).compile_id}, line {_origin(k).line}, n = {k.record.instance.n},"
        f" budget {k.record.budget:g}): {k.torch.verdict}"
        + (f": {k.torch.judgement.detail}" if k.torch.judgement.detail else "")
        for k in failing[:LISTED]
    ]
    if len(failing) > LISTED:
        lines.append(f"... and {len(failing) - LISTED} more (every knapsack is in the instance file)")
    return lines


def render_text(verdicts: TraceVerdicts) -> str:
    lines = [header(verdicts), "  " + torch_line(verdicts)]
    lines += ["  " + compared_line(verdicts, solver) for solver in COMPARED]
    failing = not_optimal_lines(verdicts)
    if failing:
        lines.append("  torch's answers that are not OPTIMAL:")
        lines += ["    " + line for line in failing]
    return "\n".join(lines)
