"""The failure store keeps the smallest instance per signature, atomically, and reads back what it wrote."""

from __future__ import annotations

import argparse
import json

import pytest

from fuzz.differential import check
from fuzz.store import FailureStore, group_name, write_atomically
from knapcheck.fuzz_command import duration
from solvers.contract import Instance
from solvers.entry import SolverEntry

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
    assert stored.signature == ("takes_everything", "OVER_BUDGET")
    assert stored.instance == SMALL and stored.ours and stored.family == "tiny"
    directory = tmp_path / "failures" / group_name(stored.signature)
    assert len(list(directory.iterdir())) == 2
    store.prune()
    assert [p.name for p in directory.iterdir()] == [stored.path.name]


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "a" / "b.json"
    write_atomically(path, json.dumps({"x": 1}))
    write_atomically(path, json.dumps({"x": 2}))
    assert json.loads(path.read_text()) == {"x": 2}
    assert [p.name for p in path.parent.iterdir()] == ["b.json"]


def test_group_names_differ_for_solvers_that_slug_alike():
    assert group_name(("a/b.py:f", "CRASH")) != group_name(("a_b.py:f", "CRASH"))


@pytest.mark.parametrize("text, seconds", [("30s", 30), ("10m", 600), ("8h", 28800), ("1.5h", 5400)])
def test_duration_units(text, seconds):
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["8", "0s", "-1m", "2d", "h"])
def test_duration_rejects_what_it_cannot_read(text):
    with pytest.raises(argparse.ArgumentTypeError, match="--time"):
        duration(text)
