"""What `knapcheck export-tests` writes, decided by running the installed torch's solvers.

The corpus's upstream cases are grouped by cause (their ``why``; cases without one by solver and
verdict), and every torch solver is checked, by knapcheck's oracles and judge, on every case of a
cause and on every instance of the enumerated families. A cause fails for a solver when any of
its cases does; an enumerated instance is recorded with what was wrong (``KIND_OF``). That is
where the exported file marks expected failures, so it passes on the torch it was exported against.
The file finds the optima of the small enumerated families by brute force; those of
``scale_extremes`` (2 000 items) are the oracles', written into the plan (``EMBEDDED_OPTIMA``).

A corpus is data, never code: a case of another solver (ours, a file's) is left out, and an upstream
case whose solver is not ``torch:NAME`` with NAME a plain identifier is refused (ValueError).
"""

from __future__ import annotations

import importlib
import keyword
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence, TypedDict

from ...oracles.optimum import optimum
from ...oracles.verdict import Verdict
from ...solvers.contract import SCALE, Instance, float_tolerance
from ...solvers.contract.outcome import Outcome
from ...solvers.entry import SolverEntry
from ...solvers.isolation.running import run_many
from ...solvers.registry import torch_entries
from ..corpus.known_failures import KnownFailure
from ..instances import enumerated, limits, scale
from ..judging.judge import Judge
from ..judging.verdicts.differential import Check
from .chunk_calls import MAX_CHUNK

KIND_OF = {
    Verdict.REJECTED: "raised",
    Verdict.MUTATED_INPUT: "mutated_input",
    Verdict.BAD_PARTITION: "bad_partition",
    Verdict.OVER_BUDGET: "over_budget",
    Verdict.SUBOPTIMAL: "suboptimal",
    Verdict.WRONG_VALUE: "wrong_value",
}
"""A failing verdict as the exported file's ``failure`` names it. A crash, a time-out or a memory cap
cannot be an expected failure of a test file: an export that meets one is refused."""

ENUMERATED = {"exhaustive_small": enumerated.exhaustive_small, "large_capacity": enumerated.large_capacity,
              "scale_extremes": enumerated.scale_extremes, "type_limits": limits.smallest}
"""The lists the file holds: ``type_limits`` is the smallest instance of each limit of the boundary
families (``knapcheck.fuzz.instances.limits``), written into the file instance by instance."""
EMBEDDED_OPTIMA = frozenset({"scale_extremes", "type_limits"})
"""The enumerated families whose optima the file is given: its brute force cannot find them (or,
for type_limits, the file need not pay for it)."""
WRITTEN_OUT = frozenset({"type_limits"})
"""The lists whose instances the plan carries as they are, not by the constants that make them."""
NAME_WORDS = 5
"""Words of a cause that name its test."""
_UNNAMED_WORDS = frozenset(
    "a an the is are was were be been of to in on at by for with its it so and or as when even than that this"
    " from into which while their them between next there these those".split()
)


def identifier(text: object) -> str:
    """``text`` if it is a plain ASCII identifier that is not a keyword; ValueError otherwise."""
    if not isinstance(text, str) or not text.isascii() or not text.isidentifier() or keyword.iskeyword(text):
        raise ValueError(f"{text!r} is not a plain Python identifier")
    return text


def cause_words(cause: str) -> list[str]:
    """The words of a cause that may name a test: lowercase letters and digits, small words left out."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"'s\b", "", cause.lower()))
    return [word for word in words if word not in _UNNAMED_WORDS]


def file_tests(solvers: Sequence[str]) -> set[str]:
    """The names the exported file's own tests take, parametrized over ``solvers`` as they are."""
    names = {"test_corpus_optima_match_brute_force", "test_every_test_is_defined"}
    for family in ENUMERATED:
        names |= {f"test_{family}", f"test_{family}_known_defect", f"test_{family}_optima_match_brute_force"}
        names |= {f"test_{family}_{solver}" for solver in solvers}
        names |= {f"test_{family}_known_defect_{solver}_{kind}" for solver in solvers for kind in KIND_OF.values()}
    return names


def parametrized(name: str, solvers: Sequence[str]) -> set[str]:
    """A cause's test and the names it takes once parametrized over ``solvers`` (``test_x_dp_knapsack``, ...)."""
    return {name, *(f"{name}_{solver}" for solver in solvers)}


