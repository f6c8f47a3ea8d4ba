"""A check, and a tally of overshoots, as plain data: what crosses from a campaign's workers to the
campaign process.

Only JSON values travel (numbers, strings, lists, objects): nothing a worker sends is unpickled or
run by the campaign. Reading it back checks every field against a schema and rebuilds the objects
from the campaign's own solver entries, so an event can name only a solver the campaign targets.
Floats that JSON cannot hold (a NaN or an infinite value a target returned, an infinite overshoot)
travel as the strings ``"nan"``, ``"inf"`` and ``"-inf"``; exact rationals (the oracle's values) as
``"NUMERATOR/DENOMINATOR"``.

A target's answer travels as itself when it has the contract's shape (a number and two lists of
ints), and as its ``repr`` (cut short) otherwise: it was judged in the worker already; the campaign
only shows it.

A differential check (one judged against its counterpart baseline on the same instance) travels
with the baseline's name and the baseline's own check (``null`` when the baseline was not run on
that size), so the campaign stores it under its differential signature and its shrinking keeps
the relation.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction
from typing import Any, cast

from ...oracles.result import OracleResult
from ...oracles.verdict import Judgement, Verdict
from ...solvers.contract import Instance
from ...solvers.contract.answer import Answer
from ...solvers.contract.outcome import Outcome, Returned
from ...solvers.entry import SolverEntry
from ..corpus.schema import (
    INSTANCE,
    SchemaError,
    boolean,
    list_of,
    natural,
    number,
    obj,
    one_of,
    optional,
    string,
    whole,
)
from .known.defects import CAUSES
from .verdicts.differential import Check, Repaired, with_baseline
from .verdicts.overshoot import Overshoots, OvershootSample

REPR_CHARACTERS = 2000
"""How much of an answer's repr travels."""
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_RATIONAL = re.compile(r"-?\d{1,5000}(/0*[1-9]\d{0,5000})?")


def real(value: object, where: str) -> None:
    """A float as ``real_to_plain`` writes it."""
    if value in _NON_FINITE and isinstance(value, str):
        return
    number(value, where)


def rational(value: object, where: str) -> None:
    if not isinstance(value, str) or not _RATIONAL.fullmatch(value):
        raise SchemaError(f"{where} is malformed: expected a rational written N/D")


def real_to_plain(value: float) -> float | str:
    if math.isfinite(value):
        return float(value)
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def real_from_plain(value: float | str) -> float:
    return _NON_FINITE[value] if isinstance(value, str) else float(value)


def _optional_real(value: float | None) -> float | str | None:
    return None if value is None else real_to_plain(value)


ANSWER = obj({}, {"value": optional(real), "saved": optional(list_of(whole)), "recomputable": optional(list_of(whole)),
                  "repr": string, "problem": string, "value_problem": string, "shown": string})
"""An answer: an ``Answer`` (``knapcheck.solvers.contract.answer``: a value and two index lists, each None when
unreadable, and why), the contract's (value, saved, recomputable), or the repr of anything else."""
_CHECK_FIELDS = {
    "solver": string,
    "family": string,
    "instance": INSTANCE,
    "outcome": obj({"kind": string, "error": string, "changed_input": string}, {"answer": optional(ANSWER)}),
    "oracle": obj({"name": string, "value": rational, "saved": list_of(natural), "proven": boolean, "slack": rational,
                   "reason": string, "rounding": string}),
    "judgement": obj(
        {"verdict": one_of(*(v.value for v in Verdict)), "detail": string, "oracle_disagreement": string},
        {"gap": optional(real), "excess": optional(whole), "memory_slack": optional(real)},
    ),
}
BASELINE_CHECK = obj(_CHECK_FIELDS)
_CAUSE = one_of(*CAUSES)
REPAIRED = obj({"repairs": list_of(_CAUSE), "verdict": one_of(*(v.value for v in Verdict)), "detail": string,
                "decided": boolean})
