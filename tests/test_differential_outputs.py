"""What check and report say besides pass or fail: determinism, selection changes, known versus
new failures, and the promise each target was judged on."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from torch_copies import write_copy

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.verdicts.differential import answers_differ, check
from knapcheck.fuzz.runs.check import DETERMINISM_MAX_ITEMS, determinism_positions, run_check
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports.check_report import finding_status, render_text
from knapcheck.reports.reproduction import snippet
from knapcheck.solvers import specs
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.contract.outcome import CRASHED, RETURNED, Outcome
from knapcheck.solvers.isolation import hash_seeds
from knapcheck.solvers.registry import promise_basis, resolve_one

ALTERNATING = "planted.nondeterministic:alternating_tie_break"
TIE = Instance((0.0001, 0.0001), (1.0, 1.0), 0.0001)
"""Two optimal sets: save either item."""


@pytest.fixture
def empty_corpus(tmp_path):
    path = tmp_path / "empty-corpus.json"
    path.write_text('{"schema_version": 1, "cases": []}')
    return path


def test_two_answers_that_differ_are_told_apart_from_two_that_do_not():
    same = Outcome(RETURNED, answer=(1.0, [1, 0], [2]))
    assert answers_differ(same, Outcome(RETURNED, answer=(1.0, [0, 1], [2]))) == ""
    assert "disagree" in answers_differ(same, Outcome(RETURNED, answer=(1.0, [2], [0, 1])))
    assert "disagree" in answers_differ(same, Outcome(CRASHED, error="signal 11"))


def test_an_exact_solver_called_twice_with_different_answers_is_nondeterministic():
    target = resolve_one(ALTERNATING)
    assert check(target, TIE).verdict is Verdict.OPTIMAL, "one call alone looks right"
    twice = check(target, TIE, calls=2)
    assert twice.verdict is Verdict.NONDETERMINISTIC and twice.failed and "first" in twice.judgement.detail


def test_the_determinism_sample_spreads_over_the_source_and_leaves_out_large_instances():
    assert determinism_positions([TIE] * 5) == set(range(5))
    spread = determinism_positions([TIE] * 6142)
    assert len(spread) == 8 and min(spread) == 0 and max(spread) == 6141
    large = Instance((0.0001,) * (DETERMINISM_MAX_ITEMS + 1), (1.0,) * (DETERMINISM_MAX_ITEMS + 1), 0.0001)
    assert determinism_positions([TIE, large, TIE, large]) == {0, 2}
    mixed = determinism_positions([TIE] * 10 + [large] + [TIE] * 9)
    assert len(mixed) == 8 and 10 not in mixed and max(mixed) == 19


def test_check_calls_exact_targets_twice_and_reports_nondeterminism_with_a_reproduction(tmp_path, capsys, empty_corpus):
    path = tmp_path / "check.json"
    status = main(["check", "--targets", ALTERNATING, "--families", "tiny", "exhaustive_small", "large_capacity", "--per-family", "2",
                   "--corpus", str(empty_corpus), "--json", str(path)])
    data = json.loads(path.read_text())
    assert status == exit_status.FAILED
    (found,) = [f for f in data["failures"] if f["verdict"] == "NONDETERMINISTIC"]
    assert found["instance"]["memory"] and found["status"] == "new"
    assert data["solvers"][0]["called_twice"] > 0
    assert "NONDETERMINISTIC" in data["gate"]["summary"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent))
    run = subprocess.run([sys.executable, "-c", found["reproduction"]], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode != 0 and "AssertionError: NONDETERMINISTIC: 2 different answers in 20 calls" in run.stderr


def test_a_different_optimal_set_is_information_never_a_failure(tmp_path, empty_corpus):
    out = tmp_path / "report"
    status = main(["report", "--candidate", "planted.nondeterministic:last_optimal",
                   "--baseline", "planted.nondeterministic:first_optimal",
                   "--families", "tiny", "exhaustive_small", "large_capacity", "--per-family", "2",
                   "--corpus", str(empty_corpus), "--bench-repeats", "0", "--out", str(out)])
    assert status == exit_status.OK
    data = json.loads((out / "report.json").read_text())["correctness"]
    changes = data["comparisons"]["planted.nondeterministic:last_optimal"]["selection_changes"]
    assert 0 < changes["changed"] <= changes["both_valid"]
    example = changes["example"]
    assert example["saved"] != example["baseline_saved"] and example["value"] == example["baseline_value"]
    assert data["failures"] == []
    assert "selection changes (information, not failures): a different saved set on" in (out / "report.md").read_text()


def test_without_a_baseline_a_failure_the_corpus_explains_is_known_and_listed_apart(tmp_path, capsys):
    path = tmp_path / "check.json"
    status = main(["check", "--targets", "torch:dp_knapsack_sliding_hirschberg", "--families", "tiny",
                   "--per-family", "1", "--json", str(path)])
    assert status == exit_status.FAILED, "known failures are failures still"
    failures = json.loads(path.read_text())["failures"]
    over = next(f for f in failures if f["verdict"] == "OVER_BUDGET")
    assert over["status"] == "known"
    assert over["known_case"].startswith("torch_dp_knapsack_sliding_hirschberg-OVER_BUDGET")
    assert "known failures: a case of the known-failure corpus has the same solver, verdict and cause" in capsys.readouterr().out


def test_without_a_baseline_a_defect_of_another_cause_is_new(tmp_path):
    """The copy's item reuse (above 4 096 units) is new; torch's zero-weight defect in it is known.
    Without a baseline there is one finding per (solver, verdict): a new defect with the verdict of
    a known one shows only against a baseline."""
    from torch_copies import ITEM_REUSE

    copy = resolve_one(f"{write_copy(tmp_path / 'knapsack.py', ITEM_REUSE)}:dp_knapsack")
    result = run_check([copy], ["exhaustive_small", "large_capacity"], known_cases=load_known_failures())
    statuses = {f.verdict.value: (f.family, finding_status(result, f)) for f in result.findings}
    assert statuses["WRONG_VALUE"] == ("large_capacity", "new")
    assert statuses["SUBOPTIMAL"] == ("exhaustive_small", "known")
    text = render_text(result)
    assert text.index("new failures:") < text.index("known failures:")


@pytest.mark.parametrize(
    "spec, exact, basis",
    [
        ("/pr/knapsack.py:greedy_knapsack", False, "named like torch's greedy_knapsack"),
        ("/pr/knapsack.py:dp_knapsack", True, "named like torch's dp_knapsack"),
        ("/pr/knapsack.py:greedy_knapsack@exact", True, "declared (@exact)"),
        ("/pr/knapsack.py:solve@heuristic", False, "declared (@heuristic)"),
        ("/pr/knapsack.py:solve", True, "the default for a function not named like a torch solver"),
        ("torch:greedy_knapsack", False, "torch's greedy_knapsack"),
        ("torch:dp_knapsack@heuristic", False, "declared (@heuristic)"),
        ("full_table", True, "registered"),
    ],
)
def test_a_target_takes_the_promise_of_the_torch_solver_it_is_named_like_unless_it_declares_one(spec, exact, basis):
    entry = resolve_one(spec)
    assert (entry.exact, promise_basis(entry)) == (exact, basis)
    assert "@" not in entry.name, "the declaration is not part of the target's name"


def test_a_copy_of_dp_knapsack_takes_torch_s_size_limit_too():
    assert resolve_one("/pr/knapsack.py:dp_knapsack").max_cells == resolve_one("torch:dp_knapsack").max_cells


@pytest.mark.parametrize("text, words", [
    ("pr.py:solve@fast", "must be exact or heuristic"),
    ("full_table@exact", "can be declared only for"),
    ("torch@heuristic", "can be declared only for"),
])
def test_a_malformed_promise_is_refused_naming_the_spec(text, words):
    with pytest.raises(ValueError, match=words):
        specs.parse(text)


def test_a_declared_promise_is_what_the_target_is_judged_on(tmp_path, capsys, empty_corpus):
    copy = write_copy(tmp_path / "knapsack.py")
    common = ["--families", "pisinger_uncorrelated", "--per-family", "10", "--corpus", str(empty_corpus)]
    assert main(["check", "--targets", f"{copy}:greedy_knapsack", *common]) == exit_status.OK
    assert "heuristic (named like torch's greedy_knapsack)" in capsys.readouterr().out
    assert main(["check", "--targets", f"{copy}:greedy_knapsack@exact", *common]) == exit_status.FAILED
    out = capsys.readouterr().out
    assert "exact (declared (@exact))" in out and "greedy_knapsack: SUBOPTIMAL" in out


@pytest.mark.parametrize("command", ["check", "report", "solve"])
def test_help_shows_how_to_declare_a_promise(command):
    done = subprocess.run([sys.executable, "-m", "knapcheck", command, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "@exact" in done.stdout and "@heuristic" in done.stdout


def test_check_with_a_baseline_refuses_a_target_without_a_counterpart_in_one_line(capsys):
    assert main(["check", "--targets", "full_table", "--baseline", "torch"]) == exit_status.USAGE
    err = capsys.readouterr().err
    assert "has no counterpart" in err and len(err.strip().splitlines()) == 1


def test_a_tie_break_that_follows_str_hashes_is_nondeterministic_across_two_processes(monkeypatch):
    """Stable within one process, so two calls in one worker agree; the second worker, whose
    PYTHONHASHSEED differs, answers otherwise. The reproduction shows it the same way."""
    monkeypatch.setattr(hash_seeds, "FIRST", 0)
    monkeypatch.setattr(hash_seeds, "SECOND", 1)
    target = resolve_one(f"{Path(__file__).parent / 'planted' / 'hash_tie_break.py'}:hash_tie_break")
    assert check(target, TIE).verdict is Verdict.OPTIMAL, "one call alone looks right"
    twice = check(target, TIE, calls=2)
    assert twice.verdict is Verdict.NONDETERMINISTIC and twice.failed, twice.judgement.detail
    assert "in two processes whose str hashes differ (PYTHONHASHSEED 0, then 1) disagree" in twice.judgement.detail
    run = subprocess.run([sys.executable, "-c", snippet(twice)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "AssertionError: NONDETERMINISTIC: in processes with PYTHONHASHSEED 0 and 1" in run.stderr
