"""The performance part of `knapcheck report`: each candidate against its baseline, ratio and interval.

The measurements come from ``knapcheck.measure.paired`` (the two solvers interleaved, each in its own process), the
rule from ``knapcheck.measure.perf_gate``; this module only renders them, for report.md, report.html
and report.json (a row per size, and each pair's growth in n beside its baseline's), and draws time
and peak memory against the size of the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from ..measure.paired import (
    BASELINE,
    CANDIDATE,
    STOP_ASKED,
    STOP_FAILURE,
    STOP_ROUNDS,
    STOP_SHARES,
    STOP_TIGHT,
    STOP_TIME,
    PairResult,
    RowComparison,
)
from ..measure.perf_gate import PerformanceLimits, growth, worst
from ..measure.ratio_interval import CONFIDENCE, RatioEstimate
from ..measure.tree_meter import CGROUP, SAMPLE_SECONDS, SAMPLED
from ..solvers.specs import shown, shown_in
from .bench_table import duration, size
from .markdown import prose
from .svg_plot import line_chart
from .tables import Table

_STOPPED = {
    STOP_TIGHT: "every time interval was tight",
    STOP_SHARES: "every row's time interval was tight or the row had had its share of the time limit",
    STOP_ROUNDS: "the most rounds were run",
    STOP_TIME: "the time limit ran out",
    STOP_FAILURE: "a solver could not be measured",
    STOP_ASKED: "the run was asked to stop",
}
_TIME_MEASURES = {
    "cpu": "time is the CPU time of each solver's whole process tree (its threads and child processes included)",
    "wall": "time is wall-clock time (a CUDA solver's work is not CPU time)",
}
_MEMORY_MEASURES = {
    CGROUP: "memory is each tree's cgroup memory.peak, reset before every call",
    SAMPLED: (f"memory is each tree's proportional anonymous and shared memory, sampled every {SAMPLE_SECONDS * 1000:g} ms"
                " during a call, with the calling process's own peak between samples"),
}
_SIZE_AXIS = "n * (C + 1): items times capacity (quantized units) plus one"
HEADER = ["row", "candidate time", "baseline time", "time ratio", "candidate peak", "baseline peak", "memory ratio"]


@dataclass
class Performance:
    """The benchmark part: each pair's measurements and the rule's verdict on them, or why there are none."""

    pairs: list[PairResult] = field(default_factory=list)
    limits: PerformanceLimits = field(default_factory=PerformanceLimits)
    failures: list[str] = field(default_factory=list)
    """What fails the gate on performance (knapcheck.measure.perf_gate); empty when nothing does."""
    note: str = ""

    @property
    def rows(self) -> list[dict]:
        """Each solver's median time and peak on each row, once (for report.json's rows and the plots)."""
        found: dict[tuple[str, str], dict] = {}
        for pair in self.pairs:
            for row in pair.rows:
                for role, solver in ((CANDIDATE, pair.candidate), (BASELINE, pair.baseline)):
                    found.setdefault((solver, row.row), {
                        "solver": solver, "row": row.row, "n": row.n, "capacity": row.capacity,
                        "median_seconds": row.seconds.get(role), "peak_bytes": row.peak_bytes.get(role),
                        "failure": row.refused or _failure_of(pair, role),
                    })
        return list(found.values())


def _failure_of(pair: PairResult, role: str) -> str:
    return pair.failure.status if pair.failure is not None and pair.failure.role == role else ""


def _limits(limits: PerformanceLimits) -> str:
    shown = [f"{option} {value:g}" for option, value in (("--max-slowdown", limits.max_slowdown),
                                                          ("--max-memory", limits.max_memory)) if value is not None]
    return ", ".join(shown)


def gate_sentence(performance: Performance) -> str:
    """The headline's sentence on performance; empty when no limit was set."""
    if not performance.limits.set:
        return ""
    if performance.failures:
        count = len(performance.failures)
        return (f"Performance is past its limits ({_limits(performance.limits)}) in {count}"
                f" {'case' if count == 1 else 'cases'}, listed under Performance.")
    return f"Performance is within its limits ({_limits(performance.limits)})."


