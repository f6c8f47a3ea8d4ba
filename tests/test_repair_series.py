"""`knapcheck repair torch --series DIR`: one upstream patch per catalogued defect of torch's file.

Each patch is applied with `git apply` alone to a copy of torch's file, and the whole series in order
to another; the gate (`knapcheck check --baseline torch`, on the known-failure corpus and one tiny
instance: one run for all twelve files) passes each, counting exactly the patch's defect as fixed;
ruff passes every patched file under PyTorch's settings; and the test file each patch writes to runs
on each patched file, as does the series' on torch's own file, where exactly its new tests fail.

Upstream's test_ac_knapsack.py is not in torch's wheel, nor copied here: the patches' test hunks
are placed by the file's last lines alone, so they run against a stand-in (``STAND_IN``) that ends
as upstream's does and imports what it imports.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_runs import run_once

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.patch_series import RUFF_SETTINGS, UPSTREAM_PATH, UPSTREAM_TESTS, formatted
from knapcheck.fuzz.judging.known.repaired import repaired_file
from knapcheck.solvers.registry import torch_entries

STAND_IN = '''\
# Owner(s): ["module: functorch"]
from torch._functorch._activation_checkpointing.knapsack import (
    dp_knapsack,
    dp_knapsack_sliding_hirschberg,
)
from torch.testing._internal.common_utils import run_tests, TestCase


class TestActivationCheckpointingKnapsack(TestCase):
    def test_both_solvers_save_what_fits(self):
        for solver in (dp_knapsack, dp_knapsack_sliding_hirschberg):
            self.assertEqual(solver([0.5, 0.5], [1.0, 2.0], 0.5), (2.0, [1], [0]))


if __name__ == "__main__":
    run_tests()
'''
"""What the tests need of upstream's test file: its imports of the solvers, its last class, its end."""

SWAPPED = """
import importlib.util, json, runpy, sys, unittest
from torch._functorch._activation_checkpointing import knapsack
originals = dict(vars(knapsack))
found = []
for test_file, source in json.loads(sys.stdin.read()):
    spec = importlib.util.spec_from_file_location("patched_knapsack", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg"):
        setattr(knapsack, name, getattr(module, name))
    tests = runpy.run_path(test_file, run_name="stand_in")["TestActivationCheckpointingKnapsack"]
    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(unittest.TestLoader().loadTestsFromTestCase(tests))
    failed = sorted({getattr(test, "test_case", test)._testMethodName for test, _ in result.failures + result.errors})
    found.append({"run": result.testsRun, "failed": failed})
    for name, value in originals.items():
        setattr(knapsack, name, value)
print(json.dumps(found))
"""
"""Runs each (test file, knapsack file) pair in one interpreter: torch's solvers swapped for the file's
before the test file is read, as its imports take them."""


def _tree(root: Path, torch_file: Path) -> Path:
    (root / UPSTREAM_PATH).parent.mkdir(parents=True)
    (root / UPSTREAM_TESTS).parent.mkdir(parents=True)
    shutil.copyfile(torch_file, root / UPSTREAM_PATH)
    (root / UPSTREAM_TESTS).write_text(STAND_IN)
    return root


