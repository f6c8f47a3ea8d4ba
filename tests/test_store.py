"""The failure store keeps the smallest instance per signature, atomically, reads back what it
wrote, and trusts nothing else: unreadable files are set aside, never the reason a valid one goes."""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
from dataclasses import replace

import pytest

from knapcheck.commands.cli import main
from knapcheck.commands.fuzz_command import duration
from knapcheck.fuzz.campaign.store import FailureStore, StoredFailure, group_name, record_name
from knapcheck.fuzz.corpus.atomic_write import write_atomically
from knapcheck.fuzz.judging.verdicts.differential import check, instance_id, with_baseline
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import register, unregister

GREEDY_ALL = SolverEntry("takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="ours")
BIG = Instance((0.0003, 0.0002, 0.0004), (1.0, 2.0, 3.0), 0.0001)
SMALL = Instance((0.0003,), (1.0,), 0.0001)


def test_store_keeps_the_smallest_instance_per_signature(tmp_path):
    store = FailureStore(tmp_path)
    big, small = check(GREEDY_ALL, BIG, "tiny"), check(GREEDY_ALL, SMALL, "tiny")
    assert big.verdict.value == small.verdict.value == "OVER_BUDGET"

    assert store.record(big) is not None
    assert store.record(small) is not None
    assert store.record(big) is None, "a larger instance than the stored one is not written"
    assert store.record(small) is None, "nor is the same one twice"

    (stored,) = store.groups().values()
    assert stored.signature == Signature("takes_everything", "OVER_BUDGET")
    assert stored.instance == SMALL and stored.ours and stored.family == "tiny"
    directory = tmp_path / "failures" / group_name(stored.signature)
    assert len(list(directory.iterdir())) == 2
    store.prune()
    assert [p.name for p in directory.iterdir()] == [stored.path.name]


FULL_TABLE = SolverEntry("full_table_baseline", "knapcheck.solvers.full_table:full_table", exact=True, origin="torch")
ALSO_TAKES_EVERYTHING = replace(GREEDY_ALL, name="takes_everything_baseline", origin="torch")


def test_a_regression_is_never_pruned_in_favour_of_a_smaller_failure_the_baseline_shares(tmp_path):
    """Against a baseline, the baseline's verdict is part of the signature: the store keeps the
    smallest instance of each. It used to group both under (solver, verdict) and keep only the
    smaller one, the baseline's own known defect."""
    regression = with_baseline(check(GREEDY_ALL, BIG, "tiny"), FULL_TABLE, check(FULL_TABLE, BIG, "tiny"))
    shared = with_baseline(check(GREEDY_ALL, SMALL, "tiny"), ALSO_TAKES_EVERYTHING, check(ALSO_TAKES_EVERYTHING, SMALL, "tiny"))
    assert (regression.baseline_verdict, shared.baseline_verdict) == ("OPTIMAL", "OVER_BUDGET")
    store = FailureStore(tmp_path)
    assert store.record(regression) is not None and store.record(shared) is not None
    store.prune()
    groups = FailureStore(tmp_path).groups()
    assert sorted(groups) == [Signature("takes_everything", "OVER_BUDGET", "OPTIMAL"),
                              Signature("takes_everything", "OVER_BUDGET", "OVER_BUDGET")]
    kept = groups[Signature("takes_everything", "OVER_BUDGET", "OPTIMAL")]
    assert kept.instance == BIG and kept.baseline == "full_table_baseline"
    record = json.loads(kept.path.read_text())
    assert (record["baseline"], record["baseline_verdict"], record["instance_id"]) == (
        "full_table_baseline", "OPTIMAL", instance_id(BIG))
    assert "--vs-OPTIMAL--" in kept.path.parent.name


def test_a_signature_without_a_baseline_keeps_its_group_name_and_record():
    """Stores written before baselines came read the same: no new key, the same group name."""
    digest = hashlib.sha1(b"takes_everything\0OVER_BUDGET").hexdigest()[:10]
    assert group_name(Signature("takes_everything", "OVER_BUDGET")) == f"takes_everything--OVER_BUDGET--{digest}"
    assert "baseline" not in StoredFailure.of(check(GREEDY_ALL, SMALL, "tiny")).as_dict()


def test_a_record_whose_instance_id_is_not_its_instance_s_is_set_aside(tmp_path):
    store = FailureStore(tmp_path)
    path = store.record(check(GREEDY_ALL, SMALL, "tiny"))
    record = json.loads(path.read_text())
    path.write_text(json.dumps(dict(record, instance_id="0123456789abcdef")))
    assert FailureStore(tmp_path).groups() == {}


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "a" / "b.json"
    write_atomically(path, json.dumps({"x": 1}))
    write_atomically(path, json.dumps({"x": 2}))
    assert json.loads(path.read_text()) == {"x": 2}
    assert [p.name for p in path.parent.iterdir()] == ["b.json"]


def test_group_names_differ_for_solvers_that_slug_alike():
    assert group_name(Signature("a/b.py:f", "CRASH")) != group_name(Signature("a_b.py:f", "CRASH"))


@pytest.mark.parametrize("text, seconds", [("30", 30), ("30s", 30), ("10m", 600), ("8h", 28800), ("1.5h", 5400)])
def test_duration_units(text, seconds):
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["0s", "-1m", "2d", "h"])
def test_duration_rejects_what_it_cannot_read(text):
    with pytest.raises(argparse.ArgumentTypeError, match="positive duration"):
        duration(text)


