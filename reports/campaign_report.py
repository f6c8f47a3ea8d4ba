"""Rendering a fuzz campaign: its live progress, and the final report in Markdown and JSON."""

from __future__ import annotations

import json
from typing import cast

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..fuzz.campaign.run import CampaignResult, Progress
from ..fuzz.campaign.state import FAILING, LISTED, Finding
from ..fuzz.campaign.unit_ledger import LostUnit
from ..fuzz.judging.verdicts.differential import Check, instance_id
from ..fuzz.judging.verdicts.gate import KNOWN, NEW, REGRESSION, SHARED
from ..fuzz.judging.verdicts.signature import Signature
from ..oracles.verdict import Verdict
from ..solvers.contract import Instance
from ..solvers.specs import shown, shown_path
from . import real_budget, tables
from .check_report import describe, failure_json, verdict_table
from .markdown import code, fenced, prose

SCHEMA_VERSION = 4
"""4: a finding's status is the gate's (regression, also in baseline, new, known: known when a
known-failure case explains it), with stored_before, known_case, baseline_verdict and
instance_id; baselines, counterparts and gate added.
3: problems, scheduler_lost and refused_events added; an unreadable file's moved_to may be null."""
PASSING = {Verdict.OPTIMAL.value, Verdict.UNVERIFIED.value}


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _headline(progress: Progress) -> str:
    troubles = f", {progress.troubles} lost or retried" if progress.troubles else ""
    return (
        f"{clock(progress.elapsed)} elapsed, {clock(progress.remaining)} left, {progress.cases} cases "
        f"({progress.rate:.1f}/s, {progress.verified} verified), {progress.workers} workers, "
        f"{progress.stored} stored{troubles}"
    )


def progress_line(progress: Progress) -> str:
    """One line: the headline, and only the failing verdicts' counts per solver."""
    failing = [
        f"{name} {verdict}={count}"
        for name, verdicts in progress.counts.items()
        for verdict, count in sorted(verdicts.items())
        if verdict not in PASSING
    ]
    return _headline(progress) + (f"; failing: {', '.join(failing)}" if failing else "")


def progress_view(progress: Progress):
    """The live display: the headline, then verdict counts, one row per solver."""
    seen = [v.value for v in Verdict if any(c[v.value] for c in progress.counts.values())]
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("solver", overflow="ellipsis", no_wrap=True, max_width=48)
    for verdict in seen:
        table.add_column(verdict, justify="right", overflow="ellipsis", no_wrap=True)
    for name, verdicts in progress.counts.items():
        table.add_row(name, *(str(verdicts[v]) if verdicts[v] else "" for v in seen))
    return Group(Text(_headline(progress), overflow="ellipsis", no_wrap=True), table)


def failing_summary(result: CampaignResult) -> str:
    """How many signatures failed, by what they mean: regressions and shared failures against a
    baseline, new and known (in the known-failure corpus) without one."""
    failing = result.failing()
    counted = [(sum(f.status == state for f in failing), state) for state in FAILING]
    words = {SHARED: "also in the baseline", NEW: "new", KNOWN: "known in the known-failure corpus"}
    parts = [f"{count} {words.get(state) or ('regression' if count == 1 else 'regressions')}" for count, state in counted if count]
    first = sum(not f.stored_before for f in failing)
    detail = f" ({', '.join(parts)}; {first} first stored in this run)" if failing else ""
    signatures = "signature" if len(failing) == 1 else "signatures"
    return f"{len(failing)} failing {signatures}{detail}, {len(result.our_failures())} in our solvers"


def _status(finding: Finding) -> str:
    shown = f"**{finding.status.upper()}**" if finding.status in (NEW, REGRESSION) else finding.status
    if finding.known_case:
        shown += f" (case {code(finding.known_case)})"
    return shown + (prose(f" (replayed: {finding.replayed})") if finding.replayed else "")


