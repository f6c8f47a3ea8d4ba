"""The real-budget table: how far saved real memory exceeds max_memory, per solver and family.

Information, never a failure: the contract judges the budget in quantized units, as upstream does
(a solver that promises the real budget, such as ``budget_safe``, fails its own check instead).
Overshoots are relative to max_memory, aggregated by ``knapcheck.fuzz.judging.verdicts.overshoot`` (the median over
every answer, so 0 while fewer than half overshoot; the worst with its instance). Rows are the
(solver, family) pairs with an overshoot; the solvers that never overshot are named in one line
below the table.
"""

from __future__ import annotations

import math

from ..fuzz.judging.verdicts.differential import instance_id
from ..fuzz.judging.verdicts.overshoot import Overshoots, OvershootSummary, never_over
from ..solvers.contract import Instance
from ..solvers.specs import shown
from .tables import Table

TITLE = "Real memory against max_memory"
NOTE = (
    "Overshoot of the saved items' real (unquantized) memory over max_memory, relative to it: "
    "information, not a contract failure (the contract follows upstream's quantized budget)."
)
HEADER = ["solver", "family", "answers", "over", "median", "worst", "worst instance"]


def percent(value: float) -> str:
    if math.isinf(value):
        return "inf (budget 0)"
    return f"{100 * value:.3g}%"


def describe(instance: Instance | None) -> str:
    if instance is None:
        return "-"
    return f"n={instance.n}, max_memory={instance.max_memory!r}"


def _cells(row: OvershootSummary) -> list[str]:
    return [
        shown(row.solver),
        row.family,
        str(row.answers),
        str(row.over),
        percent(row.median),
        percent(row.worst),
        describe(row.worst_instance),
    ]


def table(overshoots: Overshoots) -> tuple[Table, str]:
    """The rows that overshoot, and the line naming the solvers that never did."""
    rows = overshoots.summary()
    never = [f"{shown(solver)} ({count} answers)" for solver, count in never_over(rows).items()]
    if not rows:
        line = "No answers were recorded."
    elif never:
        line = "Never over max_memory: " + ", ".join(never) + "."
    else:
        line = "Every solver went over max_memory somewhere."
    return Table(HEADER, [_cells(row) for row in rows if row.over]), line


def render_text(overshoots: Overshoots) -> str:
    over, line = table(overshoots)
    parts = [f"{TITLE}:", NOTE]
    if over.rows:
        parts.append(over.text())
    parts.append(line)
    return "\n".join(parts)


SOLVER_HEADER = ["solver", "answers", "over", "worst", "worst in family", "worst instance"]


def by_solver(overshoots: Overshoots) -> Table:
    """One row per solver that overshot: its answers and overshoots over every family, and its
    worst (report.md's table; report.html and report.json have each family)."""
    rows: dict[str, list[OvershootSummary]] = {}
    for row in overshoots.summary():
        rows.setdefault(row.solver, []).append(row)
    cells = []
    for solver, found in rows.items():
        worst = max(found, key=lambda row: row.worst)
        over = sum(row.over for row in found)
        if over:
            cells.append([shown(solver), str(sum(row.answers for row in found)), str(over), percent(worst.worst),
                          worst.family, describe(worst.worst_instance)])
    return Table(SOLVER_HEADER, cells)


def markdown_lines(overshoots: Overshoots) -> list[str]:
    """The note, one row per solver that overshot, and the solvers that never did."""
    _, line = table(overshoots)
    over = by_solver(overshoots)
    lines = [NOTE, ""]
    if over.rows:
        lines += [*over.markdown(), "", "Each family's overshoots are in report.html and report.json.", ""]
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
        for row in overshoots.summary()
    ]
