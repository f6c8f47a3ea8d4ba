"""A baseline's known defects: what each one causes, and how far it reaches.

Each case of the known-failure corpus may name its ``cause``, one of CAUSES. The cases of a baseline's
solver (by name, or the same torch function: ``base/knapsack.py:dp_knapsack`` has
``torch:dp_knapsack``'s) make its catalogue: for each verdict, the defects that cause it
(``catalogue``). A defect says how far it reaches, in one of three ways:

- a trait of the instance: float32 arithmetic reaches the instances whose runtimes float32 cannot
  add exactly, unquantized memory those with memory off the quantization grid. Such a defect also
  gives the nearest instance outside its reach (``Cause.leave``: the runtimes rounded onto a
  float32-exact grid, the memory snapped to the grid, the zero-memory items dropped);
- a bound on the failure: HiGHS' MIP gap reaches a SUBOPTIMAL within its relative gap 1e-4 of the
  optimum, and no further;
- nothing beyond the instance: the Hirschberg split over-fills instances of any shape, so only the
  baseline's own verdict on the same instance tells it from a new defect.

A failure of a candidate that its baseline does not share on the same instance is *explained* by
the defects of the baseline that cause its verdict and whose trait or bound holds it
(``explaining``); knapcheck.fuzz.judging.verdicts.gate decides what that means for the gate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ....oracles.exact import set_value
from ....solvers.contract import SCALE, UNIT_ROUNDOFF, Instance
from ....solvers.contract.answer import Answer, plain_answer
from ...corpus.known_failures import KnownFailure
from ..verdicts.differential import Check
from . import traits
from .float32_exact import onto_float32_grid
from .known import same_solver
from .source_repair import (
    Repair,
    add_keyword,
    bind_at_start,
    guards_empty_input,
    insert_at_start,
    insert_before,
    insert_before_call,
    minuend_is_the_width,
    replace_expression,
    replace_keyword_values,
    replace_line,
)

MIP_REL_GAP = 1e-4
"""HiGHS' default ``mip_rel_gap`` (scipy's milp passes it on unless told otherwise)."""
MIP_ABS_GAP = 1e-6
"""HiGHS' default ``mip_abs_gap``."""
MIP_FEASIBILITY_TOLERANCE = 1e-6
"""HiGHS' default ``mip_feasibility_tolerance``: how far from 0 or 1 an integral variable may be."""


@dataclass(frozen=True)
class Cause:
    name: str
    """The name a corpus case gives as its ``cause``."""
    what: str
    """The defect, in a few words."""
    reach: str
    """How far it reaches, in a few words."""
    verdicts: frozenset[str]
    """The verdicts it can cause: a corpus case of another verdict naming it is not taken at its word."""
    trait: traits.Trait | None = None
    """The instances it reaches (a defect with a trait: ``knapcheck.fuzz.judging.known.traits``)."""
    leave: Callable[[Instance], Instance | None] | None = None
    """The nearest instance outside its reach; None where there is none."""
    bound: Callable[[Check], bool] | None = None
    """The failures it reaches (a defect with a bound on the verdict)."""
    repairs: Mapping[str, Repair] = field(default_factory=dict, compare=False)
    """By the name of the torch function that has it: the smallest edit of that function's source
    that removes it (``knapcheck.fuzz.judging.known.source_repair``)."""

    @property
    def everywhere(self) -> bool:
        """A defect that reaches instances of any shape: only the instance rule tells it from another."""
        return self.trait is None and self.bound is None

    def explains(self, failure: Check) -> bool:
        """Whether the failure is one this defect causes and within its reach (never for one that
        reaches everywhere)."""
        if failure.verdict.value not in self.verdicts:
            return False
        if self.trait is not None:
            return self.trait(failure.instance)
        return self.bound is not None and self.bound(failure)

    def may_cause(self, failure: Check) -> bool:
        """Whether this defect may be what made a solver that has it fail so (naming what a fix fixes)."""
        return (self.everywhere and failure.verdict.value in self.verdicts) or self.explains(failure)


def _without(instance: Instance, drop: Callable[[int], bool]) -> Instance:
    keep = [i for i in range(instance.n) if not drop(i)]
    return Instance(tuple(instance.memory[i] for i in keep), tuple(instance.runtimes[i] for i in keep), instance.max_memory)


def _snapped(value: float) -> float:
    """The grid point that ``value`` quantizes to (the same weight: Python's round, as upstream)."""
    return round(value * SCALE) / SCALE


def _float32_grid(instance: Instance) -> Instance | None:
    runtimes = onto_float32_grid(instance.runtimes)
    return None if runtimes is None else Instance(instance.memory, runtimes, instance.max_memory)


