"""Rendering the intervention: the baseline's known defects repaired in a candidate's source, and
what the repaired candidate did on a failure (``knapcheck.fuzz.judging.known.by_cause``).

The lines a repair changed are the candidate's own source: text a target supplied, put in code
spans in Markdown.
"""

from __future__ import annotations

from ..fuzz.judging.known.defects import CAUSES
from ..fuzz.judging.known.repaired import Intervention
from ..fuzz.judging.known.source_repair import Applied, Hunk
from ..fuzz.judging.verdicts.differential import Check
from .markdown import code, one_line


def _hunk_text(hunk: Hunk, function: str, spans=lambda text: text) -> str:
    helper = f" (in its helper {hunk.function})" if hunk.function and hunk.function != function else ""
    return f"line {hunk.line}{helper}: {spans(hunk.before.strip())} -> {spans(hunk.after.strip())}"


def applied_text(applied: Applied, spans=lambda text: text) -> str:
    """A repair as one line: the defect, then each line it changed, or why it did not apply."""
    if not applied.applied:
        return f"{applied.cause}: not applied, {applied.why_not}"
    return f"{applied.cause}: " + "; ".join(_hunk_text(h, applied.function, spans) for h in applied.hunks)


def _markdown_spans(text: str) -> str:
    return code(one_line(text))


def intervention_summary(intervention: Intervention) -> str:
    """The repairs tried on the candidate in a few words: where each one's code still is, and which
    found none (why is in the JSON and beside each failure they bear on)."""
    there = [f"{r.cause} at line{'s' if len(r.hunks) > 1 else ''} {', '.join(str(h.line) for h in r.hunks)}"
             for r in intervention.results if r.applied]
    gone = [r.cause for r in intervention.not_applied]
    parts = [f"still there: {', '.join(there)}"] if there else []
    return "; ".join(parts + ([f"not found (changed or repaired): {', '.join(gone)}"] if gone else []))


def repaired_sentence(failure: Check) -> str:
    """What the repaired candidate did on the failure's instance, and what that decided; '' where
    no repaired candidate was checked there."""
    repaired = failure.repaired
    if repaired is None:
        return ""
    verdict = repaired.verdict.value
    lead = f"with the baseline's known defects repaired in its source ({', '.join(repaired.repairs)}), it is {verdict}"
    if not repaired.decided:
        return f"{lead} here, failing otherwise: the repair decides nothing, the known defects' reach did"
    if failure.causes:
        return f"{lead} on this instance: the failure is that known defect, moved"
    return f"{lead} on this instance too: the repair does not remove the failure, whose cause is new"


def hunks_for(intervention: Intervention | None, causes: tuple[str, ...], markdown: bool = False) -> list[str]:
    """The repairs of ``causes`` that applied to the candidate, one line each."""
    if intervention is None:
        return []
    spans = _markdown_spans if markdown else (lambda text: text)
    return [applied_text(r, spans) for r in intervention.results if r.applied and r.cause in causes]


def failure_lines(failure: Check, intervention: Intervention | None, markdown: bool = False) -> list[str]:
    """What the intervention says of a candidate's failure: what the repaired candidate did on its
    instance (with the repairs that explain it, line by line), and the repairs of defects that
    cause its verdict that did not apply, whose reach decided instead."""
    if failure.counterpart is None or intervention is None:
        return []
    lines = []
    sentence, repaired = repaired_sentence(failure), failure.repaired
    if sentence:
        lines.append(sentence)
        if repaired is not None and repaired.decided:  # a sentence says a repaired candidate was checked
            lines += [f"repair {line}" for line in hunks_for(intervention, failure.causes, markdown)]
    spans = _markdown_spans if markdown else (lambda text: text)
    for result in intervention.not_applied:
        cause = CAUSES.get(result.cause)
        if cause is not None and failure.verdict.value in cause.verdicts:
            lines.append(f"the repair of {applied_text(result, spans)}: its reach decided")
    return lines


def intervention_json(intervention: Intervention) -> list[dict]:
    return [
        {"cause": r.cause, "function": r.function, "applied": r.applied, "why_not": r.why_not or None,
         "hunks": [{"line": h.line, "function": h.function, "before": h.before, "after": h.after} for h in r.hunks]}
        for r in intervention.results
    ]


def repaired_json(failure: Check) -> dict | None:
    repaired = failure.repaired
    if repaired is None:
        return None
    return {"repairs": list(repaired.repairs), "verdict": repaired.verdict.value, "detail": repaired.detail,
            "decided": repaired.decided}
