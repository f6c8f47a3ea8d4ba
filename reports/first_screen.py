"""The first screen of `knapcheck report`: the answer, read in ten seconds.

report.md, report.html and the job summary open with the same three things: the verdict line
(``gate_report.verdict``); a table with one row per candidate function (its regressions, what it
fixes and the causes by short name, the known defects it only moves, its time and memory ratio
against its baseline with their intervals, its quality loss); and, when the gate fails on a
failure, that failure's reproduction. A cause is named by its short name, linked to its one
explanation further down (``knapcheck.reports.causes``). Everything else is below, folded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from ..fuzz.judging.known.defects import CAUSES
from ..fuzz.judging.verdicts.comparison import Comparison
from ..fuzz.judging.verdicts.differential import Check
from ..fuzz.judging.verdicts.gate import BASELINE, CANDIDATE
from ..measure.paired import RowComparison
from ..measure.perf_gate import worst
from ..measure.ratio_interval import CONFIDENCE
from ..solvers.specs import shown
from . import causes
from .check_report import percent, still_there
from .gate_report import Report, verdict
from .markdown import code, fenced, prose
from .reproduction import snippet
from .tables import Table, breakable
from .words import counted

UNCATALOGUED = "uncatalogued"
"""Said of the baseline's failures a candidate fixes that none of the baseline's catalogued defects explains."""


@dataclass
class FunctionRow:
    """One candidate function against its baseline, as the first screen's table reads it."""

    name: str
    baseline: str | None
    failing: list[Check] = field(default_factory=list)
    """The failures of this function that fail the gate (regressions, under the differential rule)."""
    fixed: int = 0
    fixed_causes: list[str] = field(default_factory=list)
    by_chance: int = 0
    """Fixes of defects whose code is still in the candidate's source: not counted in ``fixed``."""
    by_chance_causes: list[str] = field(default_factory=list)
    moved: int = 0
    moved_causes: list[str] = field(default_factory=list)
    time: RowComparison | None = None
    """The benchmark's row whose time ratio lies furthest up (``knapcheck.measure.perf_gate.worst``)."""
    memory: RowComparison | None = None
    """The row whose peak-memory ratio lies furthest up."""
    comparison: Comparison | None = None

    def as_json(self) -> dict:
        quality = self.comparison.quality if self.comparison is not None else None
        return {
            "candidate": self.name, "baseline": self.baseline,
            "failing": [f.differential_signature.as_json() for f in self.failing],
            "fixes": self.fixed, "fixed_causes": self.fixed_causes, "fixed_by_chance": self.by_chance,
            "fixed_by_chance_causes": self.by_chance_causes,
            "moved": self.moved, "moved_causes": self.moved_causes,
            "time_ratio": _worst_json(self.time, "time"), "memory_ratio": _worst_json(self.memory, "memory"),
            "quality_loss": None if quality is None or quality.worst is None else quality.worst.loss,
        }


def _worst_json(row: RowComparison | None, measure: str) -> dict | None:
    if row is None or getattr(row, measure) is None:
        return None
    return {"row": row.row, **getattr(row, measure).as_dict()}


def _cause_names(keys, chosen=lambda key: True) -> list[str]:
    """The causes named in ``keys`` (tuples whose last element is a tuple of causes), each once, in
    the catalogue's order, then UNCATALOGUED where a key names none."""
    found = {name for key in keys if chosen(key) for name in key[-1] or (UNCATALOGUED,)}
    return [name for name in CAUSES if name in found] + sorted(found - set(CAUSES) - {UNCATALOGUED}) + \
        [UNCATALOGUED] * (UNCATALOGUED in found)


def function_rows(report: Report) -> list[FunctionRow]:
    result = report.run.result
    failing = report.gate.failing
    pairs = {pair.candidate: pair for pair in report.performance.pairs}
    rows = []
    for entry in report.run.entries(CANDIDATE):
        comparison = result.comparisons.get(entry.name)
        row = FunctionRow(entry.name, comparison.baseline if comparison else None,
                          [f for f in failing if f.solver.name == entry.name], comparison=comparison)
        if comparison is not None:
            there = set(still_there(result, entry.name))
            by_chance = lambda key: bool(key[-1]) and set(key[-1]) <= there  # noqa: E731
            fixed = comparison.fixed_causes
            row.fixed = sum(n for key, n in fixed.items() if not by_chance(key))
            row.fixed_causes = _cause_names(fixed, lambda key: not by_chance(key))
            row.by_chance = sum(n for key, n in fixed.items() if by_chance(key))
            row.by_chance_causes = _cause_names(fixed, by_chance)
            row.moved = sum(comparison.visible.values())
            row.moved_causes = _cause_names(comparison.visible)
        pair = pairs.get(entry.name)
        if pair is not None:
            row.time, row.memory = worst(pair, "time"), worst(pair, "memory")
        rows.append(row)
    return rows


@dataclass(frozen=True)
class _Cells:
    """How a table's cells are written: Markdown, or HTML."""

    text: Callable[[str], str]
    """Plain text, quoted."""
    link: Callable[[str], str]
    """A cause's short name, linked to its explanation."""
    function: Callable[[str], str]
    """A solver's name as shown."""
    size: Callable[[str], str]
    """The size a ratio was measured at, after the ratio."""


