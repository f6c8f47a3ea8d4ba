"""The installed torch's knapsack solvers: each distinct defect the suite found, kept as a strict xfail.

A defect in upstream code must not turn our suite red, and the day upstream fixes one the strict
xfail turns into a failure that says so. Each reproduction is the minimal instance `knapcheck check`
shrank it to (see the README for the command).
"""

from dataclasses import dataclass

import pytest

from fuzz.check import run_check
from fuzz.differential import check
from solvers.contract import Instance
from solvers.registry import resolve, torch_entries


class StillDefective(AssertionError):
    """The known defect reproduces: the expected failure. Any other failure is a new one."""


@dataclass(frozen=True)
class KnownDefect:
    solver: str
    verdict: str
    instance: Instance
    why: str
    name: str

    @property
    def id(self) -> str:
        return f"{self.solver}-{self.verdict}-{self.name}"


KNOWN_DEFECTS = [
    KnownDefect(
        "torch:dp_knapsack",
        "SUBOPTIMAL",
        Instance((0.0,), (-1.0,), 0.0),
        "a zero-weight item is added to every capacity, even when its runtime is negative",
        "negative-zero-weight",
    ),
    KnownDefect(
        "torch:dp_knapsack",
        "SUBOPTIMAL",
        Instance((0.0,), (7e-141,), 0.0),
        "the float32 table flushes a tiny positive runtime to zero, so the backtrack drops the item",
        "float32-underflow",
    ),
    KnownDefect(
        "torch:dp_knapsack",
        "WRONG_VALUE",
        Instance((0.0,), (338531841.0,), 0.0),
        "the float32 table rounds the reported total of FLOP-scale runtimes",
        "float32-total",
    ),
    KnownDefect(
        "torch:dp_knapsack_sliding_hirschberg",
        "OVER_BUDGET",
        Instance((0.0001, 0.0004, 0.0003, 0.0003), (1.0, 1.0, 3.0, 3.0), 0.001),
        "the Hirschberg split hands the two halves capacity + 1 units between them",
        "split-capacity-plus-one",
    ),
    KnownDefect(
        "torch:dp_knapsack_sliding_hirschberg",
        "SUBOPTIMAL",
        Instance((0.0, 0.0, 0.001), (400000.0, 800000.0, 0.05), 0.1),
        "float32 profiles absorb a small runtime next to large ones, so the split misses it",
        "float32-absorption",
    ),
    KnownDefect(
        "torch:greedy_knapsack",
        "REJECTED",
        Instance((0.0,), (0.0,), 0.0),
        "ZeroDivisionError: the runtime/memory ratio of a zero-memory item",
        "zero-memory-ratio",
    ),
    KnownDefect(
        "torch:greedy_knapsack",
        "OVER_BUDGET",
        Instance((0.0028500000000028503, 0.0018500000000018502), (0.0, 0.0), 0.0047499999999996),
        "it compares unquantized memory with max_memory, so quantized weights can exceed the capacity",
        "unquantized-memory",
    ),
    KnownDefect(
        "torch:ilp_knapsack",
        "REJECTED",
        Instance((), (), 0.0),
        "scipy's milp refuses an empty problem",
        "empty-problem",
    ),
    KnownDefect(
        "torch:ilp_knapsack",
        "SUBOPTIMAL",
        Instance((5e-05,), (1.0,), 0.0),
        "the ILP constrains unquantized memory: an item that quantizes to 0 units is left out",
        "unquantized-zero-units",
    ),
    KnownDefect(
        "torch:ilp_knapsack",
        "OVER_BUDGET",
        Instance((0.0018500000000018502,), (1.0,), 0.00185),
        "unquantized memory and milp's feasibility tolerance admit an item over the quantized capacity",
        "milp-tolerance",
    ),
]


def _defects_of_installed_torch() -> list[KnownDefect]:
    names = {entry.name for entry in torch_entries()}
    return [d for d in KNOWN_DEFECTS if d.solver in names]


@pytest.mark.parametrize(
    "defect",
    [
        pytest.param(d, marks=pytest.mark.xfail(strict=True, raises=StillDefective, reason=d.why))
        for d in _defects_of_installed_torch()
    ],
    ids=lambda d: d.id,
)
def test_upstream_solver_is_correct_on_its_known_defect(defect):
    (entry,) = resolve(defect.solver)
    found = check(entry, defect.instance)
    if found.verdict.value == defect.verdict:
        raise StillDefective(f"{defect.solver}: {found.verdict} {found.judgement.detail}")
    assert not found.failed, f"{defect.solver} now fails differently: {found.verdict} {found.judgement.detail}"


@pytest.mark.parametrize("entry", torch_entries(), ids=lambda e: e.name)
def test_upstream_solver_answers_a_plain_instance_validly(entry):
    found = check(entry, Instance((0.3, 0.3, 0.4), (1.0, 1.0, 1.5), 0.6))
    assert not found.failed, f"{entry.name}: {found.verdict} {found.judgement.detail}"


def test_check_finds_every_known_defect_by_itself():
    entries = torch_entries()
    result = run_check(entries, per_family=40)
    found = {f.signature for f in result.findings}
    known = {(d.solver, d.verdict) for d in _defects_of_installed_torch()}
    assert known <= found, f"check no longer finds {sorted(known - found)}"
