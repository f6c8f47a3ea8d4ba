"""`knapcheck promote` writes to the corpus it is told to, or to the repository's it runs in, and says which."""

import json

import pytest

from knapcheck.fuzz.differential import check
from knapcheck.fuzz.regression_corpus import load_regression_corpus
from knapcheck.fuzz.store import FailureStore
from knapcheck.cli import main
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry

TAKES_EVERYTHING = SolverEntry("takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="test")
EMPTY = '{"schema_version": 1, "cases": []}'


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "db"
    FailureStore(db).record(check(TAKES_EVERYTHING, Instance((0.0003,), (1.0,), 0.0001), "tiny"))
    return db


@pytest.fixture
def repository(tmp_path):
    root = tmp_path / "checkout"
    (root / "fuzz" / "corpus").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "knapcheck"\n')
    (root / "fuzz" / "corpus" / "regressions.json").write_text(EMPTY)
    return root


def test_inside_a_repository_it_writes_the_repository_s_corpus(store, repository, monkeypatch, capsys):
    monkeypatch.chdir(repository / "docs")
    assert main(["promote", "--db", str(store)]) == 0
    corpus = repository / "fuzz" / "corpus" / "regressions.json"
    assert f"1 case added to {corpus} (the repository's corpus" in capsys.readouterr().out
    assert [case.solver for case in load_regression_corpus(corpus)] == ["takes_everything"]


def test_elsewhere_it_needs_a_corpus_named(store, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["promote", "--db", str(store)]) == 2
    assert "name the corpus to write with --corpus" in capsys.readouterr().err
    named = tmp_path / "mine.json"
    assert main(["promote", "--db", str(store), "--corpus", str(named)]) == 0
    assert f"1 case added to {named} (named by --corpus)" in capsys.readouterr().out
    assert json.loads(named.read_text())["schema_version"] == 1


def test_an_unwritable_corpus_is_refused_before_anything_is_read(store, tmp_path, capsys):
    assert main(["promote", "--db", str(store), "--corpus", str(tmp_path)]) == 2
    assert "--corpus" in capsys.readouterr().err