def _stored_small():
    return StoredFailure.of(check(GREEDY_ALL, SMALL, "tiny"))


def _with(**changes) -> bytes:
    record = _stored_small().as_dict()
    record.update(changes)
    return json.dumps(record).encode()


def _without(key: str) -> bytes:
    record = _stored_small().as_dict()
    del record[key]
    return json.dumps(record).encode()


def _nan_instance() -> bytes:
    text = json.dumps(_stored_small().as_dict())
    return text.replace('"runtimes": [1.0]', '"runtimes": [NaN]').encode()


BAD_FILES = {
    "truncated": json.dumps(_stored_small().as_dict()).encode()[:40],
    "empty": b"",
    "list": b"[]",
    "null": b"null",
    "not UTF-8": b"\xff\xfe{\"solver\": 1}",
    "missing key": _without("verdict"),
    "NaN in the instance": _nan_instance(),
    "instance as a string": _with(instance="[0.0003] [1.0] 0.0001"),
    "mistyped field": _with(ours="yes"),
    "unknown verdict": _with(verdict="MOSTLY_FINE"),
    "another group's record": _with(solver="someone_else"),
    "a larger instance under the smallest name": json.dumps(StoredFailure.of(check(GREEDY_ALL, BIG, "tiny")).as_dict()).encode(),
    "nested 100000 deep": b"[" * 100_000 + b"]" * 100_000,
    "a memory of 1e400": json.dumps(_stored_small().as_dict()).replace("0.0003", "1e400").encode(),
}
"""Every kind of bad file the store must survive. Each is named so that it sorts first in its group
(before the valid, smaller-instance file), which is where a trusting reader would take it for the
group's smallest instance."""


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_bad_file_is_set_aside_and_never_costs_a_valid_one(tmp_path, kind):
    store = FailureStore(tmp_path)
    valid_small = store.record(check(GREEDY_ALL, SMALL, "tiny"))
    valid_big = store.record(check(GREEDY_ALL, BIG, "tiny"))
    assert valid_small is not None and valid_big is None
    bad = valid_small.parent / "00000-000000000-bad.json"
    bad.write_bytes(BAD_FILES[kind])
    assert sorted(valid_small.parent.iterdir())[0] == bad

    (stored,) = store.groups().values()
    assert stored.instance == SMALL and stored.path == valid_small
    store.prune()
    assert [p.name for p in valid_small.parent.iterdir()] == [valid_small.name], "the valid file stays"
    (moved,) = store.bad_files
    assert moved.path == bad and moved.moved_to.read_bytes() == BAD_FILES[kind]
    assert moved.moved_to.parent == tmp_path / "unreadable" and moved.reason
    assert store.record(check(GREEDY_ALL, SMALL, "tiny")) is None, "the valid file still counts"


def test_a_group_of_only_bad_files_takes_a_new_failure(tmp_path):
    store = FailureStore(tmp_path)
    directory = tmp_path / "failures" / group_name(Signature("takes_everything", "OVER_BUDGET"))
    directory.mkdir(parents=True)
    (directory / "00000-000000000-bad.json").write_bytes(BAD_FILES["truncated"])
    path = store.record(check(GREEDY_ALL, BIG, "tiny"))
    assert path is not None and store.groups()[Signature("takes_everything", "OVER_BUDGET")].instance == BIG


