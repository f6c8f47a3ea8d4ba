"""Rendering `knapcheck report`: report.md for a pull-request comment, report.json, report.html.

Each output reads in the same order: the gate's outcome and the verdict table, then the failures
(correctness, then performance), and only then information that fails nothing (each candidate
against its baseline instance by instance with its selection changes, the real-memory table),
and the environment.

Solvers are shown as ``knapcheck.solvers.specs.shown`` writes them (a file by its path relative
to the working directory, where the reproductions run); report.json keeps each name as well.
Whatever a target supplied (its name, what it raised, how its answer prints) stays text: quoted
with ``knapcheck.reports.markdown`` in report.md, escaped in report.html.

The Markdown stays well under a comment's 65 536 characters: reproductions are dropped from the
end (they stay in report.json and report.html) until it fits under MAX_MARKDOWN_CHARS.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from html import escape
from typing import cast

from ..fuzz.judging.known.defects import describe as describe_causes
from ..fuzz.judging.verdicts.comparison import QualityLoss
from ..fuzz.judging.verdicts.differential import Check
from ..fuzz.judging.verdicts.gate import BASELINE, CANDIDATE, KNOWN, REGRESSION, VISIBLE, Decision
from ..fuzz.runs.candidate_run import CandidateRun
from ..solvers.isolation.worker import limits_for
from ..solvers.specs import shown
from . import real_budget
from .check_report import (
    comparison_json,
    comparison_lines,
    describe_oracle_finding,
    detail,
    failure_json,
    fixed_parts,
    fixes,
    fixes_json,
    oracle_finding_json,
    ordered_findings,
    percent,
    promise,
    solver_json,
    source,
    sources_json,
    still_there,
    verdict_rows,
    visible_parts,
)
from .markdown import code, fenced, prose
from .performance_report import Performance, gate_sentence
from .performance_report import html_parts as performance_html
from .performance_report import markdown_lines as performance_markdown
from .performance_report import to_json as performance_json
from .repairs import failure_lines, intervention_json, intervention_summary
from .reproduction import snippet
from .tables import SCROLLS, Table
from .words import counted

SCHEMA_VERSION = 2
MAX_MARKDOWN_CHARS = 50_000


@dataclass
class Report:
    command: str
    run: CandidateRun
    environment: dict
    performance: Performance
    strict: bool = False
    max_quality_loss: float | None = None
    stopped_by: str = ""
    """Why the run stopped before it was done ("interrupted", "terminated"): a partial report."""

    @property
    def gate(self) -> Decision:
        """The gate fails on the rule's failures, whenever an oracle was shown wrong (then no
        verdict of the run can be trusted, a pass included), and on a quality loss past the limit asked for."""
        return self.run.gate(self.strict, self.max_quality_loss)

    @property
    def gate_failures(self) -> list[Check]:
        return self.gate.failing

    @property
    def gate_failed(self) -> bool:
        return not self.gate.passed or bool(self.performance.failures)


def _specs(report: Report, role: str) -> str:
    names = [shown(e.name) for e in report.run.entries(role)]
    return ", ".join(names) if names else "none"


def _title(report: Report) -> str:
    candidates = report.run.entries(CANDIDATE)
    named = shown(candidates[0].name) if len(candidates) == 1 else f"{len(candidates)} candidates"
    partial = f" (PARTIAL: {report.stopped_by})" if report.stopped_by else ""
    return f"knapcheck report: {named}{partial}"


def _signature_text(failure: Check) -> str:
    text = f"{shown(failure.solver.name)} {failure.verdict.value}"
    if failure.baseline_verdict is not None:
        text += f" where the baseline is {failure.baseline_verdict}"
    return text


def _gate(report: Report) -> tuple[str, str]:
    """The gate's outcome (shown in bold) and the rest of its sentence: the rule and what decided."""
    gate = report.gate
    failing = gate.failing
    candidate = report.run.findings(CANDIDATE)
    decided = []
    result = report.run.result
    fixed = sum(fixes(c, still_there(result, t)) for t, c in result.comparisons.items())
    if failing:
        what = "regression" if any(f.counterpart is not None for f in failing) and not report.strict else "failure"
        listed = "; ".join(_signature_text(f) for f in failing)
        decided.append(f"{counted(len(failing), what, what + 's')}: {listed}.")
    elif fixed:
        decided.append(f"It fixes {counted(fixed, 'failure', 'failures')} of the baseline and regresses nothing.")
    elif candidate:
        decided.append(f"No regression: the baseline shares, or a known defect of it explains, each of the candidate's"
                       f" {counted(len(candidate), 'distinct failure', 'distinct failures')}.")
    else:
        decided.append("The candidate passed every check.")
    for target in gate.quality_failing:
        worst = cast(QualityLoss, report.run.result.comparisons[target].quality.worst)  # failing: it lost somewhere
        decided.append(f"{shown(target)} saves less runtime than its baseline, by {percent(worst.loss)} of it at worst"
                       f" ({worst.value!r} against {worst.baseline_value!r}), past --max-quality-loss"
                       f" {report.max_quality_loss:g}.")
    if gate.oracle_findings:
        decided.append(f"The oracle was shown wrong {counted(gate.oracle_findings, 'time', 'times')}, so no verdict can be trusted.")
    if gate_sentence(report.performance):
        decided.append(gate_sentence(report.performance))
    if report.stopped_by:
        decided.append(f"The run was {report.stopped_by} before it was done: what ran is below.")
    else:
        decided.append(f"Exit status {1 if report.gate_failed else 0}.")
    return f"Gate: {'FAILED' if report.gate_failed else 'passed'}", f" under {gate.rule}. {' '.join(decided)}"


