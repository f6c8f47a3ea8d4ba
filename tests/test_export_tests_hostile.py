"""A corpus is data, never code: whatever its strings hold, `knapcheck export-tests` writes only
validated identifiers and numbers into the file, or refuses the corpus in one line (issue 20, defect 6)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tokenize

import pytest

from knapcheck.commands.cli import main
from knapcheck.fuzz.runs import export_plan
from knapcheck.reports import pytorch_tests

WITHOUT_CI = {name: value for name, value in os.environ.items() if name != "CI"}


def payload(marker) -> str:
    return f"import os; os.system('touch {marker}')"


def case(**fields) -> dict:
    found = {"id": "c", "solver": "torch:dp_knapsack", "ours": False, "verdict": "SUBOPTIMAL", "family": "tiny",
             "origin": "torch", "found_at": "", "instance": {"memory": [0.0], "runtimes": [-1.0], "max_memory": 0.0},
             "why": "a zero-weight item is added to every capacity"}
    found.update(fields)
    return found


def write_corpus(path, cases) -> str:
    path.write_text(json.dumps({"schema_version": 1, "cases": cases}))
    return str(path)


@pytest.fixture
def without_enumerated(monkeypatch):
    """The export without its enumerated families (thousands of solver calls a test of the corpus's strings need not make)."""
    monkeypatch.setattr("knapcheck.fuzz.runs.export_plan.ENUMERATED", {})


def code_names(text: str) -> set[str]:
    return {token.string for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.NAME}


def test_hostile_strings_in_a_corpus_never_reach_the_code(tmp_path, without_enumerated, capsys):
    marker = tmp_path / "PWNED"
    hostile = [
        case(id=f"x\n{payload(marker)}\n#",
             family=f"tiny'); {payload(marker)}; ('", origin=f"\n{payload(marker)}\n",
             why=f'"""\n{payload(marker)}\n\'\'\' \\'),
        case(id="y", solver=f"x'); {payload(marker)} #"),
        case(id="z", solver=f"{tmp_path}/evil.py:dp_knapsack", ours=True),
    ]
    out = tmp_path / "test_exported.py"
    assert main(["export-tests", "--corpus", write_corpus(tmp_path / "corpus.json", hostile), "--out", str(out)]) == 0
    assert "2 cases of other solvers left out" in capsys.readouterr().out
    text = out.read_text()
    assert not {"os", "system", "evil"} & code_names(text), "a corpus string became code"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", out.name],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=WITHOUT_CI)
    assert done.returncode == 0, done.stdout[-2000:]
    assert not marker.exists(), "a payload ran"


@pytest.mark.parametrize(
    "field, hostile, refusal",
    [
        ("verdict", "SUBOPTIMAL\n{payload}", "cases[0].verdict is malformed"),
        ("solver", "torch:x'); {payload} #", "is not torch:NAME with a Python identifier for NAME"),
    ],
    ids=["a verdict that is not one of the verdicts", "a torch solver name that is not an identifier"],
)
def test_a_hostile_corpus_field_is_refused_in_one_line_when_the_corpus_is_read(tmp_path, capsys, field, hostile, refusal):
    marker = tmp_path / "PWNED"
    corpus = write_corpus(tmp_path / "corpus.json", [case(**{field: hostile.format(payload=payload(marker))})])
    out = tmp_path / "test_exported.py"
    assert main(["export-tests", "--corpus", corpus, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and refusal in error
    assert not out.exists() and not marker.exists()


@pytest.mark.parametrize("value", [True, float("nan"), float("inf"), "1", None, [1]])
def test_only_finite_ints_and_floats_are_numbers(value):
    with pytest.raises(ValueError, match="is not a finite int or float"):
        pytorch_tests.number(value)


@pytest.mark.parametrize("text", ["x'); import os #", "a\nb", "class", "é", "", "1x", None])
def test_only_plain_identifiers_are_names(text):
    with pytest.raises(ValueError, match="is not a plain Python identifier"):
        export_plan.identifier(text)


def test_test_names_come_from_the_cause_and_stay_distinct():
    words = [export_plan.cause_words(text) for text in (
        "the Hirschberg split hands the two halves capacity + 1 units between them",
        "the Hirschberg split hands the two halves one unit too few",
        "scipy's milp refuses an empty problem",
        "x'); import os; os.system('touch /tmp/pwned') #\nreturn",
        "",
    )]
    assert export_plan.test_names(words) == [
        "test_hirschberg_split_hands_two_halves",
        "test_hirschberg_split_hands_two_halves_one",
        "test_scipy_milp_refuses_empty_problem",
        "test_x_import_os_os_system",
        "test_case",
    ]


def test_comments_hold_printable_ascii_on_lines_of_their_own():
    lines = pytorch_tests.comment_lines("one\ntwo\r\nthree\u2028four\x0cfive", "    ")
    assert lines == ["    # one two three four five"]


SOLVERS = ["greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg"]


def test_no_cause_takes_the_name_of_one_of_the_files_own_tests():
    """Parametrized over the solvers, a cause called "large capacity" would be test_large_capacity_SOLVER,
    as the file's own test of that family is; "exhaustive small known defect dp knapsack" would take a
    known-defect test's name."""
    causes = ["large capacity", "exhaustive small", "exhaustive small known defect dp knapsack",
              "corpus optima match brute force", "every test is defined", "large capacity"]
    names = export_plan.test_names([export_plan.cause_words(text) for text in causes], SOLVERS)
    taken = [name for cause in names for name in export_plan.parametrized(cause, SOLVERS)]
    assert len(set(taken)) == len(taken) and not set(taken) & export_plan.file_tests(SOLVERS), names


def run_file(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, path.name, "-v"], capture_output=True, text=True, timeout=300,
                          cwd=path.parent, env=WITHOUT_CI)


def test_a_cause_named_like_a_test_of_the_file_is_run_and_the_file_counts_its_tests(tmp_path, monkeypatch):
    """A cause called "large capacity" used to replace the file's own test_large_capacity, and the
    file still said OK. Its test now has a name of its own, the file runs both, and a file that
    lost a test to another of the same name fails."""
    monkeypatch.setattr(export_plan, "ENUMERATED", {"large_capacity": export_plan.ENUMERATED["large_capacity"]})
    corpus = write_corpus(tmp_path / "corpus.json", [case(why="large capacity")])
    out = tmp_path / "test_exported.py"
    assert main(["export-tests", "--corpus", corpus, "--out", str(out)]) == 0
    done = run_file(out)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = re.findall(r"^(test_\w+) ", done.stderr, re.M)
    assert {f"test_large_capacity_{solver}" for solver in SOLVERS} <= set(ran)
    assert {f"test_large_capacity_2_{solver}" for solver in SOLVERS} <= set(ran)
    count = int(re.search(r"^TEST_COUNT = (\d+)", out.read_text(), re.M).group(1))
    assert len(ran) == count and "test_every_test_is_defined" in ran

    out.write_text(out.read_text().replace("def test_large_capacity_2(self, solver)", "def test_large_capacity(self, solver)"))
    done = run_file(out)
    assert done.returncode == 1
    assert f"AssertionError: the file defines {count - 4} tests, not the {count} it was exported with" in done.stderr
