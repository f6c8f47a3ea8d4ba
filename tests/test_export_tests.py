"""`knapcheck export-tests`: the corpus's upstream cases as a PyTorch test file that fails on exactly
the defects the solver it runs against still has."""

import os
import re
import subprocess
import sys

from knapcheck.fuzz.regression_corpus import load_regression_corpus
from knapcheck.cli import main
from knapcheck.reports.pytorch_tests import method_name, upstream_cases
from knapcheck.solvers.specs import torch_solver_names

TIME_LIMIT = 600

# With CI set, torch's run_tests writes JUnit XML through xmlrunner, which PyTorch's CI installs and
# this project does not need: the file is run here as a developer runs it.
WITHOUT_CI = {name: value for name, value in os.environ.items() if name != "CI"}

WITH_OUR_SOLVER = """
import runpy, sys
from torch._functorch._activation_checkpointing import knapsack
from knapcheck.solvers.full_table import full_table
for name in sys.argv[2:]:
    setattr(knapsack, name, full_table)
sys.argv = [sys.argv[1], "-v"]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def results(output: str) -> dict[str, str]:
    """unittest's verbose lines: test name -> ok, FAIL or ERROR."""
    return dict(re.findall(r"^(test_\w+) \(.*?\) \.\.\. (ok|FAIL|ERROR)$", output, re.M))


def test_the_exported_file_passes_with_a_correct_solver_and_fails_on_torch_s_defects(tmp_path, capsys):
    path = tmp_path / "test_ac_knapsack_regressions.py"
    assert main(["export-tests", "--out", str(path)]) == 0
    cases = upstream_cases(load_regression_corpus())
    assert f"{len(cases)} tests written to {path}" in capsys.readouterr().out
    text = path.read_text()
    assert "knapcheck" not in text.split("\nimport math", 1)[1], "the file must not import knapcheck"
    assert "from torch.testing._internal.common_utils import run_tests, TestCase" in text
    expected = {method_name(case) for case in cases}

    ours = subprocess.run([sys.executable, "-c", WITH_OUR_SOLVER, str(path), *torch_solver_names()],
                          capture_output=True, text=True, timeout=TIME_LIMIT, cwd=tmp_path, env=WITHOUT_CI)
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert results(ours.stderr) == {name: "ok" for name in expected}

    installed = subprocess.run([sys.executable, str(path), "-v"], capture_output=True, text=True,
                               timeout=TIME_LIMIT, cwd=tmp_path, env=WITHOUT_CI)
    assert installed.returncode != 0
    found = results(installed.stderr)
    assert set(found) == expected
    assert all(outcome in ("FAIL", "ERROR") for outcome in found.values()), "the corpus holds only known defects"
