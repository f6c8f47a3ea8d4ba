"""`knapcheck promote` writes to the corpus it is told to, or to the repository's it runs in, and says which."""

import json
import subprocess
import sys

import pytest
from campaigns import environment

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


PROMOTERS = 20


def _promote_at_once(stores, corpus, cwd) -> list[str]:
    """``knapcheck promote`` from each store, all started before any has finished; their outputs."""
    processes = [
        subprocess.Popen([sys.executable, "-m", "knapcheck", "promote", "--db", str(db), "--corpus", str(corpus)], cwd=cwd,
                         env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for db in stores
    ]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        outputs.append(out)
    return outputs


def test_twenty_promotions_at_once_each_keep_their_case_and_say_so(tmp_path):
    """Twenty runs used to each say "1 case added" while the corpus kept 11: read-modify-write raced."""
    stores = []
    for k in range(PROMOTERS):
        db = tmp_path / f"db{k}"
        FailureStore(db).record(check(TAKES_EVERYTHING, Instance((0.0003,) * (k + 1), (1.0,) * (k + 1), 0.0001), "tiny"))
        stores.append(db)
    corpus = tmp_path / "corpus.json"
    corpus.write_text(EMPTY)
    outputs = _promote_at_once(stores, corpus, tmp_path)
    assert all("1 case added" in out for out in outputs)
    assert len(load_regression_corpus(corpus)) == PROMOTERS


def test_twenty_promotions_of_one_store_at_once_add_its_case_once_and_say_so(store, tmp_path):
    corpus = tmp_path / "corpus.json"
    outputs = _promote_at_once([store] * PROMOTERS, corpus, tmp_path)
    assert sorted(out.splitlines()[-1].split(" case")[0] for out in outputs) == ["0"] * (PROMOTERS - 1) + ["1"]
    assert len(load_regression_corpus(corpus)) == 1


def test_a_record_that_claims_a_solver_is_ours_when_the_registry_says_otherwise_is_refused(tmp_path, capsys):
    db = tmp_path / "db"
    liar = SolverEntry("evil.py:solve", "planted.wrong_answers:takes_everything", exact=True, origin="ours")
    FailureStore(db).record(check(liar, Instance((0.0003,), (1.0,), 0.0001), "tiny"))
    FailureStore(db).record(check(TAKES_EVERYTHING, Instance((0.0003,), (1.0,), 0.0001), "tiny"))
    corpus = tmp_path / "corpus.json"
    assert main(["promote", "--db", str(db), "--corpus", str(corpus)]) == 0
    out, err = capsys.readouterr()
    assert "refused" in err and "'evil.py:solve' is not a registered solver of ours" in err
    assert "1 case added" in out and "1 stored record refused" in out
    assert [case.solver for case in load_regression_corpus(corpus)] == ["takes_everything"]
