"""A test file in PyTorch's own style for torch's knapsack solvers, rendered from an export plan.

The file is meant for ``test/functorch/`` in an upstream pull request: it imports nothing of
knapcheck (no OR-Tools, no Hypothesis), only torch's ``knapsack`` module and
``torch.testing._internal.common_utils``. It holds one test per cause of the known-failure corpus,
parametrized over every torch solver, and one test per solver over every instance of each
enumerated family, judged against a brute force written in the file, or, for the problems at
scale it cannot solve (``scale_extremes``: 2 000 items), against the optima the plan carries. The plan
(``knapcheck.fuzz.runs.export_plan``) says which solvers fail which tests in the torch it was exported
against; those are ``unittest.expectedFailure``, so the file passes on that torch and a fixed
defect shows as an unexpected success.

Nothing read from a corpus reaches the source as it was read. Every name in the file is checked to
be an identifier (``identifier``), every number to be a finite int or float written by ``repr``
(``number``), the corpus's causes are reduced to words for test names and to printable ASCII for
comments (``comment_lines``); anything else is refused with a ValueError before a line is written.
"""

from __future__ import annotations

import math
import re
import textwrap
from typing import Sequence

from ..fuzz.runs.export_plan import (
    CaseData,
    CauseTest,
    EnumeratedTest,
    ExportPlan,
    file_tests,
    identifier,
    parametrized,
)

OWNER = 'module: functorch'
CLASS_NAME = "TestKnapsackSolvers"
LISTED = ("exhaustive_small", "large_capacity", "scale_extremes", "type_limits")
"""The enumerated families the file lists: the first two by their rules and a brute force,
scale_extremes by its rules with the optima the plan carries, type_limits written out with them."""
KINDS = ("raised", "mutated_input", "bad_partition", "over_budget", "beats_optimum", "suboptimal", "wrong_value")
"""What the file's ``failure`` function can find wrong, in the order it looks."""
def name_literal(text: object) -> str:
    """A validated identifier as a string literal (it holds no quote, backslash or newline)."""
    return repr(identifier(text))


def number(value: object) -> str:
    """A finite int or float as source; ValueError for anything else (bools, strings, NaN, infinities)."""
    if type(value) is int:
        return repr(value)
    if type(value) is float and math.isfinite(value):
        return repr(value)
    raise ValueError(f"{value!r} is not a finite int or float")


def numbers(values: Sequence[object]) -> str:
    """A list literal of validated numbers."""
    return "[" + ", ".join(number(v) for v in values) + "]"


def comment_lines(text: str, indent: str, width: int = 96) -> list[str]:
    """``text`` as comment lines: printable ASCII only (anything else becomes a space), wrapped."""
    printable = re.sub(r"[^\x20-\x7e]+", " ", text)
    return textwrap.wrap(printable, width=width, initial_indent=f"{indent}# ", subsequent_indent=f"{indent}# ") or []