def test_names(causes: Sequence[Sequence[str]], solvers: Sequence[str] = ()) -> list[str]:
    """A ``test_...`` name for each cause, given as its words, such that once parametrized over
    ``solvers`` no two tests of the file share a name (of two, only the last would run), the file's
    own included (``file_tests``): the first NAME_WORDS words, more where that name is taken, a
    number where the words run out."""
    taken = file_tests(solvers) if solvers else set()
    names: list[str] = []
    for words in causes:
        words = list(words) or ["case"]
        count = min(NAME_WORDS, len(words))
        name = "test_" + "_".join(words[:count])
        while parametrized(name, solvers) & taken and count < len(words):
            count += 1
            name = "test_" + "_".join(words[:count])
        base, suffix = name, 2
        while parametrized(name, solvers) & taken:
            name, suffix = f"{base}_{suffix}", suffix + 1
        names.append(identifier(name))
        taken |= parametrized(name, solvers)
    return names


@dataclass(frozen=True)
class CaseData:
    """One instance of a cause, with the optimum knapcheck's oracles proved and the float tolerance."""

    memory: tuple[float, ...]
    runtimes: tuple[float, ...]
    max_memory: float
    optimum: float
    atol: float


@dataclass(frozen=True)
class CauseTest:
    name: str
    """The test's name, ``test_...`` (``test_names``)."""
    description: str
    """What the cause is, where it was found: written as a comment."""
    cases: tuple[CaseData, ...]
    failing: dict[str, str]
    """The torch solvers that fail it in the torch the file is exported against -> what is wrong
    (written as a comment)."""


@dataclass(frozen=True)
class EnumeratedTest:
    family: str
    """An enumerated family the file lists in full (one of ``ENUMERATED``)."""
    known: dict[str, dict[str, tuple[int, ...]]]
    """Solver -> kind (one of KINDS) -> the indices of the instances it fails that way."""
    optima: tuple[tuple[float, float], ...] = ()
    """For a family of ``EMBEDDED_OPTIMA``: each instance's (optimum, atol), in order; empty otherwise."""
    instances: tuple[tuple[tuple[float, ...], tuple[float, ...], float], ...] = ()
    """For a family of ``WRITTEN_OUT``: each instance's (memory, runtimes, max_memory), in order."""


class SmallConstants(TypedDict):
    """knapcheck.fuzz.instances.enumerated's constants for exhaustive_small."""

    max_items: int
    ordered_up_to: int
    weights: list[int]
    runtimes: list[float]
    capacities: list[int]


class LargeConstants(TypedDict):
    """knapcheck.fuzz.instances.enumerated's constants for large_capacity."""

    max_items: int
    capacities: list[int]
    runtimes: list[float]


class ExtremesConstants(TypedDict):
    """knapcheck.fuzz.instances.enumerated's and scale's constants for scale_extremes."""

    capacities: list[int]
    exclusive_pairs: list[list[float]]
    absorbed_pair: list[float]
    item_counts: list[int]
    many_max_weight: int
    many_capacity_share: int
    float32_exact_units: int
    beyond_float32_low: int
    small_runtime_high: int
    span_runtimes: list[float]
    span_max_weight: int
    tiny_unit: float
    huge_unit: float


@dataclass(frozen=True)
class ExportPlan:
    solvers: tuple[str, ...]
    """The torch solvers, in the order torch defines them."""
    heuristics: tuple[str, ...]
    """The solvers that promise only a valid selection."""
    causes: tuple[CauseTest, ...]
    enumerated: tuple[EnumeratedTest, ...]
    scale: int
    small: SmallConstants
    """knapcheck.fuzz.instances.enumerated's constants for exhaustive_small."""
    large: LargeConstants
    """knapcheck.fuzz.instances.enumerated's constants for large_capacity."""
    extremes: ExtremesConstants
    """knapcheck.fuzz.instances.enumerated's and scale's constants for scale_extremes."""
    exported_against: str
    """The torch (and scipy) the marks were decided on, e.g. ``torch 2.13.0+cpu, scipy 1.17.1``."""
    source: str
    """Where the cases came from, e.g. ``knapcheck 0.1.0, known_failures.json``."""


@dataclass(frozen=True)
class Selected:
    cases: list[KnownFailure]
    """The upstream cases: torch's solvers', not ours."""
    left_out: int
    """Cases of other solvers (ours, files, modules), not exported."""


def upstream_cases(cases: Sequence[KnownFailure]) -> Selected:
    """The cases of torch's solvers that are not ours; ValueError for one whose solver, claimed to be
    torch's, is not ``torch:NAME`` with an identifier for NAME."""
    kept = []
    for index, case in enumerate(cases):
        if case.ours or not isinstance(case.solver, str) or not case.solver.startswith("torch:"):
            continue
        try:
            identifier(case.solver.removeprefix("torch:"))
        except ValueError:
            raise ValueError(f"cases[{index}]: solver {case.solver!r} is not torch:NAME with a Python identifier"
                             " for NAME") from None
        kept.append(case)
    return Selected(kept, len(cases) - len(kept))


