"""Judging the answers torch logged for a training run's knapsacks, and what two of ours give instead.

torch's answer (the saved and recomputed items and the value its solver reported) is judged as any
solver's is (``knapcheck.oracles.verdict.judge``) against the exact optimum under upstream's
rounding, so it gets the verdict ``knapcheck check --targets torch:dp_knapsack`` would give torch's
solver on that instance. Beside it: ``expanding_core`` (exact under upstream's rounding, any size)
and ``budget_safe`` (exact under the rounding that keeps the saved real memory within max_memory),
each checked as ``check`` checks it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, cast

from ...oracles.optimum import optimum
from ...oracles.result import OracleResult
from ...oracles.verdict import Judgement, Verdict, judge, real_memory_slack
from ...solvers.contract import Instance
from ...solvers.contract.answer import Answer as SolverAnswer
from ...solvers.contract.outcome import RETURNED, Outcome
from ...solvers.registry import resolve_one
from ..corpus.harvest_records import Harvested, TraceOrigin
from ..judging.verdicts.differential import check
from ..judging.verdicts.overshoot import relative_overshoot
from .logged_knapsacks import TraceHarvest

COMPARED = ("expanding_core", "budget_safe")
FAMILY = "trace"


@dataclass(frozen=True)
class Answer:
    """One answer on one knapsack: its verdict, what it saves, how far it goes over the real budget."""

    judgement: Judgement
    value: float | None
    """The saved items' total runtime; None when the answer is no valid partition."""
    overshoot: float | None
    """The saved real memory over max_memory, relative to it (``relative_overshoot``); None as ``value``."""

    @property
    def verdict(self) -> Verdict:
        return self.judgement.verdict


def _answer(instance: Instance, judgement: Judgement, saved: Iterable[int]) -> Answer:
    if judgement.memory_slack is None:
        return Answer(judgement, None, None)
    chosen = [int(i) for i in saved]
    value = math.fsum(instance.runtimes[i] for i in chosen)
    return Answer(judgement, value, relative_overshoot(real_memory_slack(instance, chosen), instance.max_memory))


@dataclass(frozen=True)
class JudgedKnapsack:
    record: Harvested
    oracle: OracleResult
    """The optimum under upstream's rounding."""
    torch: Answer
    """torch's logged answer."""
    compared: dict[str, Answer]
    """``COMPARED``'s answers, by solver name."""

    @property
    def optimum(self) -> float:
        return float(self.oracle.value)

    @property
    def gap(self) -> float:
        """The runtime torch's answer left on the table: the optimum's value minus its (0 unless SUBOPTIMAL)."""
        if self.torch.verdict is not Verdict.SUBOPTIMAL:
            return 0.0
        return self.torch.judgement.gap or 0.0

    def shortfall(self, solver: str) -> float:
        """How much less runtime ``solver``'s answer saves than upstream's optimum, relative to it (>= 0)."""
        value = self.compared[solver].value
        if value is None or self.optimum <= 0:
            return 0.0
        return max(0.0, (self.optimum - value) / self.optimum)


def judge_logged(record: Harvested, oracle: OracleResult) -> Answer:
    """torch's logged answer on ``record``, judged against ``oracle`` (upstream's rounding)."""
    origin = record.trace
    if origin is None:
        raise ValueError(f"{record.name} was not read from a trace: it holds no logged answer")
    answer = (origin.expected_runtime, list(origin.saved), list(origin.recomputed))
    judgement = judge(record.instance, Outcome(RETURNED, answer=answer), oracle)
    return _answer(record.instance, judgement, origin.saved)


def judge_knapsack(record: Harvested) -> JudgedKnapsack:
    oracle = optimum(record.instance)
    compared = {}
    for name in COMPARED:
        done = check(resolve_one(name), record.instance, FAMILY, oracle)
        # A check run here holds an Answer (``call_in_process``); a memory slack means its selection was read.
        saved = cast(SolverAnswer, done.outcome.answer)[1] if done.judgement.memory_slack is not None else ()
        compared[name] = _answer(record.instance, done.judgement, saved)
    return JudgedKnapsack(record, oracle, judge_logged(record, oracle), compared)


@dataclass(frozen=True)
class TraceVerdicts:
    """One log's knapsacks, each judged."""

    harvest: TraceHarvest
    knapsacks: list[JudgedKnapsack]

    @property
    def compiles(self) -> list[str]:
        # Each record was read from the log (``TraceHarvest``), so it has its trace.
        return list(dict.fromkeys(cast(TraceOrigin, k.record.trace).compile_id for k in self.knapsacks))

    def count(self, verdict: Verdict, solver: str | None = None) -> int:
        return sum(1 for k in self.knapsacks if (k.torch if solver is None else k.compared[solver]).verdict is verdict)

    def worst(self, measure: Callable[[JudgedKnapsack], float | None]) -> tuple[float, JudgedKnapsack | None]:
        """The largest positive ``measure`` over the knapsacks, with its knapsack; (0.0, None) if none is positive."""
        best: tuple[float, JudgedKnapsack | None] = (0.0, None)
        for knapsack in self.knapsacks:
            value = measure(knapsack)
            if value is not None and value > best[0]:
                best = (value, knapsack)
        return best

    @property
    def failed(self) -> list[JudgedKnapsack]:
        """The knapsacks on which torch's answer fails the contract (anything but OPTIMAL and UNVERIFIED)."""
        return [k for k in self.knapsacks if k.torch.judgement.failed(exact=True)]


def judge_trace(harvest: TraceHarvest) -> TraceVerdicts:
    return TraceVerdicts(harvest, [judge_knapsack(record) for record in harvest.records])
