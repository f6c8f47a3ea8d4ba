"""Rendering `knapcheck report`: report.md for a pull-request comment, report.json, report.html.

report.md and report.html open with the first screen (``knapcheck.reports.first_screen``): the
verdict line, one row per candidate function, and the reproduction of a failure that fails the
gate. Below it, each cause the report names is explained once (``knapcheck.reports.causes``), then
everything else under its heading, folded in ``<details>``: the candidate's failures, the
benchmark, how the gate decided (the rule, the verdict counts, the promises), each candidate
against its baseline instance by instance, the baseline's own failures (under a heading that names
them as the baseline's), the real-memory table, and the environment. What fails the gate stays
unfolded: an oracle shown wrong, performance past a limit.

Solvers are shown as ``knapcheck.solvers.specs.shown`` writes them (a file by its path relative
to the working directory, where the reproductions run); report.json keeps each name as well.
Whatever a target supplied (its name, what it raised, how its answer prints) stays text: quoted
with ``knapcheck.reports.markdown`` in report.md, escaped in report.html.

report.md stays well under a comment's 65 536 characters: the baseline's own failures are listed
without their reproductions (report.json and report.html have them), the real-memory table has one
row per solver, and the candidate's reproductions are dropped from the end (they stay in
report.json and report.html) until it fits under MAX_MARKDOWN_CHARS.
"""

from __future__ import annotations

import os
from html import escape

from ..fuzz.judging.known.repaired import Intervention
from ..fuzz.judging.verdicts.differential import Check
from ..fuzz.judging.verdicts.gate import BASELINE, CANDIDATE, KNOWN, OF_BASELINE, REGRESSION, VISIBLE
from ..solvers.isolation.worker import limits_for
from ..solvers.specs import shown
from . import causes, first_screen, real_budget
from .check_report import (
    comparison_json,
    comparison_lines,
    describe_oracle_finding,
    detail,
    failure_json,
    fixes_json,
    oracle_finding_json,
    ordered_findings,
    promise,
    solver_json,
    source,
    sources_json,
    verdict_rows,
)
from .gate_report import RULE_NAMES, Report
from .markdown import code, fenced, one_line, prose
from .performance_report import Performance
from .performance_report import measurements_html as performance_html
from .performance_report import measurements_markdown as performance_markdown
from .performance_report import outcome_html as performance_outcome_html
from .performance_report import outcome_markdown as performance_outcome
from .performance_report import summary as performance_summary
from .performance_report import to_json as performance_json
from .repairs import failure_lines, intervention_json, intervention_summary
from .reproduction import snippet
from .tables import SCROLLS, Table
from .words import counted

__all__ = ["MAX_MARKDOWN_CHARS", "Performance", "Report", "render_html", "render_json", "render_markdown", "render_summary"]

SCHEMA_VERSION = 2
MAX_MARKDOWN_CHARS = 50_000
CANDIDATE_FAILURES = "Failures of the candidate"
BASELINE_FAILURES = "The baseline's known defects on these instances"
"""The baseline's own failures: a heading no reader takes for the candidate's failures."""


def _title(report: Report) -> str:
    candidates = report.run.entries(CANDIDATE)
    named = shown(candidates[0].name) if len(candidates) == 1 else f"{len(candidates)} candidates"
    partial = f" (PARTIAL: {report.stopped_by})" if report.stopped_by else ""
    return f"knapcheck report: {named}{partial}"


def _correctness_line(report: Report) -> str:
    result = report.run.result
    sources = counted(len(report.run.families), "family", "families")
    for name, count in report.run.stored.items():
        sources += f", {count} from the {name}"
    solvers = counted(len(result.solvers), "solver", "solvers")
    line = f"{counted(result.instances, 'instance', 'instances')} ({sources}), {solvers}, {report.run.seconds:.0f} s"
    if result.skipped:
        line += f"; {result.skipped} sampled instances left unchecked when the time budget ran out"
    return line