_HEAD = '''\
# Owner(s): ["{owner}"]
"""Correctness tests for the knapsack solvers of activation checkpointing's memory budget.

{exported}

Every solver's answer must partition the items into saved and recomputable, fit the quantized
budget (the saved items' round(memory * SCALE) sum to at most round(max_memory * SCALE)), report
the saved runtimes' sum and, for the solvers that promise the optimum, be worth it. The optima of
the cases below were proven by knapcheck's exact oracles; the small instances are checked against
the brute force in this file. A defect the solvers had when the file was exported is an expected
failure of exactly the solvers that had it. A change that fixes it turns that test into an
unexpected success: unittest then lists it as such and ends "FAILED (unexpected successes=N)",
pytest reports it as failed ("Unexpected success"), with no test of another kind failing. That is
the fix showing: its mark goes, by exporting this file again against the fixed torch.
"""

import functools
import itertools
import math
import operator
import unittest

from torch._functorch._activation_checkpointing import knapsack
from torch.testing._internal.common_utils import (
    instantiate_parametrized_tests,
    parametrize,
    run_tests,
    subtest,
    TestCase,
)

SCALE = {scale}  # upstream's quantization: weight = round(memory * SCALE)
SOLVERS = {solvers}
HEURISTICS = {heuristics}  # promise a valid selection, not the optimum
TEST_COUNT = {test_count}  # the tests this file defines, each solver's counted apart


def solvers(*failing):
    """Every solver as a parametrization; those named fail the test in the torch it was exported against."""
    return [
        subtest(name, name=name, decorators=[unittest.expectedFailure] if name in failing else [])
        for name in SOLVERS
    ]


def quantize(memory, max_memory):
    return [round(m * SCALE) for m in memory], round(max_memory * SCALE)


def brute_force_optimum(memory, runtimes, max_memory):
    """The largest total runtime of a set of items that fits, found by trying every set."""
    weights, capacity = quantize(memory, max_memory)
    best = 0.0
    for chosen in itertools.product((False, True), repeat=len(memory)):
        if sum(w for w, c in zip(weights, chosen) if c) <= capacity:
            best = max(best, math.fsum(r for r, c in zip(runtimes, chosen) if c))
    return best


def failure(solver, memory, runtimes, max_memory, optimum, atol):
    """What is wrong with a solver's answer, as (kind, detail), or None. Values are compared within
    atol: 0 unless the runtimes are arbitrary floats, where it bounds float64's summation error."""
    given_memory, given_runtimes = list(memory), list(runtimes)
    try:
        value, saved, recomputable = getattr(knapsack, solver)(given_memory, given_runtimes, max_memory)
    except Exception as e:
        return "raised", f"raised {{type(e).__name__}}: {{e}}"
    if (given_memory, given_runtimes) != (list(memory), list(runtimes)):
        return "mutated_input", "changed the lists it was given"
    try:
        saved, recomputable = [operator.index(i) for i in saved], [operator.index(i) for i in recomputable]
    except TypeError as e:
        return "bad_partition", f"indices that are not integers: {{e}}"
    if sorted(saved + recomputable) != list(range(len(memory))):
        return "bad_partition", f"saved {{saved}} and recomputable {{recomputable}} do not partition the items"
    weights, capacity = quantize(memory, max_memory)
    weight = sum(weights[i] for i in saved)
    if weight > capacity:
        return "over_budget", f"saved weight {{weight}} > capacity {{capacity}} (saved {{sorted(saved)}})"
    total = math.fsum(runtimes[i] for i in saved)
    if total > optimum + atol:
        return "beats_optimum", f"saved {{sorted(saved)}} are worth {{total!r}}, above the optimum {{optimum!r}} of this file"
    if total < optimum - atol:
        if solver in HEURISTICS:
            return None
        return "suboptimal", f"saved {{sorted(saved)}} are worth {{total!r}} < optimum {{optimum!r}}"
    try:
        reported = float(value)
    except (TypeError, ValueError) as e:
        return "wrong_value", f"reported {{value!r}}, not a number: {{e}}"
    if not abs(reported - total) <= atol:
        return "wrong_value", f"reported {{reported!r}}, the saved runtimes sum to {{total!r}}"
    return None


def indices(ranges):
    """The instance indices of [first, last] ranges."""
    return [i for first, last in ranges for i in range(first, last + 1)]


@functools.lru_cache(maxsize=None)
def exhaustive_small():
    """Every instance of up to {small_max_items} items with weights in SMALL_WEIGHTS units, runtimes in
    SMALL_RUNTIMES and a capacity in SMALL_CAPACITIES, with the optimum: items beyond {ordered_up_to}
    come in one order (sorted), and of the capacities at or above the items' total weight W only W
    and W + 1 are kept."""
    kinds = list(itertools.product(SMALL_WEIGHTS, SMALL_RUNTIMES))
    found = []
    for n in range({small_max_items} + 1):
        for capacity in SMALL_CAPACITIES:
            if n <= {ordered_up_to}:
                item_lists = itertools.product(kinds, repeat=n)
            else:
                item_lists = itertools.combinations_with_replacement(kinds, n)
            for items in item_lists:
                if capacity <= sum(w for w, _ in items) + 1:
                    found.append(_with_optimum(items, capacity))
    return found


SMALL_WEIGHTS = {small_weights}
SMALL_RUNTIMES = {small_runtimes}
SMALL_CAPACITIES = {small_capacities}


@functools.lru_cache(maxsize=None)
def large_capacity():
    """One or two items, in every order, at capacities just past one and two blocks of 4096 units:
    a unit item, a block-sized one, one just over half the capacity and one of the capacity."""
    found = []
    for n in range(1, {large_max_items} + 1):
        for capacity in LARGE_CAPACITIES:
            weights = (1, 4096, capacity // 2 + 1, capacity)
            for items in itertools.product(itertools.product(weights, LARGE_RUNTIMES), repeat=n):
                found.append(_with_optimum(items, capacity))
    return found


LARGE_CAPACITIES = {large_capacities}
LARGE_RUNTIMES = {large_runtimes}


def _with_optimum(items, capacity):
    memory, runtimes, max_memory = [w / SCALE for w, _ in items], [r for _, r in items], capacity / SCALE
    return memory, runtimes, max_memory, brute_force_optimum(memory, runtimes, max_memory), 0.0
{extremes}

def describe(memory, runtimes, max_memory):
    return f"memory={{memory}}, runtimes={{runtimes}}, max_memory={{max_memory!r}}"


class {class_name}(TestCase):
    def assert_solves(self, solver, cases):
        """Each case is [memory, runtimes, max_memory, optimum, atol]."""
        wrong = []
        for memory, runtimes, max_memory, optimum, atol in cases:
            found = failure(solver, memory, runtimes, max_memory, optimum, atol)
            if found is not None:
                wrong.append(f"{{describe(memory, runtimes, max_memory)}}: {{found[1]}}")
        if wrong:
            self.fail(f"{{solver}} fails {{len(wrong)}} of {{len(cases)}} cases:\\n" + "\\n".join(wrong))

    def assert_solves_all(self, solver, instances, known):
        """Every instance solved, but those a known defect (kind -> index ranges) fails in its own way.
        Each instance is (memory, runtimes, max_memory, optimum, atol)."""
        expected = {{i: kind for kind, ranges in known.items() for i in indices(ranges)}}
        wrong = []
        for i, (memory, runtimes, max_memory, optimum, atol) in enumerate(instances):
            found = failure(solver, memory, runtimes, max_memory, optimum, atol)
            if found is not None and found[0] != expected.get(i):
                wrong.append(f"instance {{i}}, {{describe(memory, runtimes, max_memory)}}: {{found[1]}}")
        if wrong:
            self.fail(f"{{solver}} fails {{len(wrong)}} of {{len(instances)}} instances (the first 10):\\n"
                      + "\\n".join(wrong[:10]))

    def assert_fixed(self, solver, instances, ranges):
        """Every instance of a known defect solved."""
        still = [i for i in indices(ranges) if failure(solver, *instances[i]) is not None]
        if still:
            self.fail(f"{{solver}} still fails {{len(still)}} of {{len(indices(ranges))}} instances, e.g. instance"
                      f" {{still[0]}}: {{describe(*instances[still[0]][:3])}}")

    def test_corpus_optima_match_brute_force(self):
        # The optima written below, checked by this file's own brute force (no solver is called).
        for name, cases in CASES.items():
            for memory, runtimes, max_memory, optimum, _ in cases:
                if len(memory) <= 16:
                    self.assertEqual(brute_force_optimum(memory, runtimes, max_memory), optimum, msg=name)

    def test_every_test_is_defined(self):
        # Of two tests with one name only the last is run: the file must define each of its tests.
        names = unittest.TestLoader().getTestCaseNames(type(self))
        if len(names) != TEST_COUNT:
            self.fail(f"the file defines {{len(names)}} tests, not the {{TEST_COUNT}} it was exported with: {{names}}")
'''