def test_pruning_and_reading_beside_a_writer_at_work(tmp_path):
    """A writer records ever smaller instances of several signatures while a pruner and a reader
    run flat out: neither trips over the writer's temporary files or over files that vanish under
    them, and each group keeps its smallest instance."""
    store = FailureStore(tmp_path)
    instances = [Instance(tuple([0.0003] * n), tuple([1.0] * n), 0.0001) for n in range(25, 0, -1)]
    solvers = [replace(GREEDY_ALL, name=f"takes_everything_{k}") for k in range(4)]
    failures = [[check(solver, instance, "tiny") for instance in instances] for solver in solvers]
    errors: list[BaseException] = []
    done = threading.Event()

    def keep_going(work) -> None:
        try:
            while not done.is_set():
                work()
        except BaseException as exc:
            errors.append(exc)

    works = (FailureStore(tmp_path).prune, FailureStore(tmp_path).groups)
    threads = [threading.Thread(target=keep_going, args=(work,)) for work in works]
    for thread in threads:
        thread.start()
    try:
        for group in failures:
            for failure in group:
                assert store.record(failure) is not None
    finally:
        done.set()
        for thread in threads:
            thread.join()
    assert errors == []
    store.prune()
    groups = store.groups()
    assert sorted(groups) == sorted(Signature(s.name, "OVER_BUDGET") for s in solvers)
    for stored in groups.values():
        assert [p.name for p in stored.path.parent.iterdir()] == [record_name(instances[-1])]
    assert store.bad_files == []


@pytest.fixture
def greedy_all_registered():
    register(GREEDY_ALL)
    yield GREEDY_ALL
    unregister(GREEDY_ALL.name)


def test_promote_takes_the_good_files_and_names_the_bad_one(tmp_path, capsys, greedy_all_registered):
    store = FailureStore(tmp_path / "db")
    good = store.record(check(GREEDY_ALL, SMALL, "tiny"))
    bad = good.parent / "00000-000000000-bad.json"
    bad.write_bytes(BAD_FILES["instance as a string"])
    corpus = tmp_path / "corpus.json"
    assert main(["promote", "--db", str(tmp_path / "db"), "--corpus", str(corpus)]) == 0
    captured = capsys.readouterr()
    assert "1 case added to" in captured.out
    assert str(bad) in captured.err and "instance is malformed: expected an object" in captured.err
    assert json.loads(corpus.read_text())["cases"][0]["solver"] == "takes_everything"


def test_a_valid_record_under_a_false_name_never_costs_the_real_smallest_nor_is_promoted(tmp_path, capsys, greedy_all_registered):
    """A record of the larger instance, named as if it were the smallest of its group: prune used to
    keep it and delete the real smallest, and promote used to promote it."""
    store = FailureStore(tmp_path / "db")
    small = store.record(check(GREEDY_ALL, SMALL, "tiny"))
    liar = small.parent / "00000-000000000-0000000000000000.json"
    liar.write_bytes(BAD_FILES["a larger instance under the smallest name"])
    corpus = tmp_path / "corpus.json"
    assert main(["promote", "--db", str(tmp_path / "db"), "--corpus", str(corpus)]) == 0
    assert "a file's name is not trusted" in capsys.readouterr().err
    (case,) = json.loads(corpus.read_text())["cases"]
    assert Instance.from_dict(case["instance"]) == SMALL
    FailureStore(tmp_path / "db").prune()
    assert [p.name for p in small.parent.iterdir()] == [small.name]


def test_a_read_only_store_is_read_and_what_cannot_be_done_is_said_not_raised(tmp_path, read_only):
    store = FailureStore(tmp_path)
    small = store.record(check(GREEDY_ALL, SMALL, "tiny"))
    big = small.parent / record_name(BIG)
    big.write_text(json.dumps(StoredFailure.of(check(GREEDY_ALL, BIG, "tiny")).as_dict()))
    bad = small.parent / "00000-000000000-bad.json"
    bad.write_bytes(BAD_FILES["truncated"])
    read_only(tmp_path)
    reader = FailureStore(tmp_path)
    reader.prune()
    (stored,) = reader.groups().values()
    assert stored.instance == SMALL
    assert sorted(p.name for p in small.parent.iterdir()) == sorted([small.name, big.name, bad.name]), "nothing changed"
    assert [(b.path, b.moved_to) for b in reader.bad_files] == [(bad, None)]
    assert any(f"cannot remove {big}" in e for e in reader.errors)
    assert any(f"cannot set aside {bad}" in e for e in reader.errors)
    with pytest.raises(OSError):
        reader.record(check(GREEDY_ALL, Instance((), (), 0.0), "tiny"))