def _isolation_line(report: Report) -> str:
    isolated = [e for e in report.run.result.solvers if e.isolate]
    if not isolated:
        return "Solvers ran in this process."
    limits = {limits_for(e) for e in isolated}
    described = "; ".join(
        f"{limit.time:g} s per call, "
        + (f"{limit.memory / 2**30:g} GiB of address space" if limit.memory else "no memory cap")
        for limit in limits
    )
    which = "Every solver" if len(isolated) == len(report.run.result.solvers) else f"{len(isolated)} solvers"
    return f"{which} ran in its own worker process ({described})."


METHOD = (
    "Each distinct failure (solver, verdict and the baseline's verdict on the same instance) is shrunk to a minimal"
    " instance that keeps all three. Differences in which of several optimal sets a solver saves, or in the order of"
    " the indices, are not failures."
)
WHERE_TO_RUN = "Each reproduction runs as shown with Python from the directory this report was produced in."


def _verdict_table(report: Report) -> Table:
    """Each solver's role, the promise it was judged on (and why), and its verdict counts."""
    header, rows = verdict_rows(report.run.result)
    solvers = report.run.result.solvers
    return Table([header[0], "role", "judged on its promise", *header[2:]],
                 [[row[0], report.run.roles[e.name], promise(e), *row[2:]] for row, e in zip(rows, solvers)])


def _comparison_lines(report: Report) -> list[str]:
    """Each candidate against its baseline by verdict (the causes are in the first screen's table, each instance in report.json)."""
    lines = []
    for target, comparison in report.run.result.comparisons.items():
        lines += comparison_lines(target, comparison, report.max_quality_loss, named=None, examples=False)
    return lines


def _returned(failure: Check) -> str:
    return repr(failure.outcome.answer)[:300]


def _status(report: Report, failure: Check, status: str, text=prose, link=causes.markdown_link) -> str:
    """The status (written with ``text``), with the known defects that explain the failure (by
    short name, each a ``link``) and the corpus case it matches."""
    explained = bool(failure.causes) and status in (VISIBLE, OF_BASELINE)
    written = text(status) + (": " + ", ".join(link(name) for name in failure.causes) if explained else "")
    case = report.run.result.known.get(failure.differential_signature)
    if not case:
        return written
    if status == KNOWN:
        return written + text(f": corpus case {case}")
    return written + text(f"{'; ' if explained else ', '}known: corpus case {case}")


def _found_in(failure: Check) -> str:
    return f"found in {source(failure)}, shrunk to n={failure.instance.n}"


def _expected(failure: Check) -> str:
    return f"expected {float(failure.oracle.value)!r} with saved={list(failure.oracle.saved)} ({failure.oracle.name})"


def _baseline_markdown(failure: Check) -> list[str]:
    base = failure.baseline
    if failure.counterpart is None:
        return []
    if base is None:
        return [f"- baseline {code(shown(failure.counterpart.name))} was not run on this size"]
    returned = f", returned {code(_returned(base))}" if base.outcome.returned else ""
    return [f"- baseline {code(shown(base.solver.name))} on the same instance: {base.verdict.value}{returned}"]


def _failure_markdown(index: int, failure: Check, status: str, reproduction: str, intervention=None) -> list[str]:
    """A candidate's failure; ``reproduction``: "shown" (folded here), "above" (on the first
    screen) or "left out" (to fit a comment)."""
    lines = [
        f"### {index}. {code(shown(failure.solver.name))}: {failure.verdict.value} ({status})",
        "",
        f"- {prose(_found_in(failure))} (instance {code(failure.instance_id)})",
    ]
    if failure.judgement.detail:
        lines.append(f"- {prose(detail(failure))}")
    lines.append(f"- {_expected(failure)}")
    if failure.outcome.returned:
        lines.append(f"- returned {code(_returned(failure))}")
    lines += [*_baseline_markdown(failure), *(f"- {line}" for line in failure_lines(failure, intervention, markdown=True)), ""]
    if reproduction == "shown":
        lines += ["<details><summary>Reproduction</summary>", "", *fenced(snippet(failure), "python"), "", "</details>", ""]
    elif reproduction == "above":
        lines += ["(its reproduction is at the top of this report)", ""]
    else:
        lines += ["(reproduction left out to fit a comment: see report.json)", ""]
    return lines


