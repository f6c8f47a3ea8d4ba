"""The check's progress while it runs: instances done of how many, and each solver's verdicts so far."""

from __future__ import annotations

from rich.table import Table

from ..fuzz.judging.verdicts.differential import CheckResult
from ..oracles.verdict import Judgement, Verdict


def _failures(result: CheckResult, name: str) -> int:
    exact = next(entry.exact for entry in result.solvers if entry.name == name)
    return sum(count for verdict, count in result.counts[name].items() if Judgement(Verdict(verdict)).failed(exact))


def progress_line(result: CheckResult, total: int) -> str:
    """One plain line: instances done of the total, and the solvers with failures so far."""
    failing = [f"{name} {count}" for name in result.counts if (count := _failures(result, name))]
    done = result.instances + result.skipped
    return f"{done} of {total} instances checked" + (f"; failures so far: {', '.join(failing)}" if failing else "")


def progress_view(result: CheckResult, total: int) -> Table:
    """A table: each solver, the instances it was judged on, and its failures so far."""
    done = result.instances + result.skipped
    table = Table(title=f"{done} of {total} instances checked", title_justify="left", box=None)
    for column in ("solver", "judged", "failures"):
        table.add_column(column, justify="left" if column == "solver" else "right")
    for name, counts in result.counts.items():
        table.add_row(name, f"{sum(counts.values())}", f"{_failures(result, name)}")
    return table