_EXTREMES = '''\
@functools.lru_cache(maxsize=None)
def scale_extremes():
    \"\"\"Problems at the scale torch.compile hands the solvers, with the optima knapcheck's exact oracles
    proved (this file's brute force cannot solve 2 000 items): two items of the whole capacity (one
    fits) and two of half of it (both fit) at each of EXTREME_CAPACITIES, in both orders at the
    first; EXTREME_ITEM_COUNTS items of 1 to MANY_MAX_WEIGHT units with a tenth of their weight as
    capacity, with runtimes whose total float32 holds exactly or FLOP counts beside runtimes of 1 to
    8; twelve items with runtimes from 1e-12 to 1e15, or multiples of 2**-40 or 2**26 whose total
    float32 holds exactly.\"\"\"
    first, last = EXTREME_CAPACITIES
    found = [_pair_instance(items, first) for items in _pairs(first, both_orders=True)]
    found += [_pair_instance(items, last) for items in _pairs(last, both_orders=False)]
    found += [_many_items(n, float32_exact) for n in EXTREME_ITEM_COUNTS for float32_exact in (True, False)]
    found += [_runtime_span(unit) for unit in (None, TINY_UNIT, HUGE_UNIT)]
    return [(*instance, *optimum) for instance, optimum in zip(found, SCALE_EXTREMES_OPTIMA, strict=True)]


EXTREME_CAPACITIES = {capacities}
EXCLUSIVE_PAIRS = {exclusive_pairs}  # float32 tells each apart, float16 does not
ABSORBED_PAIR = {absorbed_pair}  # float32 absorbs the second next to the first
EXTREME_ITEM_COUNTS = {item_counts}
MANY_MAX_WEIGHT = {many_max_weight}
MANY_CAPACITY_SHARE = {many_capacity_share}
FLOAT32_EXACT_UNITS = {float32_exact_units}
BEYOND_FLOAT32_LOW = {beyond_float32_low}
SMALL_RUNTIME_HIGH = {small_runtime_high}
{span_runtimes}
SPAN_MAX_WEIGHT = {span_max_weight}
TINY_UNIT = {tiny_unit}
HUGE_UNIT = {huge_unit}


def minstd(seed):
    \"\"\"Park and Miller's minimal standard generator: a fixed sequence from the seed.\"\"\"
    x = seed
    while True:
        x = x * 48271 % (2**31 - 1)
        yield x


def _pair_instance(items, capacity):
    return [w / SCALE for w, _ in items], [r for _, r in items], capacity / SCALE


def _pairs(capacity, both_orders):
    half = capacity // 2
    pairs = [((capacity, a), (capacity, b)) for a, b in EXCLUSIVE_PAIRS]
    pairs.append(((half, ABSORBED_PAIR[0]), (half, ABSORBED_PAIR[1])))
    return [items for pair in pairs for items in ((pair, pair[::-1]) if both_orders else (pair,))]


def _many_items(n, float32_exact):
    numbers = minstd(n if float32_exact else n + 1)
    weights = [1 + next(numbers) % MANY_MAX_WEIGHT for _ in range(n)]
    if float32_exact:
        runtimes = [1.0 + next(numbers) % ((FLOAT32_EXACT_UNITS - 1) // n) for _ in range(n)]
    else:
        runtimes = [
            float(BEYOND_FLOAT32_LOW + next(numbers) if i % 2 else 1 + next(numbers) % SMALL_RUNTIME_HIGH)
            for i in range(n)
        ]
    return [w / SCALE for w in weights], runtimes, sum(weights) // MANY_CAPACITY_SHARE / SCALE


def _runtime_span(unit):
    n = len(SPAN_RUNTIMES)
    numbers = minstd(n)
    weights = [1 + next(numbers) % SPAN_MAX_WEIGHT for _ in range(n)]
    if unit is None:
        runtimes = list(SPAN_RUNTIMES)
    else:
        runtimes = [(1 + next(numbers) % ((FLOAT32_EXACT_UNITS - 1) // n)) * unit for _ in range(n)]
    return [w / SCALE for w in weights], runtimes, sum(weights) // 2 / SCALE


# scale_extremes' optima: [optimum, atol], atol bounding float64's summation error where the
# runtimes are not exact.
{optima}
'''


