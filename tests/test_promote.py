"""`knapcheck promote` writes to the corpus it is told to, or to the repository's it runs in, and says which."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from campaigns import environment

from knapcheck.commands.cli import main
from knapcheck.fuzz.campaign.promotion import case_of, holding_case, promote
from knapcheck.fuzz.campaign.store import FailureStore, StoredFailure
from knapcheck.fuzz.corpus.known_failures import KnownFailure, load_known_failures
from knapcheck.fuzz.judging.verdicts.differential import check
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
    (root / "fuzz" / "corpus" / "known_failures.json").write_text(EMPTY)
    return root


def test_inside_a_repository_it_writes_the_repository_s_corpus(store, repository, monkeypatch, capsys):
    monkeypatch.chdir(repository / "docs")
    assert main(["promote", "--db", str(store)]) == 0
    corpus = repository / "fuzz" / "corpus" / "known_failures.json"
    assert f"1 case added to {corpus} (the repository's corpus" in capsys.readouterr().out
    assert [case.solver for case in load_known_failures(corpus)] == ["takes_everything"]


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


PROMOTERS = 10


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


def test_ten_promotions_at_once_each_keep_their_case_and_say_so(tmp_path):
    """Twenty runs used to each say "1 case added" while the corpus kept 11: read-modify-write raced.
    (Ten solvers, so that each store holds a signature of its own.)"""
    stores = []
    for k in range(PROMOTERS):
        db = tmp_path / f"db{k}"
        solver = replace(TAKES_EVERYTHING, name=f"takes_everything_{k}")
        FailureStore(db).record(check(solver, Instance((0.0003,) * (k + 1), (1.0,) * (k + 1), 0.0001), "tiny"))
        stores.append(db)
    corpus = tmp_path / "corpus.json"
    corpus.write_text(EMPTY)
    outputs = _promote_at_once(stores, corpus, tmp_path)
    assert all("1 case added" in out for out in outputs)
    assert len(load_known_failures(corpus)) == PROMOTERS


def test_ten_promotions_of_one_store_at_once_add_its_case_once_and_say_so(store, tmp_path):
    corpus = tmp_path / "corpus.json"
    outputs = _promote_at_once([store] * PROMOTERS, corpus, tmp_path)
    assert sorted(out.splitlines()[-1].split(" case")[0] for out in outputs) == ["0"] * (PROMOTERS - 1) + ["1"]
    assert len(load_known_failures(corpus)) == 1


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
    assert [case.solver for case in load_known_failures(corpus)] == ["takes_everything"]


MID = Instance((0.0003, 0.0002), (1.0, 2.0), 0.0001)
BIG = Instance((0.0003, 0.0002, 0.0004), (1.0, 2.0, 3.0), 0.0001)
SMALL = Instance((0.0003,), (1.0,), 0.0001)
NEGATIVE = Instance((0.0003, 0.0002), (-1.0, 2.0), 0.0001)
"""Another cause of the same verdict: a negative runtime (``knapcheck.fuzz.judging.known.traits.matched_traits``)."""


def _stored(instance: Instance, entry: SolverEntry = TAKES_EVERYTHING, **fields) -> StoredFailure:
    return replace(StoredFailure.of(check(entry, instance, "tiny")), **fields)


def _corpus(tmp_path, *cases) -> Path:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"schema_version": 1, "cases": [c.as_dict() for c in cases]}))
    return corpus


def test_a_signature_the_corpus_holds_is_never_added_twice_and_a_smaller_instance_replaces_its_case(tmp_path):
    """promote used to add a case for every stored failure whose instance differed: 7 cases of
    causes the corpus already held (20 -> 27), and it skipped 3 without a word."""
    held = replace(case_of(_stored(MID)), why="takes every item")
    corpus = _corpus(tmp_path, held)
    done = promote([_stored(BIG)], corpus)
    assert done.added == done.replaced == []
    (skipped,) = done.skipped
    assert held.id in skipped.reason and "at least as small" in skipped.reason
    assert load_known_failures(corpus) == [held]

    done = promote([_stored(SMALL), _stored(NEGATIVE)], corpus)
    ((old, new),) = done.replaced
    assert old == held and new.instance == SMALL and new.why == "takes every item"
    assert [case.instance for case in done.added] == [NEGATIVE], "another cause is another signature"
    assert [case.instance for case in load_known_failures(corpus)] == [SMALL, NEGATIVE]


def test_a_copy_s_failure_never_replaces_torch_s_case_but_a_regression_against_torch_is_its_own():
    copy = "/pr/knapsack.py:greedy_knapsack"
    zero_memory = Instance((0.0,), (1.0,), 0.0)
    torch_case = KnownFailure("torch_greedy_knapsack-REJECTED-x", "torch:greedy_knapsack", False, "REJECTED", "tiny",
                                "torch", "", Instance((0.0,), (2.0,), 0.0))
    shared = _stored(zero_memory, solver=copy, verdict="REJECTED", baseline="torch:greedy_knapsack",
                     baseline_verdict="REJECTED")
    assert holding_case(shared, [torch_case]) == torch_case
    assert holding_case(replace(shared, baseline="", baseline_verdict=""), [torch_case]) == torch_case
    regression = replace(shared, baseline_verdict="OPTIMAL")
    assert holding_case(regression, [torch_case]) is None


def test_promote_names_every_record_it_skips_and_what_it_replaced(tmp_path, capsys):
    db = tmp_path / "db"
    big = FailureStore(db).record(check(TAKES_EVERYTHING, BIG, "tiny"))
    FailureStore(tmp_path / "db2").record(check(TAKES_EVERYTHING, SMALL, "tiny"))
    corpus = _corpus(tmp_path, case_of(_stored(MID)))
    assert main(["promote", "--db", str(db), "--corpus", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert f"skipped {big}: the corpus already holds its signature" in out
    assert "0 cases added" in out and "1 skipped (above)" in out
    assert main(["promote", "--db", str(tmp_path / "db2"), "--corpus", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert f"replaced {case_of(_stored(MID)).id} (n=2) by the smaller {case_of(_stored(SMALL)).id}" in out
    assert "0 cases added" in out and "1 replaced by a smaller one" in out