def _reported_and_saved(failure: Check) -> tuple[Fraction, Fraction] | None:
    """The reported total and the exact value of the saved items, when both can be read."""
    if not failure.outcome.returned:
        return None
    answer = failure.outcome.answer
    if not isinstance(answer, Answer):
        answer = plain_answer(answer, failure.instance.n)
    if answer.value is None or answer.saved is None:
        return None
    return Fraction(answer.value), set_value(failure.instance, answer.saved)


def _mip_gap(optimum: Fraction) -> Fraction:
    """How far below the optimum HiGHS may stop: its relative gap, or its absolute one."""
    return max(Fraction(MIP_REL_GAP) * abs(optimum), Fraction(MIP_ABS_GAP))


def _integrality_slack(instance: Instance) -> Fraction:
    """How far HiGHS' objective may be off a set's sum: each variable within 1e-6 of 0 or 1, and the
    objective summed in float64."""
    total = math.fsum(abs(r) for r in instance.runtimes)
    return Fraction(MIP_FEASIBILITY_TOLERANCE + instance.n * UNIT_ROUNDOFF * 2) * Fraction(total)


def _within_mip_gap(failure: Check) -> bool:
    read = _reported_and_saved(failure)
    return read is not None and failure.oracle.value - read[1] <= _mip_gap(failure.oracle.value)


def _solution_read(failure: Check) -> bool:
    """A saved set that leaves out what the reported value counts, the value itself optimal within the gap."""
    read = _reported_and_saved(failure)
    if read is None:
        return False
    reported, saved = read
    optimum = failure.oracle.value
    return reported > saved and reported >= optimum - _mip_gap(optimum) - _integrality_slack(failure.instance)


def _objective_value(failure: Check) -> bool:
    read = _reported_and_saved(failure)
    return read is not None and abs(read[0] - read[1]) <= _integrality_slack(failure.instance)


_FLOAT64 = Repair("the table or the profiles in float64: the dtype of the tensors it makes, no other float32",
                  (replace_keyword_values("dtype", "torch.float32", "torch.float64"),), "compute in float64, not float32")

FLOAT32 = Cause(
    "float32",
    "float32 arithmetic: the table or the profiles round, absorb or flush runtimes float32 cannot add exactly",
    "instances whose positive runtimes are not all multiples of one power of two 2**e (2**-126 <= 2**e <= 2**104)"
    " with a total below 2**24 * 2**e",
    frozenset({"SUBOPTIMAL", "WRONG_VALUE"}),
    trait=traits.BEYOND_FLOAT32,
    leave=_float32_grid,
    repairs={"dp_knapsack": _FLOAT64, "dp_knapsack_sliding_hirschberg": _FLOAT64},
)
ZERO_WEIGHT_NEGATIVE_RUNTIME = Cause(
    "zero_weight_negative_runtime",
    "a zero-weight item is added to every capacity, even when its runtime is negative",
    "instances with an item of zero quantized weight and negative runtime",
    frozenset({"SUBOPTIMAL"}),
    trait=traits.ZERO_WEIGHT_NEGATIVE_RUNTIME,
    leave=lambda instance: _without(instance, traits.zero_weight_negative(instance).__getitem__),
    repairs={"dp_knapsack": Repair("a zero-weight item adds its runtime only where it is positive", (
        replace_line("dp[i, :] = dp[i - 1, :] + current_runtime",
                     "dp[i, :] = dp[i - 1, :] + current_runtime.clamp(min=0)"),
    ), "never save a zero-weight item of negative runtime")},
)
ZERO_MEMORY_DIVISION = Cause(
    "zero_memory_division",
    "the runtime/memory ratio divides by an item's zero memory",
    "instances with an item of memory 0",
    frozenset({"REJECTED"}),
    trait=traits.ZERO_MEMORY,
    leave=lambda instance: _without(instance, lambda i: instance.memory[i] == 0.0),
    repairs={"greedy_knapsack": Repair("an item of zero memory ranks first instead of being divided by", (
        replace_expression("runtimes[i] / memory[i]", 'runtimes[i] / memory[i] if memory[i] else float("inf")',
                           already='runtimes[i] / memory[i] if memory[i] else float("inf")'),
    ), "rank items of zero memory first instead of dividing by zero")},
)
_SCALE_BOUND = bind_at_start("S", ("# Scaling factor to convert floating point weights to integers", f"S = {SCALE}"))
"""The file's own scaling factor, ``S`` as torch's dp solvers name it, bound where a repair uses it."""