def _baseline_table(of_baseline: list[Check]) -> Table:
    """The baseline's own failures, a row each, the causes linked (report.md; each one's answer,
    corpus case and reproduction are in report.json and report.html)."""
    rows = [[code(shown(f.solver.name)), f.verdict.value, ", ".join(causes.markdown_link(c) for c in f.causes) or "-",
             prose(f.family), str(f.instance.n), code(f.instance_id)] for f in of_baseline]
    return Table(["solver", "verdict", "causes", "found in (a family, or stored instances)", "n", "instance"], rows)


def _folded(summary: str, lines: list[str]) -> list[str]:
    """Markdown ``lines`` folded under ``summary``, plain text (HTML, on one line, as GitHub reads it)."""
    return [f"<details><summary>{escape(one_line(summary), quote=False)}</summary>", "", *lines, "</details>", ""]


def _findings_summary(found: list[tuple[Check, str]]) -> str:
    by_status: dict[str, int] = {}
    for _, status in found:
        by_status[status] = by_status.get(status, 0) + 1
    return f"{counted(len(found), 'distinct failure')} ({'; '.join(f'{status}: {n}' for status, n in by_status.items())})"


def _environment_table(environment: dict) -> Table:
    torch = environment["torch"]
    device = f"CUDA: {torch['gpu']}" if torch["cuda_available"] else "CPU only"
    commit = f" ({environment['knapcheck_commit']})" if environment.get("knapcheck_commit") else ""
    rows = [
        ["knapcheck", environment["knapcheck"] + commit],
        ["torch", f"{torch['version']} (CUDA build: {torch['cuda_build'] or 'none'}), {torch['threads']} threads"
                  + (f", {torch['worker_threads']} in each worker" if "worker_threads" in torch else "")],
        ["device", device],
        ["Python", environment["python"]],
        ["CPU", f"{environment['cpu']}, {environment['cpu_count']} cores"],
        ["platform", environment["platform"]],
    ]
    rows += [[name, version or "not installed"] for name, version in environment["versions"].items() if name != "torch"]
    return Table(["", ""], rows)


def render_markdown(report: Report) -> str:
    candidate = [f for f, status in ordered_findings(report.run.result) if status != OF_BASELINE]
    for with_snippets in range(len(candidate), -1, -1):
        text = _markdown(report, with_snippets)
        if len(text) <= MAX_MARKDOWN_CHARS:
            return text
    return text


def _causes_markdown(report: Report) -> list[str]:
    named = causes.named(report.run.result)
    return ["## Causes", "", "The baseline's known defects this report names:", "", *causes.markdown_lines(named), ""] if named else []


def render_summary(report: Report) -> str:
    """The first screen and the causes it names, for a CI job's summary (the whole report is in the
    report's directory)."""
    lines = [f"# {prose(_title(report))}", "", *first_screen.markdown_lines(report), *_causes_markdown(report),
             "Everything else is in the report's directory: report.md, report.html and report.json.", ""]
    return "\n".join(lines)


def _how_the_gate_decides(report: Report) -> list[str]:
    """The rule in full, what was checked and how, the verdict counts, the promises, and where the
    baseline's known defects are still in the candidate's source."""
    lines = [f"The gate applied {prose(report.gate.rule)}.", "",
             f"{prose(_correctness_line(report))}. {_isolation_line(report)} {METHOD}", "",
             *_verdict_table(report).markdown(), ""]
    there, gone = _known_in_source(report)
    if there or gone:
        lines += [prose(KNOWN_IN_SOURCE), "", *(f"- {code(shown(t))}: {prose(intervention_summary(i))}" for t, i in there)]
        if gone:
            lines.append(f"- none still in {', '.join(code(shown(t)) for t in gone)}: {prose(ALL_GONE)}")
        lines.append("")
    return lines


KNOWN_IN_SOURCE = ("The baseline's known defects in the candidate's source (where a defect's repair applies, its code is"
                   " still there, and the candidate with it repaired judges the candidate's failures):")
