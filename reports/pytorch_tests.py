"""The regression corpus's upstream cases as a test file in PyTorch's own style.

The file imports nothing of knapcheck: it is meant for ``test/functorch/test_ac_knapsack.py`` in an
upstream pull request. Each test calls the torch solver its case was found in (through the
``knapsack`` module, so the file tests whatever that module holds) and asserts the contract: saved
and recomputable partition the items, the saved items fit the quantized budget, their runtimes sum
to the optimum knapcheck's oracles proved (written inline), and the reported value is that sum.
A heuristic's case (``greedy_knapsack``) asserts all but optimality. On exact instances every
comparison is exact; on the others within the derived float tolerance.
"""

from __future__ import annotations

import textwrap

from knapcheck.fuzz.regression_corpus import RegressionCase
from knapcheck.oracles.optimum import optimum
from knapcheck.solvers.contract import SCALE, float_tolerance
from knapcheck.solvers.registry import TORCH_HEURISTICS
from knapcheck.solvers.specs import TORCH_KNAPSACK_MODULE

CLASS_NAME = "TestKnapsackRegressions"

_HEAD = '''\
# Regression tests for torch's knapsack solvers, exported by `knapcheck export-tests`
# ({source}).
# Each case is an instance on which a torch solver failed, shrunk to a minimal one; the optimum
# written inline was proven by knapcheck's exact oracles.

import math

from {package} import {module}
from torch.testing._internal.common_utils import run_tests, TestCase

SCALE = {scale:_}  # upstream's quantization: weight = round(memory * SCALE)


class {class_name}(TestCase):
    def assert_valid(self, solve, memory, runtimes, max_memory, atol):
        """saved and recomputable partition the items, the saved ones fit, value is their sum."""
        value, saved, recomputable = solve(memory, runtimes, max_memory)
        self.assertEqual(sorted(list(saved) + list(recomputable)), list(range(len(memory))))
        weight = sum(round(memory[i] * SCALE) for i in saved)
        self.assertLessEqual(weight, round(max_memory * SCALE))
        total = math.fsum(runtimes[i] for i in saved)
        self.assertEqual(float(value), total, atol=atol, rtol=0)
        return total

    def assert_optimal(self, solve, memory, runtimes, max_memory, optimum, atol):
        """A valid answer whose saved runtimes sum to the optimum."""
        total = self.assert_valid(solve, memory, runtimes, max_memory, atol)
        self.assertEqual(total, optimum, atol=atol, rtol=0)
'''

_TAIL = '''

if __name__ == "__main__":
    run_tests()
'''


def method_name(case: RegressionCase) -> str:
    """``torch_dp_knapsack-SUBOPTIMAL-2ad85da350`` -> ``test_dp_knapsack_suboptimal_2ad85da350``."""
    return "test_" + case.id.removeprefix("torch_").replace("-", "_").lower()


def _test(case: RegressionCase) -> str:
    function = case.solver.removeprefix("torch:")
    instance = case.instance
    tolerance = float_tolerance(instance.runtimes)
    exact = function not in TORCH_HEURISTICS
    lines = [
        "",
        f"    def {method_name(case)}(self):",
        *textwrap.wrap(
            f"{case.verdict} when found, by family {case.family} ({case.origin})" + (f": {case.why}" if case.why else ""),
            width=100, initial_indent="        # ", subsequent_indent="        # ",
        ),
        f"        self.{'assert_optimal' if exact else 'assert_valid'}(",
        f"            {TORCH_KNAPSACK_MODULE.rpartition('.')[2]}.{function},",
        f"            memory={list(instance.memory)!r},",
        f"            runtimes={list(instance.runtimes)!r},",
        f"            max_memory={instance.max_memory!r},",
    ]
    if exact:
        proven = optimum(instance)
        if not proven.proven:
            raise ValueError(f"case {case.id}: the oracle could not prove the optimum ({proven.name})")
        lines.append(f"            optimum={float(proven.value)!r},")
    lines += [f"            atol={tolerance!r},", "        )"]
    return "\n".join(lines)


def upstream_cases(cases: list[RegressionCase]) -> list[RegressionCase]:
    return [case for case in cases if not case.ours and case.solver.startswith("torch:")]


def render_test_file(cases: list[RegressionCase], source: str) -> str:
    """A test file of ``cases`` (upstream ones only); ``source`` says where they came from."""
    package, _, module = TORCH_KNAPSACK_MODULE.rpartition(".")
    head = _HEAD.format(source=source, package=package, module=module, scale=SCALE, class_name=CLASS_NAME)
    return head + "".join(_test(case) + "\n" for case in upstream_cases(cases)) + _TAIL
