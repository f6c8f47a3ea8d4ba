"""The `knapcheck` command line, run in-process: check, solvers, solve."""

import json
from fractions import Fraction

import pytest

import fuzz.check
from knapcheck.cli import main
from oracles.result import OracleResult
from solvers.contract import Instance
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


def test_solve_judges_every_solver_the_spec_names(tmp_path, capsys):
    path = tmp_path / "instance.json"
    path.write_text(json.dumps({"memory": [0.0001, 0.0004, 0.0003, 0.0003], "runtimes": [1, 1, 3, 3], "max_memory": 0.001}))
    assert main(["solve", "torch", str(path)]) == 1
    out = capsys.readouterr().out
    solvers = [line.split()[1] for line in out.splitlines() if line.startswith("solver:")]
    assert solvers == ["torch:greedy_knapsack", "torch:ilp_knapsack", "torch:dp_knapsack", "torch:dp_knapsack_sliding_hirschberg"]
    assert out.count("verdict: ") == 4 and "verdict: OVER_BUDGET" in out


def test_solve_judges_weights_beyond_int64_without_crashing(tmp_path, capsys):
    path = tmp_path / "instance.json"
    memory = [1e15 * (1 + i % 5) for i in range(13)]
    path.write_text(json.dumps({"memory": memory, "runtimes": [i + 1 for i in range(13)], "max_memory": 1e16}))
    assert main(["solve", "sliding_hirschberg", str(path)]) == 0
    out = capsys.readouterr().out
    assert "optimum: 50.0 (cpsat)" in out and "verdict: OPTIMAL" in out


def test_an_oracle_shown_wrong_is_reported_with_its_instance_and_the_check_goes_on(monkeypatch, capsys, tmp_path):
    def lying_oracle(instance: Instance) -> OracleResult:
        return OracleResult("lying", Fraction(0), (), proven=True)

    monkeypatch.setattr(fuzz.check, "optimum", lying_oracle)
    path = tmp_path / "check.json"
    assert main(["check", "--targets", "full_table", "--per-family", "3", "--families", "tight_budget", "--json", str(path)]) == 1
    out = capsys.readouterr().out
    assert "ORACLE FINDINGS" in out and "lying proved 0.0 optimal, but a feasible answer is worth" in out
    data = json.loads(path.read_text())
    verdicts = data["solvers"][0]["verdicts"]
    assert data["instances"] == 3 and set(verdicts) <= {"OPTIMAL", "UNVERIFIED"} and data["failures"] == []
    assert len(data["oracle_findings"]) == verdicts["UNVERIFIED"] >= 1
    finding = data["oracle_findings"][0]
    assert finding["oracle"] == "lying" and Instance.from_dict(finding["instance"]).n >= 1


def test_bad_arguments_say_what_to_do(tmp_path):
    with pytest.raises(SystemExit, match="unknown solver 'nope'"):
        main(["check", "--targets", "nope"])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"memory": [0.1], "runtimes": [1.0, 2.0], "max_memory": 1}))
    with pytest.raises(SystemExit, match="same length"):
        main(["solve", "full_table", str(path)])