ALL_GONE = "each repair found its code changed or repaired (report.json's repairs say which, and why)"


def _known_in_source(report: Report) -> tuple[list[tuple[str, Intervention]], list[str]]:
    """The candidates some of whose baseline's known defects are still in their source, and those none of whose are."""
    tried = [(t, i) for t, i in report.run.result.interventions.items() if i.results]
    return [(t, i) for t, i in tried if i.applied], [t for t, i in tried if not i.applied]


def _markdown(report: Report, with_snippets: int) -> str:
    """The first screen, the causes explained, then everything else folded under its heading."""
    result = report.run.result
    lines = [f"# {prose(_title(report))}", "", *first_screen.markdown_lines(report)]
    lines += _causes_markdown(report)
    found = ordered_findings(result)
    candidate = [(f, status) for f, status in found if status != OF_BASELINE]
    if candidate:
        shown_above = first_screen.shown_failure(report)
        interventions = result.interventions
        failures = [WHERE_TO_RUN, ""]
        for index, (failure, status) in enumerate(candidate, 1):
            reproduction = "above" if failure is shown_above else "shown" if index <= with_snippets else "left out"
            failures += _failure_markdown(index, failure, _status(report, failure, status), reproduction,
                                          interventions.get(failure.solver.name))
        lines += [f"## {CANDIDATE_FAILURES}", "", *_folded(_findings_summary(candidate), failures)]
    if result.oracle_findings:
        lines += ["## Oracle findings", "", "The oracle, not the solver, was shown wrong here (judged UNVERIFIED):", ""]
        lines += [*fenced("\n".join(describe_oracle_finding(f) for f in result.oracle_findings)), ""]
    lines += ["## Performance", "", *performance_outcome(report.performance)]
    if report.performance.pairs:
        lines += _folded(performance_summary(report.performance), performance_markdown(report.performance))
    lines += ["## How the gate decides", "", *_folded(_rule_summary(report), _how_the_gate_decides(report))]
    if result.comparisons:
        lines += ["## Candidate against baseline, instance by instance", "",
                  *_folded("Instances run on both, by outcome (each instance is in report.json)",
                           [*fenced("\n".join(_comparison_lines(report))), ""])]
    of_baseline = [(f, status) for f, status in found if status == OF_BASELINE]
    if of_baseline:
        listed = [*_baseline_table([f for f, _ in of_baseline]).markdown(cells_are_markdown=True), "",
                  "Each one's answer, corpus case and reproduction are in report.json and report.html.", ""]
        lines += [f"## {prose(BASELINE_FAILURES)}", "", *_folded(_baseline_summary(of_baseline), listed)]
    lines += [f"## {real_budget.TITLE}", "",
              *_folded("Information, not a contract failure", real_budget.markdown_lines(result.overshoots))]
    lines += [
        "## Environment",
        "",
        *_folded(_environment_summary(report.environment), [*_environment_table(report.environment).markdown(), ""]),
        "Produced by:",
        "",
        *fenced(report.command),
        "",
    ]
    return "\n".join(lines)


def _rule_summary(report: Report) -> str:
    result = report.run.result
    return (f"{RULE_NAMES.get(report.gate.rule, report.gate.rule)}; {counted(result.instances, 'instance')},"
            f" {counted(len(result.solvers), 'solver')}, the verdict counts")


def _baseline_summary(of_baseline: list[tuple[Check, str]]) -> str:
    return f"{counted(len(of_baseline), 'distinct failure')} of the baseline, none of them the candidate's (information)"


def _environment_summary(environment: dict) -> str:
    torch = environment["torch"]
    device = f"CUDA: {torch['gpu']}" if torch["cuda_available"] else "CPU only"
    return f"knapcheck {environment['knapcheck']}, torch {torch['version']}, {device}"