_LIMITS = '''\
def type_limits():
    """The smallest instance of each type and size limit knapcheck checks (weights past 2**15, 2**16,
    2**20, 2**24, 2**31, 2**32 and 2**53 units, runtimes at float16's and float32's limits, 2**8 + 1
    items), the item at the limit needed in the optimum: [memory, runtimes, max_memory, optimum, atol]."""
    return TYPE_LIMITS


TYPE_LIMITS = [
{cases}
]
'''


_TAIL = '''

instantiate_parametrized_tests({class_name})


if __name__ == "__main__":
    run_tests()
'''


def _marks(failing: dict[str, str], solvers: Sequence[str]) -> str:
    unknown = set(failing) - set(solvers)
    if unknown:
        raise ValueError(f"solvers {sorted(unknown)} are not among {list(solvers)}")
    return ", ".join(name_literal(name) for name in solvers if name in failing)


def _case(case: CaseData) -> list[str]:
    """A case as lines of CASES: on one line if it fits, else a list at a time."""
    scalars = f"{number(case.max_memory)}, {number(case.optimum)}, {number(case.atol)}"
    line = f"        [{numbers(case.memory)}, {numbers(case.runtimes)}, {scalars}],"
    if len(line) <= 100:
        return [line]
    return [
        "        [",
        *_packed("            [", [number(m) for m in case.memory], "],", " " * 16),
        *_packed("            [", [number(r) for r in case.runtimes], "],", " " * 16),
        f"            {scalars},",
        "        ],",
    ]