def _cause_key(case: KnownFailure) -> str:
    if case.why.strip():
        return " ".join(case.why.split()).lower()
    return f"{case.solver} {case.verdict}".lower()


def causes(cases: Sequence[KnownFailure], solvers: Sequence[str] = ()) -> list[tuple[str, list[KnownFailure]]]:
    """The cases grouped by cause, in the corpus's order, each group under its test's name (``test_names``)."""
    groups: dict[str, list[KnownFailure]] = {}
    for case in cases:
        groups.setdefault(_cause_key(case), []).append(case)
    words = [cause_words(key) for key in groups]
    return list(zip(test_names(words, solvers), groups.values()))


def _description(group: list[KnownFailure]) -> str:
    first = group[0]
    cause = first.why.strip() or "no cause recorded"
    found = sorted({f"{c.solver.removeprefix('torch:')} {c.verdict} in {c.origin}, family {c.family}" for c in group})
    return f"{cause} (found as {'; '.join(found)})"


class _Checks:
    """The torch solvers called side by side (each isolated in its own worker process), the oracle
    of each instance computed once, and judged (``knapcheck.fuzz.judging.judge``) on the oracle alone."""

    def __init__(self, entries: Sequence[SolverEntry], progress: Callable[[str], None]) -> None:
        self.entries = list(entries)
        self.progress = progress

    def checks(self, instances: Sequence[Instance], family: str, what: str) -> dict[str, list[Check]]:
        """Solver name -> its check on each instance, in order."""
        count = len(instances)
        self.progress(f"checking {len(self.entries)} solvers on {what}: {count} instance{'' if count == 1 else 's'}")
        oracles = [optimum(instance) for instance in instances]
        for instance, oracle in zip(instances, oracles):
            if not oracle.proven:
                raise ValueError(f"{what}: the oracle could not prove the optimum of {instance.as_dict()}: {oracle.reason}")
        with ThreadPoolExecutor(max_workers=len(self.entries)) as pool:
            futures = [pool.submit(self._outcomes, entry, instances) for entry in self.entries]
            outcomes = [future.result() for future in futures]
        judge = Judge()
        found: dict[str, list[Check]] = {entry.name: [] for entry in self.entries}
        for k, (instance, oracle) in enumerate(zip(instances, oracles)):
            decided = judge.outcomes(instance, family, oracle,
                                     [(entry, (of_entry[k], None, "")) for entry, of_entry in zip(self.entries, outcomes)])
            for name, done in decided.items():
                _refuse_unexpectable(done, what)
                found[name].append(done)
        return found

    @staticmethod
    def _outcomes(entry: SolverEntry, instances: Sequence[Instance]) -> list[Outcome]:
        """The solver's outcome on each instance: the instances go to its worker in chunks, each
        chunk ahead of its answers (``run_many``)."""
        return [outcome for start in range(0, len(instances), MAX_CHUNK)
                for outcome in run_many(entry, instances[start : start + MAX_CHUNK])]


def _refuse_unexpectable(done: Check, what: str) -> None:
    if done.oracle_disagreement:
        raise ValueError(f"{what}: the oracle is shown wrong on {done.instance.as_dict()}: {done.oracle_disagreement}")
    if done.failed and done.verdict not in KIND_OF:
        raise ValueError(
            f"{what}: {done.solver.name} ends in {done.verdict.value} on {done.instance.as_dict()}"
            f" ({done.judgement.detail}); a test file cannot expect that"
        )
    if done.verdict is Verdict.UNVERIFIED:
        raise ValueError(f"{what}: {done.solver.name}'s answer on {done.instance.as_dict()} cannot be judged:"
                         f" {done.judgement.detail}")


def function(entry: SolverEntry) -> str:
    return identifier(entry.spec.removeprefix("torch:"))


def exported_against() -> str:
    """The torch, and the scipy its ilp_knapsack runs on, that the marks are decided on."""
    versions = []
    for package in ("torch", "scipy"):
        try:
            versions.append(f"{package} {importlib.import_module(package).__version__}")
        except ImportError:
            versions.append(f"no {package}")
    return ", ".join(versions)