def render_json(report: Report) -> dict:
    """Solvers by name (``solver``, ``name``: the identity a store or a second report compares) and
    as shown (``display_name``); reproductions run from ``working_directory``."""
    result = report.run.result
    return {
        "schema_version": SCHEMA_VERSION,
        "command": report.command,
        "partial": bool(report.stopped_by),
        "sources_changed": report.run.result.sources_changed,
        "stopped_by": report.stopped_by or None,
        "working_directory": os.getcwd(),
        "environment": report.environment,
        "correctness": {
            "instances": result.instances,
            "skipped": result.skipped,
            "families": list(report.run.families),
            "stored": report.run.stored,
            "seconds": report.run.seconds,
            "time_budget": report.run.time_budget,
            "sources": sources_json(result),
            "solvers": [solver_json(result, e) for e in result.solvers],
            "comparisons": {target: comparison_json(c) for target, c in result.comparisons.items()},
            "failures": [
                {**failure_json(f, status, result.known.get(f.differential_signature)), "role": report.run.roles[f.solver.name]}
                for f, status in ordered_findings(result)
            ],
            "repairs": {target: intervention_json(i) for target, i in result.interventions.items()},
            "oracle_findings": [oracle_finding_json(f) for f in result.oracle_findings],
            "real_budget": real_budget.to_json(result.overshoots),
        },
        "gate": {
            "rule": "strict" if report.strict else "differential" if report.run.entries(BASELINE) else "no baseline",
            "passed": not report.gate_failed,
            "failing": [f.differential_signature.as_json() for f in report.gate_failures],
            "fixes": fixes_json(result),
            "known_visible": [
                {"candidate": t, **v} for t, c in result.comparisons.items() for v in comparison_json(c)["known_visible"]
            ],
            "max_quality_loss": report.max_quality_loss,
            "quality_failing": report.gate.quality_failing,
            "functions": [row.as_json() for row in first_screen.function_rows(report)],
        },
        "performance": performance_json(report.performance),
    }


BREAKS = "/_"
"""Where a table cell of report.html may wrap: a path after a slash, a verdict after its underscore."""
_STYLE = f"""
body {{ font-family: sans-serif; max-width: 1100px; margin: 1em auto; padding: 0 1em; line-height: 1.4; }}
h1, h2, h3, li, p {{ overflow-wrap: anywhere; }}
h1 {{ font-size: 1.5em; margin: 0.3em 0; }}
#verdict {{ font-size: 1.15em; }}
#functions td {{ font-size: 0.95em; }}
#functions td:nth-child(5), #functions td:nth-child(6) {{ white-space: nowrap; }}
summary {{ cursor: pointer; }}
details[open] > summary {{ margin-bottom: 0.5em; }}
.{SCROLLS} {{ max-width: 100%; overflow-x: auto; margin: 1em 0; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }}
th {{ background: #f6f8fa; }}
pre {{ background: #f6f8fa; padding: 8px; overflow-x: auto; }}
svg {{ max-width: 100%; height: auto; }}
.regression {{ color: #b00020; }}
"""


def _real_budget_html(report: Report) -> list[str]:
    over, line = real_budget.table(report.run.result.overshoots)
    parts = [f"<p>{escape(real_budget.NOTE)}</p>"]
    if over.rows:
        parts.append(over.html(breaks_after=BREAKS))
    return parts + [f"<p>{escape(line)}</p>"]


def _baseline_html(failure: Check) -> str:
    base = failure.baseline
    if failure.counterpart is None:
        return ""
    if base is None:
        return f"<li>baseline <code>{escape(shown(failure.counterpart.name))}</code> was not run on this size</li>"
    returned = f", returned <code>{escape(_returned(base))}</code>" if base.outcome.returned else ""
    return f"<li>baseline <code>{escape(shown(base.solver.name))}</code> on the same instance: {base.verdict.value}{returned}</li>"


