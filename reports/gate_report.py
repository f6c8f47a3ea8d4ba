"""What `knapcheck report` renders (the run, the benchmark, the rule asked for), and its verdict in a few words.

report.md, report.html and the job summary open with the same verdict line (``verdict``): the gate's
outcome, the rule by its short name, and what decided, with no cause's text and no instance; the
rule's full statement and everything else are further down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from ..fuzz.judging.verdicts.comparison import QualityLoss
from ..fuzz.judging.verdicts.differential import Check
from ..fuzz.judging.verdicts.gate import CANDIDATE, DIFFERENTIAL_RULE, NO_BASELINE_RULE, STRICT_RULE, Decision
from ..fuzz.runs.candidate_run import CandidateRun
from ..solvers.specs import shown
from .check_report import fixes, percent, still_there
from .performance_report import Performance, gate_sentence
from .words import counted

RULE_NAMES = {
    DIFFERENTIAL_RULE: "the differential rule (the default)",
    STRICT_RULE: "the strict rule (--strict)",
    NO_BASELINE_RULE: "no baseline (every failure counts)",
}
"""Each rule by the words the verdict line gives it; its whole statement is under "How the gate decides"."""


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

    @property
    def counts_regressions(self) -> bool:
        """Whether the gate counts regressions (the differential rule), not every failure."""
        return self.gate.rule == DIFFERENTIAL_RULE


def _failing_functions(failing: list[Check]) -> str:
    names = list(dict.fromkeys(shown(f.solver.name) for f in failing))
    return names[0] if len(names) == 1 else f"{len(names)} functions"


def verdict(report: Report) -> tuple[str, str]:
    """The gate's outcome (shown in bold) and the rest of the line: the rule's short name, what
    decided in a few words, the exit status."""
    gate = report.gate
    result = report.run.result
    decided = []
    if gate.failing:
        what = "regression" if report.counts_regressions else "failure"
        decided.append(f"{counted(len(gate.failing), what)} in {_failing_functions(gate.failing)}.")
    else:
        fixed = sum(fixes(c, still_there(result, t)) for t, c in result.comparisons.items())
        candidate = report.run.findings(CANDIDATE)
        if fixed:
            decided.append(f"no regression; fixes {counted(fixed, 'failure')} of the baseline.")
        elif candidate:
            decided.append(f"no regression: the baseline shares, or a known defect of it explains, each of"
                           f" {counted(len(candidate), 'distinct failure')}.")
        else:
            decided.append("the candidate passed every check.")
    for target in gate.quality_failing:
        worst = cast(QualityLoss, result.comparisons[target].quality.worst)  # failing: it lost somewhere
        decided.append(f"{shown(target)} saves {percent(worst.loss)} less than its baseline at worst, past"
                       f" --max-quality-loss {report.max_quality_loss:g}.")
    if gate.oracle_findings:
        decided.append(f"The oracle was shown wrong {counted(gate.oracle_findings, 'time')}: no verdict can be trusted.")
    if gate_sentence(report.performance):
        decided.append(gate_sentence(report.performance))
    if report.stopped_by:
        decided.append(f"The run was {report.stopped_by} before it was done: what ran is below.")
    else:
        decided.append(f"Exit status {1 if report.gate_failed else 0}.")
    return f"Gate: {'FAILED' if report.gate_failed else 'passed'}", f" under {RULE_NAMES.get(gate.rule, gate.rule)}: {' '.join(decided)}"