def _summary_rows(result: CampaignResult) -> list[str]:
    rows = []
    for f in result.findings:
        before = "" if not f.failing else " (stored before)" if f.stored_before else " (first stored in this run)"
        rows.append([_status(f), code(shown(f.stored.solver)), prose(f.stored.verdict), prose(f.stored.baseline_verdict or "-"),
                     prose(f.stored.family), str(f.stored.instance.n), code(f.stored.instance_id),
                     (code(shown_path(f.stored.path)) if f.stored.path else "none") + before])
    header = ["status", "solver", "verdict", "baseline verdict", "family", "n", "instance", "stored"]
    return tables.Table(header, rows).markdown(cells_are_markdown=True)


def _gate_line(result: CampaignResult) -> str:
    decision = result.gate()
    who = "every target, against its baseline" if result.counterparts else "our solvers"
    if decision.passed:
        return f"- gate on {who}, under {decision.rule}: passed"
    problems = [str(Signature.of(f)) for f in decision.failing]
    if decision.oracle_findings:
        problems.append(f"an oracle shown wrong {decision.oracle_findings} times")
    return f"- gate on {who}, under {decision.rule}: **FAILED** ({'; '.join(problems)})"


def _lost_lines(lost: list[LostUnit]) -> list[str]:
    lines = []
    for unit in lost:
        lines.append(f"- {unit.unit} (attempt {unit.attempts}): {unit.reason}")
        if unit.instance is not None:
            lines.append(f"  - it was on `{json.dumps(unit.instance)}`")
    return lines


def _as_asked(result: CampaignResult) -> str:
    """The report's "ran as asked" line: what went wrong, and whether the run was cut short."""
    problems = result.problems()
    if result.interrupted:
        lost = f"; and NOT as asked: {', '.join(problems)} (see below)" if problems else "; nothing was lost"
        return f"- ran as asked: {result.stopped_by} (partial){lost}"
    return f"- ran as asked: {'yes' if not problems else 'NO: ' + ', '.join(problems) + ' (see below)'}"


def render_markdown(result: CampaignResult) -> str:
    title = "# knapcheck fuzz campaign" + (f" (PARTIAL: {result.stopped_by})" if result.interrupted else "")
    lines = [
        title,
        "",
        *([f"**INCOMPLETE: {result.scheduler_lost}.** What it did before is below.", ""] if result.scheduler_lost else []),
        f"- ran {result.elapsed:.0f} s of {result.duration:.0f} s on a {result.cluster}"
        + (f", then was {result.stopped_by}: what ran is below" if result.interrupted else ""),
        f"- {result.tally.instances} cases, {result.rate:.1f} cases/s, {result.verified} verified by a proven oracle",
        f"- families: {', '.join(result.families)}",
        f"- seed {result.seed}; per-call limit {result.call_limit:g} s; grace after the deadline {result.grace:g} s",
        *[f"- `{target}` judged against `{baseline}` on every instance" for target, baseline in result.counterparts.items()],
        f"- {failing_summary(result)}",
        _gate_line(result),
        _as_asked(result),
        "",
        "## Verdicts per solver",
        "",
        *fenced(verdict_table(result.tally)),
        "",
        "## Signatures (solver, verdict, baseline verdict) in the store",
        "",
    ]
    lines += _summary_rows(result) if result.findings else ["none"]
    for finding in sorted((f for f in result.findings if f.status in LISTED), key=lambda f: LISTED.index(f.status)):
        lines += ["", f"### {prose(shown(str(finding.stored.signature)))}: {prose(finding.status)}", ""]
        listed = cast(Check, finding.check)  # a listed (failing or visible) finding holds its check
        lines += fenced(describe(listed, finding.status, finding.known_case))
    if result.oracle_disagreements:
        lines += ["", "## Oracle disagreements", "", *(f"- `{p}`" for p in result.oracle_disagreements)]
    if result.workers_lost:
        lines += ["", "## Workers lost", "", *(f"- {w}" for w in result.workers_lost)]
    if result.units_retried:
        lines += ["", "## Units retried after their worker died", "", *_lost_lines(result.units_retried)]
    if result.units_lost:
        lines += ["", "## Units lost", "", *_lost_lines(result.units_lost)]
    if result.store_errors:
        lines += ["", "## Findings the store could not take (kept above and in campaign.json)", ""]
        lines += [f"- {e}" for e in result.store_errors]
    if result.refused_events:
        lines += ["", f"## Items on the campaign's queue refused ({result.refused_events}; counted, never acted on)", ""]
        lines += [f"- {reason}" for reason in result.refused_examples]
        if result.refused_events > len(result.refused_examples):
            lines.append(f"- and {result.refused_events - len(result.refused_examples)} more")
    if result.bad_files:
        lines += ["", "## Unreadable files set aside from the store", ""]
        lines += [f"- `{b.path}` -> {f'`{b.moved_to}`' if b.moved_to else 'left in place (the store cannot be changed)'}: {b.reason}"
                  for b in result.bad_files]
    lines += ["", f"## {real_budget.TITLE}", "", *real_budget.markdown_lines(result.tally.overshoots)]
    return "\n".join(lines).rstrip("\n") + "\n"


