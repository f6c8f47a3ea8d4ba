"""`knapcheck harvest` on a real compile: the records it writes, and the committed corpus reproduced."""

import json

import pytest
import torch

from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.harvest_records import FORMAT, load_harvested, read_harvested_file
from knapcheck.fuzz.harvest.compile_runs import BACKEND, check_budgets


def test_harvest_command_reproduces_the_committed_corpus(tmp_path, capsys):
    assert main(["harvest", "--model", "mlp", "--budgets", "0.1,0.3", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "mlp.json").read_text())["schema_version"] == 1
    records = read_harvested_file(tmp_path / "mlp.json")
    assert [r.budget for r in records] == [0.1, 0.3]
    for record in records:
        assert (record.model, record.call, record.torch_version, record.backend) == ("mlp", 0, torch.__version__, BACKEND)
        assert record.instance.max_memory == record.budget

    committed = {(r.budget, r.call): r for r in load_harvested() if r.model == "mlp"}
    if committed[(0.1, 0)].torch_version != torch.__version__:
        pytest.skip(f"the corpus was harvested with torch {committed[(0.1, 0)].torch_version}")
    assert [committed[(r.budget, r.call)] for r in records] == records


def test_bad_budgets_are_named_by_index():
    with pytest.raises(ValueError, match=r"budgets\[1\]"):
        check_budgets([0.1, 1.5])
    with pytest.raises(ValueError, match=r"budgets\[0\]"):
        check_budgets([float("nan")])


def test_bad_budgets_and_outputs_are_usage_errors_before_compiling(tmp_path, capsys):
    assert main(["harvest", "--model", "mlp", "--budgets", "0.1,half", "--out", str(tmp_path)]) == 2
    assert "--budgets: item 1" in capsys.readouterr().err
    assert main(["harvest", "--model", "mlp", "--budgets", "0.1,1.5", "--out", str(tmp_path)]) == 2
    assert "--budgets: budgets[1]" in capsys.readouterr().err
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["harvest", "--model", "mlp", "--budgets", "0.1", "--out", str(blocker / "out")]) == 2
    out, err = capsys.readouterr()
    assert "--out" in err and out == ""


def test_a_malformed_corpus_record_is_named(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"schema_version": 1, "format": FORMAT, "records": [{"model": "mlp"}]}))
    with pytest.raises(ValueError, match=r"records\[0\].*missing"):
        read_harvested_file(path)
    path.write_text(json.dumps({"records": []}))
    with pytest.raises(ValueError, match="not a harvested corpus"):
        read_harvested_file(path)