def outcome_lines(report: Report) -> list[tuple[str, str]]:
    """What the candidates fix, the known defects of the baseline they make visible, and how much
    less a heuristic saves: (a bold lead, the rest), each a line of report.md's opening."""
    lines = []
    comparisons = report.run.result.comparisons
    result = report.run.result
    fixed = [f"{shown(t)} passes on {counted(sum(c.fixed.values()), 'instance', 'instances')} where {shown(c.baseline)}"
             f" fails: {'; '.join(fixed_parts(c, still_there(result, t)))}." for t, c in comparisons.items() if c.fixed]
    if fixed:
        lines.append(("Fixes:", " " + " ".join(fixed)))
    visible = [f"{shown(t)}: {'; '.join(visible_parts(c))}." for t, c in comparisons.items() if c.visible]
    if visible:
        lines.append(("Known defects of the baseline, now visible", f" (information, instances): {' '.join(visible)}"))
    worse = [f"{shown(t)} saves less runtime than {shown(c.baseline)} on {c.quality.less} of {c.quality.compared} instances"
             f" where both are valid, by {percent(c.quality.median)} of it at the median and {percent(cast(QualityLoss, c.quality.worst).loss)}"
             " at worst." for t, c in comparisons.items() if c.quality.less]  # less: it lost somewhere, so a worst
    if worse:
        lines.append(("Quality", f" ({'information' if report.max_quality_loss is None else 'a failure past --max-quality-loss'}):"
                      f" {' '.join(worse)}"))
    repairs = [f"{shown(t)}: {intervention_summary(i)}." for t, i in result.interventions.items() if i.results]
    if repairs:
        lines.append(("The baseline's known defects in the candidate's source",
                      " (information: where a defect's repair applies, its code is still there, and the candidate with"
                      f" it repaired judges the candidate's failures): {' '.join(repairs)}"))
    return lines


def _roles_line(report: Report) -> str:
    return f"Candidate: {_specs(report, CANDIDATE)}. Baseline: {_specs(report, BASELINE)}."


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
    header, rows = verdict_rows(report.run.result)
    roles = [report.run.roles[e.name] for e in report.run.result.solvers]
    return Table([header[0], "role", *header[1:]], [[row[0], role, *row[1:]] for row, role in zip(rows, roles)])


