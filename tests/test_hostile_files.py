"""Every file knapcheck reads, hostile: a FIFO, a link to /dev/zero, nesting 100000 deep, a number
beyond a float's range, fields of the wrong type. Each command answers in one line with exit
status 2 (or, inside the store, sets the file aside and goes on), within seconds."""

from __future__ import annotations

import json
import os

import pytest
from hostile_files import INSTANCE, SAYS, SPECIAL, knapcheck, python

from knapcheck.fuzz.campaign.store import FailureStore
from knapcheck.fuzz.corpus.harvest_records import FORMAT
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry

EMPTY_CORPUS = '{"schema_version": 1, "cases": []}'
CHECK = ["check", "--targets", "full_table", "--families", "tiny", "--per-family", "1"]
HARVESTED_RECORD = {"model": "mlp", "budget": 0.0004, "call": 0, "torch_version": "2.13.0", "backend": "inductor", **INSTANCE}
CASE = {"id": "full_table-OVER_BUDGET-0123456789", "solver": "full_table", "ours": True, "verdict": "OVER_BUDGET",
        "family": "tiny", "origin": "ours", "found_at": "2026-01-01T00:00:00Z", "instance": INSTANCE}


def _harvested(**record) -> str:
    return json.dumps({"schema_version": 1, "format": FORMAT, "records": [{**HARVESTED_RECORD, **record}]})


def _one_line_usage_error(done, *words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]


def _commands(tmp_path, path) -> dict[str, list[str]]:
    corpus = tmp_path / "empty.json"
    corpus.write_text(EMPTY_CORPUS)
    return {
        "solve FILE": ["solve", "full_table", str(path)],
        "check --instances FILE": [*CHECK, "--corpus", str(corpus), "--instances", str(path)],
        "check --corpus FILE": [*CHECK, "--corpus", str(path)],
        "export-tests --corpus FILE": ["export-tests", "--corpus", str(path), "--out", str(tmp_path / "t.py")],
        "promote --corpus FILE": ["promote", "--db", str(_store_with_a_failure(tmp_path)), "--corpus", str(path)],
    }


def _store_with_a_failure(tmp_path):
    db = tmp_path / "db"
    entry = SolverEntry("torch_like", "planted.wrong_answers:takes_everything", exact=True, origin="file x.py")
    FailureStore(db).record(check(entry, Instance((0.0003,), (1.0,), 0.0001), "tiny"))
    return db


COMMANDS = ["solve FILE", "check --instances FILE", "check --corpus FILE", "export-tests --corpus FILE",
            "promote --corpus FILE"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kind", list(SPECIAL))
def test_a_special_file_named_on_the_command_line_is_one_line_and_exit_2(tmp_path, kind, command):
    path = SPECIAL[kind](tmp_path / "hostile.json")
    done = knapcheck(*_commands(tmp_path, path)[command], cwd=tmp_path)
    _one_line_usage_error(done, str(path), SAYS[kind])


BAD_CONTENTS = {
    "instance with 1e400": ("solve FILE", json.dumps(INSTANCE).replace("0.0003", "1e400"), "beyond a float's range"),
    "instance with NaN": ("solve FILE", json.dumps(INSTANCE).replace("0.0003", "NaN"), "NaN"),
    "instance with a string": ("solve FILE", json.dumps({**INSTANCE, "max_memory": "0.1"}), "max_memory is malformed"),
    "instance memory an object": ("solve FILE", json.dumps({**INSTANCE, "memory": {"a": 1}}), "memory is malformed"),
    "harvested records: 5": ("check --instances FILE", _harvested().replace('"records": [', '"records": 5, "x": [', 1),
                             "records is malformed: expected a list, got 5"),
    "harvested records: null": ("check --instances FILE", _harvested().replace('"records": [', '"records": null, "x": [', 1),
                                "records is malformed"),
    "harvested call: 1e400": ("check --instances FILE", _harvested(call=0).replace('"call": 0', '"call": 1e400'), "beyond a float"),
    "harvested call: 1.5": ("check --instances FILE", _harvested(call=1.5), "records[0].call is malformed: expected an integer"),
    "harvested budget: a list": ("check --instances FILE", _harvested(budget=[1]), "records[0].budget is malformed"),
    "corpus cases: a string": ("check --corpus FILE", '{"schema_version": 1, "cases": "x"}', "cases is malformed"),
    "corpus case ours: 1": ("check --corpus FILE", json.dumps({"schema_version": 1, "cases": [{**CASE, "ours": 1}]}),
                            "cases[0].ours is malformed"),
    "corpus with 1e400": ("check --corpus FILE",
                          json.dumps({"schema_version": 1, "cases": [CASE]}).replace("0.0004", "1e400"), "beyond a float"),
}


@pytest.mark.parametrize("kind", list(BAD_CONTENTS))
def test_a_malformed_file_is_one_line_naming_the_place_and_exit_2(tmp_path, kind):
    command, text, says = BAD_CONTENTS[kind]
    path = tmp_path / "bad.json"
    path.write_text(text)
    _one_line_usage_error(knapcheck(*_commands(tmp_path, path)[command], cwd=tmp_path), str(path), says)


@pytest.mark.parametrize("kind", list(SPECIAL))
def test_a_special_file_in_the_store_is_set_aside_unread_and_promote_goes_on(tmp_path, kind):
    db = _store_with_a_failure(tmp_path)
    (group,) = (db / "failures").iterdir()
    hostile = SPECIAL[kind](group / "00000-000000000-hostile.json")
    done = knapcheck("promote", "--db", str(db), "--corpus", str(tmp_path / "corpus.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 case added" in done.stdout
    says = "symbolic link" if kind == "a link to /dev/zero" else SAYS[kind]
    assert f"skipped unreadable {hostile}" in done.stderr and says in done.stderr, "the store holds no links: refused unfollowed"
    assert not os.path.lexists(hostile) and list((db / "unreadable").iterdir())


def test_the_hypothesis_directory_skips_special_and_huge_entries_unread(tmp_path):
    """Run in a child: the reader it replaces waits on a FIFO forever and reads /dev/zero without end."""
    from knapcheck.fuzz.campaign.example_database import CheckedDirectoryDatabase

    database = CheckedDirectoryDatabase(tmp_path / "hypothesis")
    database.save(b"key", b"a real example")
    (directory,) = [p for p in (tmp_path / "hypothesis").iterdir() if list(p.iterdir()) and p.name != database._metakeys_hash]
    for kind, make in SPECIAL.items():
        if kind != "nested 100000 deep":
            make(directory / kind.replace(" ", "-").replace("/", "-"))
    (directory / "huge").write_bytes(b"x" * (2**20 + 1))
    code = (
        "from knapcheck.fuzz.campaign.example_database import open_database\n"
        f"print(sorted(open_database({str(tmp_path)!r}).fetch(b'key')))\n"
    )
    done = python(code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[b'a real example']"