CHECK = obj(_CHECK_FIELDS, {"counterpart": string, "baseline": optional(BASELINE_CHECK), "causes": list_of(_CAUSE),
                            "repaired": optional(REPAIRED)})
"""A check; a differential one names its ``counterpart`` and carries its ``baseline`` check (or
null), the known defects of the baseline that explain its failure and what the candidate with them
repaired did on its instance (``knapcheck.fuzz.judging.known.by_cause``)."""


def _is_int(value: object) -> bool:
    return type(value) is int


def answer_to_plain(answer: object) -> dict | None:
    if answer is None:
        return None
    if isinstance(answer, Answer):
        return {"value": _optional_real(answer.value), "saved": answer.saved, "recomputable": answer.recomputable,
                "problem": answer.problem, "value_problem": answer.value_problem, "shown": answer.shown}
    try:
        if isinstance(answer, (tuple, list)) and len(answer) == 3:
            value, saved, recomputable = answer
            if type(value) in (int, float) and all(
                isinstance(part, list) and all(_is_int(i) for i in part) for part in (saved, recomputable)
            ):
                return {"value": real_to_plain(float(value)), "saved": list(saved), "recomputable": list(recomputable)}
    except Exception:
        pass
    try:
        text = repr(answer)
    except Exception as exc:
        text = f"<a {type(answer).__name__} whose repr raised {type(exc).__name__}>"
    return {"repr": text[:REPR_CHARACTERS]}


def answer_from_plain(data: dict | None) -> Returned | None:
    if data is None:
        return None
    if "repr" in data:
        return data["repr"]
    if "problem" in data:
        value = data.get("value")
        return Answer(None if value is None else real_from_plain(value), data.get("saved"), data.get("recomputable"),
                      data["problem"], data.get("value_problem", ""), data.get("shown", ""))
    if not {"value", "saved", "recomputable"} <= set(data) or None in (data["value"], data["saved"], data["recomputable"]):
        raise SchemaError("outcome.answer is malformed: expected value, saved and recomputable, or repr")
    return (real_from_plain(data["value"]), list(data["saved"]), list(data["recomputable"]))


def check_to_plain(done: Check) -> dict:
    plain = _plain(done)
    if done.counterpart is not None:
        plain["counterpart"] = done.counterpart.name
        plain["baseline"] = None if done.baseline is None else _plain(done.baseline)
        plain["causes"] = list(done.causes)
        repaired = done.repaired
        plain["repaired"] = None if repaired is None else {
            "repairs": list(repaired.repairs), "verdict": repaired.verdict.value, "detail": repaired.detail,
            "decided": repaired.decided}
    return plain


def _plain(done: Check) -> dict:
    outcome, oracle, judgement = done.outcome, done.oracle, done.judgement
    return {
        "solver": done.solver.name,
        "family": done.family,
        "instance": done.instance.as_dict(),
        "outcome": {"kind": outcome.kind, "answer": answer_to_plain(outcome.answer), "error": str(outcome.error),
                    "changed_input": str(outcome.changed_input)},
        "oracle": {"name": oracle.name, "value": str(Fraction(oracle.value)), "saved": [int(i) for i in oracle.saved],
                   "proven": bool(oracle.proven), "slack": str(Fraction(oracle.slack)), "reason": oracle.reason,
                   "rounding": oracle.rounding},
        "judgement": {"verdict": judgement.verdict.value, "detail": judgement.detail, "gap": _optional_real(judgement.gap),
                      "excess": judgement.excess, "memory_slack": _optional_real(judgement.memory_slack),
                      "oracle_disagreement": judgement.oracle_disagreement},
    }


