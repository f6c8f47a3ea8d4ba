"""Rendering `knapcheck report`: report.md for a pull-request comment, report.json, report.html.

The Markdown stays well under a comment's 65 536 characters: reproductions are dropped from the
end (they stay in report.json and report.html) until it fits under MAX_MARKDOWN_CHARS.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from knapcheck.fuzz.differential import Check
from knapcheck.fuzz.candidate_run import BASELINE, CANDIDATE, CandidateRun
from knapcheck.reports import real_budget
from knapcheck.reports.performance_report import Performance, gate_sentence
from knapcheck.reports.performance_report import html_parts as performance_html
from knapcheck.reports.performance_report import markdown_lines as performance_markdown
from knapcheck.reports.performance_report import to_json as performance_json
from knapcheck.reports.check_report import describe_oracle_finding, failure_json, oracle_finding_json, source, verdict_rows
from knapcheck.reports.reproduction import snippet
from knapcheck.solvers.isolation import limits_for

SCHEMA_VERSION = 1
MAX_MARKDOWN_CHARS = 50_000


@dataclass
class Report:
    command: str
    run: CandidateRun
    environment: dict
    performance: Performance
    strict: bool = False

    @property
    def gate_failures(self) -> list[Check]:
        return self.run.gate_failures(self.strict)

    @property
    def gate_failed(self) -> bool:
        """The gate fails on the rule's failures, whenever an oracle was shown wrong (then no
        verdict of the run can be trusted, a pass included), and on performance past a limit."""
        return bool(self.gate_failures or self.run.result.oracle_findings or self.performance.failures)


REGRESSION = "regression"
"""A candidate failure its baseline does not share (the only failures that fail the default gate)."""
ALSO_IN_BASELINE = "also in baseline"
FIXED = "fixed by the candidate"
BASELINE_ONLY = "baseline"

REGRESSION_RULE = (
    "the regression rule (the default): the report fails when the candidate fails where its baseline"
    " does not (a kind of failure the baseline never shows, or on an instance the baseline passes)"
)
STRICT_RULE = "the strict rule (--strict): the report fails on any failure of the candidate"


def _specs(report: Report, role: str) -> str:
    names = [e.name for e in report.run.entries(role)]
    return ", ".join(names) if names else "none"


def _status(report: Report, failure: Check) -> str:
    if report.run.roles[failure.solver.name] == BASELINE:
        return FIXED if failure in report.run.fixed() else BASELINE_ONLY
    return REGRESSION if report.run.is_regression(failure) else ALSO_IN_BASELINE


def _gate(report: Report) -> tuple[str, str]:
    """The gate's outcome (shown in bold) and the rest of its sentence: the rule and what decided."""
    rule = STRICT_RULE if report.strict else REGRESSION_RULE
    failing = report.gate_failures
    candidate = report.run.findings(CANDIDATE)
    decided = []
    if failing:
        what = "failure" if report.strict else "regression"
        listed = ", ".join(f"{f.solver.name} {f.verdict.value}" for f in failing)
        decided.append(f"{_count(len(failing), what, what + 's')}: {listed}.")
    elif candidate:
        decided.append(f"The baseline shares each of the candidate's {_count(len(candidate), 'distinct failure', 'distinct failures')}.")
    else:
        decided.append("The candidate passed every check.")
    oracle_findings = len(report.run.result.oracle_findings)
    if oracle_findings:
        decided.append(f"The oracle was shown wrong {_count(oracle_findings, 'time', 'times')}, so no verdict can be trusted.")
    if gate_sentence(report.performance):
        decided.append(gate_sentence(report.performance))
    decided.append(f"Exit status {1 if report.gate_failed else 0}.")
    return f"Gate: {'FAILED' if report.gate_failed else 'passed'}", f" under {rule}. {' '.join(decided)}"


def _summary(report: Report) -> str:
    """Besides the gate: what the candidate no longer shows of the baseline's failures."""
    fixed = report.run.fixed()
    if not fixed:
        return ""
    return f"The candidate no longer shows {_count(len(fixed), 'kind', 'kinds')} of failure the baseline has."


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _correctness_line(report: Report) -> str:
    result = report.run.result
    sources = _count(len(report.run.families), "family", "families")
    for name, count in report.run.stored.items():
        sources += f", {count} from the {name}"
    solvers = _count(len(result.solvers), "solver", "solvers")
    line = f"{_count(result.instances, 'instance', 'instances')} ({sources}), {solvers}, {report.run.seconds:.0f} s"
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


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _verdict_table(report: Report) -> tuple[list[str], list[list[str]]]:
    header, rows = verdict_rows(report.run.result)
    return [header[0], "role", *header[1:]], [[row[0], report.run.roles[row[0]], *row[1:]] for row in rows]


