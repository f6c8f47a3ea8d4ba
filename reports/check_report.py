"""Rendering a `knapcheck check` result: a verdict table, the real-budget table, minimal reproductions, JSON."""

from __future__ import annotations

from knapcheck.fuzz import families
from knapcheck.fuzz.differential import Check, CheckResult
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports import real_budget
from knapcheck.reports.reproduction import snippet

SCHEMA_VERSION = 1


def verdict_rows(result: CheckResult) -> tuple[list[str], list[list[str]]]:
    """Header and one row per solver: its kind and how many checks ended in each verdict seen."""
    columns = [v.value for v in Verdict if any(result.counts[e.name][v.value] for e in result.solvers)]
    header = ["solver", "kind", *columns]
    rows = [
        [e.name, "exact" if e.exact else "heuristic", *(str(result.counts[e.name][c]) for c in columns)]
        for e in result.solvers
    ]
    return header, rows


def verdict_table(result: CheckResult) -> str:
    header, rows = verdict_rows(result)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def source(failure: Check) -> str:
    """Where the failure was found: a family's sample, or stored instances (the regression corpus, a file)."""
    if failure.family in families.names():
        return f"family {failure.family}"
    return f"stored instances: {failure.family}"


def describe(failure: Check) -> str:
    returned = failure.outcome.answer if failure.outcome.returned else failure.outcome.error
    lines = [
        f"{failure.solver.name}: {failure.verdict.value} (found in {source(failure)}, shrunk to n={failure.instance.n})",
        f"  detail:   {failure.judgement.detail}",
        f"  expected: {float(failure.oracle.value)!r} with saved={list(failure.oracle.saved)} ({failure.oracle.name})",
        f"  returned: {returned!r}",
        "  reproduce:",
    ]
    lines += ["    " + line for line in snippet(failure).splitlines()]
    return "\n".join(lines)


def describe_oracle_finding(finding: Check) -> str:
    """An oracle finding: the oracle (or the checker), not the solver, is wrong on this instance."""
    return "\n".join(
        [
            f"{finding.oracle.name} on {finding.solver.name}'s answer ({source(finding)}, n={finding.instance.n}):",
            f"  {finding.oracle_disagreement}",
            f"  instance: {finding.instance.as_dict()}",
        ]
    )


def render_text(result: CheckResult, sources: str = "") -> str:
    """The verdict table and each failure's reproduction; ``sources`` says where the instances came from."""
    where = f" ({sources})" if sources else ""
    parts = [f"{result.instances} instances{where}, {len(result.solvers)} solvers", "", verdict_table(result)]
    parts += ["", real_budget.render_text(result.overshoots)]
    if result.findings:
        parts += ["", f"{len(result.findings)} distinct failures (solver, verdict), each shrunk to a minimal instance:"]
        parts += ["", *("\n" + describe(f) for f in result.findings)]
    else:
        parts += ["", "no failures"]
    if result.oracle_findings:
        parts += ["", f"ORACLE FINDINGS: the oracle was shown wrong {len(result.oracle_findings)} times (judged UNVERIFIED):"]
        parts += ["", *("\n" + describe_oracle_finding(f) for f in result.oracle_findings)]
    return "\n".join(parts)


def oracle_finding_json(finding: Check) -> dict:
    return {
        "solver": finding.solver.name,
        "family": finding.family,
        "oracle": finding.oracle.name,
        "disagreement": finding.oracle_disagreement,
        "instance": finding.instance.as_dict(),
        "oracle_answer": {"value": float(finding.oracle.value), "saved": list(finding.oracle.saved), "proven": finding.oracle.proven},
        "returned": repr(finding.outcome.answer),
    }


def failure_json(failure: Check) -> dict:
    return {
        "solver": failure.solver.name,
        "origin": failure.solver.origin,
        "verdict": failure.verdict.value,
        "family": failure.family,
        "detail": failure.judgement.detail,
        "gap": failure.judgement.gap,
        "excess": failure.judgement.excess,
        "instance": failure.instance.as_dict(),
        "expected": {"value": float(failure.oracle.value), "saved": list(failure.oracle.saved), "oracle": failure.oracle.name},
        "returned": repr(failure.outcome.answer) if failure.outcome.returned else failure.outcome.error,
        "reproduction": snippet(failure),
    }


def render_json(result: CheckResult) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "instances": result.instances,
        "solvers": [
            {"name": e.name, "exact": e.exact, "origin": e.origin, "verdicts": dict(result.counts[e.name])}
            for e in result.solvers
        ],
        "failures": [failure_json(f) for f in result.findings],
        "oracle_findings": [oracle_finding_json(f) for f in result.oracle_findings],
        "real_budget": real_budget.to_json(result.overshoots),
    }