def check_from_plain(data: object, entries: dict[str, SolverEntry], where: str = "check") -> Check:
    """A check that ``check_to_plain`` wrote, of a solver in ``entries`` (its counterpart and the
    baseline's check too); SchemaError (a ValueError) naming the field otherwise."""
    CHECK(data, where)
    checked = cast(dict[str, Any], data)  # CHECK is an object's schema
    done = _from_plain(checked, entries, where)
    if "counterpart" not in checked:
        return done
    counterpart = _entry(checked["counterpart"], entries, f"{where}.counterpart")
    plain_baseline = checked.get("baseline")
    baseline = None
    if plain_baseline is not None:
        baseline = _from_plain(plain_baseline, entries, f"{where}.baseline")
        if baseline.solver.name != counterpart.name or baseline.instance != done.instance:
            raise SchemaError(f"{where}.baseline is malformed: not the counterpart's check of the same instance")
    plain_repaired = checked.get("repaired")
    repaired = None if plain_repaired is None else Repaired(
        tuple(plain_repaired["repairs"]), Verdict(plain_repaired["verdict"]), plain_repaired["detail"], plain_repaired["decided"])
    return replace(with_baseline(done, counterpart, baseline), causes=tuple(checked.get("causes", ())), repaired=repaired)


def _entry(name: str, entries: dict[str, SolverEntry], where: str) -> SolverEntry:
    entry = entries.get(name)
    if entry is None:
        raise SchemaError(f"{where} is malformed: {name[:80]!r} is not a target of this campaign")
    return entry


def _from_plain(data: dict, entries: dict[str, SolverEntry], where: str) -> Check:
    entry = _entry(data["solver"], entries, f"{where}.solver")
    try:
        instance = Instance.from_dict(data["instance"])
    except ValueError as exc:
        raise SchemaError(f"{where}.instance is malformed: {exc}") from None
    plain_outcome, plain_oracle, plain_judgement = data["outcome"], data["oracle"], data["judgement"]
    outcome = Outcome(plain_outcome["kind"], answer_from_plain(plain_outcome.get("answer")), plain_outcome["error"],
                      plain_outcome["changed_input"])
    oracle = OracleResult(plain_oracle["name"], Fraction(plain_oracle["value"]), tuple(plain_oracle["saved"]),
                          plain_oracle["proven"], Fraction(plain_oracle["slack"]), plain_oracle["reason"], plain_oracle["rounding"])
    gap, slack = plain_judgement.get("gap"), plain_judgement.get("memory_slack")
    judgement = Judgement(
        Verdict(plain_judgement["verdict"]), plain_judgement["detail"], None if gap is None else real_from_plain(gap),
        plain_judgement.get("excess"), None if slack is None else real_from_plain(slack), plain_judgement["oracle_disagreement"],
    )
    return Check(entry, data["family"], instance, outcome, oracle, judgement)


SAMPLE = obj({"solver": string, "family": string, "within": natural, "over": list_of(real), "worst": real},
             {"worst_instance": optional(INSTANCE)})
OVERSHOOTS = list_of(SAMPLE)


def overshoots_to_plain(overshoots: Overshoots) -> list[dict]:
    return [
        {"solver": solver, "family": family, "within": sample.within, "over": [real_to_plain(x) for x in sample.over],
         "worst": real_to_plain(sample.worst),
         "worst_instance": None if sample.worst_instance is None else sample.worst_instance.as_dict()}
        for (solver, family), sample in overshoots.samples.items()
    ]


def overshoots_from_plain(data: object, entries: dict[str, SolverEntry], where: str = "overshoots") -> Overshoots:
    OVERSHOOTS(data, where)
    found = Overshoots()
    for index, plain in enumerate(cast(list[Any], data)):  # OVERSHOOTS is a list's schema
        if plain["solver"] not in entries:
            raise SchemaError(f"{where}[{index}].solver is malformed: not a target of this campaign")
        sample = OvershootSample(within=plain["within"], worst=real_from_plain(plain["worst"]))
        sample.over.extend(real_from_plain(x) for x in plain["over"])
        if plain.get("worst_instance") is not None:
            try:
                sample.worst_instance = Instance.from_dict(plain["worst_instance"])
            except ValueError as exc:
                raise SchemaError(f"{where}[{index}].worst_instance is malformed: {exc}") from None
        found.samples[plain["solver"], plain["family"]] = sample
    return found