def _returned(failure: Check) -> str:
    return repr(failure.outcome.answer)


def _failure_markdown(index: int, failure: Check, status: str, with_snippet: bool) -> list[str]:
    lines = [
        f"### {index}. `{failure.solver.name}`: {failure.verdict.value} ({status})",
        "",
        f"- found in {source(failure)}, shrunk to n={failure.instance.n}",
    ]
    if failure.judgement.detail:
        lines.append(f"- {failure.judgement.detail}")
    lines += [
        f"- expected {float(failure.oracle.value)!r} with saved={list(failure.oracle.saved)} ({failure.oracle.name})",
    ]
    if failure.outcome.returned:
        lines.append(f"- returned `{_returned(failure)[:300]}`")
    lines.append("")
    if with_snippet:
        lines += ["<details><summary>Reproduction</summary>", "", "```python", snippet(failure), "```", "", "</details>", ""]
    else:
        lines += ["(reproduction left out to fit a comment: see report.json)", ""]
    return lines


def _environment_rows(environment: dict) -> list[list[str]]:
    torch = environment["torch"]
    device = f"CUDA: {torch['gpu']}" if torch["cuda_available"] else "CPU only"
    commit = f" ({environment['knapcheck_commit']})" if environment.get("knapcheck_commit") else ""
    rows = [
        ["knapcheck", environment["knapcheck"] + commit],
        ["torch", f"{torch['version']} (CUDA build: {torch['cuda_build'] or 'none'}), {torch['threads']} threads"],
        ["device", device],
        ["Python", environment["python"]],
        ["CPU", f"{environment['cpu']}, {environment['cpu_count']} cores"],
        ["platform", environment["platform"]],
    ]
    rows += [[name, version or "not installed"] for name, version in environment["versions"].items() if name != "torch"]
    return rows


def render_markdown(report: Report) -> str:
    findings = report.run.result.findings
    for with_snippets in range(len(findings), -1, -1):
        text = _markdown(report, with_snippets)
        if len(text) <= MAX_MARKDOWN_CHARS:
            return text
    return text


def _markdown(report: Report, with_snippets: int) -> str:
    """Headline and verdict table first (what a reviewer reads in a PR comment), then details."""
    lines = [
        f"# knapcheck report: {_specs(report, CANDIDATE)}",
        "",
        "**{}**{}".format(*_gate(report)),
        "",
        f"Candidate: {_specs(report, CANDIDATE)}. Baseline: {_specs(report, BASELINE)}. {_summary(report)}".rstrip(),
        "",
        *_markdown_table(*_verdict_table(report)),
        "",
        _correctness_line(report) + f". {_isolation_line(report)} Each distinct failure (solver and verdict) "
        "is shrunk to a minimal instance. Differences in which of several optimal sets a solver saves, or in "
        "the order of the indices, are not failures.",
        "",
        f"### {real_budget.TITLE}",
        "",
        *real_budget.markdown_lines(report.run.result.overshoots),
        "",
    ]
    ordered = _ordered_findings(report)
    if ordered:
        lines += ["## Failures", ""]
        for index, (failure, status) in enumerate(ordered, 1):
            lines += _failure_markdown(index, failure, status, index <= with_snippets)
    oracle_findings = report.run.result.oracle_findings
    if oracle_findings:
        lines += ["## Oracle findings", "", "The oracle, not the solver, was shown wrong here (judged UNVERIFIED):", ""]
        lines += ["```", *(describe_oracle_finding(f) for f in oracle_findings), "```", ""]
    lines += ["## Performance", "", *performance_markdown(report.performance)]
    lines += [
        "## Environment",
        "",
        f"<details><summary>{_environment_summary(report.environment)}</summary>",
        "",
        *_markdown_table(["", ""], _environment_rows(report.environment)),
        "",
        "</details>",
        "",
        "Produced by:",
        "",
        "```",
        report.command,
        "```",
        "",
    ]
    return "\n".join(lines)


def _environment_summary(environment: dict) -> str:
    torch = environment["torch"]
    device = f"CUDA: {torch['gpu']}" if torch["cuda_available"] else "CPU only"
    return f"knapcheck {environment['knapcheck']}, torch {torch['version']}, {device}"


