"""Campaigns on Dask find a planted defect, on a local cluster and on one started by hand, store it,
never lose it (not even to SIGKILL), and promote it."""

from __future__ import annotations

import json
import os
import signal
import time
from fractions import Fraction

import pytest
import test_known_failures
from campaigns import (
    EAGER_PLANT,
    EAGER_SIGNATURE,
    PLANT_FAMILY,
    PLANTED_MODULE_SPEC,
    PLANTED_SIGNATURE,
    assert_all_gone,
    dask_command,
    descendants,
    read_until,
    report,
    start,
    start_scheduler,
    stop,
    stored_paths,
    stored_signatures,
)
from planted.off_by_one_split import off_by_one_hirschberg

import knapcheck.fuzz.judging.verdicts.differential
from knapcheck.commands.cli import main
from knapcheck.fuzz.campaign.events import Disagreement
from knapcheck.fuzz.campaign.promotion import promote
from knapcheck.fuzz.campaign.store import FailureStore
from knapcheck.fuzz.campaign.units import REPLAY, Setup, Unit, UnitRun
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.known import replay
from knapcheck.fuzz.judging.verdicts.gate import NEW
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.oracles.result import OracleResult
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.registry import register, resolve, unregister

PLANTED = "planted_off_by_one"


@pytest.fixture
def planted():
    entry = register(SolverEntry(PLANTED, PLANTED_MODULE_SPEC, exact=True, origin="ours"))
    yield entry
    unregister(PLANTED)


def test_planted_defect_bites_only_from_recursion_depth_two():
    """Two items never reach depth 2, so the plant is exact there; three items can overshoot."""
    assert off_by_one_hirschberg([0.0003, 0.0002], [3.0, 2.0], 0.0004) == (3.0, [0], [1])
    assert off_by_one_hirschberg([0.0001, 0.0001], [1.0, 1.0], 0.0) == (0.0, [], [0, 1])
    assert off_by_one_hirschberg([0.0001, 0.0001, 0.0001], [1.0, 1.0, 1.0], 0.0)[1] == [2]


def test_campaign_finds_planted_defect_and_promote_makes_it_a_failing_regression(planted, tmp_path):
    db, out = tmp_path / "db", tmp_path / "out"
    command = ["fuzz", "--time", "8s", "--jobs", "1", "--seed", "0", "--db", str(db), "--out", str(out)]
    command += ["--families", PLANT_FAMILY]
    assert main(command + ["--targets", PLANTED]) == 1, "exit status 1: one of our solvers failed"

    data = report(out)
    (finding,) = data["findings"]
    assert (finding["solver"], finding["verdict"], finding["status"], finding["ours"]) == (PLANTED, "OVER_BUDGET", NEW, True)
    assert finding["check"]["verdict"] == "OVER_BUDGET" and "assert weight <=" in finding["check"]["reproduction"]
    assert data["as_asked"] and not data["partial"] and data["cluster"] == "local cluster of 1 worker"
    assert "**NEW**" in (out / "campaign.md").read_text()
    (overshoot,) = data["real_budget"]
    assert (overshoot["solver"], overshoot["family"]) == (PLANTED, PLANT_FAMILY)
    assert overshoot["answers"] > 0 and overshoot["over"] > 0, "every fuzzed answer's real memory is tallied"
    stored = FailureStore(db).groups()
    assert stored_signatures(db) == [(PLANTED, "OVER_BUDGET")]
    assert stored[Signature(PLANTED, "OVER_BUDGET")].instance.n <= 6, "the first failure of a signature is shrunk"

    corpus = tmp_path / "corpus.json"
    assert main(["promote", "--db", str(db), "--corpus", str(corpus)]) == 0
    (case,) = load_known_failures(corpus)
    assert (case.solver, case.verdict, case.ours) == (PLANTED, "OVER_BUDGET", True)
    again = replay(case)
    assert again.failed and again.verdict.value == "OVER_BUDGET"
    assert test_known_failures._param(case).marks == [], "our solver's case is not an expected failure"
    with pytest.raises(AssertionError, match="OVER_BUDGET"):
        test_known_failures.test_regression_case(case)
    again = promote(stored.values(), corpus)
    assert again.added == again.replaced == [] and len(again.skipped) == 1, "promoting twice adds nothing"


