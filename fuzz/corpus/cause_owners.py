"""Which of torch's solvers can have each known defect: what a corpus case's cause is checked against.

A corpus case that names a cause (``KnownFailure.cause``) makes that cause a known defect of its
solver, and of every copy of the solver's function judged against it
(``knapcheck.fuzz.judging.known.defects.catalogue``): its failures within the cause's reach are then
information, never a regression. A cause only some functions can have (HiGHS' MIP gap is
``ilp_knapsack``'s: no other function calls HiGHS) named for another (``torch:dp_knapsack``) would
give that solver the cause's reach, and a regression of it within that reach would pass. So a case
whose cause its solver's function cannot have is not trusted: the corpus loader quarantines it
(``knapcheck.fuzz.corpus.known_failures``). A cause this knapcheck does not know is left to the
catalogue, which takes none.
"""

from __future__ import annotations

from ...solvers import specs

OWNERS: dict[str, frozenset[str]] = {
    "float32": frozenset({"dp_knapsack", "dp_knapsack_sliding_hirschberg"}),
    "zero_weight_negative_runtime": frozenset({"dp_knapsack"}),
    "zero_memory_division": frozenset({"greedy_knapsack"}),
    "unquantized_memory": frozenset({"greedy_knapsack", "ilp_knapsack"}),
    "empty_problem": frozenset({"ilp_knapsack"}),
    "solution_read": frozenset({"ilp_knapsack"}),
    "objective_value": frozenset({"ilp_knapsack"}),
    "mip_gap": frozenset({"ilp_knapsack"}),
    "hirschberg_split": frozenset({"dp_knapsack_sliding_hirschberg"}),
}
"""Cause name (``knapcheck.fuzz.judging.known.defects.CAUSES``) -> the torch functions whose code has it."""


def function_of(solver: str) -> str:
    """The function a case's solver names (``torch:NAME``, ``FILE.py:NAME``, ``module:NAME``: NAME);
    '' for anything else (a registered name, ``torch``, not a spec)."""
    try:
        spec = specs.parse(solver)
    except ValueError:
        return ""
    return spec.name if spec.kind in ("torch", "file", "module") else ""


def untrusted(cause: str, solver: str) -> str:
    """Why a case of ``solver`` cannot have ``cause``, in a few words; '' when it can, or when the
    case names no cause (``''``) or one this knapcheck does not know."""
    owners = OWNERS.get(cause)
    if owners is None or function_of(solver) in owners:
        return ""
    return f"its cause {cause} is a defect of {' and '.join(sorted(owners))} only, not of {solver!r}"
