"""Rendering a `knapcheck check` result: a verdict table, the promises, each target against its
baseline, the real-budget table, minimal reproductions grouped by what they mean, JSON.

Findings are grouped as the gate reads them (``knapcheck.fuzz.judging.verdicts.gate``): against a baseline,
regressions first, then failures the baseline shares, then known defects of the baseline made
visible; without one, new failures first, then the ones a case of the known-failure corpus explains; the
baselines' own failures last.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..fuzz.instances import families
from ..fuzz.judging.known.defects import describe as describe_causes
from ..fuzz.judging.verdicts.comparison import Comparison
from ..fuzz.judging.verdicts.differential import Check, CheckResult, instance_id
from ..fuzz.judging.verdicts.gate import (
    BASELINE,
    CANDIDATE,
    KNOWN,
    NEW,
    OF_BASELINE,
    REGRESSION,
    SHARED,
    VISIBLE,
    status,
)
from ..oracles.verdict import Verdict
from ..solvers.entry import SolverEntry
from ..solvers.registry import promise_basis
from ..solvers.specs import shown, shown_in
from . import real_budget
from .markdown import LINE_BREAK
from .repairs import failure_lines, intervention_json, intervention_summary, repaired_json
from .reproduction import snippet
from .tables import Table

SCHEMA_VERSION = 2
WHERE_TO_RUN = "each reproduction below runs as shown with Python from this directory"
ORDER = (REGRESSION, NEW, SHARED, VISIBLE, KNOWN, OF_BASELINE)
HEADINGS = {
    REGRESSION: "regressions: failures whose cause is new (the baseline does not fail that way, and no known defect"
                " of it explains them)",
    NEW: "new failures: no case of the known-failure corpus explains them",
    SHARED: "failures the baseline shares (same verdict on the same instance)",
    VISIBLE: "known defects of the baseline, now visible: a defect the baseline has explains them (information)",
    KNOWN: "known failures: a case of the known-failure corpus has the same solver, verdict and cause",
    OF_BASELINE: "the baselines' own failures",
}


def role(result: CheckResult, name: str) -> str:
    return BASELINE if name in result.baselines else CANDIDATE


def finding_status(result: CheckResult, finding: Check) -> str:
    return status(finding, role(result, finding.solver.name), result.known.get(finding.differential_signature))


def ordered_findings(result: CheckResult) -> list[tuple[Check, str]]:
    pairs = [(f, finding_status(result, f)) for f in result.findings]
    return sorted(pairs, key=lambda pair: ORDER.index(pair[1]))


def promise(entry: SolverEntry) -> str:
    return f"{'exact' if entry.exact else 'heuristic'} ({promise_basis(entry)})"


def verdict_rows(result: CheckResult) -> tuple[list[str], list[list[str]]]:
    """Header and one row per solver: its kind and how many checks ended in each verdict seen."""
    columns = [v.value for v in Verdict if any(result.counts[e.name][v.value] for e in result.solvers)]
    header = ["solver", "kind", *columns]
    rows = [
        [shown(e.name), "exact" if e.exact else "heuristic", *(str(result.counts[e.name][c]) for c in columns)]
        for e in result.solvers
    ]
    return header, rows


def verdict_table(result: CheckResult) -> str:
    return Table(*verdict_rows(result)).text()


def promise_lines(result: CheckResult) -> list[str]:
    """Which promise each solver was judged on, and why (a declaration, torch's, the default)."""
    return [f"{shown(e.name)}: {promise(e)}" for e in result.solvers]


def source(failure: Check) -> str:
    """Where the failure was found: a family's sample, or stored instances (the known-failure corpus, a file)."""
    if failure.family in families.names():
        return f"family {failure.family}"
    return f"stored instances: {failure.family}"


def _verdict_pairs(counter) -> str:
    return ", ".join(f"{v} where the baseline is {b} on {n}" for (v, b), n in sorted(counter.items()))


def causes_text(causes: tuple[str, ...]) -> str:
    return describe_causes(causes) if causes else "no known defect of the baseline"


Named = Callable[[tuple[str, ...]], str] | None
"""How a text names a combination of causes: by what each is (``causes_text``), or by short name;
None: the counts are summed over the causes (a text that names them elsewhere)."""


def _by_causes(counter, words, named: Named = causes_text) -> list[str]:
    """Counts keyed by (..., causes) grouped by their causes: "VERDICT ... on N, ... (the causes)";
    with ``named`` None, by the rest of the key: "VERDICT ... on N"."""
    if named is None:
        summed: Counter = Counter()
        for key, n in counter.items():
            summed[key[:-1]] += n
        return [f"{words(*key)} on {n}" for key, n in sorted(summed.items())]
    grouped: dict[tuple[str, ...], list[str]] = {}
    for key, n in sorted(counter.items()):
        grouped.setdefault(key[-1], []).append(f"{words(*key[:-1])} on {n}")
    return [f"{', '.join(parts)} ({named(causes)})" for causes, parts in grouped.items()]


def visible_parts(comparison: Comparison, named: Named = causes_text) -> list[str]:
    """The target's failures a known defect of the baseline explains, grouped by the defects."""
    return _by_causes(comparison.visible, lambda v, b: f"{v} where the baseline is {b}", named)


def fixed_parts(comparison: Comparison, still_there: tuple[str, ...] = (), named: Named = causes_text) -> list[str]:
    """The baseline's failures the target passes, grouped by the baseline's defects behind them;
    those of defects whose code is still in the target's source (``still_there``: their repairs
    apply) said to pass by chance. ``named`` None: by verdict alone."""
    if named is None:
        return [f"{verdict} on {n}" for verdict, n in sorted(comparison.fixed.items())]
    parts = []
    for (verdict, causes), n in sorted(comparison.fixed_causes.items()):
        part = f"{verdict} on {n} ({named(causes)})"
        if causes and set(causes) <= set(still_there):
            part += " by chance: that defect's code is still in the candidate, and it shows on other instances"
        parts.append(part)
    return parts


def fixes(comparison: Comparison, still_there: tuple[str, ...] = ()) -> int:
    """The baseline's failures the target passes, but those of defects whose code is still in its source."""
    return sum(n for (_, causes), n in comparison.fixed_causes.items() if not (causes and set(causes) <= set(still_there)))


def percent(share: float) -> str:
    return f"{100 * share:.3g} %"


def quality_line(comparison: Comparison, max_loss: float | None = None, examples: bool = True) -> str:
    """Where both answers are valid, how often and by how much the target saves less runtime
    (``examples``: with the instance of the worst loss)."""
    quality = comparison.quality
    line = (f"quality (information{'' if max_loss is None else ', a failure past --max-quality-loss'}):"
            f" saves less runtime than the baseline on {quality.less} of {quality.compared} instances where both"
            " answers are valid")
    if quality.worst is not None:
        worst = quality.worst
        line += (f", by {percent(quality.median)} of it at the median and {percent(worst.loss)} at worst"
                 f" ({worst.value!r} against {worst.baseline_value!r}"
                 f"{f' on {worst.instance.as_dict()}' if examples else ''})")
    if quality.more:
        line += f"; more on {quality.more}"
    if max_loss is not None:
        line += f"; limit {percent(max_loss)}"
    return line


def comparison_lines(target: str, comparison: Comparison, max_quality_loss: float | None = None,
                     named: Named = causes_text, examples: bool = True) -> list[str]:
    """A target against its baseline: regressed, explained, shared and fixed instances, the
    quality of a target that saves less, and selection changes (``examples``: with an instance of
    each; ``named``: how the causes are named)."""
    lines = [
        f"{shown(target)} against {shown(comparison.baseline)}: {comparison.instances} instances run on both,"
        f" the same verdict on {comparison.same_verdict}"
    ]
    if comparison.regressed:
        lines.append(f"  regressions (instances): {_verdict_pairs(comparison.regressed)}")
    if comparison.visible:
        lines.append("  known defects of the baseline, now visible (instances): " + "; ".join(visible_parts(comparison, named)))
    if comparison.shared:
        lines.append("  shared failures (instances): " + ", ".join(f"{v} on {n}" for v, n in sorted(comparison.shared.items())))
    if comparison.fixed:
        lines.append("  passes where the baseline fails (instances): " + "; ".join(fixed_parts(comparison, named=named)))
    if comparison.quality.less or max_quality_loss is not None:
        lines.append("  " + quality_line(comparison, max_quality_loss, examples))
    lines.append("  " + selection_line(comparison, examples))
    return lines


def selection_line(comparison: Comparison, examples: bool = True) -> str:
    """Instances where both answers are valid but the saved sets differ: information, never a
    failure (``examples``: with the first such instance)."""
    line = (
        f"selection changes (information, not failures): a different saved set on {comparison.selection_changes}"
        f" of {comparison.both_valid} instances where both answers are valid"
    )
    example = comparison.example
    if example is not None and examples:
        line += (
            f"; for example {example.instance.as_dict()}: saves {list(example.saved)} ({example.value!r}),"
            f" the baseline {list(example.baseline_saved)} ({example.baseline_value!r})"
        )
    return line


def _names(failure: Check) -> list[str]:
    return [failure.solver.name] + ([failure.counterpart.name] if failure.counterpart is not None else [])


def detail(failure: Check) -> str:
    """The judgement's detail with the solvers' files shown (an exception names where it was raised)."""
    return shown_in(failure.judgement.detail, _names(failure))


def describe(failure: Check, state: str = "", known_case: str | None = None, intervention=None) -> str:
    returned = failure.outcome.answer if failure.outcome.returned else shown_in(failure.outcome.error, _names(failure))
    label = f", {state}" if state else ""
    if failure.causes:
        label += f" ({describe_causes(failure.causes)})"
    if known_case:
        label += f" ({'' if state == KNOWN else 'known, '}corpus case {known_case})"
    lines = [
        f"{shown(failure.solver.name)}: {failure.verdict.value}{label} (found in {source(failure)}, shrunk to"
        f" n={failure.instance.n}, instance {failure.instance_id})",
        f"  detail:   {_indented(detail(failure))}",
        f"  expected: {float(failure.oracle.value)!r} with saved={list(failure.oracle.saved)} ({failure.oracle.name})",
        f"  returned: {_indented(repr(returned))}",
    ]
    if failure.counterpart is not None:
        lines.append(f"  baseline: {shown(failure.counterpart.name)}: {_indented(_baseline_outcome(failure))}")
    lines += [f"  repaired: {_indented(line)}" for line in failure_lines(failure, intervention)]
    lines.append("  reproduce:")
    lines += ["    " + line for line in snippet(failure).splitlines()]
    return "\n".join(lines)


def _indented(text: str) -> str:
    """Text a target supplied, with each line after its first indented under the field it fills,
    so that none of it starts a line of the output."""
    return LINE_BREAK.sub("\n" + " " * 12, text)


def _baseline_outcome(failure: Check) -> str:
    base = failure.baseline
    if base is None:
        return "not run on this size"
    returned = base.outcome.answer if base.outcome.returned else shown_in(base.outcome.error, _names(failure))
    return f"{base.verdict.value}, returned {returned!r}"[:400]


def describe_oracle_finding(finding: Check) -> str:
    """An oracle finding: the oracle (or the checker), not the solver, is wrong on this instance."""
    return "\n".join(
        [
            f"{finding.oracle.name} on {shown(finding.solver.name)}'s answer ({source(finding)}, n={finding.instance.n}):",
            f"  {finding.oracle_disagreement}",
            f"  instance: {finding.instance.as_dict()}",
        ]
    )


def determinism_line(result: CheckResult) -> str:
    repeated = {name: n for name, n in result.repeated.items() if n}
    if not repeated:
        return "determinism: no solver was called twice"
    called = ", ".join(f"{shown(name)} on {n}" for name, n in repeated.items())
    return f"determinism: solvers that promise the optimum were called twice on {called} instances, and on each shrunk reproduction"


def render_text(result: CheckResult, sources: str = "", gate: str = "") -> str:
    """The verdict table, each failure's reproduction and ``gate`` (the gate's outcome), then what
    is information only: each target against its baseline, the real-memory table. ``sources`` says
    where the instances came from."""
    where = f" ({sources})" if sources else ""
    parts = [f"{result.instances} instances{where}, {len(result.solvers)} solvers", "", verdict_table(result)]
    parts += ["", "judged on their promises:", *("  " + line for line in promise_lines(result))]
    parts += ["", determinism_line(result)]
    ordered = ordered_findings(result)
    if not ordered:
        parts += ["", "no failures"]
    else:
        parts += ["", WHERE_TO_RUN]
    for state in ORDER:
        group = [f for f, s in ordered if s == state]
        if group:
            parts += ["", f"{len(group)} {HEADINGS[state]}; each shrunk to a minimal instance:"]
            parts += ["\n" + describe(f, state, result.known.get(f.differential_signature),
                                       result.interventions.get(f.solver.name)) for f in group]
    if result.oracle_findings:
        parts += ["", f"ORACLE FINDINGS: the oracle was shown wrong {len(result.oracle_findings)} times (judged UNVERIFIED):"]
        parts += ["", *("\n" + describe_oracle_finding(f) for f in result.oracle_findings)]
    if gate:
        parts += ["", gate]
    for target, comparison in result.comparisons.items():
        parts += ["", *comparison_lines(target, comparison)]
        intervention = result.interventions.get(target)
        if intervention is not None and intervention.results:
            parts.append(f"  the baseline's known defects in its source (where a repair applies, the code is still there):"
                         f" {intervention_summary(intervention)}")
    parts += ["", real_budget.render_text(result.overshoots)]
    return "\n".join(parts)


def instance_json(instance_id: str, instance) -> dict:
    return {"id": instance_id, **instance.as_dict()}


def oracle_finding_json(finding: Check) -> dict:
    return {
        "solver": finding.solver.name,
        "family": finding.family,
        "oracle": finding.oracle.name,
        "disagreement": finding.oracle_disagreement,
        "instance": instance_json(finding.instance_id, finding.instance),
        "oracle_answer": {"value": float(finding.oracle.value), "saved": list(finding.oracle.saved), "proven": finding.oracle.proven},
        "returned": repr(finding.outcome.answer),
    }


def _returned(done: Check) -> str:
    return repr(done.outcome.answer) if done.outcome.returned else done.outcome.error


def failure_json(failure: Check, state: str = "", known_case: str | None = None) -> dict:
    base = failure.baseline
    return {
        "solver": failure.solver.name,
        "origin": failure.solver.origin,
        "verdict": failure.verdict.value,
        "signature": failure.differential_signature.as_json(),
        "status": state,
        "known_case": known_case,
        "causes": list(failure.causes),
        "family": failure.family,
        "detail": failure.judgement.detail,
        "gap": failure.judgement.gap,
        "excess": failure.judgement.excess,
        "instance": instance_json(failure.instance_id, failure.instance),
        "expected": {"value": float(failure.oracle.value), "saved": list(failure.oracle.saved), "oracle": failure.oracle.name},
        "returned": _returned(failure),
        "baseline": None if failure.counterpart is None else {
            "solver": failure.counterpart.name,
            "verdict": failure.baseline_verdict,
            "returned": None if base is None else _returned(base),
        },
        "repaired": repaired_json(failure),
        "reproduction": snippet(failure),
    }


def comparison_json(comparison: Comparison) -> dict:
    example = comparison.example
    return {
        "baseline": comparison.baseline,
        "instances": comparison.instances,
        "same_verdict": comparison.same_verdict,
        "regressed": [{"verdict": v, "baseline_verdict": b, "instances": n} for (v, b), n in sorted(comparison.regressed.items())],
        "known_visible": [{"verdict": v, "baseline_verdict": b, "causes": list(c), "instances": n}
                          for (v, b, c), n in sorted(comparison.visible.items())],
        "shared": dict(sorted(comparison.shared.items())),
        "fixed": dict(sorted(comparison.fixed.items())),
        "fixed_causes": [{"verdict": b, "causes": list(c), "instances": n} for (b, c), n in sorted(comparison.fixed_causes.items())],
        "quality": quality_json(comparison),
        "selection_changes": {
            "both_valid": comparison.both_valid,
            "changed": comparison.selection_changes,
            "example": None if example is None else {
                "instance": instance_json(instance_id(example.instance), example.instance),
                "saved": list(example.saved),
                "value": example.value,
                "baseline_saved": list(example.baseline_saved),
                "baseline_value": example.baseline_value,
            },
        },
    }


def quality_json(comparison: Comparison) -> dict:
    quality = comparison.quality
    worst = quality.worst
    return {
        "compared": quality.compared,
        "less": quality.less,
        "more": quality.more,
        "median_loss": quality.median if quality.less else None,
        "worst": None if worst is None else {
            "loss": worst.loss,
            "instance": instance_json(instance_id(worst.instance), worst.instance),
            "value": worst.value,
            "baseline_value": worst.baseline_value,
        },
    }


def still_there(result: CheckResult, target: str) -> tuple[str, ...]:
    """The baseline's known defects whose code is still in the target's source (their repairs apply)."""
    intervention = result.interventions.get(target)
    return () if intervention is None else intervention.applied


def fixes_json(result: CheckResult) -> list[dict]:
    """What each target fixes: the baseline's failures it passes, by verdict and the defects behind
    them (``by_chance`` where those defects' code is still in its source)."""
    return [
        {"candidate": target, "baseline": comparison.baseline, **fixed,
         "by_chance": bool(fixed["causes"]) and set(fixed["causes"]) <= set(still_there(result, target))}
        for target, comparison in result.comparisons.items()
        for fixed in comparison_json(comparison)["fixed_causes"]
    ]


def solver_json(result: CheckResult, entry: SolverEntry) -> dict:
    return {
        "name": entry.name,
        "display_name": shown(entry.name),
        "role": role(result, entry.name),
        "exact": entry.exact,
        "promise": "exact" if entry.exact else "heuristic",
        "promise_basis": promise_basis(entry),
        "counterpart": result.counterparts.get(entry.name),
        "origin": entry.origin,
        "isolated": entry.isolate,
        "called_twice": result.repeated[entry.name],
        "verdicts": dict(result.counts[entry.name]),
    }


def sources_json(result: CheckResult) -> list[dict]:
    return [{"name": s.name, "kind": s.kind, "instances": s.instances, "digest": s.digest} for s in result.sources]


def render_json(result: CheckResult) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "instances": result.instances,
        "sources": sources_json(result),
        "solvers": [solver_json(result, e) for e in result.solvers],
        "comparisons": {target: comparison_json(c) for target, c in result.comparisons.items()},
        "failures": [failure_json(f, s, result.known.get(f.differential_signature)) for f, s in ordered_findings(result)],
        "repairs": {target: intervention_json(i) for target, i in result.interventions.items()},
        "oracle_findings": [oracle_finding_json(f) for f in result.oracle_findings],
        "real_budget": real_budget.to_json(result.overshoots),
    }
