"""Rendering a fuzz campaign: the live progress line, and the final report in Markdown and JSON."""

from __future__ import annotations

from fuzz.campaign import NEW, CampaignResult, Finding, Progress
from reports.check_report import describe, failure_json, verdict_table

SCHEMA_VERSION = 1


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def progress_line(progress: Progress) -> str:
    """One line: elapsed and remaining time, cases per second, verdict counts per solver."""
    solvers = " | ".join(
        f"{name} " + " ".join(f"{verdict}={count}" for verdict, count in sorted(verdicts.items()))
        for name, verdicts in progress.counts.items()
        if verdicts
    )
    return (
        f"{clock(progress.elapsed)} elapsed, {clock(progress.remaining)} left, {progress.cases} cases "
        f"({progress.rate:.1f}/s, {progress.verified} verified) | {solvers}"
    )


def _summary_rows(result: CampaignResult) -> list[str]:
    rows = ["| status | solver | verdict | family | n | stored |", "|---|---|---|---|---|---|"]
    for f in result.findings:
        status = "**NEW**" if f.status == NEW else f.status
        replay = f" (replayed: {f.replayed})" if f.replayed else ""
        rows.append(
            f"| {status}{replay} | `{f.stored.solver}` | {f.stored.verdict} | {f.stored.family} | "
            f"{f.stored.instance.n} | `{f.stored.path}` |"
        )
    return rows


def render_markdown(result: CampaignResult) -> str:
    failing = result.failing()
    lines = [
        "# knapcheck fuzz campaign",
        "",
        f"- ran {result.elapsed:.0f} s of {result.duration:.0f} s with {result.jobs} worker processes",
        f"- {result.tally.instances} cases, {result.rate:.1f} cases/s, {result.verified} verified by a proven oracle",
        f"- families: {', '.join(result.families)}",
        f"- {len(failing)} failing signatures ({sum(f.status == NEW for f in failing)} new), "
        f"{len(result.our_failures())} of them in our own solvers",
        "",
        "## Verdicts per solver",
        "",
        "```",
        verdict_table(result.tally),
        "```",
        "",
        "## Signatures (solver, verdict kind) in the store",
        "",
    ]
    lines += _summary_rows(result) if result.findings else ["none"]
    for finding in failing:
        lines += ["", f"### {finding.stored.solver}: {finding.stored.verdict}{' (NEW)' if finding.status == NEW else ''}", ""]
        lines += ["```", describe(finding.check), "```"]
        if not finding.check.failed:
            lines += ["", "The stored instance passed when checked again at the end: the failure is not deterministic."]
    if result.oracle_disagreements:
        lines += ["", "## Oracle disagreements", "", *(f"- `{p}`" for p in result.oracle_disagreements)]
    if result.lost_workers:
        lines += ["", "## Workers lost", "", *(f"```\n{w}\n```" for w in result.lost_workers)]
    return "\n".join(lines) + "\n"


def _finding_json(finding: Finding) -> dict:
    data = {
        "status": finding.status,
        "new": finding.status == NEW,
        "solver": finding.stored.solver,
        "verdict": finding.stored.verdict,
        "ours": finding.stored.ours,
        "family": finding.stored.family,
        "stored": str(finding.stored.path),
        "found_at": finding.stored.found_at,
        "replayed": finding.replayed,
        "instance": finding.stored.instance.as_dict(),
    }
    if finding.check is not None:
        data["recheck"] = failure_json(finding.check)
    return data


def render_json(result: CampaignResult) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "duration_s": result.duration,
        "elapsed_s": result.elapsed,
        "jobs": result.jobs,
        "families": result.families,
        "cases": result.tally.instances,
        "verified": result.verified,
        "cases_per_second": result.rate,
        "solvers": [
            {"name": e.name, "exact": e.exact, "origin": e.origin, "ours": e.ours, "verdicts": dict(result.tally.counts[e.name])}
            for e in result.tally.solvers
        ],
        "findings": [_finding_json(f) for f in result.findings],
        "oracle_disagreements": [str(p) for p in result.oracle_disagreements],
        "lost_workers": result.lost_workers,
        "our_failures": len(result.our_failures()),
    }