UNQUANTIZED_MEMORY = Cause(
    "unquantized_memory",
    "it compares unquantized memory with max_memory, not the quantized weights with the capacity",
    "instances with memory or max_memory off the quantization grid (not a whole number of 1/10000)",
    frozenset({"OVER_BUDGET", "SUBOPTIMAL"}),
    trait=traits.OFF_GRID,
    leave=lambda instance: Instance(tuple(map(_snapped, instance.memory)), instance.runtimes, _snapped(instance.max_memory)),
    repairs={
        "greedy_knapsack": Repair("the quantized weights are added up and compared with the quantized budget", (
            _SCALE_BOUND,
            replace_expression("total_memory + memory[i] <= max_memory",
                               "total_memory + round(memory[i] * S) <= round(max_memory * S)"),
            replace_line("total_memory += memory[i]", "total_memory += round(memory[i] * S)"),
        ), "compare the quantized memory with the quantized budget"),
        "ilp_knapsack": Repair(
            "the constraint holds the quantized weights and budget, an item heavier than the budget at one unit"
            " more than it, all divided by a power of two (exact) that keeps them under 10**15, the largest"
            " coefficient HiGHS takes", (
            replace_line("np_memory = np.array(memory)", "\n".join((
                "# Quantized as dp_knapsack does: an item heavier than the budget weighs one unit",
                "# more than it, all in a unit that keeps the weights below HiGHS' largest, 1e15",
                f"S = {SCALE}",
                "quantized_max_memory = round(max_memory * S)",
                "unit = 2.0 ** max(0, int(np.ceil(np.log2((quantized_max_memory + 1) / 1e15))))",
                "np_memory = np.array([min(round(m * S), quantized_max_memory + 1) for m in memory]) / unit",
            ))),
            replace_expression("np.array(max_memory)", "np.array(quantized_max_memory / unit)",
                               already="quantized_max_memory / unit"),
        ), "constrain the quantized weights, as dp_knapsack does"),
    },
)
EMPTY_PROBLEM = Cause(
    "empty_problem",
    "scipy's milp refuses a problem without items",
    "the instance without items",
    frozenset({"REJECTED"}),
    trait=traits.EMPTY,
    repairs={"ilp_knapsack": Repair("a problem without items is answered first, before milp could be asked", (
        insert_at_start(("if len(memory) == 0:", "    return 0.0, [], []"), already=guards_empty_input),
    ), "answer a problem without items before calling milp")},
)
HIRSCHBERG_SPLIT = Cause(
    "hirschberg_split",
    "the Hirschberg split hands the two halves capacity + 1 units between them",
    "instances of every shape: only the baseline's verdict on the same instance tells it from a new defect",
    frozenset({"OVER_BUDGET"}),
    repairs={"dp_knapsack_sliding_hirschberg": Repair(
        "the right half gets the capacity the left half leaves, not one unit more (the profiles have capacity + 1 cells)",
        (replace_line("right_capacity = capacity - best_split", "right_capacity = (capacity - 1) - best_split",
                      holds=minuend_is_the_width),),
        "give the right half only the capacity the left half leaves",
    )},
)
SOLUTION_READ = Cause(
    "solution_read",
    "res.x is read as exactly 0 or 1, but HiGHS takes x within 1e-6 of them as integral: compared with == 1,"
    " an item HiGHS chose at 0.9999999 is left out of saved; rounded, an item of 10**6 units at 0.999999"
    " over-fills the budget by a unit",
    "a SUBOPTIMAL whose reported value counts more than the saved items and is optimal within HiGHS' MIP gap",
    frozenset({"SUBOPTIMAL", "OVER_BUDGET"}),
    bound=_solution_read,
    repairs={"ilp_knapsack": Repair(
        "milp's answer is rounded to 0 and 1, unless the rounded selection breaks the constraint (HiGHS' tolerance"
        " lets an item of 10**6 units sit at 0.999999: rounded, it over-fills by a unit), where x is read as before", (
        insert_before_call("enumerate", (
            "# HiGHS takes x within 1e-6 of 0 or 1 as integral: round it, unless the rounded",
            "# selection breaks the constraint by that tolerance",
            "solution = np.round(res.x)",
            "if np_memory @ solution > memory_constraint.ub:",
            "    solution = res.x",
        )),
        replace_expression("enumerate(res.x)", "enumerate(solution)", already="enumerate(solution)"),
    ), "round milp's solution before reading it")},
)
OBJECTIVE_VALUE = Cause(
    "objective_value",
    "the reported value is HiGHS' objective (-res.fun), not the saved runtimes' sum",
    "a WRONG_VALUE off the saved items' sum by at most HiGHS' integrality tolerance (1e-6) times the runtimes' total",
    frozenset({"WRONG_VALUE"}),
    bound=_objective_value,
    repairs={"ilp_knapsack": Repair("the reported value is the saved runtimes' sum", (
        replace_expression("-res.fun", "float(sum(runtimes[i] for i in items_to_save))",
                           already="sum(runtimes[i] for i in items_to_save)"),
    ), "report the saved runtimes' sum, not HiGHS' objective")},
)
MIP_GAP = Cause(
    "mip_gap",
    "milp stops at HiGHS' default MIP gap (1e-4 relative, 1e-6 absolute)",
    "a SUBOPTIMAL within HiGHS' gap of the optimum (1e-4 of it, or 1e-6)",
    frozenset({"SUBOPTIMAL"}),
    bound=_within_mip_gap,
    repairs={"ilp_knapsack": Repair(
        "milp is asked for no relative gap (the one gap scipy's milp takes), and the objective is scaled until its"
        " smallest runtime is 1 (its largest at most 1e12): above HiGHS' absolute gap and tolerances, below the"
        " 1e20 HiGHS takes for an infinite cost; its optimum is scaled back", (
            replace_line("c = -np_runtimes", "\n".join((
                "# HiGHS stops within 1e-6 of the optimum: the objective is scaled so that its",
                "# smallest runtime is at least 1, its largest at most 1e12 (below HiGHS' 1e20)",
                "magnitudes = np.abs(np_runtimes[np_runtimes != 0])",
                "scale = max(magnitudes.min(initial=1.0), magnitudes.max(initial=0.0) * 1e-12)",
                "c = -np_runtimes / scale",
            ))),
            add_keyword("milp", 'options={"mip_rel_gap": 0}'),
            insert_before("items_to_save = []", ("res.fun *= scale  # the objective in runtimes again",)),
        ), "solve to a zero MIP gap")},
)