def _cause_test(cause: CauseTest, solvers: Sequence[str]) -> list[str]:
    name = identifier(cause.name)
    if not name.startswith("test_"):
        raise ValueError(f"test name {name!r} must start with test_")
    failures = "; ".join(f"{identifier(solver)}: {reason}" for solver, reason in cause.failing.items())
    return [
        "",
        *comment_lines(cause.description, "    "),
        *comment_lines(f"Expected to fail: {failures}." if failures else "No solver fails it.", "    "),
        f"    @parametrize(\"solver\", solvers({_marks(cause.failing, solvers)}))",
        f"    def {name}(self, solver):",
        f"        self.assert_solves(solver, CASES[{name_literal(name)}])",
    ]


def _ranges(indices: Sequence[int]) -> list[list[int]]:
    ranges: list[list[int]] = []
    for index in sorted(indices):
        if type(index) is not int or index < 0:
            raise ValueError(f"an instance index must be a non-negative int, got {index!r}")
        if ranges and index == ranges[-1][1] + 1:
            ranges[-1][1] = index
        else:
            ranges.append([index, index])
    return ranges


def _packed(opening: str, items: list[str], closing: str, indent: str, width: int = 100) -> list[str]:
    """``opening``, the items separated by commas, then ``closing``: lines of at most ``width``
    characters where the items allow, continued at ``indent``."""
    lines, line = [], opening
    for index, item in enumerate(items):
        piece = item + ("," if index < len(items) - 1 else "")
        if line != opening and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = indent + piece
        else:
            line += piece if line == opening else " " + piece
    lines.append(line + closing)
    return lines


def _known(test: EnumeratedTest, solvers: Sequence[str]) -> list[str]:
    family = identifier(test.family)
    lines = [f"{family.upper()}_KNOWN = {{"]
    for solver in solvers:
        kinds = test.known.get(solver, {})
        if not kinds:
            continue
        lines.append(f"    {name_literal(solver)}: {{")
        for kind in KINDS:
            if kinds.get(kind):
                lines += _packed(f"        {name_literal(kind)}: [", [numbers(r) for r in _ranges(kinds[kind])], "],",
                                 " " * 12)
        lines.append("    },")
    lines.append("}")
    unknown = {k for kinds in test.known.values() for k in kinds} - set(KINDS)
    if unknown or set(test.known) - set(solvers):
        raise ValueError(f"{family}: unknown kinds {sorted(unknown)} or solvers {sorted(set(test.known) - set(solvers))}")
    return lines