def _ordered_findings(report: Report) -> list[tuple[Check, str]]:
    """Candidate failures first (regressions before those the baseline shares), then the baseline's."""
    order = {REGRESSION: 0, ALSO_IN_BASELINE: 1, FIXED: 2, BASELINE_ONLY: 3}
    pairs = [(f, _status(report, f)) for f in report.run.result.findings]
    return sorted(pairs, key=lambda pair: order[pair[1]])


def render_json(report: Report) -> dict:
    result = report.run.result
    return {
        "schema_version": SCHEMA_VERSION,
        "command": report.command,
        "environment": report.environment,
        "correctness": {
            "instances": result.instances,
            "skipped": result.skipped,
            "families": list(report.run.families),
            "stored": report.run.stored,
            "seconds": report.run.seconds,
            "time_budget": report.run.time_budget,
            "solvers": [
                {
                    "name": e.name,
                    "role": report.run.roles[e.name],
                    "exact": e.exact,
                    "origin": e.origin,
                    "isolated": e.isolate,
                    "verdicts": dict(result.counts[e.name]),
                }
                for e in result.solvers
            ],
            "failures": [
                {**failure_json(f), "role": report.run.roles[f.solver.name], "status": status}
                for f, status in _ordered_findings(report)
            ],
            "oracle_findings": [oracle_finding_json(f) for f in result.oracle_findings],
            "real_budget": real_budget.to_json(result.overshoots),
        },
        "gate": {
            "rule": "strict" if report.strict else "regression",
            "passed": not report.gate_failed,
            "failing": [list(f.signature) for f in report.gate_failures],
        },
        "performance": performance_json(report.performance),
    }


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


_STYLE = """
body { font-family: sans-serif; max-width: 1000px; margin: 2em auto; line-height: 1.4; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; }
.regression { color: #b00020; }
"""


def _real_budget_html(report: Report) -> list[str]:
    header, rows, line = real_budget.table(report.run.result.overshoots)
    parts = [f"<h3>{escape(real_budget.TITLE)}</h3>", f"<p>{escape(real_budget.NOTE)}</p>"]
    if rows:
        parts.append(_html_table(header, rows))
    return parts + [f"<p>{escape(line)}</p>"]


def render_html(report: Report) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>knapcheck report: {escape(_specs(report, CANDIDATE))}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>knapcheck report: {escape(_specs(report, CANDIDATE))}</h1>",
        "<p><strong>{}</strong>{}</p>".format(*map(escape, _gate(report))),
        f"<p>Candidate: {escape(_specs(report, CANDIDATE))}. Baseline: {escape(_specs(report, BASELINE))}."
        f" {escape(_summary(report))}</p>",
        _html_table(*_verdict_table(report)),
        f"<p>{escape(_correctness_line(report))}. {escape(_isolation_line(report))}</p>",
        *_real_budget_html(report),
    ]
    ordered = _ordered_findings(report)
    if ordered:
        parts.append("<h2>Failures</h2>")
    for index, (failure, status) in enumerate(ordered, 1):
        css = ' class="regression"' if status == REGRESSION else ""
        parts += [
            f"<h3>{index}. <code>{escape(failure.solver.name)}</code>: {failure.verdict.value} "
            f"<span{css}>({escape(status)})</span></h3>",
            "<ul>",
            f"<li>found in {escape(source(failure))}, shrunk to n={failure.instance.n}</li>",
            f"<li>{escape(failure.judgement.detail)}</li>" if failure.judgement.detail else "",
            f"<li>expected {float(failure.oracle.value)!r} with saved={list(failure.oracle.saved)} "
            f"({escape(failure.oracle.name)})</li>",
            f"<li>returned <code>{escape(_returned(failure)[:300])}</code></li>" if failure.outcome.returned else "",
            "</ul>",
            f"<pre>{escape(snippet(failure))}</pre>",
        ]
    if report.run.result.oracle_findings:
        parts += ["<h2>Oracle findings</h2>", "<p>The oracle, not the solver, was shown wrong here (judged UNVERIFIED):</p>"]
        parts += [f"<pre>{escape(describe_oracle_finding(f))}</pre>" for f in report.run.result.oracle_findings]
    parts.append("<h2>Performance</h2>")
    parts += performance_html(report.performance)
    parts += [
        "<h2>Environment</h2>",
        _html_table(["", ""], _environment_rows(report.environment)),
        f"<p>Produced by:</p><pre>{escape(report.command)}</pre>",
        "</body></html>",
    ]
    return "\n".join(part for part in parts if part)