def _gate_outcome(performance: Performance) -> tuple[str, list[str]]:
    """The performance rule's outcome in a line, and each failure (solvers as shown)."""
    if not performance.limits.set:
        return "No --max-slowdown or --max-memory: performance is information, never a failure.", []
    if not performance.failures:
        return f"Performance gate: passed ({_limits(performance.limits)}): no interval is wholly past its limit.", []
    return (f"Performance gate: FAILED ({_limits(performance.limits)}):",
            [shown_in(failure, _names(performance)) for failure in performance.failures])


def _names(performance: Performance) -> list[str]:
    return [name for pair in performance.pairs for name in (pair.candidate, pair.baseline)]


def _estimate(estimate: RatioEstimate | None) -> str:
    return estimate.describe() if estimate is not None else "-"


def _cell(row: RowComparison, role: str, key: str) -> str:
    value = getattr(row, key).get(role)
    if value is None:
        return "-"
    return duration(value) if key == "seconds" else size(value)


def _table(pair: PairResult) -> Table:
    """The pair's table; no rows when not one row was measured (the pair's line says why)."""
    if not any(row.time or row.refused for row in pair.rows):
        return Table(HEADER, [])
    rows = []
    for row in pair.rows:
        if row.refused:
            rows.append([row.row, row.refused, "", "", "", "", ""])
            continue
        rows.append([row.row, _cell(row, CANDIDATE, "seconds"), _cell(row, BASELINE, "seconds"), _estimate(row.time),
                     _cell(row, CANDIDATE, "peak_bytes"), _cell(row, BASELINE, "peak_bytes"), _estimate(row.memory)])
    return Table(HEADER, rows)


def _pair_title(pair: PairResult) -> str:
    return f"{shown(pair.candidate)} against {shown(pair.baseline)}"


def _sizes_line(pair: PairResult) -> str:
    """The pair's growth in n beside its baseline's (its worst sizes are in the report's first
    screen); empty without the ladder in n."""
    ladder = growth(pair)
    return "" if ladder is None else f"Growth in n: {ladder.describe()}."


def _measures(pair: PairResult) -> str:
    """What the pair's times and peaks measure (one sentence for every pair measured the same way)."""
    return f"{_TIME_MEASURES.get(pair.time_measure, '')}; {_MEMORY_MEASURES.get(pair.memory_measure, '')}."


def _pair_line(pair: PairResult) -> str:
    line = (f"{pair.rounds} rounds in {pair.seconds:.0f} s (limit {pair.time_limit:g} s after loading), stopped because"
            f" {_STOPPED[pair.stopped]}; load average {pair.load_before:.2f} at the start and"
            f" {pair.load_after:.2f} at the end, on {pair.cpus} cores.")
    if pair.failure is not None:
        line += f" Not measured: {shown_in(pair.failure.describe(), [pair.candidate, pair.baseline])}."
    return line


def _explanation(performance: Performance) -> str:
    """How every pair was measured: the method, then what times and peaks measure (once per way of measuring)."""
    measures = list(dict.fromkeys(_measures(pair) for pair in performance.pairs))
    return " ".join([EXPLANATION, *(m[0].upper() + m[1:] for m in measures)])


EXPLANATION = (
    "Each candidate is timed against its baseline, each in a process of its own that the other cannot"
    " reach, the two called in turn on the same instances round after round (one torch thread), so that"
    " both see the same load. Ratios are candidate / baseline (above 1 the candidate is slower or needs"
    f" more memory): the median of the paired ratios, with its {CONFIDENCE:.0%} interval in parentheses."
    " Times are medians per call; a peak is the most a solver's whole process tree held during a call"
    " above what it held once the solver was loaded, what it keeps from earlier calls included (under"
    " 1 MiB counts as 1 MiB in the ratio)."
)


def outcome_markdown(performance: Performance) -> list[str]:
    """The rule's outcome and its failures (never folded: they may fail the gate), or why nothing was measured."""
    lines = []
    if performance.pairs:
        outcome, failures = _gate_outcome(performance)
        lines += [outcome, ""]
        if failures:
            lines += [*(f"- {prose(failure)}" for failure in failures), ""]
    if performance.note:
        lines += [prose(performance.note), ""]
    return lines


def summary(performance: Performance) -> str:
    """The measurements in a few words (the fold's summary)."""
    return f"{len(performance.pairs)} {'pair' if len(performance.pairs) == 1 else 'pairs'} of solvers, each row's ratios and times"