def _enumerated_tests(test: EnumeratedTest, solvers: Sequence[str]) -> list[str]:
    family = identifier(test.family)
    known = f"{family.upper()}_KNOWN"
    lines = [
        "",
        f"    # Every instance of {family}, on every solver, against the brute force: a failure other",
        "    # than the known ones below (by instance, and what is wrong with it) fails the test.",
        "    @parametrize(\"solver\", solvers())",
        f"    def test_{family}(self, solver):",
        f"        self.assert_solves_all(solver, {family}(), {known}.get(solver, {{}}))",
    ]
    if test.optima:
        lines += [
            "",
            f"    def test_{family}_optima_match_brute_force(self):",
            f"        # The optima written for {family}, checked by brute force where it can (no solver is called).",
            f"        for memory, runtimes, max_memory, optimum, _ in {family}():",
            "            if len(memory) <= 16:",
            "                self.assertEqual(brute_force_optimum(memory, runtimes, max_memory), optimum)",
        ]
    groups = _known_groups(test, solvers)
    if groups:
        entries = [
            line
            for solver, kind in groups
            for line in (
                "        subtest(",
                f"            ({name_literal(solver)}, {name_literal(kind)}),",
                f"            name={name_literal(f'{solver}_{kind}')},",
                "            decorators=[unittest.expectedFailure],",
                "        ),",
            )
        ]
        lines += [
            "",
            f"    # The {family} instances each solver failed when this file was exported, by what was",
            "    # wrong: expected failures until every instance of a group is solved.",
            "    @parametrize(\"solver, kind\", [",
            *entries,
            "    ])",
            f"    def test_{family}_known_defect(self, solver, kind):",
            f"        self.assert_fixed(solver, {family}(), {known}[solver][kind])",
        ]
    return lines


def _known_groups(test: EnumeratedTest, solvers: Sequence[str]) -> list[tuple[str, str]]:
    """The (solver, kind) groups of an enumerated family's known failures: a known-defect test each."""
    return [(solver, kind) for solver in solvers for kind in KINDS if test.known.get(solver, {}).get(kind)]


def test_count(plan: ExportPlan, solvers: Sequence[str]) -> int:
    """The tests the file defines once parametrized: each cause and enumerated family once per
    solver, each known group of a family once, the brute-force check of each family's written
    optima, and the two tests of the file itself."""
    per_solver = len(solvers) * (len(plan.causes) + len(plan.enumerated))
    per_family = sum(len(_known_groups(test, solvers)) + bool(test.optima) for test in plan.enumerated)
    return per_solver + per_family + 2