_MARKDOWN = _Cells(prose, causes.markdown_link, code, lambda size: prose(f" at {size}"))
_HTML = _Cells(escape, causes.html_link, lambda name: f"<code>{breakable(escape(name), '/_')}</code>",
               lambda size: f"<br><small>at {escape(size)}</small>")


def _named(count: int, names: list[str], cells: _Cells) -> str:
    if not count:
        return "0"
    return f"{count}: " + ", ".join(cells.text(name) if name == UNCATALOGUED else cells.link(name) for name in names)


def _ratio(row: FunctionRow, measure: str, cells: _Cells) -> str:
    """The worst size's ratio with its interval, and the size."""
    worst_row = getattr(row, measure)
    if row.baseline is None:
        return "-"
    if worst_row is None:
        return "not measured"
    return cells.text(getattr(worst_row, measure).describe()) + cells.size(worst_row.row)


def _quality(row: FunctionRow) -> str:
    if row.comparison is None:
        return "-"
    quality = row.comparison.quality
    if quality.worst is None:
        return f"none ({quality.compared} compared)"
    return f"{percent(quality.worst.loss)} at worst, on {quality.less} of {quality.compared}"


def _failing(row: FunctionRow) -> str:
    verdicts = list(dict.fromkeys(f.verdict.value for f in row.failing))
    return f"{len(row.failing)}: {', '.join(verdicts)}" if row.failing else "0"


def _header(report: Report) -> list[str]:
    return ["function", "regressions" if report.counts_regressions else "failures", "fixes (causes)",
            "known defects only moved", f"time ratio ({CONFIDENCE:.0%} interval), worst size", "memory ratio, worst size",
            "quality loss"]


def _row_cells(row: FunctionRow, cells: _Cells) -> list[str]:
    fixes = _named(row.fixed, row.fixed_causes, cells)
    if row.by_chance:
        fixes += cells.text("; ") + _named(row.by_chance, row.by_chance_causes, cells) + cells.text(" by chance")
    if row.baseline is None:
        fixes = moved = "-"
    else:
        moved = _named(row.moved, row.moved_causes, cells)
    return [cells.function(shown(row.name)), cells.text(_failing(row)), fixes, moved, _ratio(row, "time", cells),
            _ratio(row, "memory", cells), cells.text(_quality(row))]


def function_table(report: Report, html: bool = False) -> Table:
    """The per-function table, its cells inline Markdown (or HTML) with the causes linked."""
    return Table(_header(report), [_row_cells(row, _HTML if html else _MARKDOWN) for row in function_rows(report)])


def shown_failure(report: Report) -> Check | None:
    """The failure whose reproduction the first screen shows: the first that fails the gate."""
    failing = report.gate.failing
    return failing[0] if failing else None


def _reproduction_line(report: Report, failure: Check) -> str:
    what = "regression" if report.counts_regressions else "failure"
    count = len(report.gate.failing)
    which = f"the {what}" if count == 1 else f"the first of {counted(count, what)} (each below, with its own)"
    against = f" where the baseline is {failure.baseline_verdict}" if failure.baseline_verdict is not None else ""
    return (f"Reproduction of {which}: {shown(failure.solver.name)} {failure.verdict.value}{against}, on"
            f" {counted(failure.instance.n, 'item')}; it runs as shown with Python from the directory this report was"
            " produced in:")


def _roles(report: Report) -> str:
    names = lambda role: ", ".join(shown(e.name) for e in report.run.entries(role)) or "none"  # noqa: E731
    return f"Candidate: {names(CANDIDATE)}. Baseline: {names(BASELINE)}."


BY_CHANCE = ("By chance: the candidate passes there, but the defect's code is still in its source (it shows on other"
             " instances), so those are not counted as fixes.")


def _under_the_table(report: Report) -> list[str]:
    """Who was compared with whom, and what "by chance" means where a row says it."""
    return [_roles(report), *([BY_CHANCE] if any(row.by_chance for row in function_rows(report)) else [])]


def markdown_lines(report: Report) -> list[str]:
    """The verdict line, the per-function table, and the reproduction of a failure that fails the gate."""
    outcome, rest = verdict(report)
    lines = [f"**{outcome}**{prose(rest)}", "", *function_table(report).markdown(cells_are_markdown=True), "",
             prose(" ".join(_under_the_table(report))), ""]
    failure = shown_failure(report)
    if failure is not None:
        lines += [prose(_reproduction_line(report, failure)), "", *fenced(snippet(failure), "python"), ""]
    return lines


def html_parts(report: Report) -> list[str]:
    outcome, rest = verdict(report)
    parts = [f'<p id="verdict"><strong>{escape(outcome)}</strong>{escape(rest)}</p>',
             f'<div id="functions">{function_table(report, html=True).html(cells_are_html=True)}</div>',
             f"<p>{escape(' '.join(_under_the_table(report)))}</p>"]
    failure = shown_failure(report)
    if failure is not None:
        parts += [f"<p>{escape(_reproduction_line(report, failure))}</p>", f"<pre>{escape(snippet(failure))}</pre>"]
    return parts
