"""`knapcheck repair`: torch's file with every known defect repaired, the upstream patch.

The repaired file passes each of torch's defects' corpus cases where torch fails them, and the
exported PyTorch test file run on it fails nothing and turns each cause's test into an unexpected
success. (The whole gate of the repaired file, four functions on every default family, takes
minutes: `python studies/repaired_torch.py` runs it.)
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from test_export_tests import exported, run_swapped_in_turn  # noqa: F401 (exported is a fixture)
from torch_copies import SPLIT_IN_HELPER, torch_source, width_named_split_fix

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.defects import CAUSES
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.solvers.registry import resolve_one
from knapcheck.solvers.specs import torch_solver_names


@pytest.fixture(scope="module")
def repaired(tmp_path_factory):
    """`knapcheck repair torch` run once: the file it wrote and what it printed."""
    out = tmp_path_factory.mktemp("repair") / "knapsack.py"
    status = main(["repair", "torch", "--out", str(out)])
    return status, out


def test_repair_torch_applies_every_catalogued_repair_and_says_which_lines(repaired, capsys):
    status, out = repaired
    assert status == exit_status.OK and out.is_file()
    assert main(["repair", "torch", "--out", str(out)]) == exit_status.OK, "an identical earlier output is replaced"
    printed = capsys.readouterr().out
    assert "with 11 of 11 repairs of known defects written to" in printed
    for cause in CAUSES:
        assert re.search(rf"^  \w+: {cause}: line \d+: ", printed, re.M), cause
    assert "  dp_knapsack_sliding_hirschberg: hirschberg_split: line 246: right_capacity = capacity - best_split ->" \
           " right_capacity = (capacity - 1) - best_split" in printed


def test_the_repaired_file_passes_every_corpus_case_of_torchs_defects(repaired):
    _, out = repaired
    cases = [case for case in load_known_failures() if case.solver.startswith("torch:")]
    assert {case.cause for case in cases} == set(CAUSES)
    for case in cases:
        function = case.solver.partition(":")[2]
        entry = replace(resolve_one(f"{out}:{function}"), isolate=False)
        assert check(resolve_one(case.solver), case.instance).failed, f"torch passes {case.id} now"
        assert not check(entry, case.instance).failed, f"{case.id} ({case.cause}) still fails on the repaired file"


def test_the_exported_file_run_on_the_repaired_file_fails_nothing_and_shows_each_cause_fixed(repaired, exported):
    _, out = repaired
    path, _ = exported
    causes = re.findall(r"^    def (test_\w+)\(self, solver\):$", path.read_text(), re.M)
    causes = [name for name in causes if not name.startswith(("test_exhaustive_small", "test_large_capacity",
                                                              "test_scale_extremes", "test_type_limits"))]
    assert len(causes) == 16
    ((_, found, output),) = run_swapped_in_turn(path, [(str(out), torch_solver_names(), causes)])
    assert not [name for name, outcome in found.items() if outcome in ("FAIL", "ERROR")], output[-3000:]
    fixed = {name for name, outcome in found.items() if outcome == "unexpected success"}
    assert fixed and not [name for name, outcome in found.items() if outcome == "expected failure"]
    assert "FAILED (unexpected successes=" in output


def test_nothing_to_repair_writes_nothing_and_says_why(tmp_path, capsys):
    out = tmp_path / "out.py"
    assert main(["repair", "full_table", "--out", str(out)]) == exit_status.FAILED
    assert not out.exists()
    assert "no known defect's repair applies" in capsys.readouterr().out


def test_a_file_of_someone_else_s_is_never_written_over(repaired, tmp_path, capsys):
    mine = tmp_path / "knapsack.py"
    mine.write_text("# my work\n")
    assert main(["repair", "torch", "--out", str(mine)]) == exit_status.USAGE
    assert mine.read_text() == "# my work\n"
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "knapcheck replaces only its own" in err


def test_a_spec_that_names_nothing_is_one_line(tmp_path, capsys):
    assert main(["repair", str(tmp_path / "missing.py"), "--out", str(tmp_path / "o.py")]) == exit_status.USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no such file" in err


def test_a_repair_that_does_not_fit_the_file_is_not_written(tmp_path, capsys):
    """The split fixed by naming the profiles' width, its split lines in a helper: the split repair
    matches the helper's line (its capacity is a parameter) but breaks a pass of the file, so it is
    not written, and the command says why."""
    source = width_named_split_fix(torch_source())
    for before, after in SPLIT_IN_HELPER:
        source = source.replace(before, after)
    path = tmp_path / "knapsack.py"
    path.write_text(source)
    out = tmp_path / "repaired.py"
    assert main(["repair", f"{path}:dp_knapsack_sliding_hirschberg", "--out", str(out)]) == exit_status.OK
    printed = capsys.readouterr().out
    assert "hirschberg_split: not applied, it does not fit this code: the repaired candidate is SUBOPTIMAL" in printed
    assert "right_capacity = capacity - best_split" in out.read_text() and "float64" in out.read_text()