def build_plan(cases: Sequence[KnownFailure], source: str, progress: Callable[[str], None] = lambda m: None) -> ExportPlan:
    """The export plan of a corpus's upstream cases on the installed torch. ValueError for a case that
    cannot be exported (see ``upstream_cases``) or an outcome a test file cannot expect."""
    from ...solvers.isolation.worker import send_worker_output_to

    entries = torch_entries()
    torch_calls = _Checks(entries, progress)
    solvers = [function(entry) for entry in entries]
    with open(os.devnull, "w") as devnull:
        send_worker_output_to(devnull.fileno())
        try:
            cause_tests = [_cause_test(name, group, torch_calls) for name, group in causes(cases, solvers)]
            enumerated_tests = [_enumerated_test(family, torch_calls) for family in ENUMERATED]
        finally:
            send_worker_output_to(None)
    return ExportPlan(
        solvers=tuple(solvers),
        heuristics=tuple(function(entry) for entry in entries if not entry.exact),
        causes=tuple(cause_tests),
        enumerated=tuple(enumerated_tests),
        scale=SCALE,
        small={"max_items": enumerated.SMALL_MAX_ITEMS, "ordered_up_to": enumerated.ORDERED_UP_TO,
               "weights": list(enumerated.SMALL_WEIGHTS), "runtimes": list(enumerated.SMALL_RUNTIMES),
               "capacities": list(enumerated.SMALL_CAPACITIES)},
        large={"max_items": enumerated.LARGE_MAX_ITEMS, "capacities": list(enumerated.LARGE_CAPACITIES),
               "runtimes": list(enumerated.LARGE_RUNTIMES)},
        extremes=extremes_constants(),
        exported_against=exported_against(),
        source=source,
    )


def _cause_test(name: str, group: list[KnownFailure], torch_calls: _Checks) -> CauseTest:
    instances = [case.instance for case in group]
    checks = torch_calls.checks(instances, group[0].family, name)
    failing = {}
    for entry in torch_calls.entries:
        failed = [done for done in checks[entry.name] if done.failed]
        if failed:
            failing[function(entry)] = _reason(failed[0])
    proven = next(iter(checks.values()))
    data = []
    for instance, done in zip(instances, proven):
        weights, capacity = instance.quantized()
        data.append(CaseData(instance.memory, instance.runtimes, instance.max_memory, float(done.oracle.value),
                             float_tolerance(instance.runtimes, weights, capacity)))
    return CauseTest(name, _description(group), tuple(data), failing)


REASON_LENGTH = 70


def _reason(done: Check) -> str:
    """What is wrong, in a few words: the kind of failure and the start of the judge's detail."""
    detail = re.sub(r" at \S+:\d+$", "", done.judgement.detail)
    detail = detail if len(detail) <= REASON_LENGTH else detail[: REASON_LENGTH - 3] + "..."
    return f"{KIND_OF[done.verdict]} ({detail})"


def extremes_constants() -> ExtremesConstants:
    """What the file needs to list scale_extremes as ``knapcheck.fuzz.instances.enumerated`` does."""
    return {
        "capacities": list(enumerated.EXTREME_CAPACITIES),
        "exclusive_pairs": [list(pair) for pair in enumerated.EXCLUSIVE_PAIRS],
        "absorbed_pair": list(enumerated.ABSORBED_PAIR),
        "item_counts": list(enumerated.EXTREME_ITEM_COUNTS),
        "many_max_weight": scale.MANY_MAX_WEIGHT,
        "many_capacity_share": scale.MANY_CAPACITY_SHARE,
        "float32_exact_units": scale.FLOAT32_EXACT_UNITS,
        "beyond_float32_low": scale.BEYOND_FLOAT32_LOW,
        "small_runtime_high": scale.SMALL_RUNTIME_HIGH,
        "span_runtimes": list(enumerated.SPAN_RUNTIMES),
        "span_max_weight": enumerated.SPAN_MAX_WEIGHT,
        "tiny_unit": scale.TINY_UNIT,
        "huge_unit": scale.HUGE_UNIT,
    }


def _enumerated_test(family: str, torch_calls: _Checks) -> EnumeratedTest:
    instances = list(ENUMERATED[family]())
    checks = torch_calls.checks(instances, family, family)
    known: dict[str, dict[str, tuple[int, ...]]] = {}
    for entry in torch_calls.entries:
        kinds: dict[str, list[int]] = {}
        for index, done in enumerate(checks[entry.name]):
            if done.failed:
                kinds.setdefault(KIND_OF[done.verdict], []).append(index)
        if kinds:
            known[function(entry)] = {kind: tuple(indices) for kind, indices in kinds.items()}
    optima: list[tuple[float, float]] = []
    if family in EMBEDDED_OPTIMA:
        for instance, done in zip(instances, next(iter(checks.values()))):
            weights, capacity = instance.quantized()
            optima.append((float(done.oracle.value), float_tolerance(instance.runtimes, weights, capacity)))
    written = tuple((i.memory, i.runtimes, i.max_memory) for i in instances) if family in WRITTEN_OUT else ()
    return EnumeratedTest(family, known, tuple(optima), written)
