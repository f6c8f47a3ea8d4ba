"""`knapcheck export-tests`: a PyTorch test file that passes on the torch it was exported against,
fails on a new defect, and turns a fixed one into an unexpected success."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from shared_runs import run_once
from torch_copies import ITEM_REUSE, SPLIT, write_copy

from knapcheck.fuzz.instances import enumerated
from knapcheck.solvers.specs import torch_solver_names

TIME_LIMIT = 600
EXPORTED = "test_ac_knapsack_solvers.py"

# With CI set, torch's run_tests writes JUnit XML through xmlrunner, which PyTorch's CI installs and
# this project does not need: the file is run here as a developer runs it.
WITHOUT_CI = {name: value for name, value in os.environ.items() if name != "CI"}

SWAPPED_IN_TURN = """
import importlib, importlib.util, io, json, runpy, sys, unittest
from torch._functorch._activation_checkpointing import knapsack
test_file, runs = sys.argv[1], json.loads(sys.stdin.read())
tests = runpy.run_path(test_file, run_name="exported")["TestKnapsackSolvers"]
originals = dict(vars(knapsack))
found = []
for where, names, patterns in runs:
    if where.endswith(".py"):
        spec = importlib.util.spec_from_file_location("swapped_knapsack", where)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        solvers = {name: getattr(module, name) for name in names}
    else:
        module, _, function = where.partition(":")
        solvers = {name: getattr(importlib.import_module(module), function) for name in names}
    for name, solver in solvers.items():
        setattr(knapsack, name, solver)
    loader = unittest.TestLoader()
    loader.testNamePatterns = [p if "*" in p else f"*{p}*" for p in patterns]
    output = io.StringIO()
    result = unittest.TextTestRunner(stream=output, verbosity=2).run(loader.loadTestsFromTestCase(tests))
    found.append({"passed": result.wasSuccessful(), "output": output.getvalue()})
    for name in solvers:
        setattr(knapsack, name, originals[name])
print(json.dumps(found))
"""
"""Runs the tests of the file named by each ``-k`` pattern, as ``python FILE -k PATTERN`` does, once
for each run ``(where, names, patterns)`` with those of torch's solvers swapped for a file's
functions of the same names, or for one function (``module:NAME``), in one interpreter: the file
and torch's test framework are imported once (3 s each time)."""


def run_swapped_in_turn(path: Path, runs: list[tuple[str, list[str], list[str]]]) -> list[tuple[bool, dict[str, str], str]]:
    """Each run's outcome: whether every test it ran passed, each test's outcome (``verbose_results``)
    and what unittest printed."""
    done = subprocess.run([sys.executable, "-c", SWAPPED_IN_TURN, str(path)], input=json.dumps(runs), capture_output=True,
                          text=True, timeout=TIME_LIMIT, cwd=path.parent, env=WITHOUT_CI)
    assert done.returncode == 0, done.stderr[-3000:]
    return [(run["passed"], verbose_results(run["output"]), run["output"]) for run in json.loads(done.stdout)]


def _export(directory) -> None:
    done = subprocess.run([sys.executable, "-m", "knapcheck", "export-tests", "--out", str(directory / EXPORTED)],
                          capture_output=True, text=True, timeout=TIME_LIMIT, cwd=directory)
    assert done.returncode == 0, done.stderr[-3000:]
    (directory / "export-tests.out").write_text(done.stdout)


@pytest.fixture(scope="session")
def exported(tmp_path_factory) -> tuple[Path, str]:
    """The file exported from the packaged corpus, and what the command printed: once for all xdist workers."""
    directory = run_once(tmp_path_factory, "exported", _export)
    return directory / EXPORTED, (directory / "export-tests.out").read_text()


def verbose_results(output: str) -> dict[str, str]:
    """unittest's verbose lines: test name -> ok, FAIL, ERROR, expected failure or unexpected success."""
    return dict(re.findall(r"^(test_\w+) \(.*?\) \.\.\. (ok|FAIL|ERROR|expected failure|unexpected success)$", output, re.M))


def run_file(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=TIME_LIMIT,
                          cwd=path.parent, env=WITHOUT_CI)


def test_the_file_follows_pytorch_s_conventions_and_needs_nothing_of_knapcheck(exported):
    path, printed = exported
    text = path.read_text()
    assert text.startswith('# Owner(s): ["module: functorch"]\n')
    tree = ast.parse(text)
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"functools", "itertools", "math", "operator", "unittest",
                        "torch._functorch._activation_checkpointing", "torch.testing._internal.common_utils"}
    assert "from torch.testing._internal.common_utils import (" in text
    assert "instantiate_parametrized_tests(TestKnapsackSolvers)" in text and text.rstrip().endswith("run_tests()")
    assert max(len(line) for line in text.splitlines()) <= 120, "PyTorch's lint allows 120 characters"
    tests = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert "test_hirschberg_split_hands_two_halves" in tests and "test_exhaustive_small" in tests
    assert not [name for name in tests if re.search(r"[0-9a-f]{8}", name)], "no hashes in test names"
    assert "written to" in printed and "tests marked as expected failures" in printed