def _git_apply(root: Path, patch: Path) -> None:
    done = subprocess.run(["git", "apply", str(patch)], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, f"{patch.name} does not apply in {root.name}: {done.stderr}"


def _series(directory: Path) -> None:
    from torch._functorch._activation_checkpointing import knapsack

    patches = directory / "patches"
    done = subprocess.run([sys.executable, "-m", "knapcheck", "repair", "torch", "--series", str(patches)],
                          capture_output=True, text=True, cwd=directory)
    assert done.returncode == 0, done.stdout + done.stderr
    (directory / "repair.out").write_text(done.stdout)
    torch_file = Path(knapsack.__file__)
    series = _tree(directory / "series", torch_file)
    targets = []
    for patch in sorted(patches.glob("*.patch")):
        alone = _tree(directory / patch.stem, torch_file)
        _git_apply(alone, patch)
        _git_apply(series, patch)
        targets.append(f"{alone / UPSTREAM_PATH}:{patch.stem.split('-')[1]}")
    targets.append(str(series / UPSTREAM_PATH))
    checked = subprocess.run([sys.executable, "-m", "knapcheck", "check", "--targets", *targets, "--baseline", "torch",
                              "--families", "tiny", "--per-family", "1", "--json", str(directory / "check.json")],
                             capture_output=True, text=True, cwd=directory)
    (directory / "check.out").write_text(checked.stdout + checked.stderr)
    pairs = [(str(directory / p.stem / UPSTREAM_TESTS), str(directory / p.stem / UPSTREAM_PATH))
             for p in sorted(patches.glob("*.patch"))]
    pairs += [(str(series / UPSTREAM_TESTS), str(series / UPSTREAM_PATH)), (str(series / UPSTREAM_TESTS), str(torch_file))]
    ran = subprocess.run([sys.executable, "-c", SWAPPED], input=json.dumps(pairs), capture_output=True, text=True,
                         cwd=directory)
    assert ran.returncode == 0, ran.stderr[-3000:]
    (directory / "tests.json").write_text(ran.stdout)


@pytest.fixture(scope="module")
def series(tmp_path_factory) -> Path:
    return run_once(tmp_path_factory, "repair-series", _series)


def _patches(directory: Path) -> list[Path]:
    return sorted((directory / "patches").glob("*.patch"))


def test_one_patch_per_catalogued_defect_each_applying_alone_and_in_order(series):
    names = [p.stem.split("-", 1)[1] for p in _patches(series)]
    assert len(names) == 11 == len(set(names))
    assert "dp_knapsack_sliding_hirschberg-hirschberg_split" in names and "ilp_knapsack-solution_read" in names
    assert "11 patches, one per repaired defect" in (series / "repair.out").read_text()
    every = repaired_file(torch_entries(), load_known_failures())
    assert not [r for r in every.results if not r.applied]
    assert (series / "series" / UPSTREAM_PATH).read_text() == formatted(every.source), "the series is `repair`'s file"


def test_each_patch_names_its_defect_its_issue_and_its_reproduction(series):
    for patch in _patches(series):
        text = patch.read_text()
        function, cause = patch.stem.split("-")[1:]
        assert text.startswith("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n")
        assert f"] [knapsack] {function}: " in text and "Reproduction (found by knapcheck" in text
        assert f"    {function}([" in text and f"def test_{function}_{cause}(self):" in text
        assert ("Fixes #197871" in text) == (cause == "hirschberg_split")
    solution_read = next(p for p in _patches(series) if "solution_read" in p.name).read_text()
    assert "over-fills the budget by a unit" in solution_read and "max_memory=104.8579" in solution_read


def test_the_gate_passes_each_patched_file_counting_exactly_its_defect_fixed(series):
    gate = json.loads((series / "check.json").read_text())["gate"]
    assert gate["passed"], (series / "check.out").read_text()[-3000:]
    fixed: dict[str, set[str]] = {}
    for fix in gate["fixes"]:
        fixed.setdefault(fix["candidate"], set()).update(fix["causes"])
        assert not fix["by_chance"], fix
    for patch in _patches(series):
        cause = patch.stem.split("-")[2]
        candidate = f"{series / patch.stem / UPSTREAM_PATH}:{patch.stem.split('-')[1]}"
        assert fixed.get(candidate) == {cause}, (candidate, fixed.get(candidate))
    whole = {cause for candidate, causes in fixed.items() if candidate.startswith(str(series / "series")) for cause in causes}
    assert whole == {p.stem.split("-")[2] for p in _patches(series)}


def test_the_tests_pass_on_each_patched_file_and_fail_on_torch_s_where_they_are_new(series):
    runs = json.loads((series / "tests.json").read_text())
    *alone, whole, on_torch = runs
    assert all(run["failed"] == [] and run["run"] == 2 for run in alone), alone
    assert whole["failed"] == [] and whole["run"] == 12
    new = sorted(f"test_{p.stem.split('-', 1)[1].replace('-', '_')}" for p in _patches(series))
    assert on_torch["failed"] == new, "each patch's test shows its defect on torch's file"


def test_ruff_passes_every_patched_file_under_pytorch_s_settings(series):
    files = [str(root / path) for root in [series / "series", *(series / p.stem for p in _patches(series))]
             for path in (UPSTREAM_PATH, UPSTREAM_TESTS)]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--config", str(RUFF_SETTINGS), *files],
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout[-3000:]
    layout = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "--config", str(RUFF_SETTINGS), *files],
                            capture_output=True, text=True)
    assert layout.returncode == 0, layout.stdout[-3000:]


def test_the_ilp_patches_define_no_function_inside_ilp_knapsack(series):
    for patch in _patches(series):
        tree = ast.parse((series / patch.stem / UPSTREAM_PATH).read_text())
        (ilp,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "ilp_knapsack"]
        inner = [node for node in ast.walk(ilp) if node is not ilp and isinstance(node, (ast.FunctionDef, ast.Lambda))]
        assert not inner, f"{patch.name} defines a function inside ilp_knapsack"


@pytest.mark.parametrize("spec, make, says", [
    ("torch", lambda tmp: (tmp / "file").write_text("x") and tmp / "file", "is not a directory"),
    ("torch", lambda tmp: (tmp / "file").write_text("x") and tmp / "file" / "inside", "cannot write there"),
    ("full_table", lambda tmp: tmp / "patches", "is not torch's"),
], ids=["a file", "under a file", "not torch"])
def test_a_command_line_mistake_is_one_line(tmp_path, capsys, spec, make, says):
    directory = make(tmp_path)
    assert main(["repair", spec, "--series", str(directory)]) == exit_status.USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err