def measurements_markdown(performance: Performance) -> list[str]:
    """How the pairs were measured (once for all), then each pair's measurements."""
    lines = [prose(_explanation(performance)), ""] if performance.pairs else []
    for pair in performance.pairs:
        lines += [f"**{prose(_pair_title(pair))}**: {prose(_pair_line(pair))}", ""]
        table = _table(pair)
        if table.rows:
            lines += [*table.markdown(), ""]
        if _sizes_line(pair):
            lines += [prose(_sizes_line(pair)), ""]
    return lines


def outcome_html(performance: Performance) -> list[str]:
    parts = []
    if performance.pairs:
        outcome, failures = _gate_outcome(performance)
        parts.append(f"<p>{escape(outcome)}</p>")
        if failures:
            parts.append("<ul>" + "".join(f"<li>{escape(failure)}</li>" for failure in failures) + "</ul>")
    if performance.note:
        parts.append(f"<p>{escape(performance.note)}</p>")
    return parts


def measurements_html(performance: Performance) -> list[str]:
    """As in Markdown, then the plots."""
    parts = [f"<p>{escape(_explanation(performance))}</p>"] if performance.pairs else []
    for pair in performance.pairs:
        parts.append(f"<p><strong>{escape(_pair_title(pair))}</strong>: {escape(_pair_line(pair))}</p>")
        table = _table(pair)
        if table.rows:
            parts.append(table.html())
        if _sizes_line(pair):
            parts.append(f"<p>{escape(_sizes_line(pair))}</p>")
    return parts + plots(performance)


def _row_json(row: RowComparison) -> dict:
    return {
        "row": row.row, "n": row.n, "capacity": row.capacity, "refused": row.refused,
        "time": row.time.as_dict() if row.time else None,
        "memory": row.memory.as_dict() if row.memory else None,
        "median_seconds": dict(row.seconds), "median_peak_bytes": dict(row.peak_bytes),
        "median_retained_bytes": dict(row.retained_bytes), "grows_in": row.grows_in,
    }


def _pair_json(pair: PairResult) -> dict:
    failure, ladder = pair.failure, growth(pair)
    return {
        "candidate": pair.candidate, "baseline": pair.baseline, "rounds": pair.rounds, "stopped": pair.stopped,
        "seconds": pair.seconds, "time_limit": pair.time_limit,
        "load": {"before": pair.load_before, "after": pair.load_after, "cpus": pair.cpus},
        "measured": {"time": pair.time_measure, "memory": pair.memory_measure},
        "failure": None if failure is None else {
            "role": failure.role, "solver": failure.solver, "status": failure.status, "row": failure.row,
            "error": failure.error,
        },
        "rows": [_row_json(row) for row in pair.rows],
        "growth": None if ladder is None else ladder.as_dict(),
        "worst": {measure: None if row is None else row.row
                  for measure, row in (("time", worst(pair, "time")), ("memory", worst(pair, "memory")))},
    }


def to_json(performance: Performance) -> dict:
    return {
        "rows": performance.rows,
        "note": performance.note,
        "confidence": CONFIDENCE,
        "pairs": [_pair_json(pair) for pair in performance.pairs],
        "gate": {
            "max_slowdown": performance.limits.max_slowdown,
            "max_memory": performance.limits.max_memory,
            "passed": not performance.failures,
            "failing": list(performance.failures),
        },
    }


def plots(performance: Performance) -> list[str]:
    """Time and peak memory against the size of the problem, n * (C + 1) (a DP table's cells: the
    rows grow in n and in C), one line per solver, as SVG."""
    rows = performance.rows
    if not rows:
        return []
    by_solver: dict[str, list[dict]] = {}
    for row in rows:
        by_solver.setdefault(row["solver"], []).append(row)

    def series(key: str, unit: float) -> dict[str, list[tuple[float, float]]]:
        return {
            shown(name): sorted((row["n"] * (row["capacity"] + 1), row[key] / unit) for row in rows
                                if row.get(key) is not None)
            for name, rows in by_solver.items()
        }

    return [
        line_chart("Median time", series("median_seconds", 1.0), _SIZE_AXIS, "seconds", log_x=True, log_y=True),
        line_chart("Peak memory", series("peak_bytes", 2**20), _SIZE_AXIS, "MiB", log_x=True, log_y=True),
    ]