def _comparison_lines(report: Report) -> list[str]:
    lines = []
    for target, comparison in report.run.result.comparisons.items():
        lines += comparison_lines(target, comparison, report.max_quality_loss)
    return lines


def _returned(failure: Check) -> str:
    return repr(failure.outcome.answer)[:300]


def _status_text(report: Report, failure: Check, status: str) -> str:
    """The status, with the known defects that explain the failure and the corpus case it matches."""
    text = status
    if failure.causes and status in (VISIBLE, BASELINE):
        text += f": {describe_causes(failure.causes)}"
    case = report.run.result.known.get(failure.differential_signature)
    if not case:
        return text
    if status == KNOWN:
        return f"{text}: corpus case {case}"
    return f"{text}{'; ' if text != status else ', '}known: corpus case {case}"


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


def _failure_markdown(index: int, failure: Check, status: str, with_snippet: bool, intervention=None) -> list[str]:
    lines = [
        f"### {index}. {code(shown(failure.solver.name))}: {failure.verdict.value} ({prose(status)})",
        "",
        f"- {prose(_found_in(failure))} (instance {code(failure.instance_id)})",
    ]
    if failure.judgement.detail:
        lines.append(f"- {prose(detail(failure))}")
    lines.append(f"- {_expected(failure)}")
    if failure.outcome.returned:
        lines.append(f"- returned {code(_returned(failure))}")
    lines += [*_baseline_markdown(failure), *(f"- {line}" for line in failure_lines(failure, intervention, markdown=True)), ""]
    if with_snippet:
        lines += ["<details><summary>Reproduction</summary>", "", *fenced(snippet(failure), "python"), "", "</details>", ""]
    else:
        lines += ["(reproduction left out to fit a comment: see report.json)", ""]
    return lines


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
    findings = report.run.result.findings
    for with_snippets in range(len(findings), -1, -1):
        text = _markdown(report, with_snippets)
        if len(text) <= MAX_MARKDOWN_CHARS:
            return text
    return text


def _markdown(report: Report, with_snippets: int) -> str:
    """The gate and the verdict table (what a reviewer reads first), the failures, then information."""
    outcome, rest = _gate(report)
    lines = [
        f"# {prose(_title(report))}",
        "",
        f"**{outcome}**{prose(rest)}",
        "",
        *(f"**{lead}**{prose(text)}\n" for lead, text in outcome_lines(report)),
        prose(_roles_line(report)),
        "",
        *_verdict_table(report).markdown(),
        "",
        f"{prose(_correctness_line(report))}. {_isolation_line(report)} {METHOD}",
        "",
        "Judged on their promises:",
        "",
        *(f"- {code(shown(e.name))}: {promise(e)}" for e in report.run.result.solvers),
        "",
    ]
    ordered = _ordered_findings(report)
    if ordered:
        lines += ["## Failures", "", WHERE_TO_RUN, ""]
        interventions = report.run.result.interventions
        for index, (failure, status) in enumerate(ordered, 1):
            lines += _failure_markdown(index, failure, status, index <= with_snippets, interventions.get(failure.solver.name))
    oracle_findings = report.run.result.oracle_findings
    if oracle_findings:
        lines += ["## Oracle findings", "", "The oracle, not the solver, was shown wrong here (judged UNVERIFIED):", ""]
        lines += [*fenced("\n".join(describe_oracle_finding(f) for f in oracle_findings)), ""]
    lines += ["## Performance", "", *performance_markdown(report.performance)]
    if report.run.result.comparisons:
        lines += ["## Candidate against baseline, instance by instance", "", *fenced("\n".join(_comparison_lines(report))), ""]
    lines += [f"## {real_budget.TITLE}", "", *real_budget.markdown_lines(report.run.result.overshoots), ""]
    lines += [
        "## Environment",
        "",
        f"<details><summary>{escape(_environment_summary(report.environment))}</summary>",
        "",
        *_environment_table(report.environment).markdown(),
        "",
        "</details>",
        "",
        "Produced by:",
        "",
        *fenced(report.command),
        "",
    ]
    return "\n".join(lines)