def _finding_json(finding: Finding) -> dict:
    data = {
        "status": finding.status,
        "new": finding.status == NEW,
        "stored_before": finding.stored_before,
        "known_case": finding.known_case,
        "solver": finding.stored.solver,
        "verdict": finding.stored.verdict,
        "baseline": finding.stored.baseline or None,
        "baseline_verdict": finding.stored.baseline_verdict or None,
        "known": finding.stored.known or None,
        "signature": list(finding.stored.signature.parts()),
        "ours": finding.stored.ours,
        "family": finding.stored.family,
        "stored": str(finding.stored.path) if finding.stored.path else None,
        "found_at": finding.stored.found_at,
        "replayed": finding.replayed,
        "instance": {"id": finding.stored.instance_id, **finding.stored.instance.as_dict()},
    }
    if finding.check is not None:
        data["check"] = failure_json(finding.check, finding.status, finding.known_case)
    return data


def _lost_json(lost: list[LostUnit]) -> list[dict]:
    return [{"unit": u.unit, "attempts": u.attempts, "reason": u.reason, "instance": _with_id(u.instance)} for u in lost]


def _with_id(instance: dict | None) -> dict | None:
    """An instance a unit announced (plain data), with its id first, as every instance in the JSON has."""
    if instance is None:
        return None
    return {"id": instance_id(Instance.from_dict(instance)), **instance}


def _gate_json(result: CampaignResult) -> dict:
    decision = result.gate()
    return {
        "solvers": result.gated,
        "rule": "differential" if result.counterparts else "no baseline",
        "passed": decision.passed,
        "failing": [list(Signature.of(f).parts()) for f in decision.failing],
        "oracle_findings": decision.oracle_findings,
    }


def render_json(result: CampaignResult) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "partial": result.interrupted,
        "stopped_by": result.stopped_by if result.interrupted else None,
        "as_asked": result.as_asked,
        "problems": result.problems(),
        "scheduler_lost": result.scheduler_lost or None,
        "cluster": result.cluster,
        "duration_s": result.duration,
        "elapsed_s": result.elapsed,
        "seed": result.seed,
        "call_limit_s": result.call_limit,
        "grace_s": result.grace,
        "families": result.families,
        "cases": result.tally.instances,
        "verified": result.verified,
        "cases_per_second": result.rate,
        "solvers": [
            {"name": e.name, "role": "baseline" if e.name in result.counterparts.values() else "target", "exact": e.exact,
             "origin": e.origin, "ours": e.ours, "counterpart": result.counterparts.get(e.name),
             "verdicts": dict(result.tally.counts[e.name])}
            for e in result.tally.solvers
        ],
        "gate": _gate_json(result),
        "real_budget": real_budget.to_json(result.tally.overshoots),
        "findings": [_finding_json(f) for f in result.findings],
        "oracle_disagreements": [str(p) for p in result.oracle_disagreements],
        "workers_lost": result.workers_lost,
        "units_retried": _lost_json(result.units_retried),
        "units_lost": _lost_json(result.units_lost),
        "store_errors": result.store_errors,
        "refused_events": {"count": result.refused_events, "reasons": result.refused_examples},
        "unreadable_files": [
            {"path": str(b.path), "moved_to": str(b.moved_to) if b.moved_to else None, "reason": b.reason} for b in result.bad_files
        ],
        "our_failures": len(result.our_failures()),
    }
