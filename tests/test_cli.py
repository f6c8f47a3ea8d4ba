"""The `knapcheck` command line, run in-process: check, solvers, solve."""

import json

import pytest

from knapcheck.cli import main
from solvers.entry import SolverEntry
from solvers.registry import register, unregister


@pytest.fixture
def planted_ours():
    entry = register(SolverEntry("planted_takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="ours"))
    yield entry
    unregister(entry.name)


def test_check_passes_our_reference_and_writes_json(tmp_path, capsys):
    path = tmp_path / "check.json"
    assert main(["check", "--targets", "full_table", "--per-family", "3", "--json", str(path)]) == 0
    assert "full_table" in capsys.readouterr().out
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and data["failures"] == []
    assert data["solvers"][0]["verdicts"]["OPTIMAL"] == data["instances"]


def test_check_exits_1_and_shows_a_reproduction_when_ours_fails(planted_ours, capsys):
    assert main(["check", "--targets", planted_ours.name, "--per-family", "5", "--families", "tight_budget"]) == 1
    out = capsys.readouterr().out
    assert "planted_takes_everything: OVER_BUDGET" in out
    assert "from planted.wrong_answers import takes_everything as solve" in out


def test_upstream_failures_do_not_fail_the_check(capsys):
    assert main(["check", "--targets", "torch:dp_knapsack", "--per-family", "20", "--families", "zero_items"]) == 0
    assert "torch:dp_knapsack: SUBOPTIMAL" in capsys.readouterr().out


def test_solvers_lists_ours_and_torchs(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "full_table" in out and "torch:greedy_knapsack" in out and "heuristic" in out


def test_solve_prints_answer_and_verdict(tmp_path, capsys):
    path = tmp_path / "instance.json"
    path.write_text(json.dumps({"memory": [0.0001, 0.0004, 0.0003, 0.0003], "runtimes": [1, 1, 3, 3], "max_memory": 0.001}))
    assert main(["solve", "full_table", str(path)]) == 0
    assert "verdict: OPTIMAL" in capsys.readouterr().out
    assert main(["solve", "torch:dp_knapsack_sliding_hirschberg", str(path)]) == 1
    assert "verdict: OVER_BUDGET" in capsys.readouterr().out


def test_bad_arguments_say_what_to_do(tmp_path):
    with pytest.raises(SystemExit, match="unknown solver 'nope'"):
        main(["check", "--targets", "nope"])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"memory": [0.1], "runtimes": [1.0, 2.0], "max_memory": 1}))
    with pytest.raises(SystemExit, match="same length"):
        main(["solve", "full_table", str(path)])