def _environment_summary(environment: dict) -> str:
    torch = environment["torch"]
    device = f"CUDA: {torch['gpu']}" if torch["cuda_available"] else "CPU only"
    return f"knapcheck {environment['knapcheck']}, torch {torch['version']}, {device}"


def _ordered_findings(report: Report) -> list[tuple[Check, str]]:
    """Regressions (or, without a baseline, new failures) first, then the shared or known ones, then the baseline's."""
    return [(f, _status_text(report, f, status)) for f, status in ordered_findings(report.run.result)]


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
        },
        "performance": performance_json(report.performance),
    }


BREAKS = "/_"
"""Where a table cell of report.html may wrap: a path after a slash, a verdict after its underscore."""
_STYLE = f"""
body {{ font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.4; }}
h1, h2, h3, li, p {{ overflow-wrap: anywhere; }}
h1 {{ font-size: 1.6em; }}
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
    parts = [f"<h2>{escape(real_budget.TITLE)}</h2>", f"<p>{escape(real_budget.NOTE)}</p>"]
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


def _failure_html(index: int, failure: Check, status: str) -> list[str]:
    css = ' class="regression"' if status.startswith(REGRESSION) else ""
    return [
        f"<h3>{index}. <code>{escape(shown(failure.solver.name))}</code>: {failure.verdict.value} "
        f"<span{css}>({escape(status)})</span></h3>",
        "<ul>",
        f"<li>{escape(_found_in(failure))} (instance <code>{failure.instance_id}</code>)</li>",
        f"<li>{escape(detail(failure))}</li>" if failure.judgement.detail else "",
        f"<li>{escape(_expected(failure))}</li>",
        f"<li>returned <code>{escape(_returned(failure))}</code></li>" if failure.outcome.returned else "",
        _baseline_html(failure),
        "</ul>",
        f"<pre>{escape(snippet(failure))}</pre>",
    ]


def render_html(report: Report) -> str:
    """The same order as report.md; every text is escaped."""
    title = _title(report)
    outcome, rest = _gate(report)
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p><strong>{escape(outcome)}</strong>{escape(rest)}</p>",
        *(f"<p><strong>{escape(lead)}</strong>{escape(text)}</p>" for lead, text in outcome_lines(report)),
        f"<p>{escape(_roles_line(report))}</p>",
        _verdict_table(report).html(breaks_after=BREAKS),
        f"<p>{escape(_correctness_line(report))}. {escape(_isolation_line(report))} {escape(METHOD)}</p>",
        "<p>Judged on their promises:</p><ul>"
        + "".join(f"<li><code>{escape(shown(e.name))}</code>: {escape(promise(e))}</li>" for e in report.run.result.solvers)
        + "</ul>",
    ]
    ordered = _ordered_findings(report)
    if ordered:
        parts += ["<h2>Failures</h2>", f"<p>{escape(WHERE_TO_RUN)}</p>"]
    for index, (failure, status) in enumerate(ordered, 1):
        parts += _failure_html(index, failure, status)
    if report.run.result.oracle_findings:
        parts += ["<h2>Oracle findings</h2>", "<p>The oracle, not the solver, was shown wrong here (judged UNVERIFIED):</p>"]
        parts += [f"<pre>{escape(describe_oracle_finding(f))}</pre>" for f in report.run.result.oracle_findings]
    parts.append("<h2>Performance</h2>")
    parts += performance_html(report.performance)
    if report.run.result.comparisons:
        parts += ["<h2>Candidate against baseline, instance by instance</h2>",
                  f"<pre>{escape(chr(10).join(_comparison_lines(report)))}</pre>"]
    parts += _real_budget_html(report)
    parts += [
        "<h2>Environment</h2>",
        _environment_table(report.environment).html(),
        f"<p>Produced by:</p><pre>{escape(report.command)}</pre>",
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part)
