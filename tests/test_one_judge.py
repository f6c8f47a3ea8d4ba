"""One judge decides every instance: `check`, `report`, `fuzz`, the pytest plugin and `export-tests`
all call ``knapcheck.fuzz.judging.judge.Judge``, and no other module assembles the judgement.

Each driver is run on the smallest input that reaches its judging, with the judge's method wrapped
to record who called it; a static read of the tree then shows that the pieces of the judgement
(an outcome judged on the oracle, a baseline's check attached, a failure explained by cause) are
put together in the judge alone.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from package_tree import ROOT, package_paths

from knapcheck.fuzz.campaign.units import FUZZ, Setup, Unit, UnitRun
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.judge import Judge
from knapcheck.fuzz.runs import export_plan
from knapcheck.fuzz.runs.candidate_run import run_candidate
from knapcheck.fuzz.runs.check import run_check
from knapcheck.solvers.registry import resolve, resolve_one, torch_entries

pytest_plugins = ["pytester"]

JUDGE = ROOT / "fuzz" / "judging" / "judge.py"
PIECES = {"judged", "with_baseline", "explained"}
"""The calls that make up the judgement of an instance's outcomes."""
WHERE_PIECES_LIVE = {
    JUDGE,
    ROOT / "fuzz" / "judging" / "verdicts" / "differential.py",  # defines judged and with_baseline, and check() = call + judged
    ROOT / "fuzz" / "judging" / "known" / "by_cause.py",  # defines explained; shrinks a failure keeping how it is explained
    ROOT / "fuzz" / "judging" / "plain_check.py",  # rebuilds a check read back from a file, baseline attached
    ROOT / "testing.py",  # the public assertion: one solver, no baseline, judged on the oracle
}


@pytest.fixture
def judged_by(monkeypatch) -> list[int]:
    """The number of instances the judge decided, counted as drivers call it."""
    calls: list[int] = []
    outcomes, called = Judge.outcomes, Judge.called

    def counted_outcomes(self, *args, **kwargs):
        calls.append(1)
        return outcomes(self, *args, **kwargs)

    def counted_called(self, *args, **kwargs):
        calls.append(1)
        return called(self, *args, **kwargs)

    monkeypatch.setattr(Judge, "outcomes", counted_outcomes)
    monkeypatch.setattr(Judge, "called", counted_called)
    return calls


def test_check_calls_the_judge(judged_by):
    run_check(resolve("full_table"), ["tiny"], per_family=2, shrink_seconds=0)
    assert len(judged_by) == 2


def test_report_calls_the_judge(judged_by):
    candidate, baseline = resolve_one("full_table"), resolve_one("sliding_hirschberg")
    run_candidate([candidate], [baseline], ["tiny"], per_family=2)
    assert len(judged_by) == 2


def test_a_campaign_unit_calls_the_judge(judged_by):
    setup = Setup(tuple(resolve("full_table")), time.time() + 1, None, "events", "stop", 60.0, seeded=True)
    UnitRun(setup, Unit(1, FUZZ, family="tiny", seed=0, seconds=1), lambda event: None, lambda: False).run()
    assert judged_by


def test_export_tests_calls_the_judge(judged_by):
    instances = families.get("tiny").draw(2, 0)
    checks = export_plan._Checks(torch_entries(), lambda message: None).checks(instances, "tiny", "tiny")
    assert len(judged_by) == 2
    assert all(len(found) == 2 for found in checks.values())


def test_the_pytest_plugin_calls_the_judge(pytester, judged_by):
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--knapcheck-target", "full_table",
                                          "--knapcheck-families", "tiny", "--knapcheck-per-family", "2",
                                          "-k", "tiny")
    result.assert_outcomes(passed=2)
    assert len(judged_by) == 2


def _calls(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            function = node.func
            names.add(function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", ""))
    return names


def test_only_the_judge_puts_the_judgement_together():
    """Every module of the package that calls a piece of the judgement is one of the few that
    define those pieces or read a check back; the drivers call the judge instead."""
    assembling = {p for p in package_paths() if _calls(p) & PIECES}
    assert assembling <= WHERE_PIECES_LIVE, sorted(str(p.relative_to(ROOT)) for p in assembling - WHERE_PIECES_LIVE)
    assert _calls(JUDGE) >= PIECES