CAUSES = {
    cause.name: cause
    for cause in (
        FLOAT32, ZERO_WEIGHT_NEGATIVE_RUNTIME, ZERO_MEMORY_DIVISION, UNQUANTIZED_MEMORY, EMPTY_PROBLEM,
        HIRSCHBERG_SPLIT, SOLUTION_READ, OBJECTIVE_VALUE, MIP_GAP,
    )
}

Catalogue = dict[str, tuple[Cause, ...]]
"""Verdict -> the defects that cause it, of one solver."""


def catalogue(solver: str, cases: Iterable[KnownFailure]) -> Catalogue:
    """The known defects of ``solver``: the causes its corpus cases name, by verdict (a cause this
    knapcheck does not know, or one that cannot cause the case's verdict, is left out)."""
    found: dict[str, dict[str, Cause]] = {}
    for case in cases:
        cause = CAUSES.get(case.cause)
        if cause is not None and case.verdict in cause.verdicts and same_solver(solver, case.solver):
            found.setdefault(case.verdict, {})[cause.name] = cause
    return {verdict: tuple(causes.values()) for verdict, causes in found.items()}


def explaining(failure: Check, defects: Catalogue) -> tuple[str, ...]:
    """The defects of the catalogue that cause the failure's verdict and whose reach holds it."""
    return tuple(c.name for c in defects.get(failure.verdict.value, ()) if c.explains(failure))


def possible_causes(failure: Check, defects: Catalogue) -> tuple[str, ...]:
    """The defects of a solver's own catalogue that may have made it fail so."""
    return tuple(c.name for c in defects.get(failure.verdict.value, ()) if c.may_cause(failure))


def with_causes(done: Check, causes: tuple[str, ...]) -> Check:
    return done if done.causes == causes else replace(done, causes=causes)


def leaving(instance: Instance, causes: Iterable[Cause]) -> Instance | None:
    """The instance taken out of the reach of every defect that has a trait (snapping memory to the
    grid may make an item's memory 0, so the defects are left again until none reaches it); None
    when one of them gives no way out."""
    with_trait = [(c, c.trait) for c in causes if c.trait is not None]
    for _ in range(len(with_trait) + 1):
        reaching = [c for c, trait in with_trait if trait(instance)]
        if not reaching:
            return instance
        for cause in reaching:
            left = cause.leave(instance) if cause.leave is not None else None
            if left is None:
                return None
            instance = left
    return None


def describe(names: Iterable[str]) -> str:
    """The defects by what they are (a name this knapcheck does not know, as it is)."""
    return "; ".join(CAUSES[n].what if n in CAUSES else n for n in names)