def test_the_file_passes_on_the_installed_torch_run_by_python(exported):
    path, printed = exported
    done = run_file(path, "-v")
    assert done.returncode == 0, done.stderr[-3000:]
    found = verbose_results(done.stderr)
    expected = int(re.search(r"(\d+) tests marked as expected failures", printed).group(1))
    assert list(found.values()).count("expected failure") == expected > 0
    assert set(found.values()) == {"ok", "expected failure"}
    # every solver is tested on every cause, and each enumerated family
    for solver in torch_solver_names():
        assert found[f"test_hirschberg_split_hands_two_halves_{solver}"]
        assert found[f"test_exhaustive_small_{solver}"] == "ok"
        assert found[f"test_large_capacity_{solver}"] == "ok"
        assert found[f"test_scale_extremes_{solver}"] == "ok"
    # the split defect is sliding_hirschberg's alone, torch's ZeroDivisionError greedy's alone
    assert {name for name, outcome in found.items() if outcome == "expected failure"
            and name.startswith("test_hirschberg_split_hands_two_halves_")} == {
        "test_hirschberg_split_hands_two_halves_dp_knapsack_sliding_hirschberg"}
    assert found["test_exhaustive_small_known_defect_greedy_knapsack_raised"] == "expected failure"


def test_the_file_passes_on_the_installed_torch_run_by_pytest(exported):
    """Every test but the dearest (the exhaustive lists, the shapes at scale, the unquantized
    memories), which the run by python takes."""
    path, _ = exported
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:knapcheck", path.name,
                           "-k", "not exhaustive_small and not scale_extremes and not compares_unquantized"],
                          capture_output=True, text=True, timeout=TIME_LIMIT, cwd=path.parent, env=WITHOUT_CI)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\d+ passed, \d+ deselected, \d+ xfailed", done.stdout), done.stdout[-500:]


PLANTED_BUGS = {
    "split": (SPLIT, {"test_exhaustive_small_dp_knapsack_sliding_hirschberg", "test_large_capacity_dp_knapsack_sliding_hirschberg",
                      "test_milp_stops_highs_default_absolute_dp_knapsack_sliding_hirschberg",
                      "test_type_limits_dp_knapsack_sliding_hirschberg"}),
    "item_reuse": (ITEM_REUSE, {"test_large_capacity_dp_knapsack"}),
}
FIXED = ("knapcheck.solvers.full_table:full_table", ["ilp_knapsack"], ["ilp_knapsack"])
"""ilp_knapsack swapped for our exact full_table, and its tests run."""


@pytest.fixture(scope="module")
def swapped_runs(exported, tmp_path_factory) -> dict[str, tuple[bool, dict[str, str], str]]:
    """The file run on each planted copy (the tests of the two dp solvers, whose code each edit
    changes) and with the fixed defect, in one interpreter, once for every xdist worker."""
    path, _ = exported

    def run(directory: Path) -> None:
        runs = [(str(write_copy(directory / f"{name}.py", edit)), torch_solver_names(), ["dp_knapsack"])
                for name, (edit, _) in PLANTED_BUGS.items()]
        (directory / "runs.json").write_text(json.dumps(run_swapped_in_turn(path, [*runs, FIXED])))

    found = json.loads((run_once(tmp_path_factory, "export_swapped", run) / "runs.json").read_text())
    return dict(zip([*PLANTED_BUGS, "fixed"], found))


@pytest.mark.parametrize("name", PLANTED_BUGS)
def test_the_file_fails_on_a_copy_of_torch_with_a_planted_bug(swapped_runs, name):
    passed, found, output = swapped_runs[name]
    assert not passed
    assert {test for test, outcome in found.items() if outcome == "FAIL"} == PLANTED_BUGS[name][1]
    assert "saved weight" in output or "reported" in output


def test_a_fixed_defect_is_an_unexpected_success(swapped_runs):
    """ilp_knapsack swapped for our exact full_table: each test marked for ilp_knapsack passes, unexpectedly."""
    passed, found, _ = swapped_runs["fixed"]
    assert not passed, "an unexpected success fails the run"
    unexpected = {name for name, outcome in found.items() if outcome == "unexpected success"}
    assert unexpected and all("ilp_knapsack" in name for name in unexpected)
    assert "test_scipy_milp_refuses_empty_problem_ilp_knapsack" in unexpected
    assert not [name for name, outcome in found.items() if outcome in ("FAIL", "ERROR")]


def test_the_file_lists_the_enumerated_families_as_knapcheck_does(exported):
    path, _ = exported
    spec = importlib.util.spec_from_file_location("exported_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for family, listing in (("exhaustive_small", enumerated.exhaustive_small), ("large_capacity", enumerated.large_capacity)):
        in_file = [(tuple(m), tuple(r), c) for m, r, c, *_ in getattr(module, family)()]
        assert in_file == [(i.memory, i.runtimes, i.max_memory) for i in listing()], family
