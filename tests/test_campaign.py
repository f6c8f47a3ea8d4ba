"""Campaigns find a planted defect, never lose a failure (not even to SIGKILL), and promote it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import test_regressions

import fuzz.campaign
import fuzz.differential
from fuzz.campaign import KNOWN, NEW, run_campaign
from fuzz.differential import check
from fuzz.regression_corpus import load_regression_corpus, promote, replay
from fuzz.store import FailureStore
from knapcheck.cli import main
from oracles.result import OracleResult
from oracles.verdict import Judgement, Verdict
from planted.off_by_one_split import off_by_one_hirschberg
from solvers.contract import Instance
from solvers.entry import SolverEntry
from solvers.registry import register, resolve, unregister

ROOT = Path(__file__).resolve().parent.parent
PLANTED = "planted_off_by_one"
PLANTED_MODULE_SPEC = "planted.off_by_one_split:off_by_one_hirschberg"
SHORT_CAMPAIGN_FAMILIES = ["tight_budget", "duplicates_ties", "quantization_edges"]
"""A nightly campaign takes every family in turn; these short ones take three where the plant is
reachable (it needs three or more items and a budget that a subset fills), a few seconds each."""


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
    command = ["fuzz", "--time", "15s", "--jobs", "1", "--seed", "0", "--db", str(db), "--out", str(out)]
    command += ["--families", *SHORT_CAMPAIGN_FAMILIES]
    assert main(command + ["--targets", PLANTED]) == 1, "exit status 1: one of our solvers failed"

    report = json.loads((out / "campaign.json").read_text())
    (finding,) = report["findings"]
    assert (finding["solver"], finding["verdict"], finding["status"], finding["ours"]) == (PLANTED, "OVER_BUDGET", NEW, True)
    assert finding["recheck"]["verdict"] == "OVER_BUDGET", "the stored instance still fails when checked again"
    assert "**NEW**" in (out / "campaign.md").read_text()
    stored = FailureStore(db).groups()
    assert list(stored) == [(PLANTED, "OVER_BUDGET")]
    assert stored[(PLANTED, "OVER_BUDGET")].instance.n <= 6, "the first failure of a signature is shrunk"

    corpus = tmp_path / "corpus.json"
    assert main(["promote", "--db", str(db), "--corpus", str(corpus)]) == 0
    (case,) = load_regression_corpus(corpus)
    assert (case.solver, case.verdict, case.ours) == (PLANTED, "OVER_BUDGET", True)
    again = replay(case)
    assert again.failed and again.verdict.value == "OVER_BUDGET"
    assert test_regressions._param(case).marks == [], "our solver's case is not an expected failure"
    with pytest.raises(AssertionError, match="OVER_BUDGET"):
        test_regressions.test_regression_case(case)
    assert promote(stored.values(), corpus) == [], "promoting twice adds nothing"


def _fuzz(db: Path, out: Path, seconds: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    command = [sys.executable, "-m", "knapcheck", "fuzz", "--time", seconds, "--jobs", "1", "--seed", "1"]
    command += ["--db", str(db), "--out", str(out), "--targets", PLANTED_MODULE_SPEC, "--families", *SHORT_CAMPAIGN_FAMILIES]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def test_sigkilled_campaign_keeps_every_reported_failure_and_the_next_run_replays_them(tmp_path):
    db = tmp_path / "db"
    campaign = _fuzz(db, tmp_path / "killed", "60s")
    reported = []
    give_up = time.monotonic() + 50
    try:
        for line in campaign.stderr:
            if line.startswith("stored "):
                reported.append(line.rsplit(" -> ", 1)[1].strip())
                break
            assert time.monotonic() < give_up, "the campaign reported no failure in 50 s"
    finally:
        os.killpg(campaign.pid, signal.SIGKILL)
    _, rest = campaign.communicate()
    reported += [line.rsplit(" -> ", 1)[1] for line in rest.splitlines() if line.startswith("stored ")]
    assert campaign.returncode == -signal.SIGKILL
    assert reported
    signatures = set()
    for path in reported:
        record = json.loads(Path(path).read_text())
        signatures.add((record["solver"], record["verdict"]))
    assert not (tmp_path / "killed" / "campaign.json").exists()

    rerun = _fuzz(db, tmp_path / "next", "3s")
    _, errors = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, errors  # a module:NAME solver is not one of ours
    report = json.loads((tmp_path / "next" / "campaign.json").read_text())
    replayed = {(f["solver"], f["verdict"]) for f in report["findings"] if f["replayed"]}
    assert signatures <= replayed
    assert {f["status"] for f in report["findings"]} == {KNOWN}
    assert f"replaying {len(signatures)} stored failures first" in errors


def test_an_oracle_shown_wrong_on_replay_is_recorded_and_the_worker_goes_on(tmp_path, monkeypatch):
    (reference,) = resolve("full_table")
    instance = Instance((0.0001,), (1.0,), 0.0001)
    stored = replace(check(reference, instance, "tiny"), judgement=Judgement(Verdict.SUBOPTIMAL, "as if once found"))
    FailureStore(tmp_path).record(stored)

    def lying_oracle(instance, **_):
        return OracleResult("lying", Fraction(0), (), proven=True)

    monkeypatch.setattr(fuzz.differential, "optimum", lying_oracle)
    monkeypatch.setattr(fuzz.campaign, "optimum", lying_oracle)
    result = run_campaign([reference], ["tiny"], 2.0, 1, tmp_path, seed_value=0)
    assert result.lost_workers == []
    records = [json.loads(path.read_text()) for path in result.oracle_disagreements]
    (replayed,) = [r for r in records if r["instance"] == instance.as_dict()]
    assert replayed["solver"] == "full_table" and replayed["message"].startswith("lying proved 0.0 optimal")