def render_test_file(plan: ExportPlan) -> str:
    """The test file of ``plan``; ValueError when anything in it is not a valid identifier or number."""
    solvers = [identifier(s) for s in plan.solvers]
    if not set(plan.heuristics) <= set(solvers):
        raise ValueError(f"heuristics {list(plan.heuristics)} are not among the solvers {solvers}")
    head = _HEAD.format(
        owner=OWNER,
        exported="\n".join(textwrap.wrap(
            f"Exported by `knapcheck export-tests` ({_one_line(plan.source)}) against {_one_line(plan.exported_against)}.",
            width=96)),
        scale=number(plan.scale),
        solvers="[" + ", ".join(name_literal(s) for s in solvers) + "]",
        heuristics="[" + ", ".join(name_literal(s) for s in plan.heuristics) + "]",
        class_name=identifier(CLASS_NAME),
        small_max_items=number(plan.small["max_items"]),
        ordered_up_to=number(plan.small["ordered_up_to"]),
        small_weights=numbers(plan.small["weights"]),
        small_runtimes=numbers(plan.small["runtimes"]),
        small_capacities=numbers(plan.small["capacities"]),
        large_max_items=number(plan.large["max_items"]),
        large_capacities=numbers(plan.large["capacities"]),
        large_runtimes=numbers(plan.large["runtimes"]),
        extremes=_extremes(plan) + _limits(plan),
        test_count=number(test_count(plan, solvers)),
    )
    taken = file_tests(solvers)
    for cause in plan.causes:
        names = parametrized(identifier(cause.name), solvers)
        if names & taken:
            raise ValueError(f"the test {cause.name} would share a name with another test of the file: {sorted(names & taken)}")
        taken |= names
    data = ["", "", "# The corpus's cases by cause: [memory, runtimes, max_memory, optimum, atol].", "CASES = {"]
    for cause in plan.causes:
        data.append(f"    {name_literal(cause.name)}: [")
        data += [line for case in cause.cases for line in _case(case)]
        data.append("    ],")
    data.append("}")
    for test in plan.enumerated:
        data += ["", *_known(test, solvers)]
    body: list[str] = []
    for cause in plan.causes:
        body += _cause_test(cause, solvers)
    for test in plan.enumerated:
        if test.family not in LISTED:
            raise ValueError(f"the file lists only {', '.join(LISTED)}, not {test.family!r}")
        body += _enumerated_tests(test, solvers)
    tail = _TAIL.format(class_name=identifier(CLASS_NAME))
    return head + "\n".join(body) + "\n" + "\n".join(data) + "\n" + tail


def _extremes(plan: ExportPlan) -> str:
    """scale_extremes' listing: the plan's constants, and the optima of its scale_extremes test;
    nothing when the plan does not list scale_extremes."""
    tests = [test for test in plan.enumerated if test.family == "scale_extremes"]
    if not tests:
        return ""
    (test,) = tests
    constants = plan.extremes
    optima = _packed("SCALE_EXTREMES_OPTIMA = [", [f"[{number(o)}, {number(atol)}]" for o, atol in test.optima], "]",
                     "    ")
    span = _packed("SPAN_RUNTIMES = [", [number(r) for r in constants["span_runtimes"]], "]", "    ")
    block = _EXTREMES.format(
        capacities=numbers(constants["capacities"]),
        exclusive_pairs="[" + ", ".join(numbers(pair) for pair in constants["exclusive_pairs"]) + "]",
        absorbed_pair=numbers(constants["absorbed_pair"]),
        item_counts=numbers(constants["item_counts"]),
        many_max_weight=number(constants["many_max_weight"]),
        many_capacity_share=number(constants["many_capacity_share"]),
        float32_exact_units=number(constants["float32_exact_units"]),
        beyond_float32_low=number(constants["beyond_float32_low"]),
        small_runtime_high=number(constants["small_runtime_high"]),
        span_runtimes="\n".join(span),
        span_max_weight=number(constants["span_max_weight"]),
        tiny_unit=number(constants["tiny_unit"]),
        huge_unit=number(constants["huge_unit"]),
        optima="\n".join(optima),
    )
    return "\n\n" + block.rstrip("\n") + "\n"


def _limits(plan: ExportPlan) -> str:
    """type_limits' instances with their optima, as the plan carries them; nothing when it does not list them."""
    tests = [test for test in plan.enumerated if test.family == "type_limits"]
    if not tests:
        return ""
    (test,) = tests
    if len(test.instances) != len(test.optima):
        raise ValueError(f"type_limits carries {len(test.instances)} instances and {len(test.optima)} optima")
    cases = [line for (memory, runtimes, max_memory), (optimum, atol) in zip(test.instances, test.optima)
             for line in _case(CaseData(memory, runtimes, max_memory, optimum, atol))]
    return "\n\n" + _LIMITS.format(cases="\n".join(line[4:] for line in cases)).rstrip("\n") + "\n"


def _one_line(text: str) -> str:
    """Text for the docstring: printable ASCII, no quotes or backslashes that could end it."""
    return re.sub(r"[^\x20-\x7e]|[\"'\\]", " ", text).strip()
