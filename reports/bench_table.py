"""A benchmark's results for people and for machines: two narrow tables, and JSON with the raw medians.

The first table has one row per instance row and one column per solver (median time, peak memory);
the second, one ratio column per measured solver against the reference, the first baseline. Every
ratio points the same way: the reference's figure divided by the solver's, for time and for memory
alike, so above 1 the solver is faster or leaner. Solvers are labelled by their function's name
where that is unambiguous (the legend under the tables gives their specs), so each table fits a page.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Sequence

from ..measure.bench import CLOCKS, BenchResult, Cell
from ..solvers.specs import shown
from .tables import Table

SCHEMA_VERSION = 1
PAGE = 4096
"""Peak memory is measured in pages: below one, the measurement cannot tell sizes apart."""


@dataclass(frozen=True)
class TitledTable(Table):
    title: str = ""


@dataclass
class BenchTables:
    tables: list[TitledTable]
    notes: list[str] = field(default_factory=list)
    """Lines under the tables: the legend, the ratios' meaning, summaries."""


def labels(solvers: Sequence[str]) -> dict[str, str]:
    """Short, unambiguous column labels: the function's name, else ``where:name`` with only the
    file's or module's last part, else the name as shown (``knapcheck.solvers.specs.shown``)."""
    for shorten in (_function, _last_part):
        short = {s: shorten(s) for s in solvers}
        if len(set(short.values())) == len(short):
            return short
    return {s: shown(s) for s in solvers}


def _function(solver: str) -> str:
    return solver.rpartition(":")[2]


def _last_part(solver: str) -> str:
    """``where:name`` with only the file's name or the module's last part (``knapsack.py:dp_knapsack``)."""
    where, colon, name = solver.rpartition(":")
    where = PurePath(where).name if where.endswith(".py") else where.rpartition(".")[2]
    return f"{where}{colon}{name}"


def significant(value: float) -> str:
    """Three significant digits, without an exponent: 0.00123, 4.56, 789, 1,234."""
    return f"{value:.3g}" if abs(value) < 999.5 else f"{value:,.0f}"


def duration(seconds: float) -> str:
    return f"{significant(seconds * 1000)} ms" if seconds < 0.9995 else f"{significant(seconds)} s"


def size(peak_bytes: float) -> str:
    """Peak memory to 3 significant digits (under one page: too small to tell)."""
    if peak_bytes < PAGE:
        return "< 4 KiB"
    for unit, scale in (("KiB", 2**10), ("MiB", 2**20)):
        if peak_bytes < 999.5 * scale:
            return f"{significant(peak_bytes / scale)} {unit}"
    return f"{significant(peak_bytes / 2**30)} GiB"


def ratio(reference: float, solver: float) -> str:
    return f"{significant(reference / solver)}x" if solver > 0 and reference > 0 else "-"


def _measured(cell: Cell) -> str:
    return f"{duration(cell.median_seconds)}, {size(cell.median_peak)}" if cell.ran else cell.failure


def _ratios(reference: Cell, cell: Cell) -> str:
    if not (reference.ran and cell.ran):
        return "-"
    memory = ratio(reference.median_peak, cell.median_peak) if min(reference.median_peak, cell.median_peak) >= PAGE else "-"
    return f"{ratio(reference.median_seconds, cell.median_seconds)}, {memory}"


def bench_tables(result: BenchResult, baselines: Sequence[str]) -> BenchTables:
    """The measurements of ``result``, and their ratios against the first of ``baselines`` measured."""
    baselines = [b for b in baselines if b in result.solvers]
    measured = [s for s in result.solvers if s not in baselines]
    label = labels(result.solvers)
    tables = [
        TitledTable(
            ["row", "C", *(label[s] for s in result.solvers)],
            [[row.name, f"{row.capacity:,}", *(_measured(result.cell(s, row)) for s in result.solvers)] for row in result.rows],
            "Median time and peak memory",
        )
    ]
    notes = [
        f"Each cell: median time and peak memory of {result.repeats} fresh process{'es' if result.repeats > 1 else ''}"
        f" (time limit {result.time_limit:g} s per run); memory is the peak resident memory the call added."
        + ("" if result.clock == "wall" else f" Times are the {CLOCKS[result.clock]}.")
    ]
    legend = [f"{label[s]} = {shown(s)}" for s in result.solvers if label[s] != shown(s)]
    if legend:
        notes.append("Solvers: " + "; ".join(legend) + ".")
    if baselines and measured:
        reference = baselines[0]
        tables.append(
            TitledTable(
                ["row", *(label[s] for s in measured)],
                [[row.name, *(_ratios(result.cell(reference, row), result.cell(s, row)) for s in measured)] for row in result.rows],
                f"Ratios against {label[reference]}: its time / the solver's, its memory / the solver's",
            )
        )
        notes.append("Ratios above 1: the solver is faster, or leaner, than the reference.")
    per_call = [row.name for row in result.rows if row.rounds > 1]
    if per_call:
        notes.append(
            f"Per-call rows ({', '.join(per_call)}): in each process every problem is solved round after round;"
            " the time is the median of all those calls, the memory the peak over all of them."
        )
    notes += [summary(result, solver, baseline) for solver in measured for baseline in baselines]
    return BenchTables(tables, notes)


def summary(result: BenchResult, solver: str, baseline: str) -> str:
    """The median time ratio (baseline / solver) over the rows the solver ran (a baseline past the
    time limit counts as taking the limit: a lower bound), and the rows where the solver was slower."""
    speedups, slower = [], []
    for row in result.rows:
        mine, theirs = result.cell(solver, row), result.cell(baseline, row)
        if not mine.ran:
            continue
        if theirs.ran:
            speedups.append(theirs.median_seconds / mine.median_seconds)
            if theirs.median_seconds < mine.median_seconds:
                slower.append(row.name)
        elif theirs.failure.startswith("timeout"):
            speedups.append(result.time_limit / mine.median_seconds)
    if not speedups:
        return f"{shown(solver)} vs {shown(baseline)}: no row both ran."
    return (
        f"{shown(solver)} vs {shown(baseline)}: {significant(statistics.median(speedups))}x as fast on the median of {len(speedups)} rows;"
        f" slower on {', '.join(slower) if slower else 'no row'}."
    )


def tables_markdown(tables: BenchTables) -> str:
    lines: list[str] = []
    for table in tables.tables:
        lines += [f"{table.title}:", "", *table.markdown(), ""]
    return "\n".join(lines + tables.notes).rstrip()


def bench_json(result: BenchResult, baselines: Sequence[str]) -> dict:
    """Every cell's raw measurements and medians, for machines (``knapcheck bench --json``)."""
    cells = []
    for row in result.rows:
        for solver in result.solvers:
            cell = result.cell(solver, row)
            cells.append(
                {
                    "solver": solver,
                    "row": row.name,
                    "median_seconds": cell.median_seconds if cell.ran else None,
                    "median_peak_bytes": cell.median_peak if cell.ran else None,
                    "seconds": list(cell.seconds),
                    "problem_seconds": [list(times) for times in cell.problem_seconds],
                    "peak_bytes": list(cell.peak_bytes),
                    "failure": cell.failure or None,
                }
            )
    return {
        "schema_version": SCHEMA_VERSION,
        "repeats": result.repeats,
        "time_limit": result.time_limit,
        "clock": result.clock,
        "solvers": list(result.solvers),
        "baselines": [b for b in baselines if b in result.solvers],
        "rows": [{**row.as_dict(), "capacity": row.capacity} for row in result.rows],
        "cells": cells,
    }