def _failure_html(report: Report, index: int, failure: Check, status: str, reproduction: bool = True) -> list[str]:
    css = ' class="regression"' if status == REGRESSION else ""
    return [
        f"<h3>{index}. <code>{escape(shown(failure.solver.name))}</code>: {failure.verdict.value} "
        f"<span{css}>({_status(report, failure, status, escape, causes.html_link)})</span></h3>",
        "<ul>",
        f"<li>{escape(_found_in(failure))} (instance <code>{failure.instance_id}</code>)</li>",
        f"<li>{escape(detail(failure))}</li>" if failure.judgement.detail else "",
        f"<li>{escape(_expected(failure))}</li>",
        f"<li>returned <code>{escape(_returned(failure))}</code></li>" if failure.outcome.returned else "",
        _baseline_html(failure),
        "</ul>",
        f"<pre>{escape(snippet(failure))}</pre>" if reproduction else "<p>(its reproduction is at the top of this report)</p>",
    ]


def _folded_html(heading: str, summary: str, parts: list[str]) -> list[str]:
    return [f"<h2>{escape(heading)}</h2>", f"<details><summary>{escape(summary)}</summary>", *parts, "</details>"]


def _how_the_gate_decides_html(report: Report) -> list[str]:
    parts = [
        f"<p>The gate applied {escape(report.gate.rule)}.</p>",
        f"<p>{escape(_correctness_line(report))}. {escape(_isolation_line(report))} {escape(METHOD)}</p>",
        _verdict_table(report).html(breaks_after=BREAKS),
    ]
    there, gone = _known_in_source(report)
    if there or gone:
        parts += [f"<p>{escape(KNOWN_IN_SOURCE)}</p>", "<ul>",
                  *(f"<li><code>{escape(shown(t))}</code>: {escape(intervention_summary(i))}</li>" for t, i in there)]
        if gone:
            parts.append(f"<li>none still in {', '.join(f'<code>{escape(shown(t))}</code>' for t in gone)}: {escape(ALL_GONE)}</li>")
        parts.append("</ul>")
    return parts


def render_html(report: Report) -> str:
    """The same order as report.md; every text is escaped."""
    title = _title(report)
    result = report.run.result
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        *first_screen.html_parts(report),
    ]
    named = causes.named(result)
    if named:
        parts += ["<h2>Causes</h2>", "<p>The baseline's known defects this report names:</p>",
                  *causes.html_parts(named)]
    found = ordered_findings(result)
    candidate = [(f, status) for f, status in found if status != OF_BASELINE]
    if candidate:
        shown_above = first_screen.shown_failure(report)
        failures = [f"<p>{escape(WHERE_TO_RUN)}</p>"]
        for index, (failure, status) in enumerate(candidate, 1):
            failures += _failure_html(report, index, failure, status, reproduction=failure is not shown_above)
        parts += _folded_html(CANDIDATE_FAILURES, _findings_summary(candidate), failures)
    if result.oracle_findings:
        parts += ["<h2>Oracle findings</h2>", "<p>The oracle, not the solver, was shown wrong here (judged UNVERIFIED):</p>"]
        parts += [f"<pre>{escape(describe_oracle_finding(f))}</pre>" for f in result.oracle_findings]
    parts += ["<h2>Performance</h2>", *performance_outcome_html(report.performance)]
    if report.performance.pairs:
        parts += [f"<details><summary>{escape(performance_summary(report.performance))}</summary>",
                  *performance_html(report.performance), "</details>"]
    parts += _folded_html("How the gate decides", _rule_summary(report), _how_the_gate_decides_html(report))
    if result.comparisons:
        parts += _folded_html("Candidate against baseline, instance by instance",
                              "Instances run on both, by outcome (each instance is in report.json)",
                              [f"<pre>{escape(chr(10).join(_comparison_lines(report)))}</pre>"])
    of_baseline = [(f, status) for f, status in found if status == OF_BASELINE]
    if of_baseline:
        listed = [part for index, (f, status) in enumerate(of_baseline, 1) for part in _failure_html(report, index, f, status)]
        parts += _folded_html(BASELINE_FAILURES, _baseline_summary(of_baseline), listed)
    parts += _folded_html(real_budget.TITLE, "Information, not a contract failure", _real_budget_html(report))
    parts += [
        *_folded_html("Environment", _environment_summary(report.environment), [_environment_table(report.environment).html()]),
        f"<p>Produced by:</p><pre>{escape(report.command)}</pre>",
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part)
