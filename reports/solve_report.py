"""Rendering `knapcheck solve`: every solver's answer in the same shape, as text or JSON.

Solvers return different things (ours a ``Solution``, torch's a plain tuple, a broken one anything);
each answer is shown as its value, saved and recomputable indices, or as the error it raised.
"""

from __future__ import annotations

from typing import Any

from ..fuzz.judging.verdicts.differential import Check
from ..solvers.registry import promise_basis
from ..solvers.specs import shown

SCHEMA_VERSION = 2


def answer(check: Check) -> dict:
    """The solver's answer as value, saved and recomputable (or what it returned, if not that shape)."""
    outcome = check.outcome
    if not outcome.returned:
        return {"error": outcome.error}
    answer: Any = outcome.answer  # of any shape: what is not a (value, saved, recomputable) is shown as returned
    try:
        value, saved, recomputable = answer
        return {"value": float(value), "saved": sorted(int(i) for i in saved), "recomputable": sorted(int(i) for i in recomputable)}
    except (TypeError, ValueError):
        return {"returned": repr(outcome.answer)}


def result_json(label: str, check: Check) -> dict:
    oracle = check.oracle
    return {
        "instance": label,
        "instance_id": check.instance_id,
        "n": check.instance.n,
        "solver": check.solver.name,
        "display_name": shown(check.solver.name),
        "promise": "exact" if check.solver.exact else "heuristic",
        "promise_basis": promise_basis(check.solver),
        **answer(check),
        "optimum": {"value": float(oracle.value), "saved": list(oracle.saved), "oracle": oracle.name, "proven": oracle.proven},
        "verdict": check.verdict.value,
        "detail": check.judgement.detail,
        "failed": check.failed,
        "oracle_disagreement": check.oracle_disagreement,
    }


def render_json(results: list[tuple[str, Check]]) -> dict:
    return {"schema_version": SCHEMA_VERSION, "results": [result_json(label, check) for label, check in results]}


def render_text(results: list[tuple[str, Check]]) -> str:
    blocks = []
    for label, check in results:
        fields = result_json(label, check)
        optimum = fields["optimum"]
        lines = [
            f"instance:     {label} (n={check.instance.n}, id {fields['instance_id']})",
            f"solver:       {shown(check.solver.name)} ({fields['promise']}: {fields['promise_basis']})",
        ]
        lines += [f"{key + ':':13} {fields[key]}" for key in ("value", "saved", "recomputable", "error", "returned") if key in fields]
        lines.append(
            f"optimum:      {optimum['value']!r} (saved {optimum['saved']}, {optimum['oracle']}"
            f"{'' if optimum['proven'] else ', unproven'})"
        )
        lines.append(f"verdict:      {fields['verdict']}{': ' + fields['detail'] if fields['detail'] else ''}")
        if check.oracle_disagreement:
            lines.append(f"ORACLE WRONG: {check.oracle_disagreement}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
