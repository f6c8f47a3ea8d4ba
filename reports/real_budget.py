"""The real-budget table: how far saved real memory exceeds max_memory, per solver and family.

Information, never a failure: the contract judges the budget in quantized units, as upstream does
(a solver that promises the real budget, such as ``budget_safe``, fails its own check instead).
Overshoots are relative to max_memory. The median is over every answer, so it is 0 while fewer
than half overshoot; the worst comes with its instance. Rows are the (solver, family) pairs with an
overshoot; the solvers that never overshot are named in one line below the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from knapcheck.fuzz.differential import instance_id
from knapcheck.fuzz.overshoot import OvershootSample, Overshoots
from knapcheck.solvers.contract import Instance

TITLE = "Real memory against max_memory"
NOTE = (
    "Overshoot of the saved items' real (unquantized) memory over max_memory, relative to it: "
    "information, not a contract failure (the contract follows upstream's quantized budget)."
)
HEADER = ["solver", "family", "answers", "over", "median", "worst", "worst instance"]


@dataclass(frozen=True)
class RealBudgetRow:
    solver: str
    family: str
    answers: int
    over: int
    median: float
    worst: float
    worst_instance: Instance | None


def median_overshoot(sample: OvershootSample) -> float:
    """The median over every answer: the ones within the budget count as 0."""
    ordered = sorted(sample.over)

    def at(position: int) -> float:
        return 0.0 if position < sample.within else ordered[position - sample.within]

    middle = sample.answers // 2
    if sample.answers % 2:
        return at(middle)
    return (at(middle - 1) + at(middle)) / 2


def real_budget_rows(overshoots: Overshoots) -> list[RealBudgetRow]:
    """Every (solver, family) pair that was checked, solvers in the order first seen, families sorted."""
    solvers = list(dict.fromkeys(solver for solver, _ in overshoots.samples))
    return [
        RealBudgetRow(
            solver, family, sample.answers, len(sample.over), median_overshoot(sample), sample.worst, sample.worst_instance
        )
        for solver in solvers
        for (name, family), sample in sorted(overshoots.samples.items(), key=lambda item: item[0][1])
        if name == solver
    ]


def percent(value: float) -> str:
    if math.isinf(value):
        return "inf (budget 0)"
    return f"{100 * value:.3g}%"


def describe(instance: Instance | None) -> str:
    if instance is None:
        return "-"
    return f"n={instance.n}, max_memory={instance.max_memory!r}"


def _cells(row: RealBudgetRow) -> list[str]:
    return [
        row.solver,
        row.family,
        str(row.answers),
        str(row.over),
        percent(row.median),
        percent(row.worst),
        describe(row.worst_instance),
    ]


def table(overshoots: Overshoots) -> tuple[list[str], list[list[str]], str]:
    """Header, the rows that overshoot, and the line naming the solvers that never did."""
    rows = real_budget_rows(overshoots)
    answers: dict[str, int] = {}
    overshooting: set[str] = set()
    for row in rows:
        answers[row.solver] = answers.get(row.solver, 0) + row.answers
        if row.over:
            overshooting.add(row.solver)
    never = [f"{solver} ({count} answers)" for solver, count in answers.items() if solver not in overshooting]
    if not rows:
        line = "No answers were recorded."
    elif never:
        line = "Never over max_memory: " + ", ".join(never) + "."
    else:
        line = "Every solver went over max_memory somewhere."
    return HEADER, [_cells(row) for row in rows if row.over], line


def render_text(overshoots: Overshoots) -> str:
    header, rows, line = table(overshoots)
    parts = [f"{TITLE}:", NOTE]
    if rows:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        parts.append("\n".join(lines))
    parts.append(line)
    return "\n".join(parts)


def markdown_lines(overshoots: Overshoots) -> list[str]:
    header, rows, line = table(overshoots)
    lines = [NOTE, ""]
    if rows:
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    return lines + [line, ""]


def _number(value: float) -> float | str:
    """JSON has no infinity: an overshoot of a zero budget is written as "inf"."""
    return "inf" if math.isinf(value) else value


def to_json(overshoots: Overshoots) -> list[dict]:
    """Every (solver, family) pair, with or without an overshoot."""
    return [
        {
            "solver": row.solver,
            "family": row.family,
            "answers": row.answers,
            "over": row.over,
            "median": _number(row.median),
            "worst": _number(row.worst),
            "worst_instance": None if row.worst_instance is None else {
                "id": instance_id(row.worst_instance), **row.worst_instance.as_dict()
            },
        }
        for row in real_budget_rows(overshoots)
    ]
