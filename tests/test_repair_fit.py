"""A repair counts as evidence only where it fits the candidate's code.

Repairs match torch's defects by structure, in the function and the helpers of its file that it
calls, never in text; and a repaired candidate must keep every pass of the candidate on a stated
sample, or the repair is not used. Copies of torch's file, judged side by side in one gate against
torch's functions of their names:

- torch's split fixed by naming the profiles' width (``width = capacity + 1``) keeps the line
  ``right_capacity = capacity - best_split``, now right: the split repair does not apply there, the
  fix counts (not by chance), and the float32 failures it unmasks are torch's known defect;
- a backtrack that ignores differences within ``8 * torch.finfo(torch.float32).eps`` of the total is
  a new bug: the float32 repair changes the tables' dtype, not that tolerance, and the failure is
  reproduced on float32-exact runtimes where torch is optimal;
- dp in float64 (a fix) with a backtrack tolerance of 1e-6 (a new bug) fails with the new bug's
  reproduction, and its fix is counted.
"""

import json

import pytest
from copies_gate import copies_gate, copy_specs
from test_torch_copies import assert_reproduces_the_copys_own_defect, regressions
from torch_copies import FINFO_TOLERANCE, SPLIT_IN_HELPER, torch_source, width_named_split_fix, write_copy

from knapcheck.commands import exit_status
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.by_cause import Causes
from knapcheck.fuzz.judging.known.float32_exact import float32_exact
from knapcheck.fuzz.judging.verdicts.differential import check_against
from knapcheck.fuzz.judging.verdicts.gate import is_regression
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one

SLIDING = "dp_knapsack_sliding_hirschberg"


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    """The shared gate of the copies against torch (copies_gate), run once for every xdist worker."""
    root = copies_gate(tmp_path_factory)
    data = json.loads((root / "report" / "report.json").read_text())
    specs = {name: found[0] for name, found in copy_specs(root).items() if name != "repaired"}
    return int((root / "status").read_text()), specs, data


def _of(data: dict, spec: str) -> list[dict]:
    return [f for f in data["correctness"]["failures"] if f["solver"] == spec]


def test_the_gate_fails_on_the_new_bugs_only(gate):
    status, specs, data = gate
    assert status == exit_status.FAILED
    failing = {f["solver"] for f in regressions(data["correctness"])}
    assert failing == {specs["finfo"], specs["fix_and_bug"]}


def test_the_split_fixed_by_naming_the_width_passes_with_its_fix_counted(gate):
    _, specs, data = gate
    copy = specs["width"]
    (split,) = [r for r in data["correctness"]["repairs"][copy] if r["cause"] == "hirschberg_split"]
    assert not split["applied"] and "is right as it is" in split["why_not"]
    fixes = [f for f in data["gate"]["fixes"] if f["candidate"] == copy]
    assert [(f["verdict"], f["causes"], f["by_chance"]) for f in fixes] == [("OVER_BUDGET", ["hirschberg_split"], False)]
    visible = [f for f in _of(data, copy) if f["status"] == "known defect, now visible"]
    assert visible and all(f["verdict"] == "SUBOPTIMAL" and f["causes"] == ["float32"] for f in visible)
    assert not any(float32_exact(f["instance"]["runtimes"]) for f in visible)
    assert not [f for f in _of(data, copy) if f["status"] == "regression"]


def test_a_float32_tolerance_in_the_backtrack_is_a_regression_reproduced_where_torch_is_optimal(gate):
    _, specs, data = gate
    found = [f for f in _of(data, specs["finfo"]) if f["status"] == "regression"]
    assert found and all(f["verdict"] == "SUBOPTIMAL" for f in found)
    shown = next(f for f in found if f["baseline"]["verdict"] == "OPTIMAL")
    assert float32_exact(shown["instance"]["runtimes"])
    assert_reproduces_the_copys_own_defect(shown)


def test_a_fix_and_a_new_bug_in_one_function_fail_with_the_new_bugs_reproduction_and_the_fix_counted(gate):
    _, specs, data = gate
    copy = specs["fix_and_bug"]
    found = [f for f in _of(data, copy) if f["status"] == "regression"]
    assert found and all(f["verdict"] == "SUBOPTIMAL" for f in found)
    assert_reproduces_the_copys_own_defect(found[0])
    fixes = [f for f in data["gate"]["fixes"] if f["candidate"] == copy]
    assert fixes and all(f["causes"] == ["float32"] for f in fixes)


CORPUS = load_known_failures()


def test_the_float32_tolerance_bug_on_the_issues_instance(tmp_path):
    """Runtimes [1, 1048576, 4] are float32-exact: float32 arithmetic cannot have caused the failure,
    so its repair is no evidence here (it was taken as such, and changed the tolerance's
    ``torch.finfo(torch.float32)`` too); the failure is a regression."""
    copy = resolve_one(f"{write_copy(tmp_path / 'knapsack.py', FINFO_TOLERANCE)}:dp_knapsack")
    torch = resolve_one("torch:dp_knapsack")
    causes = Causes([torch], CORPUS)
    found = causes.explained(check_against(copy, torch, Instance((0.0001,) * 3, (1.0, 1048576.0, 4.0), 0.0003)))
    assert (found.verdict, found.baseline_verdict) == (Verdict.SUBOPTIMAL, "OPTIMAL") and is_regression(found)
    assert found.repaired is None and found.causes == ()


def test_a_repair_that_breaks_a_pass_of_the_candidate_is_not_used(tmp_path):
    """The width-named fix with its split lines moved into a helper: the helper's ``capacity`` is a
    parameter, so structure cannot tell that it is the segment's capacity, and the split repair
    applies. The repaired copy then hands out one unit too few, SUBOPTIMAL where the copy is right:
    it does not fit, and is not used."""
    source = width_named_split_fix(torch_source())
    for before, after in SPLIT_IN_HELPER:
        assert source.count(before) == 1
        source = source.replace(before, after)
    path = tmp_path / "knapsack.py"
    path.write_text(source)
    copy, torch = resolve_one(f"{path}:{SLIDING}"), resolve_one(f"torch:{SLIDING}")
    made = Causes([torch], CORPUS).intervention(copy, torch, fitted=("hirschberg_split", "float32"))
    (split,) = [r for r in made.results if r.cause == "hirschberg_split"]
    assert not split.applied and "does not fit this code" in split.why_not and "SUBOPTIMAL" in split.why_not
    (float32,) = [r for r in made.results if r.cause == "float32"]
    assert float32.applied
