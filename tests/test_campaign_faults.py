"""Campaigns under fault: each test asserts what was stored and how the campaign exited.

A killed Dask worker, a target that segfaults (isolated, or one of ours in the worker), a target that
hangs late, Ctrl-C, a store that cannot take a finding, unreadable stored files, solver chatter,
and outputs that cannot be written.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from campaigns import (
    PLANT_FAMILY,
    PLANTED_MODULE_SPEC,
    PLANTED_SIGNATURE,
    WAIT_SECONDS,
    assert_all_gone,
    dask_workers,
    descendants,
    interrupt,
    read_until,
    report,
    start,
    stored_paths,
    stored_signatures,
)
from planted.chatty import CHATTER
from planted.misbehaving import HANG_AFTER_SECONDS
from test_store import BAD_FILES

from knapcheck.commands.cli import main
from knapcheck.commands.exit_status import FAILED, INCOMPLETE, INTERRUPTED, OK, TERMINATED, USAGE
from knapcheck.fuzz.campaign import cluster as campaign_cluster
from knapcheck.fuzz.campaign.store import FailureStore, group_name
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import register, resolve_one, unregister

SEGFAULT_SPEC = "planted.misbehaving:segfault"
HANG_SPEC = "planted.misbehaving:hangs_late"


@pytest.fixture
def register_ours():
    names = []

    def add(name: str, spec: str) -> SolverEntry:
        names.append(name)
        return register(SolverEntry(name, spec, exact=True, origin="ours"))

    yield add
    for name in names:
        unregister(name)


def _fuzz(tmp_path: Path, *arguments: str, time: str = "3s") -> list[str]:
    return ["fuzz", "--time", time, "--jobs", "1", "--seed", "0", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"),
            *arguments]


def test_a_killed_dask_worker_costs_its_unit_a_retry_and_the_campaign_says_so(tmp_path, capfd):
    """kill -9 one worker of the local cluster once a finding is stored: its unit is retried
    elsewhere and counted, nothing stored is lost, and the exit status says the run was incomplete."""
    killed = []

    def kill_a_worker_after_the_first_finding() -> None:
        give_up = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < give_up and not killed:
            workers = dask_workers(os.getpid())
            if list((tmp_path / "db").glob("failures/*/*.json")) and workers:
                workers[0].kill()
                killed.append(workers[0].pid)
            time.sleep(0.1)

    killer = threading.Thread(target=kill_a_worker_after_the_first_finding)
    killer.start()
    arguments = ["--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY, "--jobs", "2"]
    try:
        status = main(_fuzz(tmp_path, *arguments, time="10s"))
    finally:
        killer.join()
    assert killed and status == INCOMPLETE
    data = report(tmp_path / "out")
    assert not data["as_asked"] and data["workers_lost"]
    assert any("worker died" in unit["reason"] for unit in data["units_retried"])
    err = capfd.readouterr().err
    assert "its worker died; retrying it" in err
    assert all(path.exists() or path.parent.exists() for path in stored_paths(err.splitlines()))
    assert stored_signatures(tmp_path / "db") == [PLANTED_SIGNATURE], "nothing reported is lost"


def test_an_isolated_target_that_segfaults_is_a_stored_crash_and_the_workers_live_on(tmp_path):
    assert main(_fuzz(tmp_path, "--targets", SEGFAULT_SPEC, "--families", "tiny", time="8s")) == OK, "not one of ours"
    data = report(tmp_path / "out")
    assert data["as_asked"] and data["workers_lost"] == [] and data["cases"] > 0
    assert stored_signatures(tmp_path / "db") == [(SEGFAULT_SPEC, "CRASH")]


def test_one_of_ours_that_segfaults_in_the_worker_is_retried_isolated_stored_and_fails_the_run(tmp_path, register_ours):
    register_ours("planted_segfault", SEGFAULT_SPEC)
    arguments = _fuzz(tmp_path, "--targets", "planted_segfault", "--families", "tiny", time="12s")
    assert main(arguments) == FAILED, "the retry, not the deadline, must come first: a few seconds' margin"
    data = report(tmp_path / "out")
    assert data["units_retried"] and data["workers_lost"], "the first attempt died with its worker"
    (finding,) = data["findings"]
    assert (finding["solver"], finding["verdict"], finding["ours"]) == ("planted_segfault", "CRASH", True)
    assert stored_signatures(tmp_path / "db") == [("planted_segfault", "CRASH")]


def test_a_target_that_hangs_late_keeps_its_timeout_and_the_campaign_still_ends_on_time(tmp_path):
    """The target's worker starts before the clock and hangs HANG_AFTER_SECONDS later, before the
    deadline; its call times out after it: the TIMEOUT is stored all the same, and not checked again."""
    arguments = _fuzz(tmp_path, "--targets", HANG_SPEC, "--families", "tiny", "--call-limit", "4", time=f"{HANG_AFTER_SECONDS + 2:g}s")
    assert main(arguments) == OK, "not one of ours"
    data = report(tmp_path / "out")
    assert [(f["solver"], f["verdict"]) for f in data["findings"]] == [(HANG_SPEC, "TIMEOUT")]
    assert stored_signatures(tmp_path / "db") == [(HANG_SPEC, "TIMEOUT")]
    assert data["elapsed_s"] < data["duration_s"] + 2 * data["call_limit_s"], "a TIMEOUT is not checked again"


def _sigterm(campaign) -> None:
    """SIGTERM to the whole process group, as ``timeout`` and systemd send it."""
    os.killpg(campaign.pid, signal.SIGTERM)


@pytest.mark.parametrize("stop, status, word", [(interrupt, INTERRUPTED, "interrupted"), (_sigterm, TERMINATED, "terminated")],
                         ids=["Ctrl-C", "SIGTERM"])
def test_ctrl_c_or_sigterm_stops_the_workers_and_writes_a_partial_report(tmp_path, stop, status, word):
    """Ctrl-C at the terminal, or SIGTERM from ``timeout``, reaches the whole process group: the workers
    used to die of it, and the report listed workers lost and units retried that no fault had caused.
    SIGTERM used to end the command at once, without a report."""
    campaign = start("--time", "120s", "--jobs", "2", "--seed", "0", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"),
                     "--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY)
    seen: list[str] = []
    read_until(campaign, "stored ", seen)
    processes = descendants(campaign.pid)
    stop(campaign)
    out, rest = campaign.communicate(timeout=120)
    assert campaign.returncode == status
    assert "Traceback" not in rest
    data = report(tmp_path / "out")
    assert data["partial"] and data["stopped_by"] == word and data["elapsed_s"] < 120
    markdown = (tmp_path / "out" / "campaign.md").read_text()
    assert f"PARTIAL: {word}" in markdown and out.startswith(f"PARTIAL ({word})")
    assert [(f["solver"], f["verdict"]) for f in data["findings"]] == [PLANTED_SIGNATURE]
    assert data["workers_lost"] == [] and data["units_retried"] == [] and data["units_lost"] == [] and data["as_asked"]
    assert f"- ran as asked: {word} (partial); nothing was lost" in markdown
    assert all(path.exists() or path.parent.exists() for path in stored_paths(seen + rest.splitlines()))
    assert_all_gone(processes)


def test_a_finding_the_store_cannot_take_is_kept_in_the_report_and_the_run_is_incomplete(tmp_path):
    blocked = tmp_path / "db" / "failures" / group_name(Signature(*PLANTED_SIGNATURE))
    blocked.parent.mkdir(parents=True)
    blocked.write_text("a file where the group's directory should be")
    arguments = _fuzz(tmp_path, "--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY, time="10s")
    assert main(arguments) == INCOMPLETE, "the plant shows within seconds; a loaded machine needs a few more"
    data = report(tmp_path / "out")
    assert data["store_errors"] and not data["as_asked"]
    (finding,) = data["findings"]
    assert (finding["solver"], finding["verdict"], finding["stored"]) == (*PLANTED_SIGNATURE, None)
    assert Instance.from_dict(finding["instance"]).n >= 3


def test_unreadable_stored_files_are_set_aside_and_reported_and_the_good_one_replayed(tmp_path):
    target = resolve_one(PLANTED_MODULE_SPEC)
    failing = Instance((0.0001, 0.0001, 0.0001), (1.0, 1.0, 1.0), 0.0)
    store = FailureStore(tmp_path / "db")
    good = store.record(check(target, failing, "tight_budget"))
    kinds = ["truncated", "null", "not UTF-8", "NaN in the instance"]
    for index, kind in enumerate(kinds):
        (good.parent / f"0000{index}-000000000-bad.json").write_bytes(BAD_FILES[kind])
    assert main(_fuzz(tmp_path, "--targets", PLANTED_MODULE_SPEC, "--families", "tiny")) == OK
    data = report(tmp_path / "out")
    assert sorted(Path(f["path"]).name for f in data["unreadable_files"]) == [f"0000{i}-000000000-bad.json" for i in range(4)]
    assert all(Path(f["moved_to"]).exists() for f in data["unreadable_files"])
    (finding,) = data["findings"]
    assert finding["replayed"] == "OVER_BUDGET" and finding["stored_before"]
    (kept,) = good.parent.iterdir()
    assert kept.name <= good.name, "the valid file, or a smaller instance that replaced it"
    assert FailureStore(tmp_path / "db").groups()[Signature(*PLANTED_SIGNATURE)].path == kept


def test_solver_chatter_goes_to_the_log_not_into_the_progress(tmp_path, register_ours, capfd):
    register_ours("planted_chatty", "planted.chatty:chatters")
    assert main(_fuzz(tmp_path, "--targets", "planted_chatty", "--families", "tiny")) == OK
    captured = capfd.readouterr()
    assert CHATTER not in captured.err and CHATTER not in captured.out
    assert "fuzzing for" in captured.err
    log = (tmp_path / "out" / "campaign.log").read_text()
    assert f"{CHATTER} (Python)" in log and f"{CHATTER} (C)" in log


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--db", "{file}/db", "--db"),
        ("--out", "{file}/out", "--out"),
        ("--db", "/proc/knapcheck-db", "--db"),
        ("--store", "{file}/store", "--store"),
        ("--db", "redis://127.0.0.1:1/0", "no Redis server"),
        ("--scheduler", "localhost", "--scheduler must be an address"),
    ],
)
def test_an_output_or_service_that_cannot_be_used_is_one_line_before_any_work(tmp_path, capfd, option, value, words):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    arguments = {"--db": str(tmp_path / "db"), "--out": str(tmp_path / "out"), "--store": str(tmp_path / "store")}
    arguments[option] = value.format(file=blocker)
    command = ["fuzz", "--time", "3s", "--targets", "full_table"]
    for name, given in arguments.items():
        command += [name, given]
    if option == "--scheduler":
        command += [option, value]
    assert main(command) == USAGE
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err
    assert not (tmp_path / "out" / "campaign.json").exists()


def test_isolated_targets_inside_dask_workers_write_the_log_up_to_its_cap_and_the_log_says_where(tmp_path, monkeypatch):
    """Isolated workers inside Dask workers wrote to campaign.log without a cap (2 MiB a call here)."""
    monkeypatch.setattr(campaign_cluster, "WORKER_LOG_LIMIT", 2**20)
    assert main(_fuzz(tmp_path, "--targets", "planted.chatty:prints_a_lot", "--families", "tiny")) == OK
    log = (tmp_path / "out" / "campaign.log").read_bytes()
    assert b"planted output" in log
    assert b"[knapcheck: log truncated at 1048576 bytes" in log
    assert len(log) < 2**20 + 2**16, "one worker's cap, and the little the campaign process itself prints"