def test_sigkilled_campaign_keeps_every_reported_failure_and_the_next_run_replays_them(tmp_path, capfd):
    db = tmp_path / "db"
    campaign = start("--time", "60s", "--jobs", "1", "--seed", "1", "--db", str(db), "--out", str(tmp_path / "killed"),
                     "--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY)
    seen: list[str] = []
    try:
        read_until(campaign, "stored ", seen)
        processes = descendants(campaign.pid)
    finally:
        os.killpg(campaign.pid, signal.SIGKILL)
    _, rest = campaign.communicate()
    reported = stored_paths(seen + rest.splitlines())
    assert campaign.returncode == -signal.SIGKILL
    assert reported
    signatures = set()
    for path in reported:
        record = json.loads(path.read_text())
        signatures.add((record["solver"], record["verdict"]))
    assert signatures == {PLANTED_SIGNATURE}
    assert not (tmp_path / "killed" / "campaign.json").exists()
    assert_all_gone(processes)

    rerun = ["fuzz", "--time", "3s", "--jobs", "1", "--db", str(db), "--out", str(tmp_path / "next")]
    rerun += ["--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY]
    assert main(rerun) == 0, "a module:NAME solver is not one of ours"
    errors = capfd.readouterr().err
    data = report(tmp_path / "next")
    replayed = {(f["solver"], f["verdict"]) for f in data["findings"] if f["replayed"]}
    assert signatures <= replayed
    assert {(f["status"], f["stored_before"]) for f in data["findings"]} == {(NEW, True)}, "stored before, in no corpus"
    assert f"replaying {len(signatures)} stored failures first" in errors


def test_campaign_on_a_cluster_started_by_hand_finds_and_stores_the_planted_defect(tmp_path):
    """`dask scheduler` and two `dask worker` processes, as docs/campaigns-cluster.md starts them on machines."""
    scheduler, address = start_scheduler(tmp_path)
    processes = [scheduler]
    try:
        processes += [dask_command("worker", address, "--nthreads", "1", "--no-dashboard") for _ in range(2)]
        db, out = tmp_path / "db", tmp_path / "out"
        command = ["fuzz", "--scheduler", address, "--time", "4s", "--seed", "0", "--db", str(db), "--out", str(out)]
        command += ["--targets", EAGER_PLANT, "--families", PLANT_FAMILY]
        assert main(command) == 0, "the plant is not one of our solvers"
    finally:
        stop(processes)
    data = report(out)
    assert data["cluster"] == f"scheduler {address}" and data["as_asked"]
    assert [(f["solver"], f["verdict"], f["status"]) for f in data["findings"]] == [(*EAGER_SIGNATURE, NEW)]
    assert stored_signatures(db) == [EAGER_SIGNATURE]


def test_an_oracle_shown_wrong_on_replay_is_sent_as_an_oracle_finding_and_the_unit_goes_on(monkeypatch):
    """The unit, run here as a worker runs it: a lying oracle on a replayed failure is reported,
    and the replay carries on (the campaign process stores it under oracle-disagreements/)."""
    (reference,) = resolve("full_table")
    instance = Instance((0.0001,), (1.0,), 0.0001)

    def lying_oracle(instance, **_):
        return OracleResult("lying", Fraction(0), (), proven=True)

    monkeypatch.setattr(knapcheck.fuzz.judging.verdicts.differential, "optimum", lying_oracle)
    setup = Setup((reference,), time.time() + 60, None, "", "", 5.0)
    replays = ((Signature("full_table", "SUBOPTIMAL"), "tiny", instance.as_dict()),) * 2
    events = []
    UnitRun(setup, Unit(1, REPLAY, replays=replays), events.append, lambda: False).run()
    disagreements = [e for e in events if isinstance(e, Disagreement)]
    assert len(disagreements) == 2, "the second replay ran too"
    assert disagreements[0].solver == "full_table" and disagreements[0].instance == instance
    assert disagreements[0].message.startswith("lying proved 0.0 optimal")


def test_a_campaign_samples_only_the_sampled_families_unless_an_enumerated_one_is_named(tmp_path):
    """The enumerated families are fixed lists that check and report always take in full: a campaign
    drawing from them at random re-ran the same instances slice after slice."""
    from knapcheck.commands.cli import build_parser
    from knapcheck.commands.fuzz_command import _plan
    from knapcheck.fuzz.instances import families

    arguments = ["fuzz", "--time", "1s", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"), "--targets", "full_table"]
    plan = _plan(build_parser("fuzz").parse_args(arguments))
    assert plan.families == families.names(enumerated=False) and plan.listed == []
    plan = _plan(build_parser("fuzz").parse_args(arguments + ["--families", "tiny", "large_capacity"]))
    assert (plan.sampled, plan.listed) == (["tiny"], ["large_capacity"])


def test_an_enumerated_family_named_is_checked_once_in_full_and_the_campaign_ends_when_it_is_done(tmp_path, capfd):
    db, out = tmp_path / "db", tmp_path / "out"
    command = ["fuzz", "--time", "10m", "--jobs", "1", "--seed", "0", "--db", str(db), "--out", str(out)]
    assert main(command + ["--targets", "sliding_hirschberg", "--families", "large_capacity"]) == 0
    data = report(out)
    assert data["cases"] == 144 and data["elapsed_s"] < 300 and data["as_asked"]
    assert "no sampled family to draw from" in capfd.readouterr().err
